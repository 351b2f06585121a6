package cuckoo

import "math/bits"

// The packed layout's codec: slot k in bits [k*f, k*f+f) of the bucket's
// value, an empty slot 0.

// packedSlots decodes the bucket (lo, hi), f > 16: values in slot order.
func (s *shape) packedSlots(lo, hi uint64) [4]uint32 {
	var v [4]uint32
	for k := range v {
		v[k] = uint32(bits128(lo, hi, uint(k)*s.f)) & uint32(s.slotMax)
	}
	return v
}

// narrowSlots is packedSlots for f <= 16 (a narrowWord), where it inlines.
func (s *shape) narrowSlots(b uint64) [4]uint32 {
	f, m := s.f&31, uint32(s.slotMax) // f <= 16: the mask spares the shifts' checks
	s0 := uint32(b) & m
	b >>= f
	s1 := uint32(b) & m
	b >>= f
	return [4]uint32{s0, s1, uint32(b) & m, uint32(b>>f) & m}
}

// packedEncode is the bucket that holds v in slot order.
func (s *shape) packedEncode(v [4]uint32) (lo, hi uint64) {
	if s.f <= 16 {
		f := s.f & 31 // f <= 16: the masks spare the shifts' checks
		return uint64(v[0]) | uint64(v[1])<<f | uint64(v[2])<<(2*f) | uint64(v[3])<<(3*f&63), 0
	}
	for k, x := range v {
		lo, hi = or128(lo, hi, uint64(x), uint(k)*s.f)
	}
	return lo, hi
}

// or128 is (lo, hi) with v, of at most 64 bits, or'ed in from bit pos on.
func or128(lo, hi, v uint64, pos uint) (uint64, uint64) {
	if pos < 64 {
		return lo | v<<pos, hi | v>>(64-pos) // pos = 0 shifts by 64: nothing
	}
	return lo, hi | v<<(pos-64)
}

// packedMatch is match for the packed layout: a lane's top key bit a slot.
func (s *shape) packedMatch(lo, hi uint64, v uint32) (mlo, mhi uint64) {
	if s.f <= 16 {
		return s.keyLanes.zero64(lo ^ uint64(v)*s.keyLanes.onesLo), 0
	}
	plo, phi := s.keyLanes.broadcast(v)
	return s.keyLanes.zero128(lo^plo, hi^phi)
}

// packedSplit is split for the packed layout, by constant shifts (4
// instructions a growable insert less than or128 and bits128, f = 13).
func (s *shape) packedSplit(lo, hi uint64, n *shape) (c [2][2]uint64) {
	f, nf := s.f&63, n.f&63 // 4 <= f <= 32: the masks spare the shifts' checks
	var v [slotsPerBucket]uint64
	for k := range v {
		v[k] = lo & s.slotMax
		lo, hi = lo>>f|hi<<((64-f)&63), hi>>f
	}
	if s.genBits != 0 {
		for k := range v {
			v[k] = uint64(s.keyTopUp(uint32(v[k])))
		}
	}
	low := s.slotMax >> 1 // the values of child 0; child 1's lose their top bit
	var lo0, hi0, lo1, hi1 uint64
	for k := slotsPerBucket - 1; k >= 0; k-- {
		switch x := v[k]; {
		case x == 0:
		case x <= low:
			lo0, hi0 = lo0<<nf|x, hi0<<nf|lo0>>((64-nf)&63)
		default:
			lo1, hi1 = lo1<<nf|x&low, hi1<<nf|lo1>>((64-nf)&63)
		}
	}
	return [2][2]uint64{{lo0, hi0}, {lo1, hi1}}
}

// packedInsert is the bucket with v or'ed into its lowest free slot, if any.
func (s *shape) packedInsert(lo, hi uint64, v uint32) (uint64, uint64, bool) {
	p, ok := s.packedFree(lo, hi)
	if ok {
		lo, hi = or128(lo, hi, uint64(v), uint(p))
	}
	return lo, hi, ok
}

// packedFree is the bit offset of the bucket's lowest empty slot, if any,
// where table.add and ctable.addTo store a value alone (less than through
// insertInto and setBucket: 7-8 instructions a growable insert, 180 a
// concurrent one, f = 13).
func (s *shape) packedFree(lo, hi uint64) (uint64, bool) {
	var mlo, mhi uint64 // packedMatch(lo, hi, 0): 3 instructions an insert
	if s.f <= 16 {
		mlo = s.lanes.zero64(lo)
	} else {
		mlo, mhi = s.lanes.zero128(lo, hi)
	}
	if mlo|mhi == 0 {
		return 0, false
	}
	return s.firstSlot(mlo, mhi), true
}

// packedExpire is expireIn for a packed one-word bucket b, four lanes at
// once: each lane whose generation bits are e.id's and that is not empty.
func (s *shape) packedExpire(b uint64, e *expiry) (uint64, int) {
	hit := s.lanes.zero64(b&e.gens^e.pat) &^ s.lanes.zero64(b)
	return b &^ (hit >> ((s.f - 1) & 63) * s.slotMax), bits.OnesCount64(hit)
}

// freeMarks marks the empty slots of a packed one-word bucket: the lowest
// exactly, perhaps lanes above it (anyZero's test); zero if it is full.
func (s *shape) freeMarks(b uint64) uint64 { return (b - s.lanes.onesLo) &^ b & s.lanes.topsLo }

// firstSlot is the bit offset, within its bucket, of the lowest slot
// marked (by its top bit) in a non-zero match mask.
func (s *shape) firstSlot(lo, hi uint64) uint64 {
	top := uint64(bits.TrailingZeros64(lo))
	if lo == 0 {
		top = 64 + uint64(bits.TrailingZeros64(hi))
	}
	return top + 1 - uint64(s.f)
}
