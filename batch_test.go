package cuckoo

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"testing"
)

// TestInsertBatchLikeLoop checks that InsertBatch and InsertHashBatch leave
// a filter byte for byte as a loop of Insert does, and stop where it first
// fails with the same error: at capacity and beyond (ErrFull), and on a key
// repeated past what its buckets hold (ErrTooManyDuplicates), for both
// layouts, several widths and every implementation, with the walks'
// prefetch (taken from a size on, walkPrefetchMin) and without.
func TestInsertBatchLikeLoop(t *testing.T) {
	defer func(old int) { walkPrefetchMin = old }(walkPrefetchMin)
	forEachLayout(t, func(t *testing.T, layout Layout) {
		forEachImpl(t, func(t *testing.T) {
			for _, w := range []struct {
				bits, prefetchMin int
			}{{4, 0}, {8, 0}, {8, math.MaxInt}, {11, 0}, {13, 0}, {13, math.MaxInt}, {16, 0}, {17, 0}, {32, 0}} {
				bits := w.bits
				walkPrefetchMin = w.prefetchMin
				cfg := Config{Capacity: 3000, FingerprintBits: bits, Layout: layout, Seed: uint64(bits)}
				keys := make([]uint64, 2*cfg.Capacity) // past what fits: the loop meets ErrFull
				for i := range keys {
					keys[i] = uint64(i) * 0x9e3779b97f4a7c15
				}
				dup := append(keys[:100:100], make([]uint64, 20)...) // 20 copies of 0 after 100 keys
				for _, c := range []struct {
					name string
					keys []uint64
				}{{"overfill", keys}, {"duplicates", dup}} {
					loop := mustNew[uint64](t, cfg)
					want, wantErr := len(c.keys), error(nil)
					for i, k := range c.keys {
						if err := loop.Insert(k); err != nil {
							want, wantErr = i, err
							break
						}
					}
					if c.name == "overfill" && !errors.Is(wantErr, ErrFull) || c.name == "duplicates" && !errors.Is(wantErr, ErrTooManyDuplicates) {
						t.Fatalf("f=%d %s: the loop stopped at %d with %v; the test needs a failure", bits, c.name, want, wantErr)
					}
					batch := mustNew[uint64](t, cfg)
					n, err := batch.InsertBatch(c.keys)
					hashed := mustNew[uint64](t, cfg)
					hs := make([]uint64, len(c.keys))
					for i, k := range c.keys {
						hs[i] = hashed.Hash(k)
					}
					hn, herr := hashed.InsertHashBatch(hs)
					for _, r := range []struct {
						name string
						f    *Filter[uint64]
						n    int
						err  error
					}{{"InsertBatch", batch, n, err}, {"InsertHashBatch", hashed, hn, herr}} {
						if r.n != want || !errors.Is(r.err, wantErr) || (r.err == nil) != (wantErr == nil) {
							t.Fatalf("f=%d %s %s: (%d, %v), the loop (%d, %v)", bits, c.name, r.name, r.n, r.err, want, wantErr)
						}
						if r.f.Len() != loop.Len() || !bytes.Equal(r.f.c.t.data, loop.c.t.data) || r.f.c.rng != loop.c.rng {
							t.Fatalf("f=%d %s %s: the table differs from the loop's", bits, c.name, r.name)
						}
						// The walks prefetched are kickNarrow's and kickSemi's.
						wantAhead := w.prefetchMin == 0 && haveAsm && useBatchAsm && bits <= 16 && (layout == Packed || bits > 4)
						if r.f.c.walkAhead() != wantAhead {
							t.Fatalf("f=%d: walkAhead %v with walkPrefetchMin %d", bits, r.f.c.walkAhead(), w.prefetchMin)
						}
					}
				}
			}
		})
	})
}

// TestInsertBatchStrings runs InsertBatch on keys that are hashed one by one
// (strings), across a hash block boundary.
func TestInsertBatchStrings(t *testing.T) {
	keys := make([]string, 3*hashBlock+7)
	for i := range keys {
		keys[i] = string(rune('a'+i%26)) + string(rune(i))
	}
	f := mustNew[string](t, Config{Capacity: len(keys)})
	if n, err := f.InsertBatch(keys); n != len(keys) || err != nil {
		t.Fatalf("InsertBatch: %d, %v", n, err)
	}
	for _, k := range keys {
		if !f.Contains(k) {
			t.Fatalf("%q lost", k)
		}
	}
	if n, err := f.InsertBatch(nil); n != 0 || err != nil {
		t.Fatalf("empty batch: %d, %v", n, err)
	}
}

// BenchmarkInsertBatchPrefetch fills filters of several sizes to capacity
// with one InsertBatch, with the walks' prefetch (pf=on) and without
// (pf=off), whatever walkPrefetchMin would choose, so that the threshold
// can be checked on a machine:
//
//	go test -run '^$' -bench InsertBatchPrefetch -benchtime 1x -count 3 | benchstat -col /pf -
func BenchmarkInsertBatchPrefetch(b *testing.B) {
	defer func(old int) { walkPrefetchMin = old }(walkPrefetchMin)
	for _, n := range []int{1 << 20, 8 << 20, 16 << 20, 32 << 20} {
		keys := benchKeys[uint64](n, 0)
		for _, c := range []struct {
			layout Layout
			bits   int
		}{{Packed, 12}, {SemiSorted, 13}} {
			f := mustNew[uint64](b, Config{Capacity: n, Layout: c.layout, FingerprintBits: c.bits})
			f.Reset() // the table's first writes, and their page faults, before any timing
			for _, pf := range []string{"off", "on"} {
				b.Run(fmt.Sprintf("%v/f=%d/%s/pf=%s", c.layout, c.bits, sizeName(n), pf), func(b *testing.B) {
					walkPrefetchMin = 0
					if pf == "off" {
						walkPrefetchMin = math.MaxInt
					}
					for b.Loop() {
						f.Reset()
						if _, err := f.InsertBatch(keys); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/key")
				})
			}
		}
	}
}
