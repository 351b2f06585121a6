package main

import "github.com/bits-and-blooms/bloom/v3"

// github.com/bits-and-blooms/bloom/v3, sized by NewWithEstimates. Inserts
// never fail.

var bloomSpec = spec{
	name:  "bits-and-blooms/bloom",
	rates: targets,
	u64:   newBloom[uint64],
	str:   newBloom[string],
}

type bloomFilter[K Key] struct {
	f   *bloom.BloomFilter
	buf *[8]byte
}

func newBloom[K Key](capacity int, rate float64, _ []K) (Filter[K], error) {
	return bloomFilter[K]{bloom.NewWithEstimates(uint(capacity), rate), new([8]byte)}, nil
}

func (a bloomFilter[K]) Insert(key K) bool   { a.f.Add(keyBytes(key, a.buf)); return true }
func (a bloomFilter[K]) Contains(key K) bool { return a.f.Test(keyBytes(key, a.buf)) }
