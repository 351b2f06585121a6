package cuckoo

// The bucket codec: decoding, encoding, matching and finding a free slot in
// one bucket given as a value (lo, hi) that holds its bits from bit 0 on
// (for f <= 16, lo alone, as narrowWord gives it), for both layouts, with
// no knowledge of where the bucket lies. The Filter's table (table.go) and
// the concurrent filter's (concurrent_table.go) load buckets their own way
// and share it; the Filter's hot paths (lookup.go, kick.go) have
// specialized copies of the narrow cases.

// bucketAt reads bucket i of t as a value for the codec, with plain loads.
func (t *table) bucketAt(i uint64) (lo, hi uint64) {
	if t.f <= 16 {
		return t.narrowWord(i), 0
	}
	return bucket128(t.data, i*uint64(t.bbits))
}

// valueMatches marks, one bit a slot, the slots of the bucket (lo, hi)
// that hold v (v = 0 marks the empty slots of a packed bucket).
func (t *table) valueMatches(lo, hi uint64, v uint32) (mlo, mhi uint64) {
	switch {
	case t.layout == SemiSorted:
		return t.semiMatchesOf(lo, hi, v)
	case t.f <= 16:
		return t.lanes.zero64(lo ^ uint64(v)*t.lanes.onesLo), 0
	}
	plo, phi := t.lanes.broadcast(v)
	return t.lanes.zero128(lo^plo, hi^phi)
}

// slotsOf decodes the bucket (lo, hi): its four values, 0 for an empty slot,
// in the order the Filter's bucketSlots gives them (slot order when packed,
// ascending when semi-sorted).
func (t *table) slotsOf(lo, hi uint64) (s [4]uint32) {
	switch {
	case t.f <= 16:
		return t.slotsOfNarrow(lo)
	case t.layout == SemiSorted:
		return t.semiSlotsOf(lo, hi)
	}
	for k := range s {
		s[k] = uint32(bits128(lo, hi, uint(k)*t.f)) & uint32(t.slotMax)
	}
	return s
}

// packSlots is the bucket value that holds the values s: in slot order
// when packed, sorted when semi-sorted.
func (t *table) packSlots(s [4]uint32) (lo, hi uint64) {
	if t.layout == SemiSorted {
		return t.semiPack(s[0], s[1], s[2], s[3])
	}
	for k, v := range s {
		pos := uint(k) * t.f
		if pos < 64 {
			lo |= uint64(v) << pos
			hi |= uint64(v) >> (64 - pos) // pos = 0 shifts by 64: nothing
		} else {
			hi |= uint64(v) << (pos - 64)
		}
	}
	return lo, hi
}

// freeSlot is the index of the lowest empty slot among s, or -1: in a
// semi-sorted bucket the empty slots sort first.
func freeSlot(s [4]uint32) int {
	for k, v := range s {
		if v == 0 {
			return k
		}
	}
	return -1
}

// slotsOfNarrow is slotsOf for f <= 16.
func (t *table) slotsOfNarrow(w uint64) [4]uint32 {
	if t.layout == SemiSorted {
		return t.semiNarrowSlots(w)
	}
	return t.narrowSlots(w)
}

// freeIn reports whether the bucket w, read as narrowWord (f <= 16), has
// an empty slot.
func (t *table) freeIn(w uint64) bool {
	if t.layout == SemiSorted {
		return t.semiFree(w)
	}
	return t.freeMarks(w) != 0
}
