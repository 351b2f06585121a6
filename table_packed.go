package cuckoo

import (
	"encoding/binary"
	"math/bits"
)

// The packed layout stores the four f-bit slots of a bucket back to back:
// slot k of bucket i is bits [i*4f + k*f, i*4f + k*f + f) of the table. An
// empty slot holds 0.

// slotPos is the bit position of slot k of bucket i.
func (t *table) slotPos(i uint64, k uint) uint64 { return i*uint64(t.bbits) + uint64(k*t.f) }

// slot reads slot k of bucket i. A slot is at most 32 bits starting at most
// 7 bits into a byte, so one 64-bit load holds it.
func (t *table) slot(i uint64, k uint) uint32 {
	p := t.slotPos(i, k)
	return uint32(load64(t.data, p>>3) >> (p & 7) & t.slotMax)
}

// setSlot writes v into slot k of bucket i, leaving every other bit as it was.
func (t *table) setSlot(i uint64, k uint, v uint32) { t.setSlotAt(t.slotPos(i, k), v) }

// setSlotAt writes v into the slot at bit position p.
func (t *table) setSlotAt(p uint64, v uint32) {
	o, s := p>>3, p&7
	w := load64(t.data, o)
	w = w&^(t.slotMax<<s) | uint64(v)<<s
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

// putFirst stores fp in the lowest slot marked in z of bucket i, a packed
// bucket with f <= 16: a one-byte or two-byte store where slots are whole
// bytes, a read-modify-write of the word that holds the slot otherwise.
func (t *table) putFirst(i, z uint64, fp uint32) {
	switch t.class {
	case class8:
		t.data[i*4+uint64(bits.TrailingZeros64(z)>>3)] = byte(fp)
	case class16:
		o := i*8 + uint64(bits.TrailingZeros64(z)>>4*2)
		binary.LittleEndian.PutUint16(t.data[o:o+2], uint16(fp))
	default:
		t.setSlotAt(i*uint64(t.bbits)+t.firstSlot(z, 0), fp)
	}
}

// packedAdd stores fp in the lowest free slot of bucket i and reports
// whether there was one.
func (t *table) packedAdd(i uint64, fp uint32) bool {
	if t.f <= 16 {
		z := t.freeMarks(t.narrowWord(i))
		if z == 0 {
			return false
		}
		t.putFirst(i, z, fp)
		return true
	}
	lo, hi := t.matches(i, 0)
	if lo|hi == 0 {
		return false
	}
	t.setSlotAt(i*uint64(t.bbits)+t.firstSlot(lo, hi), fp)
	return true
}

// packedAdd2 is add2 for the packed layout. Both buckets are read before
// either is tested, so that their cache misses overlap.
func (t *table) packedAdd2(i1 uint64, v1 uint32, i2 uint64, v2 uint32) bool {
	if t.f > 16 {
		return t.packedAdd(i1, v1) || t.packedAdd(i2, v2)
	}
	z1 := t.freeMarks(t.narrowWord(i1))
	z2 := t.freeMarks(t.narrowWord(i2))
	i, v, z := i1, v1, z1
	if z1 == 0 {
		i, v, z = i2, v2, z2
	}
	if z == 0 {
		return false
	}
	t.putFirst(i, z, v)
	return true
}

// narrowSlots decodes a packed bucket of f <= 16 given as narrowWord.
func (t *table) narrowSlots(b uint64) [4]uint32 {
	f, m := t.f&31, uint32(t.slotMax) // f <= 16: the mask spares the shifts' checks
	s0 := uint32(b) & m
	b >>= f
	s1 := uint32(b) & m
	b >>= f
	return [4]uint32{s0, s1, uint32(b) & m, uint32(b>>f) & m}
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

// freeMarks marks the empty slots of a packed bucket with f <= 16, given as
// narrowWord: the top bit of the lowest empty slot's lane, exactly (the
// (x - ones) &^ x test of anyZero), and perhaps of empty or full lanes
// above it. Zero means the bucket is full.
func (t *table) freeMarks(b uint64) uint64 { return (b - t.lanes.onesLo) &^ b & t.lanes.topsLo }
