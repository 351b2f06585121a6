package cuckoo

import (
	"fmt"
	"testing"
)

// Benchmarks of every probe implementation, per width and size:
//
//	go test -run XXX -bench 'Impl' -count 6 | benchstat -col /impl -
var implWidths = []int{8, 12, 13, 16, 17, 32}

// benchWidthFilter is a filter of n uint64 keys 0..n-1 with f-bit fingerprints.
func benchWidthFilter(b *testing.B, n, f int) *Filter[uint64] {
	name := fmt.Sprintf("width/%d/%d", n, f)
	if e, ok := benchCache[name].(*Filter[uint64]); ok {
		return e
	}
	clear(benchCache)
	flt := mustNew[uint64](b, Config{Capacity: n, FingerprintBits: f})
	for i := range n {
		if err := flt.Insert(uint64(i)); err != nil {
			b.Fatal(err)
		}
	}
	benchCache[name] = flt
	return flt
}

func BenchmarkImpl(b *testing.B) {
	for _, n := range benchSizes {
		for _, f := range implWidths {
			for _, p := range implementations() {
				prefix := fmt.Sprintf("f=%d/%s/impl=%s", f, sizeName(n), p.name)
				b.Run("Batch/"+prefix, func(b *testing.B) {
					defer setImpl(p)()
					flt := benchWidthFilter(b, n, f)
					keys := benchKeys[uint64](n, 0)
					const batch = 1024
					found := make([]bool, batch)
					for i := 0; b.Loop(); i++ {
						off := (i * batch) & (n - 1)
						if flt.ContainsBatch(keys[off:off+batch], found) != batch {
							b.Fatal("batch missed")
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/key")
				})
				b.Run("Single/"+prefix, func(b *testing.B) {
					// generic: Contains; assembly: a batch of one key, the
					// cost of a single lookup through an assembly call.
					defer setImpl(p)()
					flt := benchWidthFilter(b, n, f)
					mask := n - 1
					found := 0
					var one [1]uint64
					for i := 0; b.Loop(); i++ {
						if p.batch {
							one[0] = flt.Hash(uint64(i & mask))
							found += flt.ContainsHashBatch(one[:], nil)
						} else if flt.Contains(uint64(i & mask)) {
							found++
						}
					}
					if found != b.N {
						b.Fatal("missed")
					}
				})
				b.Run("BatchMiss/"+prefix, func(b *testing.B) {
					defer setImpl(p)()
					flt := benchWidthFilter(b, n, f)
					const batch = 1024
					keys := benchKeys[uint64](batch*64, n)
					found := make([]bool, batch)
					for i := 0; b.Loop(); i++ {
						off := (i * batch) & (len(keys) - 1)
						flt.ContainsBatch(keys[off:off+batch], found)
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/key")
				})
			}
		}
	}
}
