package main

import "github.com/bits-and-blooms/bloom/v3"

// github.com/bits-and-blooms/bloom/v3, sized by NewWithEstimates(n, rate).
// Inserts never fail.
var bloomSpec = spec{
	name:  "bits-and-blooms/bloom",
	rates: targets,
	u64:   newBloom[uint64],
	str:   newBloom[string],
}

type bloomSet struct{ f *bloom.BloomFilter }

func (s bloomSet) insertBytes(b []byte) bool   { s.f.Add(b); return true }
func (s bloomSet) containsBytes(b []byte) bool { return s.f.Test(b) }

func newBloom[K Key](capacity int, rate float64, _ []K) (Filter[K], error) {
	return newBytesFilter[K](bloomSet{bloom.NewWithEstimates(uint(capacity), rate)}), nil
}
