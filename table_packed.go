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
func (t *table) setSlot(i uint64, k uint, v uint32) { t.setSlotAt(t.slotPos(i, k), v) }

// setSlotAt writes v into the slot at bit position p.
func (t *table) setSlotAt(p uint64, v uint32) {
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

// firstSlot is the bit offset, within its bucket, of the lowest slot set in
// a non-zero match mask: the mask marks a slot by its top bit, f-1 bits
// above its first.
func (t *table) firstSlot(lo, hi uint64) uint64 {
	top := uint64(bits.TrailingZeros64(lo))
	if lo == 0 {
		top = 64 + uint64(bits.TrailingZeros64(hi))
	}
	return top + 1 - uint64(t.f)
}

// packedAdd stores fp in a free slot of bucket i, the lowest one, and
// reports whether there was one.
func (t *table) packedAdd(i uint64, fp uint32) bool {
	lo, hi := t.matches(i, 0)
	if lo|hi == 0 {
		return false
	}
	t.setSlotAt(i*uint64(t.bbits)+t.firstSlot(lo, hi), fp)
	return true
}

// packedAdd2 stores fp in the lowest free slot of bucket i1, or failing that
// of bucket i2, and reports whether either had one. Both buckets are read
// before either is tested, so that their cache misses overlap.
func (t *table) packedAdd2(i1, i2 uint64, fp uint32) bool {
	if t.f > 16 {
		return t.packedAdd(i1, fp) || t.packedAdd(i2, fp)
	}
	p1, p2 := i1*uint64(t.bbits), i2*uint64(t.bbits)
	z1 := t.lanes.zero64(load64At(t.data, p1>>3) >> (p1 & 7))
	z2 := t.lanes.zero64(load64At(t.data, p2>>3) >> (p2 & 7))
	p, z := p1, z1
	if z1 == 0 {
		p, z = p2, z2
	}
	if z == 0 {
		return false
	}
	t.setSlotAt(p+t.firstSlot(z, 0), fp)
	return true
}

// packedRemove clears the lowest slot of bucket i that holds fp and reports
// whether there was one.
func (t *table) packedRemove(i uint64, fp uint32) bool {
	lo, hi := t.matches(i, fp)
	if lo|hi == 0 {
		return false
	}
	t.setSlotAt(i*uint64(t.bbits)+t.firstSlot(lo, hi), 0)
	return true
}

// packedSwap puts fp into slot k of bucket i and returns what was there and
// the slot that now holds fp (always k in this layout).
func (t *table) packedSwap(i uint64, k uint, fp uint32) (old uint32, at uint) {
	old = t.slot(i, k)
	t.setSlot(i, k, fp)
	return old, k
}
