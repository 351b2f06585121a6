package cuckoo

import "math/bits"

// SWAR arithmetic: a bucket's four f-bit lanes tested at once in a word or
// a 128-bit pair, with no loop over slots and no branch on their contents.

// lanes holds four f-bit lanes' constants as 128-bit values (lo, hi): ones
// the lowest bit of each lane, tops the highest, rest all but the highest.
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

// keyLanesOf is newLanes(f) for the low kbits bits of each lane, a slot's
// key: the zero tests with them (zero64, zero128, anyZero, the batch
// probes') carry into no generation bit above, so they see the key alone.
func keyLanesOf(f, kbits uint) lanes {
	l := lanes{onesLo: newLanes(f).onesLo, onesHi: newLanes(f).onesHi}
	for k := uint(0); k < slotsPerBucket; k++ {
		setBit128(&l.topsLo, &l.topsHi, k*f+kbits-1)
		for b := range kbits - 1 {
			setBit128(&l.restLo, &l.restHi, k*f+b)
		}
	}
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

// zero64 sets the top bit of every zero lane of x: adding rest to a lane's
// low bits carries into its top bit exactly when they are not all zero, and
// never out of the lane, unlike x - ones, whose borrow crosses lanes.
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

// anyZero reports whether a lane of x1 or x2 is zero, f <= 16: (x-ones) &^ x
// marks the lowest zero lane, perhaps lanes above it (zero64 marks exactly),
// none if none is. Bits above the four lanes are ignored.
func (l *lanes) anyZero(x1, x2 uint64) bool {
	return ((x1-l.onesLo)&^x1|(x2-l.onesLo)&^x2)&l.topsLo != 0
}

const slotsPerBucket = 4
