package cuckoo

import "math/bits"

// SWAR lane arithmetic: four f-bit lanes of a bucket tested at once in a
// 64-bit word or a 128-bit pair, with no loop over slots and no branch on
// their contents. Every probe and codec of both layouts uses it.

// lanes holds the constants that test four f-bit lanes at once, as 128-bit
// values (lo, hi): ones has the lowest bit of each lane set, tops the highest
// bit, rest every lane bit but the highest.
type lanes struct {
	onesLo, onesHi uint64
	topsLo, topsHi uint64
	restLo, restHi uint64
}

func newLanes(f uint) lanes {
	var l lanes
	if f == 0 { // the low parts of semi-sorted 4-bit fingerprints: no lanes
		return l
	}
	for k := uint(0); k < slotsPerBucket; k++ {
		setBit128(&l.onesLo, &l.onesHi, k*f)
		setBit128(&l.topsLo, &l.topsHi, k*f+f-1)
	}
	// The lanes fill the low width bits; a shift by 64 gives 0, so a word
	// they fill gets all ones.
	width := slotsPerBucket * f
	lo := min(width, 64)
	l.restLo = (uint64(1)<<lo - 1) &^ l.topsLo
	l.restHi = (uint64(1)<<(width-lo) - 1) &^ l.topsHi
	return l
}

func setBit128(lo, hi *uint64, bit uint) {
	if bit < 64 {
		*lo |= 1 << bit
	} else {
		*hi |= 1 << (bit - 64)
	}
}

// broadcast repeats fp in the four lanes.
func (l *lanes) broadcast(fp uint32) (lo, hi uint64) {
	hi, lo = bits.Mul64(uint64(fp), l.onesLo)
	return lo, hi + uint64(fp)*l.onesHi
}

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

// anyZero reports whether any of the four lanes of x1 or of x2 is zero, for
// f <= 16, by the classic (x - ones) &^ x: it marks the lowest zero lane,
// perhaps lanes above it, and none when none is zero (zero64 marks exactly
// the zero lanes). Bits above the four lanes are ignored.
func (l *lanes) anyZero(x1, x2 uint64) bool {
	return ((x1-l.onesLo)&^x1|(x2-l.onesLo)&^x2)&l.topsLo != 0
}

// slotsPerBucket is the number of fingerprints a bucket holds.
const slotsPerBucket = 4
