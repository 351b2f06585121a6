package cuckoo

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// Benchmarks of the ConcurrentFilter against the Filter, each pair side by
// side in one run (the README, "Concurrency", has the command and figures):
//
//	go test -run XXX -bench Concurrent -count 8 | tee conc.txt
//	benchstat -col /impl conc.txt
//
// All use 1M uint64 keys, filters at capacity; ns/op is per key, reads
// counted over all reader goroutines together.

const concBenchN = 1 << 20

// concBenchShapes are the (layout, width) pairs measured: the three packed
// probe classes and the semi-sorted one, at the default width or near it.
var concBenchShapes = []struct {
	layout Layout
	f      int
}{{Packed, 8}, {Packed, 13}, {Packed, 16}, {SemiSorted, 13}}

// concBenchFilters returns a Filter of n keys at capacity and a
// ConcurrentFilter holding a copy of it: the same table, read by each.
func concBenchFilters(b *testing.B, n int, layout Layout, f int) (*Filter[uint64], *ConcurrentFilter[uint64]) {
	name := fmt.Sprintf("conc/%d/%v/%d", n, layout, f)
	type entry struct {
		f *Filter[uint64]
		c *ConcurrentFilter[uint64]
	}
	if e, ok := benchCache[name].(entry); ok {
		return e.f, e.c
	}
	clear(benchCache)
	flt := mustNew[uint64](b, Config{Capacity: n, FingerprintBits: f, Layout: layout})
	for i := range uint64(n) {
		if err := flt.Insert(i); err != nil {
			b.Fatal(err)
		}
	}
	e := entry{flt, NewConcurrentFrom(flt)}
	benchCache[name] = e
	return e.f, e.c
}

// BenchmarkConcurrentContains: one goroutine, Filter.Contains against
// ConcurrentFilter.Contains on the same table (target: at most 1.3x), and
// the two ContainsBatch.
func BenchmarkConcurrentContains(b *testing.B) {
	for _, sh := range concBenchShapes {
		prefix := fmt.Sprintf("%v/f=%d/%s", sh.layout, sh.f, sizeName(concBenchN))
		for _, kind := range []string{"hit", "miss"} {
			from := uint64(0)
			if kind == "miss" {
				from = concBenchN
			}
			mask := uint64(concBenchN - 1)
			b.Run(prefix+"/"+kind+"/impl=filter", func(b *testing.B) {
				f, _ := concBenchFilters(b, concBenchN, sh.layout, sh.f)
				found := 0
				for i := uint64(0); b.Loop(); i++ {
					if f.Contains(from + i*0x9e3779b1&mask) {
						found++
					}
				}
				checkFound(b, kind, found)
			})
			b.Run(prefix+"/"+kind+"/impl=concurrent", func(b *testing.B) {
				_, c := concBenchFilters(b, concBenchN, sh.layout, sh.f)
				found := 0
				for i := uint64(0); b.Loop(); i++ {
					if c.Contains(from + i*0x9e3779b1&mask) {
						found++
					}
				}
				checkFound(b, kind, found)
			})
		}
		keys := benchKeys[uint64](concBenchN, 0)
		const batch = 1024
		found := make([]bool, batch)
		b.Run(prefix+"/batch/impl=filter", func(b *testing.B) {
			f, _ := concBenchFilters(b, concBenchN, sh.layout, sh.f)
			for i := 0; b.Loop(); i++ {
				off := i * batch & (concBenchN - 1)
				f.ContainsBatch(keys[off:off+batch], found)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/key")
		})
		b.Run(prefix+"/batch/impl=concurrent", func(b *testing.B) {
			_, c := concBenchFilters(b, concBenchN, sh.layout, sh.f)
			for i := 0; b.Loop(); i++ {
				off := i * batch & (concBenchN - 1)
				c.ContainsBatch(keys[off:off+batch], found)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/key")
		})
	}
}

func checkFound(b *testing.B, kind string, found int) {
	if kind == "hit" && found != b.N {
		b.Fatalf("%d of %d hits found", found, b.N)
	}
}

// readAll runs b.N reads of hit keys (below n, a power of two) split over
// the given number of goroutines and reports the total rate. read is called
// with the key.
func readAll(b *testing.B, n, readers int, read func(k uint64) bool) {
	per := (b.N + readers - 1) / readers
	var wg sync.WaitGroup
	var missed atomic.Int64
	b.ResetTimer()
	for g := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mask := uint64(n - 1)
			k := uint64(g) * 0x5555
			lost := 0
			for range per {
				k = (k + 0x9e3779b1) & mask
				if !read(k) {
					lost++
				}
			}
			missed.Add(int64(lost))
		}()
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(readers*per)/b.Elapsed().Seconds()/1e6, "Mreads/s")
	if missed.Load() != 0 {
		b.Fatalf("%d resident keys not found", missed.Load())
	}
}

// BenchmarkConcurrentScaling: read throughput with 1 and 2 reader
// goroutines (and GOMAXPROCS, if more) and no writer (target: 2 readers give
// at least 0.85 x 2 x one). Beside the ConcurrentFilter, what the machine
// itself gives: the Filter read without a lock (no synchronization at all),
// and the key's hash alone (no memory). 1M keys is a 1.8 MB table, larger
// than a core's L2 cache; 64K keys, 110 KB, fits it.
func BenchmarkConcurrentScaling(b *testing.B) {
	counts := []int{1, 2}
	if p := runtime.GOMAXPROCS(0); p > 2 {
		counts = append(counts, p)
	}
	for _, n := range []int{concBenchN, 1 << 16} {
		for _, readers := range counts {
			prefix := fmt.Sprintf("Packed/f=13/%s/readers=%d", sizeK(n), readers)
			b.Run(prefix+"/impl=filter", func(b *testing.B) {
				f, _ := concBenchFilters(b, n, Packed, 13)
				readAll(b, n, readers, f.Contains)
			})
			b.Run(prefix+"/impl=concurrent", func(b *testing.B) {
				_, c := concBenchFilters(b, n, Packed, 13)
				readAll(b, n, readers, c.Contains)
			})
			if n == concBenchN {
				b.Run(prefix+"/impl=hashonly", func(b *testing.B) {
					f, _ := concBenchFilters(b, n, Packed, 13)
					readAll(b, n, readers, func(k uint64) bool { return f.Hash(k) != 0 })
				})
			}
		}
	}
}

// sizeK names a key count: 1M, 64K.
func sizeK(n int) string {
	if n >= 1<<20 {
		return sizeName(n)
	}
	return fmt.Sprintf("%dK", n>>10)
}

// BenchmarkConcurrentWithWriter: reads while one writer goroutine inserts
// and deletes keys as fast as it can, keeping the filter at 90% of its
// capacity; the ConcurrentFilter against a Filter behind a sync.RWMutex
// (target: at least 3x the reads). With GOMAXPROCS-1 readers (at least
// one) the writer and the readers each have a core; with GOMAXPROCS readers
// they share them. Mwrites/s is the writer's rate.
func BenchmarkConcurrentWithWriter(b *testing.B) {
	counts := []int{1}
	if p := runtime.GOMAXPROCS(0); p > 1 {
		counts = []int{p - 1, p}
	}
	for _, readers := range counts {
		benchWithWriter(b, readers)
	}
}

func benchWithWriter(b *testing.B, readers int) {
	for _, layout := range layouts {
		prefix := fmt.Sprintf("%v/f=13/%s/readers=%d", layout, sizeName(concBenchN), readers)
		b.Run(prefix+"/impl=rwmutex", func(b *testing.B) {
			f := mustNew[uint64](b, Config{Capacity: concBenchN, Layout: layout})
			fillTo90(b, f.Insert)
			var mu sync.RWMutex
			withWriter(b, readers,
				func(k uint64) bool { mu.RLock(); ok := f.Contains(k); mu.RUnlock(); return ok },
				func(k uint64) error { mu.Lock(); err := f.Insert(k); mu.Unlock(); return err },
				func(k uint64) bool { mu.Lock(); ok := f.Delete(k); mu.Unlock(); return ok })
		})
		b.Run(prefix+"/impl=concurrent", func(b *testing.B) {
			c := mustNewConcurrent[uint64](b, Config{Capacity: concBenchN, Layout: layout})
			fillTo90(b, c.Insert)
			withWriter(b, readers, c.Contains, c.Insert, c.Delete)
		})
	}
}

// fillTo90 inserts keys 0.. up to 90% of the capacity: the readers' keys.
func fillTo90(b *testing.B, insert func(uint64) error) {
	for k := range uint64(concBenchN * 9 / 10) {
		if err := insert(k); err != nil {
			b.Fatal(err)
		}
	}
}

func withWriter(b *testing.B, readers int, read func(uint64) bool, insert func(uint64) error, del func(uint64) bool) {
	var stop atomic.Bool
	var writes atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Churn keys above the readers' range: insert one, delete the one
		// inserted 1000 keys before.
		const window = 1000
		base := uint64(1) << 40
		n := int64(0)
		for k := base; !stop.Load(); k++ {
			if err := insert(k); err != nil {
				panic(err)
			}
			if k >= base+window && !del(k-window) {
				panic("delete failed")
			}
			n += 2
		}
		writes.Store(n)
	}()
	mask := uint64(concBenchN*9/10 - 1) // below 0.9n: every key read is stored
	readAll(b, concBenchN, readers, func(k uint64) bool { return read(k & mask) })
	stop.Store(true)
	<-done
	b.ReportMetric(float64(writes.Load())/b.Elapsed().Seconds()/1e6, "Mwrites/s")
}

// BenchmarkConcurrentInsert: inserts with no readers, filling filters to
// capacity again and again (displacements near full included): a loop of
// Filter.Insert against one of ConcurrentFilter.Insert (target: at most
// 1.5x), and the two InsertBatch. ns/key is the time per insert.
func BenchmarkConcurrentInsert(b *testing.B) {
	keys := benchKeys[uint64](concBenchN, 0)
	for _, layout := range layouts {
		prefix := fmt.Sprintf("%v/f=13/%s", layout, sizeName(concBenchN))
		run := func(b *testing.B, insert func(uint64) error, batch func([]uint64) (int, error), reset func()) {
			const chunk = 1024
			off := 0
			for b.Loop() {
				if off+chunk > concBenchN {
					reset()
					off = 0
				}
				part := keys[off : off+chunk]
				off += chunk
				if batch != nil {
					if _, err := batch(part); err != nil {
						b.Fatal(err)
					}
					continue
				}
				for _, k := range part {
					if err := insert(k); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*chunk), "ns/key")
		}
		for _, op := range []string{"loop", "batch"} {
			b.Run(prefix+"/op="+op+"/impl=filter", func(b *testing.B) {
				f := mustNew[uint64](b, Config{Capacity: concBenchN, Layout: layout})
				batch := f.InsertBatch
				if op == "loop" {
					batch = nil
				}
				run(b, f.Insert, batch, f.Reset)
			})
			b.Run(prefix+"/op="+op+"/impl=concurrent", func(b *testing.B) {
				c := mustNewConcurrent[uint64](b, Config{Capacity: concBenchN, Layout: layout})
				batch := c.InsertBatch
				if op == "loop" {
					batch = nil
				}
				run(b, c.Insert, batch, c.Reset)
			})
		}
	}
}
