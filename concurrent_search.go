package cuckoo

// The concurrent filter's displacements (why, in concurrent.go). The search
// is breadth-first, so a path is shortest: few write sessions that may make
// a reader retry (at most 5 with the default MaxKicks). A path never visits
// a bucket twice, so the slot a step recorded still holds its fingerprint
// when the step is applied; a node whose bucket an ancestor has is dropped
// (it cannot end a path: every ancestor is full).

// searchBuckets is how many buckets a search may examine per MaxKicks: with
// 4 it fills tables as far as the walk (0.965 of the slots for f = 8, 0.975
// for 13 and 20; 0.955 and 0.964 with 1), so Capacity keys always fit.
const searchBuckets = 4

// pathNode is a bucket b the search reached, the value v it would take in,
// and where v comes from: slot slot of node parent's bucket, or the key.
type pathNode struct {
	b      uint32 // bucket indexes are below maxBuckets = 2^32
	v      uint32
	parent int32
	slot   uint8
}

// search looks, writing nothing, for a path that frees a slot for a key
// whose full buckets b1 and b2 would hold it as v1 and v2. It returns the
// nodes reached, in q's memory, and the index of the path's free end, or -1.
func (s *ctable) search(q []pathNode, maxKicks int, b1 uint64, v1 uint32, b2 uint64, v2 uint32) ([]pathNode, int) {
	q = append(q[:0], pathNode{b: uint32(b1), v: v1, parent: -1}, pathNode{b: uint32(b2), v: v2, parent: -1})
	budget := searchBuckets * maxKicks
	t := &s.t
	fixed := t.g|t.genBits == 0 // other takes an expiring slot's fingerprint
	// Narrow packed buckets are decoded written out: the codec does not
	// inline (342 instructions an insert, not 374, f = 13).
	packed := t.class.packedWords()
	for head := 0; head < len(q); head++ {
		n := q[head]
		if onPath(q, int(n.parent), uint64(n.b)) {
			continue // a loop: its bucket is an ancestor's
		}
		var slots [slotsPerBucket]uint32
		if packed {
			slots = t.narrowSlots(t.narrowWord(uint64(n.b)))
		} else {
			slots = t.bucketSlots(uint64(n.b))
		}
		for k, v := range slots {
			var ob uint64
			var ov uint32
			if fixed { // alt inlines, other does not
				ob, ov = t.alt(uint64(n.b), v), v
			} else {
				ob, ov = t.other(uint64(n.b), v)
			}
			if budget == 0 {
				return q, -1
			}
			budget--
			// cap(q) = searchBuckets*MaxKicks + 2: this never reallocates.
			q = append(q, pathNode{b: uint32(ob), v: ov, parent: int32(head), slot: uint8(k)})
			if packed && t.freeMarks(t.narrowWord(ob)) != 0 || !packed && t.hasFree(ob) {
				return q, len(q) - 1
			}
		}
	}
	return q, -1
}

// moveNear is search and apply written out for the commonest displacement,
// in a fixed table of one-word buckets: it moves the first of the values of
// the full buckets i1 and i2 (read as w1 and w2) of a key of value v that
// has a free slot in its other bucket, as apply would, or writes nothing
// and reports false. Masking fingerprints (fpMask, for generation bits)
// costs 1.4 instructions an insert (f = 13).
func (s *ctable) moveNear(i1, w1, i2, w2 uint64, v uint32) bool {
	t := &s.t
	packed, fpm := t.class.packedNarrow(), uint32(t.fpMask)
	for _, b := range [2][2]uint64{{i1, w1}, {i2, w2}} {
		i, slots := b[0], t.narrowSlots(b[1])
		if !packed {
			slots = t.decode(b[1], 0)
		}
		for k, u := range slots {
			o := t.alt(i, u&fpm)
			w := t.narrowWord(o)
			switch {
			case packed && t.freeMarks(w) != 0:
				// addTo and replace written out (8 instructions less an insert).
				s.fill(o*uint64(t.bbits)+t.firstSlot(t.freeMarks(w), 0), u)
				sh := uint64(k) * uint64(t.f) & 63
				s.setBucket(i, b[1]&^(t.slotMax<<sh)|uint64(v)<<sh, 0, false)
			case !packed && t.roomIn(w, 0):
				s.addTo(o, w, 0, u)
				s.replace(i, slots, uint(k), v)
			default:
				continue
			}
			return true
		}
	}
	return false
}

// onPath reports whether bucket b is node i's or one of its ancestors'.
func onPath(q []pathNode, i int, b uint64) bool {
	for ; i >= 0; i = int(q[i].parent) {
		if uint64(q[i].b) == b {
			return true
		}
	}
	return false
}

// apply carries out the path ending at node end of q from that end back,
// each value copied into its new bucket before its old slot is overwritten.
func (s *ctable) apply(q []pathNode, end int) {
	n := q[end]
	if lo, hi := s.t.bucketAt(uint64(n.b)); !s.addTo(uint64(n.b), lo, hi, n.v) {
		panic("cuckoo: the free end of a displacement path is full")
	}
	narrow := s.t.class.packedWords()
	for n.parent >= 0 {
		p := q[n.parent]
		if narrow { // no decoding: a path's buckets are full
			s.replaceNarrow(uint64(p.b), uint(n.slot), p.v, false)
		} else {
			s.replace(uint64(p.b), s.t.bucketSlots(uint64(p.b)), uint(n.slot), p.v)
		}
		n = p
	}
}
