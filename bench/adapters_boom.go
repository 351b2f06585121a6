package main

import (
	"fmt"

	boom "github.com/tylertreat/BoomFilters"
)

// github.com/tylertreat/BoomFilters CuckooFilter. It rounds 8*n/f buckets up
// to a power of two, with f whole fingerprint bytes (1 for any rate above
// about 3e-4), and stores every bucket as a [][]byte, every fingerprint as
// its own allocation: about 120 bytes per bucket. Both our targets give the
// same f, so it runs once; sizes whose estimate passes memLimit are refused.
var boomSpec = spec{
	name:  "BoomFilters/CuckooFilter",
	rates: []float64{0.03},
	u64:   newBoom[uint64],
	str:   newBoom[string],
}

type boomSet struct{ f *boom.CuckooFilter }

func (s boomSet) insertBytes(b []byte) bool   { return s.f.Add(b) == nil }
func (s boomSet) containsBytes(b []byte) bool { return s.f.Test(b) }

// boomBytes estimates the heap a BoomFilters CuckooFilter of n 1-byte
// fingerprints takes: buckets of a slice header and 4 entry headers, and
// an 8-byte allocation per stored fingerprint.
func boomBytes(n int) int64 {
	m := int64(1)
	for m < 8*int64(n) {
		m <<= 1
	}
	return m*(24+4*24) + 8*int64(n)
}

func newBoom[K Key](capacity int, rate float64, _ []K) (Filter[K], error) {
	if need := boomBytes(capacity); need > memLimit {
		return nil, fmt.Errorf("needs about %.1f GiB (limit %.1f GiB, -memlimit)", gib(need), gib(memLimit))
	}
	return newBytesFilter[K](boomSet{boom.NewCuckooFilter(uint(capacity), rate)}), nil
}
