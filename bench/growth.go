package main

import (
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/seed-a0724874/cuckoo"
)

// The growth comparison (-growth) fills three filters with the same keys,
// from a small Capacity to MaxCapacity = Capacity << doublings:
//
//   - grown: one growable filter (Config.MaxCapacity), which doubles in
//     place when a stage is full;
//   - fixed: a fixed filter made for MaxCapacity from the start, the
//     baseline for space and speed at the final size;
//   - stack: a stack of fixed filters, each twice the previous, a new one
//     added when the newest is full, every one probed by a lookup: how
//     filters that grow by adding sub-filters work, so their false-positive
//     rate is about the sum of the sub-filters' rates.
//
// At every doubling of the grown filter it reports, for each: bits per
// item held, the measured false-positive rate, the time of a lookup of a
// held key, and the time per insert since the previous doubling.

// stack is the sub-filter stack.
type stack struct {
	cfg  cuckoo.Config
	subs []*cuckoo.Filter[uint64]
}

func (s *stack) insert(k uint64) error {
	last := s.subs[len(s.subs)-1]
	if last.Len() >= last.Capacity() {
		cfg := s.cfg
		cfg.Capacity = 2 * last.Capacity()
		f, err := cuckoo.New[uint64](cfg)
		if err != nil {
			return err
		}
		s.subs = append(s.subs, f)
		last = f
	}
	return last.Insert(k)
}

func (s *stack) contains(k uint64) bool {
	for _, f := range s.subs {
		if f.Contains(k) {
			return true
		}
	}
	return false
}

func (s *stack) sizeBytes() int {
	n := 0
	for _, f := range s.subs {
		n += f.SizeBytes()
	}
	return n
}

// growthPoint is one row: the three filters measured at one item count.
type growthPoint struct {
	items        int
	bits         [3]float64 // bits per item: grown, fixed, stack
	bitsAfter    float64    // the grown filter's bits per item once the next insert doubled it
	fpr          [3]float64
	lookupNs     [3]float64
	insertNs     [3]float64 // per insert since the previous row
	stackFilters int
}

// doublingPoints returns the item counts at which a growable filter made
// with cfg is full before a doubling (its next insert doubles it), the
// final count len(keys) last, and the filter's size just after each
// doubling.
func doublingPoints(cfg cuckoo.Config, keys []uint64) (ends, sizesAfter []int, err error) {
	f, err := cuckoo.New[uint64](cfg)
	if err != nil {
		return nil, nil, err
	}
	size := f.SizeBytes()
	for i, k := range keys {
		if err := f.Insert(k); err != nil {
			return nil, nil, err
		}
		if f.SizeBytes() != size {
			ends = append(ends, i) // i keys were in before this insert
			size = f.SizeBytes()
			sizesAfter = append(sizesAfter, size)
		}
	}
	return append(ends, len(keys)), sizesAfter, nil
}

func runGrowth(w io.Writer, capacity, doublings int, rate float64, probes int) error {
	maxCap := capacity << doublings
	cfg := cuckoo.Config{Capacity: capacity, MaxCapacity: maxCap, FalsePositiveRate: rate}
	keys := make([]uint64, maxCap)
	for i := range keys {
		keys[i] = splitmix(7, uint64(i))
	}
	misses := make([]uint64, probes)
	for i := range misses {
		misses[i] = splitmix(7, missBase+uint64(i))
	}
	ends, sizesAfter, err := doublingPoints(cfg, keys)
	if err != nil {
		return err
	}
	grown, err := cuckoo.New[uint64](cfg)
	if err != nil {
		return err
	}
	fixed, err := cuckoo.New[uint64](cuckoo.Config{Capacity: maxCap, FalsePositiveRate: rate})
	if err != nil {
		return err
	}
	first, err := cuckoo.New[uint64](cuckoo.Config{Capacity: capacity, FalsePositiveRate: rate})
	if err != nil {
		return err
	}
	st := &stack{cfg: cuckoo.Config{FalsePositiveRate: rate}, subs: []*cuckoo.Filter[uint64]{first}}
	inserts := [3]func(uint64) error{grown.Insert, fixed.Insert, st.insert}
	lookups := [3]func(uint64) bool{grown.Contains, fixed.Contains, st.contains}
	sizes := [3]func() int{grown.SizeBytes, fixed.SizeBytes, st.sizeBytes}

	var points []growthPoint
	from := 0
	for e, to := range ends {
		p := growthPoint{items: to}
		for j := range 3 {
			start := time.Now()
			for _, k := range keys[from:to] {
				if err := inserts[j](k); err != nil {
					return fmt.Errorf("insert %d of %d: %v", from, maxCap, err)
				}
			}
			p.insertNs[j] = perKey(time.Since(start), to-from)
		}
		held := keys[max(0, to-probes):to]
		for j := range 3 {
			runtime.GC()
			p.bits[j] = 8 * float64(sizes[j]()) / float64(to)
			start := time.Now()
			for _, k := range held {
				if !lookups[j](k) {
					return fmt.Errorf("filter %d lost a key", j)
				}
			}
			p.lookupNs[j] = perKey(time.Since(start), len(held))
			fp := 0
			for _, k := range misses {
				if lookups[j](k) {
					fp++
				}
			}
			p.fpr[j] = float64(fp) / float64(len(misses))
		}
		p.stackFilters = len(st.subs)
		if e < len(sizesAfter) { // the next insert doubles the grown filter
			p.bitsAfter = 8 * float64(sizesAfter[e]) / float64(to+1)
		}
		points = append(points, p)
		from = to
	}
	fmt.Fprintf(w, "# growth from Capacity %d to MaxCapacity %d (%d doublings), target rate %v; %s; Go %s\n",
		capacity, maxCap, doublings, rate, cpuModel(), runtime.Version())
	fmt.Fprintf(w, "# rows at each stage's fullest (the next insert doubles it); lookups of up to %d held keys; rate over %d other keys; ns per key\n\n", probes, probes)
	fmt.Fprintln(w, "| items | grown bits/item (after doubling) | grown rate | grown lookup | grown insert | fixed bits/item | fixed rate | fixed lookup | fixed insert | stack filters | stack bits/item | stack rate | stack lookup | stack insert |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, p := range points {
		after := ""
		if p.bitsAfter > 0 {
			after = fmt.Sprintf(" (%.1f)", p.bitsAfter)
		}
		fmt.Fprintf(w, "| %s | %.1f%s | %s | %.1f | %.1f | %.1f | %s | %.1f | %.1f | %d | %.1f | %s | %.1f | %.1f |\n",
			count(p.items), p.bits[0], after, rateString(p.fpr[0]), p.lookupNs[0], p.insertNs[0],
			p.bits[1], rateString(p.fpr[1]), p.lookupNs[1], p.insertNs[1],
			p.stackFilters, p.bits[2], rateString(p.fpr[2]), p.lookupNs[2], p.insertNs[2])
	}
	return nil
}

func rateString(r float64) string {
	if r == 0 {
		return "0"
	}
	return fmt.Sprintf("%.3g%%", 100*r)
}
