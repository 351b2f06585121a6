package main

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seed-a0724874/cuckoo"
)

// runWriters times a ConcurrentFilter of n keys' Capacity filled to 90% by
// each number of writer goroutines in counts (the keys split between them),
// with no reader and with two reader goroutines looking up the keys
// already in, against what the machine gives: as many Filters, each of its
// share of the Capacity and the keys, filled by as many goroutines, and by
// one goroutine one after another. Rounds alternate the configurations, so
// that a change in the machine's load hits all; it prints the medians and
// the speedups: a ConcurrentFilter's over the first count of writers alone
// (one, as the usual -writers 1,2,...), the Filters' over one goroutine
// filling the same Filters.
func runWriters(w io.Writer, n, rounds int, counts []int) error {
	keys := make([]uint64, n*9/10)
	for i := range keys {
		keys[i] = splitmix(0, uint64(i))
	}
	type config struct {
		writers, readers int
		filters          int // independent Filters, 0 for a ConcurrentFilter
	}
	var configs []config
	for _, c := range counts {
		configs = append(configs, config{c, 0, 0}, config{c, 2, 0}, config{c, 0, c})
		if c > 1 {
			configs = append(configs, config{1, 0, c})
		}
	}
	times := make([][]time.Duration, len(configs))
	reads := make([][]float64, len(configs))
	for r := range rounds {
		for i := range configs {
			k := (i + r) % len(configs) // a round starts one later than the last
			c := configs[k]
			var took time.Duration
			var rate float64
			var err error
			if c.filters > 0 {
				took, err = fillIndependent(n, c.filters, c.writers, keys)
			} else {
				took, rate, err = fillConcurrent(n, c.writers, c.readers, keys)
			}
			if err != nil {
				return err
			}
			times[k] = append(times[k], took)
			reads[k] = append(reads[k], rate)
		}
	}
	med := func(c config) time.Duration { return medianTime(times[slices.Index(configs, c)]) }
	fmt.Fprintf(w, "Filling %d keys to 90%% of a Capacity of %d (f = 13), %s, %s, GOMAXPROCS %d, medians of %d rounds:\n\n",
		len(keys), n, cpuModel(), goTarget(), runtime.GOMAXPROCS(0), rounds)
	fmt.Fprintln(w, "| writers | readers | filter | ns a key | Mkeys/s | speedup | Mreads/s |")
	fmt.Fprintln(w, "|---:|---:|---|---:|---:|---:|---:|")
	for k, c := range configs {
		if c.filters > 0 && c.writers == 1 && c.filters > 1 {
			continue // the independent Filters' one-goroutine time: their speedup's base
		}
		m := med(c)
		name, base, readRate := "ConcurrentFilter", med(config{counts[0], 0, 0}), "-"
		if c.filters > 0 {
			name, base = fmt.Sprintf("%d Filters", c.filters), med(config{1, 0, c.filters})
			if c.filters == 1 {
				base = m
			}
		} else if c.readers > 0 {
			readRate = fmt.Sprintf("%.1f", median(reads[k])/1e6)
		}
		fmt.Fprintf(w, "| %d | %d | %s | %.1f | %.1f | %.2fx | %s |\n", c.writers, c.readers, name,
			float64(m.Nanoseconds())/float64(len(keys)), float64(len(keys))/m.Seconds()/1e6,
			float64(base)/float64(m), readRate)
	}
	return nil
}

// fillConcurrent fills a new ConcurrentFilter with the keys, split between
// writers goroutines, beside readers goroutines looking up keys already in;
// it returns the fill's time and the readers' lookups a second.
func fillConcurrent(n, writers, readers int, keys []uint64) (time.Duration, float64, error) {
	// Made from a Filter, whose table it copies: its pages are faulted in
	// before the clock starts, as Reset faults the Filters' (a fault of a
	// huge page may compact memory first, which varied a 4M-key fill's time
	// 2x from run to run).
	empty, err := cuckoo.New[uint64](cuckoo.Config{Capacity: n, FingerprintBits: 13})
	if err != nil {
		return 0, 0, err
	}
	f := cuckoo.NewConcurrentFrom(empty)
	var stop atomic.Bool
	var looked atomic.Int64
	var done atomic.Int64 // keys of writer 0 in, for the readers
	var rg sync.WaitGroup
	for r := range readers {
		rg.Add(1)
		go func() {
			defer rg.Done()
			x, m := uint64(r)+1, int64(0)
			for !stop.Load() {
				if d := done.Load(); d > 0 {
					x = x*6364136223846793005 + 1442695040888963407
					if !f.Contains(keys[int64(x>>33)%d]) {
						panic("a stored key not found")
					}
					m++
				}
			}
			looked.Add(m)
		}()
	}
	share := (len(keys) + writers - 1) / writers
	errs := make(chan error, writers)
	start := time.Now()
	var wg sync.WaitGroup
	for g := range writers {
		part := keys[min(g*share, len(keys)):min((g+1)*share, len(keys))]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, k := range part {
				if err := f.Insert(k); err != nil {
					errs <- err
					return
				}
				if g == 0 && i%64 == 63 {
					done.Store(int64(i + 1))
				}
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	stop.Store(true)
	rg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return 0, 0, err
	}
	return took, float64(looked.Load()) / took.Seconds(), nil
}

// fillIndependent fills filters Filters, each of its share of Capacity n
// with its share of the keys, by goroutines goroutines (1, or one a
// Filter), and returns the time.
func fillIndependent(n, filters, goroutines int, keys []uint64) (time.Duration, error) {
	parts := make([]*cuckoo.Filter[uint64], filters)
	for g := range parts {
		f, err := cuckoo.New[uint64](cuckoo.Config{Capacity: n / filters, FingerprintBits: 13})
		if err != nil {
			return 0, err
		}
		f.Reset() // clears the table: its pages are faulted in before the clock starts
		parts[g] = f
	}
	share := (len(keys) + filters - 1) / filters
	fill := func(g int) error {
		for _, k := range keys[min(g*share, len(keys)):min((g+1)*share, len(keys))] {
			if err := parts[g].Insert(k); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make(chan error, filters)
	start := time.Now()
	if goroutines == 1 {
		for g := range parts {
			errs <- fill(g)
		}
	} else {
		var wg sync.WaitGroup
		for g := range parts {
			wg.Add(1)
			go func() { defer wg.Done(); errs <- fill(g) }()
		}
		wg.Wait()
	}
	took := time.Since(start)
	close(errs)
	for err := range errs {
		if err != nil {
			return 0, err
		}
	}
	return took, nil
}

// medianTime is median for durations.
func medianTime(xs []time.Duration) time.Duration {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
