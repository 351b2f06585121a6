package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/seed-a0724874/cuckoo"
)

// The -writers mode: what a user who has several goroutines writing can
// pick, timed side by side on the same work. A lone Filter (one
// goroutine), a Filter behind a sync.Mutex and a ConcurrentFilter, each at
// every count of goroutines asked for, on these workloads:
//   - fuzz: a fuzz harness's dedup, InsertUnique of 943,718 distinct keys
//     each 4 times, shuffled, into a Capacity of 1M: most calls are repeats;
//   - fill: Insert of distinct keys to 50% and 90% of a Capacity, at the
//     first of -sizes (in cache here) and to 50% at the others (32M: a
//     table of 56 MiB).
//
// Beside each size it times the machine's own limit: one and two goroutines
// doing a random read-modify-write of one word of a shared table of the
// same bytes, plain (unsynchronised) and by compare-and-swap. Rounds
// alternate the modes, so that a change in the machine's load hits all;
// tables are faulted in before the clock and the collector is off.

// writerMode is one way to run a workload.
type writerMode struct {
	name       string
	goroutines int
	kind       int // modeFilter, modeMutex, modeConcurrent
}

const (
	modeFilter = iota
	modeMutex
	modeConcurrent
)

// writerWork is a workload: the keys each goroutine takes its share of, in
// order, the Capacity, and whether calls are InsertUnique.
type writerWork struct {
	name     string
	capacity int
	keys     []uint64
	unique   bool
}

func writerWorks(sizes []int) []writerWork {
	fuzz := make([]uint64, 0, 4*943_718)
	for range 4 {
		for i := range 943_718 {
			fuzz = append(fuzz, splitmix(1, uint64(i)))
		}
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(fuzz), func(i, j int) { fuzz[i], fuzz[j] = fuzz[j], fuzz[i] })
	works := []writerWork{{"fuzz: InsertUnique, 943,718 keys x4 shuffled, Capacity 1M", 1 << 20, fuzz, true}}
	for i, n := range sizes {
		for _, pct := range []int{50, 90} {
			if i > 0 && pct == 90 {
				continue
			}
			keys := make([]uint64, n*pct/100)
			for j := range keys {
				keys[j] = splitmix(0, uint64(j))
			}
			works = append(works, writerWork{fmt.Sprintf("fill %d%% of Capacity %s, Insert", pct, count(n)), n, keys, false})
		}
	}
	return works
}

// runWriters times every mode on every workload, rounds times, and prints
// the medians (with min-max) in ns an operation and as a ratio to the lone
// Filter, and the machine's limit at each size.
func runWriters(w io.Writer, sizes []int, rounds int, counts []int) error {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	modes := []writerMode{{"Filter", 1, modeFilter}}
	for _, c := range counts {
		modes = append(modes, writerMode{"Filter + Mutex", c, modeMutex})
	}
	for _, c := range counts {
		modes = append(modes, writerMode{"ConcurrentFilter", c, modeConcurrent})
	}
	fmt.Fprintf(w, "%s, %s, GOMAXPROCS %d, medians (min-max) of %d rounds, modes alternating, f = 13, uint64 keys:\n",
		cpuModel(), goTarget(), runtime.GOMAXPROCS(0), rounds)
	for _, work := range writerWorks(sizes) {
		times := make([][]float64, len(modes))
		for r := range rounds {
			for i := range modes {
				k := (i + r) % len(modes)
				ns, err := runWork(work, modes[k])
				if err != nil {
					return fmt.Errorf("%s, %s x%d: %w", work.name, modes[k].name, modes[k].goroutines, err)
				}
				times[k] = append(times[k], ns)
			}
		}
		fmt.Fprintf(w, "\n%s (%d calls)\n\n", work.name, len(work.keys))
		fmt.Fprintln(w, "| mode | goroutines | ns a call | min-max | vs Filter |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|")
		base := median(times[0])
		for k, m := range modes {
			fmt.Fprintf(w, "| %s | %d | %.1f | %.1f-%.1f | %.2fx |\n", m.name, m.goroutines, median(times[k]),
				slices.Min(times[k]), slices.Max(times[k]), median(times[k])/base)
		}
	}
	fmt.Fprintln(w, "\nThe machine's limit: a random read-modify-write of one word of a shared table of a Capacity's bytes, ns an operation, medians:")
	fmt.Fprintln(w, "\n| table | plain, 1 | plain, 2 | 2/1 | compare-and-swap, 1 | compare-and-swap, 2 | 2/1 |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|")
	for _, n := range append([]int{1 << 20}, sizes...) {
		f, err := cuckoo.New[uint64](cuckoo.Config{Capacity: n, FingerprintBits: 13})
		if err != nil {
			return err
		}
		words := make([]uint64, f.SizeBytes()/8)
		var t [4][]float64
		for r := range rounds {
			for i := range 4 {
				k := (i + r) % 4
				t[k] = append(t[k], machineRMW(words, 1+k%2, k >= 2))
			}
		}
		p1, p2, c1, c2 := median(t[0]), median(t[1]), median(t[2]), median(t[3])
		fmt.Fprintf(w, "| %s (%.1f MiB) | %.1f | %.1f | %.2f | %.1f | %.1f | %.2f |\n", count(n),
			float64(len(words)*8)/(1<<20), p1, p2, p2/p1, c1, c2, c2/c1)
	}
	return nil
}

// runWork runs the workload in mode m and returns ns a call.
func runWork(work writerWork, m writerMode) (float64, error) {
	cfg := cuckoo.Config{Capacity: work.capacity, FingerprintBits: 13}
	f, err := cuckoo.New[uint64](cfg)
	if err != nil {
		return 0, err
	}
	f.Reset() // faults the table's pages in before the clock
	var op func(uint64) error
	switch m.kind {
	case modeFilter, modeMutex:
		var mu sync.Mutex
		op = func(k uint64) error {
			if m.kind == modeMutex {
				mu.Lock()
				defer mu.Unlock()
			}
			if work.unique {
				_, err := f.InsertUnique(k)
				return err
			}
			return f.Insert(k)
		}
	default:
		c := cuckoo.NewConcurrentFrom(f) // a copy: faulted in too
		op = func(k uint64) error {
			if work.unique {
				_, err := c.InsertUnique(k)
				return err
			}
			return c.Insert(k)
		}
	}
	share := (len(work.keys) + m.goroutines - 1) / m.goroutines
	var failed atomic.Value
	var wg sync.WaitGroup
	start := time.Now()
	for g := range m.goroutines {
		part := work.keys[min(g*share, len(work.keys)):min((g+1)*share, len(work.keys))]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, k := range part {
				if err := op(k); err != nil {
					failed.Store(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	if err, _ := failed.Load().(error); err != nil {
		return 0, err
	}
	return float64(took.Nanoseconds()) / float64(len(work.keys)), nil
}

// machineRMW has goroutines do 4M random read-modify-writes of words in
// all, shared, plain or by compare-and-swap, and returns ns an operation.
// The plain ones race on purpose: they are what no synchronisation costs.
func machineRMW(words []uint64, goroutines int, cas bool) float64 {
	const ops = 4 << 20
	var wg sync.WaitGroup
	start := time.Now()
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x, n := uint64(g)+1, uint64(len(words))
			base := unsafe.Pointer(unsafe.SliceData(words))
			for range ops / goroutines {
				x = x*6364136223846793005 + 1442695040888963407
				p := (*uint64)(unsafe.Add(base, (x>>32)*n>>32*8))
				if cas {
					for old := atomic.LoadUint64(p); !atomic.CompareAndSwapUint64(p, old, old+x); old = atomic.LoadUint64(p) {
					}
				} else {
					*p += x
				}
			}
		}()
	}
	wg.Wait()
	return float64(time.Since(start).Nanoseconds()) / ops
}

// medianTime is median for durations.
func medianTime(xs []time.Duration) time.Duration {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
