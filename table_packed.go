package cuckoo

import "math/bits"

// The packed layout stores the four f-bit slots of a bucket back to back:
// slot k of bucket i is bits [i*4f + k*f, i*4f + k*f + f) of the table. An
// empty slot holds 0.

// slotPos is the bit position of slot k of bucket i.
func (t *table) slotPos(i uint64, k uint) uint64 { return i*uint64(t.bbits) + uint64(k*t.f) }

// slot reads slot k of bucket i. A slot is at most 32 bits starting at most
// 7 bits into a byte, so one 64-bit load holds it.
func (t *table) slot(i uint64, k uint) uint32 {
	p := t.slotPos(i, k)
	return uint32(load64(t.data, p>>3) >> (p & 7) & t.fpRange)
}

// setSlot writes v into slot k of bucket i, leaving every other bit as it was.
func (t *table) setSlot(i uint64, k uint, v uint32) {
	p := t.slotPos(i, k)
	o, s := p>>3, p&7
	w := load64(t.data, o)
	w = w&^(t.fpRange<<s) | uint64(v)<<s
	store64(t.data, o, w)
}

// matches returns, as a 128-bit mask, the top bit of every slot of bucket i
// that holds fp (fp 0 finds the empty slots).
func (t *table) matches(i uint64, fp uint32) (lo, hi uint64) {
	if t.f <= 16 { // the bucket fits one load; see containsGeneric
		p := i * uint64(t.bbits)
		return t.lanes.zero64(load64(t.data, p>>3)>>(p&7) ^ uint64(fp)*t.lanes.onesLo), 0
	}
	blo, bhi := bucket128(t.data, i*uint64(t.bbits))
	plo, phi := t.lanes.broadcast(fp)
	return t.lanes.zero128(blo^plo, bhi^phi)
}

// firstLane is the slot whose top bit is the lowest set bit of a non-zero
// match mask.
func (t *table) firstLane(lo, hi uint64) uint {
	pos := uint(bits.TrailingZeros64(lo))
	if lo == 0 {
		pos = 64 + uint(bits.TrailingZeros64(hi))
	}
	return pos / t.f
}

// packedAdd stores fp in a free slot of bucket i, the lowest one, and
// reports whether there was one.
func (t *table) packedAdd(i uint64, fp uint32) bool {
	lo, hi := t.matches(i, 0)
	if lo|hi == 0 {
		return false
	}
	t.setSlot(i, t.firstLane(lo, hi), fp)
	return true
}

// packedRemove clears the lowest slot of bucket i that holds fp and reports
// whether there was one.
func (t *table) packedRemove(i uint64, fp uint32) bool {
	lo, hi := t.matches(i, fp)
	if lo|hi == 0 {
		return false
	}
	t.setSlot(i, t.firstLane(lo, hi), 0)
	return true
}

// packedSwap puts fp into slot k of bucket i and returns what was there and
// the slot that now holds fp (always k in this layout).
func (t *table) packedSwap(i uint64, k uint, fp uint32) (old uint32, at uint) {
	old = t.slot(i, k)
	t.setSlot(i, k, fp)
	return old, k
}
