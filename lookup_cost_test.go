package cuckoo

import (
	"fmt"
	"testing"
)

// BenchmarkLookupCost splits the time of a single packed lookup (f = 8,
// uint64 keys, every lookup a hit) into what the code around it costs and
// what the hash costs, on one filled filter:
//
//	go test -run '^$' -bench LookupCost -count 6 | benchstat -col /op -
//
// Each op is a pass over 1M of the inserted keys, in a loop as a caller
// writes it (ns/key is per lookup):
//
//   - op=Contains: the method.
//   - op=leaf: the same computation (this package's hash, locate, alt and
//     the test of both buckets) in a function with no frame and no
//     dispatch, called once a key: what Contains would cost if Go could
//     make it a leaf. It cannot: the string and keyed paths make calls, and
//     choosing a leaf per filter through a function value makes the key
//     escape to the heap.
//   - op=inline: that computation inlined into the loop, as the C++
//     inlines its lookup: what it would cost within Go's inlining budget,
//     which it is far over.
//   - op=mulhash: op=leaf with mulHash instead of xxh3, on a filter filled
//     with InsertHash(mulHash(key)), so its lookups are hits too: what the
//     hash costs. TestStructuredKeys shows what such a hash does to the
//     false-positive rate.
func BenchmarkLookupCost(b *testing.B) {
	for _, n := range benchSizes {
		var plain, muled *Filter[uint64]
		keys := benchKeys[uint64](min(n, 1<<20), 0)
		build := func(b *testing.B) {
			if plain != nil {
				return
			}
			clear(benchCache)
			plain = mustNew[uint64](b, Config{Capacity: n, FingerprintBits: 8})
			muled = mustNew[uint64](b, Config{Capacity: n, FingerprintBits: 8})
			for i := range n {
				if plain.Insert(uint64(i)) != nil || muled.InsertHash(mulHash(uint64(i))) != nil {
					b.Fatal("fill failed")
				}
			}
		}
		ops := []struct {
			name string
			run  func() int
		}{
			{"Contains", func() int { return costContains(plain, keys) }},
			{"leaf", func() int { return costLeafLoop(&plain.c.reader, keys) }},
			{"inline", func() int { return costInline(&plain.c.reader, keys) }},
			{"mulhash", func() int { return costMulLeafLoop(&muled.c.t, keys) }},
		}
		for _, op := range ops {
			b.Run(fmt.Sprintf("f=8/%s/op=%s", sizeName(n), op.name), func(b *testing.B) {
				build(b)
				for b.Loop() {
					if op.run() != len(keys) {
						b.Fatal("a key was not found")
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(keys)), "ns/key")
			})
		}
	}
}

//go:noinline
func costContains(f *Filter[uint64], keys []uint64) int {
	n := 0
	for _, k := range keys {
		if f.Contains(k) {
			n++
		}
	}
	return n
}

//go:noinline
func costLeafLoop(r *reader, keys []uint64) int {
	n := 0
	for _, k := range keys {
		if costLeaf(r, k) {
			n++
		}
	}
	return n
}

//go:noinline
func costMulLeafLoop(t *table, keys []uint64) int {
	n := 0
	for _, k := range keys {
		if costMulLeaf(t, k) {
			n++
		}
	}
	return n
}

// costLeaf is lookup for uint64 keys of a packed f = 8 table with nothing
// else: no dispatch, no frame.
//
//go:noinline
func costLeaf(r *reader, k uint64) bool {
	fp, i1 := r.t.locate(r.h.u64(k))
	return has8(r.t.data, i1, r.t.alt(i1, fp), fp)
}

// costMulLeaf is costLeaf with mulHash.
//
//go:noinline
func costMulLeaf(t *table, k uint64) bool {
	fp, i1 := t.locate(mulHash(k))
	return has8(t.data, i1, t.alt(i1, fp), fp)
}

//go:noinline
func costInline(r *reader, keys []uint64) int {
	n := 0
	for _, k := range keys {
		fp, i1 := r.t.locate(r.h.u64(k))
		if has8(r.t.data, i1, r.t.alt(i1, fp), fp) {
			n++
		}
	}
	return n
}
