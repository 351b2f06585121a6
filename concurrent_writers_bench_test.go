package cuckoo

import (
	"flag"
	"fmt"
	"sync"
	"testing"
)

var fillLog = flag.Int("fill.log", 22, "BenchmarkConcurrentFill's filters have a Capacity of 2^fill.log keys")

// BenchmarkConcurrentFill times filling a filter of 4M keys' Capacity to
// 90% load, ns per key, with 1 and 2 writer goroutines (keys split between
// them), against what the machine gives: the same keys put by 1 and 2
// goroutines into two Filters of half the Capacity each, which share
// nothing. The ratio of the 1- and 2-writer times of each is its speedup:
//
//	go test -run '^$' -bench ConcurrentFill -benchtime 3x -count 6 . | benchstat -col /writers -
//
// -fill.log sets the size (2^fill.log keys of Capacity; 22 by default).
func BenchmarkConcurrentFill(b *testing.B) {
	n := 1 << *fillLog
	keys := benchKeys[uint64](n*9/10, 7)
	for _, layout := range layouts {
		for _, writers := range []int{1, 2} {
			b.Run(fmt.Sprintf("layout=%v/op=concurrent/writers=%d", layout, writers), func(b *testing.B) {
				f := mustNewConcurrent[uint64](b, Config{Capacity: n, Layout: layout})
				b.ResetTimer()
				for range b.N {
					b.StopTimer()
					f.Reset() // a new table, which the fill would fault in page by page
					w := f.c.cur.Load().words
					for i := 0; i < len(w); i += 512 {
						w[i] = 0
					}
					b.StartTimer()
					fillWith(b, writers, keys, func(int) func(uint64) error { return f.Insert })
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(keys)), "ns/key")
			})
			b.Run(fmt.Sprintf("layout=%v/op=independent/writers=%d", layout, writers), func(b *testing.B) {
				parts := []*Filter[uint64]{
					mustNew[uint64](b, Config{Capacity: n / 2, Layout: layout}),
					mustNew[uint64](b, Config{Capacity: n / 2, Layout: layout}),
				}
				b.ResetTimer()
				for range b.N {
					b.StopTimer()
					parts[0].Reset()
					parts[1].Reset()
					b.StartTimer()
					if writers == 1 { // one goroutine fills both, half the keys each
						fillWith(b, 1, keys[:len(keys)/2], func(int) func(uint64) error { return parts[0].Insert })
						fillWith(b, 1, keys[len(keys)/2:], func(int) func(uint64) error { return parts[1].Insert })
					} else {
						fillWith(b, 2, keys, func(w int) func(uint64) error { return parts[w].Insert })
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(keys)), "ns/key")
			})
		}
	}
}

// fillWith inserts keys with the given number of goroutines, goroutine w
// the w-th share of them (contiguous) with insert(w).
func fillWith(b *testing.B, writers int, keys []uint64, insert func(w int) func(uint64) error) {
	var wg sync.WaitGroup
	share := (len(keys) + writers - 1) / writers
	for w := range writers {
		part := keys[min(w*share, len(keys)):min((w+1)*share, len(keys))]
		ins := insert(w)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, k := range part {
				if err := ins(k); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// BenchmarkConcurrentLen times Len of a half-full filter: a fixed Packed
// one counts its filled slots, a growable one sums its stripes' counts.
func BenchmarkConcurrentLen(b *testing.B) {
	for _, cfg := range []Config{{Capacity: 1 << 22}, {Capacity: 1 << 16, MaxCapacity: 1 << 22}} {
		b.Run(configName(cfg), func(b *testing.B) {
			f := mustNewConcurrent[uint64](b, cfg)
			for k := range uint64(1 << 21) {
				if err := f.Insert(k); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				if f.Len() != 1<<21 {
					b.Fatal("Len")
				}
			}
		})
	}
}
