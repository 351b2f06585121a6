package main

import (
	"math"
	"testing"
)

// TestBoomBytes checks the heap the harness measures for a BoomFilters
// CuckooFilter against what its layout takes (boomBytes): the thousands of
// bits per key are the filter's, not the measurement's.
func TestBoomBytes(t *testing.T) {
	for _, n := range []int{10_000, 70_000} {
		for _, keys := range []string{"uint64", "string"} {
			var bytes int64
			var err error
			if keys == "uint64" {
				ks := newUint64Keys(1, n, 1)
				_, _, _, bytes, err = build(boomSpec, boomSpec.u64, 0.03, ks.hits, make([]bool, n))
			} else {
				ks := newStringKeys(1, n, 1)
				_, _, _, bytes, err = build(boomSpec, boomSpec.str, 0.03, ks.hits, make([]bool, n))
			}
			if err != nil {
				t.Fatal(err)
			}
			got, want := float64(8*bytes)/float64(n), float64(8*boomBytes(n, 0.03))/float64(n)
			if math.Abs(got-want) > 0.002*want {
				t.Errorf("%s keys, n=%d: measured %.2f bits/key, its layout takes %.2f", keys, n, got, want)
			}
		}
	}
}

// TestBoomLayout checks boomLayout against the library's own count.
func TestBoomLayout(t *testing.T) {
	for _, n := range []int{1, 1000, 100_000, 1_000_000} {
		for _, rate := range []float64{0.03, 0.001, 1e-7} {
			buckets, _ := boomLayout(n, rate)
			f, err := newBoom[uint64](n, rate, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := int64(f.(bytesFilter[uint64, boomSet]).s.f.Buckets()); got != buckets {
				t.Errorf("n=%d, rate %g: %d buckets, boomLayout says %d", n, rate, got, buckets)
			}
		}
	}
}
