package cuckoo

import "math/bits"

// The generic probes are the reference for every other implementation and
// compile on every platform. They test the four slots of both buckets at
// once with SWAR arithmetic on 64- or 128-bit words: no loop over slots, no
// branch on slot contents.

// zero64 sets the top bit of every lane of x that is zero. Adding rest to
// the lane's low bits carries into the top bit exactly when they are not all
// zero, and never out of the lane, so unlike the usual x-ones trick no lane
// disturbs its neighbour.
func (l *lanes) zero64(x uint64) uint64 {
	return ^((x&l.restLo + l.restLo) | x) & l.topsLo
}

// zero128 is zero64 on a 128-bit value whose lanes may straddle the two words:
// the carry out of the low word belongs to the straddling lane.
func (l *lanes) zero128(lo, hi uint64) (uint64, uint64) {
	slo, c := bits.Add64(lo&l.restLo, l.restLo, 0)
	shi := hi&l.restHi + l.restHi + c
	return ^(slo | lo) & l.topsLo, ^(shi | hi) & l.topsHi
}

// containsGeneric reports whether the table holds the fingerprint of hash h
// in either of its buckets.
func containsGeneric(t *table, h uint64) bool {
	fp, i1 := t.locate(h)
	i2 := t.alt(i1, fp)
	if t.f > 16 {
		return contains128(t, i1, i2, fp)
	}
	// A bucket is at most 64 bits starting 0 or 4 bits into a byte: 4f+4 <= 64
	// for f <= 15, and buckets of f = 16 are byte-aligned. One load reads it.
	p1, p2 := i1*uint64(t.bbits), i2*uint64(t.bbits)
	pat := uint64(fp) * t.lanes.onesLo
	x1 := load64At(t.data, p1>>3)>>(p1&7) ^ pat
	x2 := load64At(t.data, p2>>3)>>(p2&7) ^ pat
	return t.lanes.zero64(x1)|t.lanes.zero64(x2) != 0
}

// contains128 is containsGeneric for buckets wider than 64 bits.
func contains128(t *table, i1, i2 uint64, fp uint32) bool {
	alo, ahi := t.matches(i1, fp)
	blo, bhi := t.matches(i2, fp)
	return alo|ahi|blo|bhi != 0
}
