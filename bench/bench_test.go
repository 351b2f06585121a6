package main

import (
	"strings"
	"sync"
	"testing"
)

// The benchmarks measure every filter of the harness at one size, 1M
// uint64 keys, in the go test format benchstat reads: ns/op is per key.

const benchN = 1_000_000

var benchKeys = sync.OnceValue(func() keySet[uint64] { return newUint64Keys(1, benchN, benchN) })

// benchName is s at rate as a sub-benchmark name.
func benchName(s spec, rate float64) string {
	return s.name + "/fpr=" + strings.TrimSuffix(percent(rate), "%") + "%"
}

// filled caches the last filter built by filledFilter: sub-benchmark
// functions run several times, and one filter at a time keeps memory down.
var filled struct {
	name string
	f    Filter[uint64]
}

// filledFilter returns s's filter at rate holding the benchmark's keys.
func filledFilter(b *testing.B, s spec, rate float64) Filter[uint64] {
	name := benchName(s, rate)
	if filled.name == name {
		return filled.f
	}
	filled.name, filled.f = "", nil
	ks := benchKeys()
	f, _, _, _, err := build(s, s.u64, rate, ks.hits, make([]bool, benchN))
	if err != nil {
		b.Skip(err)
	}
	filled.name, filled.f = name, f
	return f
}

// eachFilter runs bench as a sub-benchmark for every spec and rate.
func eachFilter(b *testing.B, bench func(b *testing.B, s spec, rate float64)) {
	for _, s := range specs {
		for _, rate := range s.rates {
			b.Run(benchName(s, rate), func(b *testing.B) {
				b.ReportAllocs()
				bench(b, s, rate)
			})
		}
	}
}

// lookups times Contains over keys, cycling through them.
func lookups(b *testing.B, f Filter[uint64], keys []uint64) {
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		if f.Contains(keys[i%len(keys)]) {
			n++
		}
	}
	sink += n
}

func BenchmarkContainsHit(b *testing.B) {
	eachFilter(b, func(b *testing.B, s spec, rate float64) {
		lookups(b, filledFilter(b, s, rate), benchKeys().hits)
	})
}

func BenchmarkContainsMiss(b *testing.B) {
	eachFilter(b, func(b *testing.B, s spec, rate float64) {
		lookups(b, filledFilter(b, s, rate), benchKeys().misses)
	})
}

// BenchmarkContainsBatch times ContainsBatch per key, in batches of
// batchLen hits.
func BenchmarkContainsBatch(b *testing.B) {
	const batchLen = 1024
	eachFilter(b, func(b *testing.B, s spec, rate float64) {
		if !s.batch {
			b.Skip("no batch lookups")
		}
		bf := filledFilter(b, s, rate).(Batcher[uint64])
		hits := benchKeys().hits
		found := make([]bool, batchLen)
		b.ResetTimer()
		for done := 0; done < b.N; {
			m := min(batchLen, b.N-done)
			off := done % (len(hits) - batchLen)
			sink += bf.ContainsBatch(hits[off:off+m], found)
			done += m
		}
	})
}

// BenchmarkInsert times Insert into filters of capacity 1M, from empty to
// full, starting a new filter (untimed) whenever one is full.
func BenchmarkInsert(b *testing.B) {
	eachFilter(b, func(b *testing.B, s spec, rate float64) {
		if s.static {
			b.Skip("static filter: built from all keys at once (go run . reports its build ns/key)")
		}
		filled.name, filled.f = "", nil
		hits := benchKeys().hits
		var f Filter[uint64]
		n := len(hits)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if n == len(hits) {
				b.StopTimer()
				f, n = nil, 0
				var err error
				if f, err = s.u64(benchN, rate, nil); err != nil {
					b.Skip(err)
				}
				b.StartTimer()
			}
			f.Insert(hits[n])
			n++
		}
	})
}
