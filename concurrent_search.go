package cuckoo

// The concurrent filter's displacements (why, in concurrent.go). The search
// is breadth-first, so a path is shortest: few write sessions that may make
// a reader retry (at most 5 with the default MaxKicks), and few stripes for
// a writer to hold. A path never visits a bucket twice, so the slot a step
// recorded still holds its fingerprint when the step is applied, if no
// other writer changed it meanwhile (valid tells); a node whose bucket an
// ancestor has is dropped (it cannot end a path: every ancestor is full).
// The search reads without a lock, atomically, as another writer may be
// changing the buckets it reads.

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
// nodes reached, in q's memory (cap(q) >= searchBuckets*maxKicks + 2), and
// the index of the path's free end, or -1.
func (s *ctable) search(q []pathNode, maxKicks int, b1 uint64, v1 uint32, b2 uint64, v2 uint32) ([]pathNode, int) {
	q = q[:searchBuckets*maxKicks+2]
	q[0] = pathNode{b: uint32(b1), v: v1, parent: -1}
	q[1] = pathNode{b: uint32(b2), v: v2, parent: -1}
	if t := &s.t; t.class.packedWords() && t.g|t.genBits == 0 {
		return s.searchPacked(q)
	}
	return s.searchAny(q)
}

// searchAny is search from the roots q[0] and q[1] in any table, the
// reference searchPacked is tested against.
func (s *ctable) searchAny(q []pathNode) ([]pathNode, int) {
	// Narrow packed buckets are decoded written out: the codec does not
	// inline.
	t, packed, n := &s.t, s.t.class.packedWords(), 2
	fixed := t.g|t.genBits == 0
	for head := 0; head < n; head++ {
		p := q[head]
		if onPath(q, int(p.parent), uint64(p.b)) {
			continue // a loop: its bucket is an ancestor's
		}
		var slots [slotsPerBucket]uint32
		if packed {
			slots = t.narrowSlots(s.word(uint64(p.b)))
		} else {
			slots = s.slots(uint64(p.b))
		}
		for k, v := range slots {
			if v == 0 {
				continue // a root's slot a claim may fill meanwhile: not a step
			}
			if n == len(q) {
				return q[:n], -1
			}
			var ob uint64
			var ov uint32
			if fixed { // alt inlines, other does not
				ob, ov = t.alt(uint64(p.b), v), v
			} else { // other takes an expiring slot's fingerprint
				ob, ov = t.other(uint64(p.b), v)
			}
			q[n] = pathNode{b: uint32(ob), v: ov, parent: int32(head), slot: uint8(k)}
			if n++; packed && t.freeMarks(s.word(ob)) != 0 || !packed && t.roomIn(s.read(ob)) {
				return q[:n], n - 1
			}
		}
	}
	return q[:n], -1
}

// searchPacked is searchAny in a fixed table of packed one-word buckets,
// written without a call, so that its loop keeps its values in registers
// (run.sh 65536 13 conc: 389 -> 376 instructions an insert).
func (s *ctable) searchPacked(q []pathNode) ([]pathNode, int) {
	t := &s.t
	n := 2
	for head := 0; head < n; head++ {
		p := q[head]
		if onPath(q, int(p.parent), uint64(p.b)) {
			continue
		}
		for k, v := range t.narrowSlots(s.word(uint64(p.b))) {
			if v == 0 {
				continue
			}
			if n == len(q) {
				return q[:n], -1
			}
			ob := t.alt(uint64(p.b), v)
			q[n] = pathNode{b: uint32(ob), v: v, parent: int32(head), slot: uint8(k)}
			if n++; t.freeMarks(s.word(ob)) != 0 {
				return q[:n], n - 1
			}
		}
	}
	return q[:n], -1
}

// moveNear is search and apply written out for the commonest displacement,
// in a fixed table of one-word buckets: it moves the first of the values of
// the full buckets i1 and i2 (read as w1 and w2, their stripes held) of a
// key of value v that has a free slot in its other bucket, as apply would,
// or writes nothing and reports false. It takes the other bucket's stripe
// if it is free (a writer holding stripes waits for none out of order), or
// holds it already with all. Masking fingerprints (fpMask, for generation
// bits) costs 1.4 instructions an insert (f = 13).
func (c *concurrent) moveNear(s *ctable, i1, w1, i2, w2 uint64, v uint32, all bool) bool {
	t := &s.t
	packed, fpm := t.class.packedNarrow(), uint32(t.fpMask)
	l1, l2 := i1&s.smask, i2&s.smask
	i, w := i1, w1
	for range 2 {
		slots := t.narrowSlots(w)
		if !packed {
			slots = t.decode(w, 0)
		}
		for k, u := range slots {
			if u == 0 {
				continue // room a claim took from the caller; it may fill it meanwhile
			}
			o := altBySign(i, u&fpm, t.m0)
			if x := s.word(o); packed && t.freeMarks(x) == 0 || !packed && !t.semiFree(x) {
				continue
			}
			lo := o & s.smask
			mine := all || lo == l1 || lo == l2
			if !mine && !c.tryLock(lo) {
				continue
			}
			// Held: o's room may have gone meanwhile, to another writer or
			// to a claim, which addTo tells.
			moved := s.addTo(o, s.word(o), 0, u)
			switch {
			case moved && packed: // replace written out (8 instructions less an insert)
				sh := uint64(k) * uint64(t.f) & 63
				s.rewrite(i, w, w&^(t.slotMax<<sh)|uint64(v)<<sh, false)
			case moved:
				s.replace(i, slots, uint(k), v)
			}
			if !mine {
				c.unlock(lo)
			}
			if moved {
				return true
			}
		}
		i, w = i2, w2
	}
	return false
}

// pathResult is what displace did.
type pathResult uint8

const (
	pathApplied pathResult = iota // the key is in
	pathPresent                   // the key was there already (put's unique)
	pathAgain                     // the table was replaced: put starts again
	pathAll                       // put must run as the one writer (putAll)
)

// displace is put for full buckets b1 and b2 of table s (the key's values
// in them v1 and v2, no generation bits): along a path found without a
// lock on the filter's queue (c.path, whose holder mu makes one displacing
// writer at a time: displacements are few, and their search is long), then
// its stripes and the key's held in ascending order, applied if still
// there (valid), with the key in the current generation; with unique, not
// if the key is found there meanwhile. A path whose buckets changed is
// looked for again; none found, or a path too long to hold, gives up to
// putAll, which tells ErrFull exactly.
func (c *concurrent) displace(s *ctable, b1 uint64, v1 uint32, b2 uint64, v2 uint32, unique bool) pathResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.displaceOn(c.path, c.maxKicks, s, b1, v1, b2, v2, unique)
}

// displaceOn is displace with the search queue q of searchBuckets*kicks +
// 2 nodes, trying twice.
func (c *concurrent) displaceOn(q []pathNode, kicks int, s *ctable, b1 uint64, v1 uint32, b2 uint64, v2 uint32, unique bool) pathResult {
	for range 2 {
		q, end := s.search(q, kicks, b1, v1, b2, v2)
		if end < 0 {
			return pathAll
		}
		var l lockSet
		ok := l.add(b1&s.smask) && l.add(b2&s.smask)
		for n := end; ok && n >= 0; n = int(q[n].parent) {
			ok = l.add(uint64(q[n].b) & s.smask)
		}
		if !ok {
			return pathAll
		}
		c.lockSet(&l)
		switch {
		case c.cur.Load() != s:
			c.unlockSet(s, &l, 0)
			return pathAgain
		case unique && c.refresh(s, b1, v1, b2, v2):
			c.unlockSet(s, &l, 0)
			return pathPresent
		}
		lo1, hi1 := s.read(b1) // a slot freed meanwhile takes the key
		lo2, hi2 := s.read(b2)
		gv := c.genV.Load()
		done := s.addTo(b1, lo1, hi1, v1|gv) || s.addTo(b2, lo2, hi2, v2|gv)
		if !done && s.valid(q, end) {
			q[0].v, q[1].v = v1|gv, v2|gv // the roots: the key
			done = s.apply(q, end)
		}
		c.unlockSet(s, &l, int64(b2i(done)))
		if done {
			return pathApplied
		}
	}
	return pathAll
}

// valid reports whether the path that ends at node end of q, found without
// a lock, is still there, its stripes held: room at its free end, and each
// value it moves in the slot its step recorded (other is an involution: a
// step's value as its old bucket holds it is other of the new one's).
func (s *ctable) valid(q []pathNode, end int) bool {
	n := q[end]
	if !s.t.roomIn(s.read(uint64(n.b))) {
		return false
	}
	packed := s.t.class.packedWords()
	for n.parent >= 0 {
		p := q[n.parent]
		var slots [4]uint32
		if packed { // without decode's call, as search
			slots = s.t.narrowSlots(s.word(uint64(p.b)))
		} else {
			slots = s.slots(uint64(p.b))
		}
		if _, u := s.t.other(uint64(n.b), n.v); slots[n.slot&3] != u {
			return false
		}
		n = p
	}
	return true
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
// each value copied into its new bucket before its old slot is overwritten;
// or, if a claim took the free end's room since the search, writes nothing
// and reports false.
func (s *ctable) apply(q []pathNode, end int) bool {
	n := q[end]
	if lo, hi := s.read(uint64(n.b)); !s.addTo(uint64(n.b), lo, hi, n.v) {
		if !s.free {
			panic("cuckoo: the free end of a displacement path is full")
		}
		return false
	}
	narrow := s.t.class.packedWords()
	for n.parent >= 0 {
		p := q[n.parent]
		if narrow { // no decoding: a path's buckets are full
			s.replaceNarrow(uint64(p.b), uint(n.slot), p.v, false)
		} else {
			s.replace(uint64(p.b), s.slots(uint64(p.b)), uint(n.slot), p.v)
		}
		n = p
	}
	return true
}
