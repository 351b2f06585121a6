package cuckoo

import (
	"fmt"
	"math"
	"math/bits"
	"testing"
)

// mulHash is a one-multiply hash of an integer key: the 128-bit product of
// the key (xored with a seed) and an odd constant, its halves folded: the
// cost of the C++ of the paper's authors, whose integer hash is one
// multiply and an add. This package does not use it: BenchmarkLookupCost
// times it, and TestStructuredKeys shows why.
func mulHash(k uint64) uint64 {
	hi, lo := bits.Mul64(k^DefaultSeed, 0x9fb21c651e98df25)
	return hi ^ lo
}

// TestStructuredKeys checks the false-positive rate where keys are not
// random: consecutive integers (row ids), multiples of 8 (aligned
// offsets) and of 4096 (page addresses), stored and then queried with the
// next n keys of the same pattern. The count of false positives must be
// within five standard deviations of the binomial count the rate predicts,
// as TestFalsePositiveRate asks of random queries.
//
// The same check applied to mulHash, a hash with one multiply, must fail:
// that shows the check can fail, and it is why the filter pays for xxh3's
// second multiply (BenchmarkLookupCost measures what it costs).
func TestStructuredKeys(t *testing.T) {
	n := 100_000
	if testing.Short() {
		n = 30_000
	}
	type count struct {
		hits int
		p    float64
	}
	check := func(f, stride int, hashed bool) count {
		flt := mustNew[uint64](t, Config{Capacity: n, FingerprintBits: f})
		for i := range n {
			k := uint64(i * stride)
			var err error
			if hashed {
				err = flt.InsertHash(mulHash(k))
			} else {
				err = flt.Insert(k)
			}
			if err != nil {
				t.Fatalf("f=%d stride %d: insert %d: %v", f, stride, i, err)
			}
		}
		hits := 0
		for i := n; i < 2*n; i++ {
			k := uint64(i * stride)
			if !hashed && flt.Contains(k) || hashed && flt.ContainsHash(mulHash(k)) {
				hits++
			}
		}
		return count{hits, falsePositiveRate(uint(f), flt.LoadFactor())}
	}
	within := func(c count) (bool, string) {
		mean := c.p * float64(n)
		slack := 5*math.Sqrt(mean*(1-c.p)) + 1
		return math.Abs(float64(c.hits)-mean) <= slack,
			fmt.Sprintf("%d false positives in %d queries, expected %.1f ± %.1f (ratio %.2f)", c.hits, n, mean, slack, float64(c.hits)/mean)
	}
	controlFailed := 0
	for _, f := range []int{8, 12, 16} {
		for _, stride := range []int{1, 8, 4096} {
			ok, msg := within(check(f, stride, false))
			if !ok {
				t.Errorf("f=%d stride %d: %s", f, stride, msg)
			}
			if ok, msg := within(check(f, stride, true)); !ok {
				controlFailed++
				t.Logf("control, one-multiply hash: f=%d stride %d: %s", f, stride, msg)
			}
		}
	}
	if controlFailed == 0 {
		t.Error("the one-multiply hash passed every check: the check cannot tell a weak hash")
	}
}

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
	return probe8(&r.t, i1, r.t.alt(i1, fp), fp)
}

// costMulLeaf is costLeaf with mulHash.
//
//go:noinline
func costMulLeaf(t *table, k uint64) bool {
	fp, i1 := t.locate(mulHash(k))
	return probe8(t, i1, t.alt(i1, fp), fp)
}

//go:noinline
func costInline(r *reader, keys []uint64) int {
	n := 0
	for _, k := range keys {
		fp, i1 := r.t.locate(r.h.u64(k))
		if probe8(&r.t, i1, r.t.alt(i1, fp), fp) {
			n++
		}
	}
	return n
}

// probe8 is lookup's class8 test of buckets i1 and i2.
func probe8(t *table, i1, i2 uint64, fp uint32) bool {
	x := (uint64(load32At(t.data, i1*4)) | uint64(load32At(t.data, i2*4))<<32) ^ uint64(fp)*ones8
	return (x-ones8)&^x&tops8 != 0
}
