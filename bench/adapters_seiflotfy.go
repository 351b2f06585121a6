package main

import seiflotfy "github.com/seiflotfy/cuckoofilter"

// github.com/seiflotfy/cuckoofilter: 8-bit fingerprints, 4-slot buckets,
// capacity rounded up to a power of two; the rate is not a parameter
// (8 * load / 255: about 3% at the loads it runs at).
var seiflotfySpec = spec{
	name:  "seiflotfy/cuckoofilter",
	rates: []float64{0.03},
	fixed: true,
	u64:   newSeiflotfy[uint64],
	str:   newSeiflotfy[string],
}

type seiflotfySet struct{ f *seiflotfy.Filter }

func (s seiflotfySet) insertBytes(b []byte) bool   { return s.f.Insert(b) }
func (s seiflotfySet) containsBytes(b []byte) bool { return s.f.Lookup(b) }

func newSeiflotfy[K Key](capacity int, _ float64, _ []K) (Filter[K], error) {
	return newBytesFilter[K](seiflotfySet{seiflotfy.NewFilter(uint(capacity))}), nil
}
