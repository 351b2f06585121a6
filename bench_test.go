package cuckoo

import (
	"fmt"
	"testing"
)

// Benchmarks: go test -run XXX -bench . -count 6 | benchstat -
// Filters are built once per size and key type and shared between runs.

var benchSizes = []int{1 << 20, 32 << 20}

type benchKey interface{ uint64 | string }

// benchKeys returns n distinct keys; hit keys are 0..n-1, miss keys n..2n-1.
func benchKeys[T benchKey](n, from int) []T {
	keys := make([]T, n)
	for i := range keys {
		var k any
		switch any(keys[0]).(type) {
		case uint64:
			k = uint64(from + i)
		case string:
			k = fmt.Sprintf("key:%012d", from+i) // 16 bytes
		}
		keys[i] = k.(T)
	}
	return keys
}

var benchCache = map[string]any{}

// benchFilter is a filter of n keys at its capacity, with its hit and miss keys.
func benchFilter[T benchKey](b *testing.B, n int, layout Layout) (*Filter[T], []T, []T) {
	name := fmt.Sprintf("%T/%d/%v", *new(T), n, layout)
	type entry struct {
		f          *Filter[T]
		hits, miss []T
	}
	if e, ok := benchCache[name].(entry); ok {
		return e.f, e.hits, e.miss
	}
	clear(benchCache) // keep one large filter in memory at a time
	f := mustNew[T](b, Config{Capacity: n, Layout: layout})
	hits, miss := benchKeys[T](n, 0), benchKeys[T](n, n)
	for _, k := range hits {
		if err := f.Insert(k); err != nil {
			b.Fatal(err)
		}
	}
	benchCache[name] = entry{f, hits, miss}
	return f, hits, miss
}

func sizeName(n int) string { return fmt.Sprintf("%dM", n>>20) }

func BenchmarkContains(b *testing.B) {
	for _, layout := range layouts {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("%v/uint64/%s", layout, sizeName(n)), func(b *testing.B) { benchContains[uint64](b, n, layout) })
			b.Run(fmt.Sprintf("%v/string16/%s", layout, sizeName(n)), func(b *testing.B) { benchContains[string](b, n, layout) })
		}
	}
}

func benchContains[T benchKey](b *testing.B, n int, layout Layout) {
	f, hits, miss := benchFilter[T](b, n, layout)
	for _, c := range []struct {
		name string
		keys []T
	}{{"hit", hits}, {"miss", miss}} {
		b.Run(c.name, func(b *testing.B) {
			found := 0
			mask := len(c.keys) - 1 // sizes are powers of two
			for i := 0; b.Loop(); i++ {
				if f.Contains(c.keys[i&mask]) {
					found++
				}
			}
			if c.name == "hit" && found != b.N {
				b.Fatalf("%d of %d hits found", found, b.N)
			}
		})
	}
}

func BenchmarkContainsBatch(b *testing.B) {
	for _, layout := range layouts {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("%v/uint64/%s", layout, sizeName(n)), func(b *testing.B) {
				f, hits, _ := benchFilter[uint64](b, n, layout)
				const batch = 1024
				found := make([]bool, batch)
				for i := 0; b.Loop(); i++ {
					off := (i * batch) & (len(hits) - 1)
					if f.ContainsBatch(hits[off:off+batch], found) != batch {
						b.Fatal("batch missed")
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/key")
			})
		}
	}
}

func BenchmarkInsert(b *testing.B) {
	for _, layout := range layouts {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("%v/uint64/%s", layout, sizeName(n)), func(b *testing.B) {
				// Fills filters to capacity over and over: the time per key
				// includes the displacements near full load. Each op is a
				// batch of keys, inserted by a loop of Insert (op=loop) or
				// by InsertBatch (op=batch); compare with benchstat -col /op.
				f := mustNew[uint64](b, Config{Capacity: n, Layout: layout})
				keys := benchKeys[uint64](n, 0)
				const batch = 1024
				for _, op := range []string{"loop", "batch"} {
					b.Run("op="+op, func(b *testing.B) {
						f.Reset()
						off := 0
						for b.Loop() {
							if off+batch > n {
								f.Reset()
								off = 0
							}
							chunk := keys[off : off+batch]
							off += batch
							if op == "batch" {
								if _, err := f.InsertBatch(chunk); err != nil {
									b.Fatal(err)
								}
								continue
							}
							for _, k := range chunk {
								if err := f.Insert(k); err != nil {
									b.Fatal(err)
								}
							}
						}
						b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/key")
					})
				}
			})
		}
	}
}

func BenchmarkDelete(b *testing.B) {
	for _, layout := range layouts {
		n := benchSizes[0]
		b.Run(fmt.Sprintf("%v/uint64/%s", layout, sizeName(n)), func(b *testing.B) {
			f := mustNew[uint64](b, Config{Capacity: n, Layout: layout})
			keys := benchKeys[uint64](n, 0)
			for i := 0; b.Loop(); i++ {
				if i%n == 0 {
					b.StopTimer()
					for _, k := range keys {
						_ = f.Insert(k)
					}
					b.StartTimer()
				}
				if !f.Delete(keys[i%n]) {
					b.Fatal("delete failed")
				}
			}
		})
	}
}

var floorSink uint64

// BenchmarkLookupFloor puts reference loops beside the real lookups on the
// same filter: op=floor is the key's hash (xxh3) and two independent random
// 8-byte loads from the table of a filled filter, with no alternate-bucket
// arithmetic and no fingerprint test; op=chase is one memory latency, a
// hash and a load whose position depends on the previous load; op=Contains
// and op=ContainsBatch are the lookups (ns/op is per key for all four):
//
//	go test -run XXX -bench LookupFloor -count 6 | benchstat -col /op -
//
// "floor" is no lower bound for a lookup: a cheaper hash, or one call
// less, beats it (the README's "Performance" compares with the paper's
// C++). It shows how far the lookup's own arithmetic is from its loads.
func BenchmarkLookupFloor(b *testing.B) {
	for _, n := range benchSizes {
		for _, f := range []int{8, 13} {
			prefix := fmt.Sprintf("f=%d/%s/op=", f, sizeName(n))
			mask := uint64(n - 1)
			b.Run(prefix+"floor", func(b *testing.B) {
				flt := benchWidthFilter(b, n, f) // filled: every page is real memory
				data, words := flt.c.t.data, uint64(len(flt.c.t.data)-tablePad)/8
				var sum uint64
				for i := uint64(0); b.Loop(); i++ {
					h := flt.c.h.u64(i & mask)
					p1, p2 := (h>>32)*words>>32, (h&0xffffffff)*words>>32
					sum += load64At(data, p1*8) ^ load64At(data, p2*8)
				}
				floorSink = sum
			})
			b.Run(prefix+"chase", func(b *testing.B) {
				// One memory latency a key: each load's position
				// depends on the value the previous load returned.
				flt := benchWidthFilter(b, n, f)
				data, words := flt.c.t.data, uint64(len(flt.c.t.data)-tablePad)/8
				var v uint64
				for i := uint64(0); b.Loop(); i++ {
					h := flt.c.h.u64(i ^ v)
					v = load64At(data, ((h>>32)*words>>32)*8)
				}
				floorSink = v
			})
			b.Run(prefix+"Contains", func(b *testing.B) {
				flt := benchWidthFilter(b, n, f)
				found := 0
				for i := uint64(0); b.Loop(); i++ {
					if flt.Contains(i & mask) {
						found++
					}
				}
				if found != b.N {
					b.Fatal("missed")
				}
			})
			b.Run(prefix+"ContainsBatch", func(b *testing.B) {
				flt := benchWidthFilter(b, n, f)
				keys := benchKeys[uint64](n, 0)
				const batch = 1024
				found := make([]bool, batch)
				b.ResetTimer()
				for done := 0; done < b.N; done += batch {
					off := done & (n - 1)
					m := min(batch, b.N-done)
					if flt.ContainsBatch(keys[off:off+m], found) != m {
						b.Fatal("batch missed")
					}
				}
			})
		}
	}
}
