package main

import (
	"runtime"
	"slices"
	"time"
)

// result is everything measured for one filter configuration at one size.
// Times are ns per key; a NaN time or a negative count is "not applicable".
type result struct {
	filter string
	keys   string // key type
	n      int    // capacity: keys inserted
	target float64
	fixed  bool   // target is the filter's nominal rate, not a parameter
	static bool   // built from the key set at once
	err    string // why the filter could not be measured

	bitsPerKey    float64 // heap retained by the filter, in bits per key
	fpr           float64 // measured false-positive rate
	falsePos      int
	missesProbed  int
	insertNs      float64 // per key; for a static filter, its build
	hitNs, missNs float64 // Contains
	batchHitNs    float64 // ContainsBatch
	batchMissNs   float64
	insertAllocs  float64 // allocations per insert (per key of a build)
	lookupAllocs  float64 // allocations per Contains (and per batch key)

	failsCap, lostCap                int // failed inserts, lost keys at capacity
	failsOver, lostOver, missingOver int // the same after 5% more, and keys not found of all attempted
}

// options are the measurement knobs from the command line.
type options struct {
	runs     int // timed loops are run this many times; the median is kept
	probeMax int // at most this many keys per timed lookup loop
}

// sink keeps the compiler from dropping timed work.
var sink int

// memSnapshot returns the live heap (after a GC when gc is set) and the
// count of allocations so far.
func memSnapshot(gc bool) (heap, mallocs uint64) {
	if gc {
		runtime.GC()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc, ms.Mallocs
}

// timed runs loop, which does ops operations, and returns ns per operation
// and allocations per operation.
func timed(ops int, loop func()) (ns, allocs float64) {
	_, m0 := memSnapshot(false)
	start := time.Now()
	loop()
	el := time.Since(start)
	_, m1 := memSnapshot(false)
	return float64(el.Nanoseconds()) / float64(ops), float64(m1-m0) / float64(ops)
}

// medianOf runs timed runs times and returns the median ns per operation
// and the largest allocations per operation seen.
func medianOf(runs, ops int, loop func()) (ns, allocs float64) {
	times := make([]float64, runs)
	for r := range times {
		var a float64
		times[r], a = timed(ops, loop)
		allocs = max(allocs, a)
	}
	slices.Sort(times)
	return times[len(times)/2], allocs
}

// countFound is how many keys f reports present.
func countFound[K Key](f Filter[K], keys []K) int {
	n := 0
	for _, k := range keys {
		if f.Contains(k) {
			n++
		}
	}
	return n
}

// build makes a filter of capacity len(fill) and fills it, recording each
// insert's success in ok. It returns the filter, the fill's ns and
// allocations per key, and the heap the filter retains.
func build[K Key](s spec, mk maker[K], rate float64, fill []K, ok []bool) (f Filter[K], ns, allocs float64, bytes int64, err error) {
	heap0, _ := memSnapshot(true)
	if s.static {
		ns, allocs = timed(len(fill), func() { f, err = mk(len(fill), rate, fill) })
		for i := range fill {
			ok[i] = true
		}
	} else if f, err = mk(len(fill), rate, nil); err == nil {
		ns, allocs = timed(len(fill), func() {
			for i, k := range fill {
				ok[i] = f.Insert(k)
			}
		})
	}
	if err != nil {
		return nil, 0, 0, 0, err
	}
	heap1, _ := memSnapshot(true)
	// The inputs were live at heap0: keep them so at heap1, whatever the
	// caller does with them, or the filter is short by their size.
	runtime.KeepAlive(fill)
	runtime.KeepAlive(ok)
	return f, ns, allocs, int64(heap1) - int64(heap0), nil
}

// lostKeys counts, of the keys tried, those whose insert failed, those
// inserted that f no longer finds (lost), and those f does not find at all.
func lostKeys[K Key](f Filter[K], keys []K, ok []bool) (fails, lost, missing int) {
	for i, k := range keys {
		found := f.Contains(k)
		switch {
		case !ok[i]:
			fails++
		case !found:
			lost++
		}
		if !found {
			missing++
		}
	}
	return fails, lost, missing
}

// measure measures one filter configuration on ks with capacity n.
func measure[K Key](s spec, keyName string, ks keySet[K], n int, rate float64, o options) result {
	r := result{
		filter: s.name, keys: keyName, n: n, target: rate, fixed: s.fixed, static: s.static,
		batchHitNs: nan, batchMissNs: nan,
		failsOver: -1, lostOver: -1, missingOver: -1,
	}
	mk := makerFor[K](s)
	fill, over := ks.hits[:n], ks.hits[:n+n/20]
	ok := make([]bool, len(over))

	// Fill from empty o.runs times, keeping the median time and the last
	// filter.
	var f Filter[K]
	times := make([]float64, o.runs)
	for i := range times {
		f = nil
		var bytes int64
		var err error
		f, times[i], r.insertAllocs, bytes, err = build(s, mk, rate, fill, ok)
		if err != nil {
			r.err = err.Error()
			return r
		}
		r.bitsPerKey = float64(8*bytes) / float64(n)
	}
	slices.Sort(times)
	r.insertNs = times[len(times)/2]
	r.failsCap, r.lostCap, _ = lostKeys(f, fill, ok)

	hits, misses := fill[:min(len(fill), o.probeMax)], ks.misses
	var a1, a2 float64
	r.hitNs, a1 = medianOf(o.runs, len(hits), func() { sink += countFound(f, hits) })
	r.missNs, a2 = medianOf(o.runs, len(misses), func() { sink += countFound(f, misses) })
	r.lookupAllocs = max(a1, a2)
	r.falsePos, r.missesProbed = countFound(f, misses), len(misses)
	r.fpr = float64(r.falsePos) / float64(r.missesProbed)

	if b, isBatch := f.(Batcher[K]); isBatch {
		found := make([]bool, max(len(hits), len(misses)))
		r.batchHitNs, a1 = medianOf(o.runs, len(hits), func() { sink += b.ContainsBatch(hits, found) })
		r.batchMissNs, a2 = medianOf(o.runs, len(misses), func() { sink += b.ContainsBatch(misses, found) })
		r.lookupAllocs = max(r.lookupAllocs, a1, a2)
	}

	if !s.static {
		for i := n; i < len(over); i++ {
			ok[i] = f.Insert(over[i])
		}
		r.failsOver, r.lostOver, r.missingOver = lostKeys(f, over, ok)
	}
	return r
}
