package main

import seiflotfy "github.com/seiflotfy/cuckoofilter"

// github.com/seiflotfy/cuckoofilter: 8-bit fingerprints, 4-slot buckets,
// capacity rounded up to a power of two; the rate is not a parameter.
// (8 * load / 255 is about 3% at the loads it runs at.)

var seiflotfySpec = spec{
	name:  "seiflotfy/cuckoofilter",
	rates: []float64{0.03},
	fixed: true,
	u64:   newSeiflotfy[uint64],
	str:   newSeiflotfy[string],
}

type seiflotfyFilter[K Key] struct {
	f   *seiflotfy.Filter
	buf *[8]byte
}

func newSeiflotfy[K Key](capacity int, _ float64, _ []K) (Filter[K], error) {
	return seiflotfyFilter[K]{seiflotfy.NewFilter(uint(capacity)), new([8]byte)}, nil
}

func (a seiflotfyFilter[K]) Insert(key K) bool   { return a.f.Insert(keyBytes(key, a.buf)) }
func (a seiflotfyFilter[K]) Contains(key K) bool { return a.f.Lookup(keyBytes(key, a.buf)) }
