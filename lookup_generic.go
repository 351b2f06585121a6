package cuckoo

import "runtime"

// The generic probes are the reference for every other implementation and
// compile on every platform. They test the four slots of both buckets at
// once with the SWAR arithmetic of lanes.go.

// containsGeneric reports whether the table holds the fingerprint of hash h
// in either of its buckets, for both layouts.
func containsGeneric(t *table, h uint64) bool {
	fp, i1 := t.locate(h)
	i2 := t.alt(i1, fp)
	if t.f > 16 {
		return containsWide(t, i1, i2, fp)
	}
	// A bucket is at most 64 bits starting 0 or 4 bits into a byte: 4f+4 <= 64
	// for f <= 15, and buckets of f = 16 are byte-aligned. One load reads it.
	p1, p2 := i1*uint64(t.bbits), i2*uint64(t.bbits)
	b1 := load64At(t.data, p1>>3) >> (p1 & 7)
	b2 := load64At(t.data, p2>>3) >> (p2 & 7)
	if t.layout != Packed {
		return t.sortedHolds(b1, b2, fp)
	}
	pat := uint64(fp) * t.lanes.onesLo
	return t.lanes.zero64(b1^pat)|t.lanes.zero64(b2^pat) != 0
}

// containsWide is containsGeneric for buckets wider than 64 bits.
func containsWide(t *table, i1, i2 uint64, fp uint32) bool {
	alo, ahi := t.matchesAt(i1, fp)
	blo, bhi := t.matchesAt(i2, fp)
	return alo|ahi|blo|bhi != 0
}

// batchChunk is how many keys the generic batch locates before it probes
// them: enough to keep a core's 10-20 outstanding cache misses busy, small
// enough for the stack.
const batchChunk = 32

// containsBatchGeneric is containsBatch in pure Go, for a fixed table.
func containsBatchGeneric(t *table, hs []uint64, found []bool) int {
	n := 0
	for off := 0; off < len(hs); off += batchChunk {
		n += containsChunk(t, hs[off:min(off+batchChunk, len(hs))], found[min(off, len(found)):])
	}
	return n
}

// touchBuckets loads a byte of both buckets of every hash in hs, so that
// their cache lines arrive while the caller works on something else.
func touchBuckets(t *table, hs []uint64) {
	var x uint64
	bb := uint64(t.bbits)
	for _, h := range hs {
		i1, _, i2, _ := t.place(h)
		x += uint64(t.data[i1*bb>>3]) + uint64(t.data[i2*bb>>3])
	}
	runtime.KeepAlive(x) // the loads are the point: keep them
}

// containsChunk probes up to batchChunk hashes in two passes: the first
// locates every bucket pair and issues the loads, which miss the cache
// independently of each other; the second tests the loaded words.
func containsChunk(t *table, hs []uint64, found []bool) int {
	var fps [batchChunk]uint32
	var i1s, i2s [batchChunk]uint64
	hs = hs[:min(len(hs), batchChunk)]
	for i, h := range hs {
		fp, i1 := t.locate(h)
		fps[i], i1s[i], i2s[i] = fp, i1, t.alt(i1, fp)
	}
	var words [2 * batchChunk]uint64
	bb := uint64(t.bbits)
	for i := range hs {
		words[2*i] = load64(t.data, i1s[i]*bb>>3)
		words[2*i+1] = load64(t.data, i2s[i]*bb>>3)
	}
	n := 0
	for i := range hs {
		var ok bool
		if t.layout != Packed {
			// The loads above only brought the buckets into cache; the
			// semi-sorted test decodes them whole.
			ok = containsGeneric(t, hs[i])
		} else if t.f <= 16 {
			p1, p2 := i1s[i]*bb, i2s[i]*bb
			pat := uint64(fps[i]) * t.lanes.onesLo
			x1 := words[2*i]>>(p1&7) ^ pat
			x2 := words[2*i+1]>>(p2&7) ^ pat
			ok = t.lanes.zero64(x1)|t.lanes.zero64(x2) != 0
		} else {
			ok = containsWide(t, i1s[i], i2s[i], fps[i])
		}
		if i < len(found) {
			found[i] = ok
		}
		if ok {
			n++
		}
	}
	return n
}
