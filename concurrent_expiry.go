package cuckoo

import "math/bits"

// A ConcurrentFilter's expiring tables: generations.go's scheme, on a ctable.

// expiringMatchesOf is the number of slots of the bucket (lo, hi), as
// ctable.read gives it, whose fingerprint is fp, of any generation.
func (t *table) expiringMatchesOf(lo, hi uint64, fp uint32) int {
	if t.class == classExpNarrow { // four lanes at once, exactly (zero64)
		x := (lo ^ uint64(fp)*t.lanes.onesLo) & (t.lanes.onesLo * t.fpMask)
		return bits.OnesCount64(t.lanes.zero64(x))
	}
	n := 0
	for _, v := range t.decode(lo, hi) {
		if v&uint32(t.fpMask) == fp {
			n++
		}
	}
	return n
}

// renewExpiring is InsertUnique's test for an expiring table: a present
// key's youngest copy moves to the current generation within its bucket in
// a write session: re-sorting a semi-sorted bucket moves its slots, so a
// lookup that overlaps the session reads again.
func (c *concurrent) renewExpiring(s *ctable, h uint64) bool {
	t := &s.t
	fp, i1 := t.locate(h)
	i2 := t.alt(i1, fp)
	gen := uint(c.gen.Load())
	b, slots, k := t.oldest(i1, i2, fp, gen, true)
	if v := t.expiringValue(fp, gen); k >= 0 && slots[k] != v {
		s.replace(b, slots, uint(k), v)
	}
	return k >= 0
}

// removeExpiring is delete for an expiring table: the oldest copy goes.
func (c *concurrent) removeExpiring(s *ctable, h uint64) bool {
	t := &s.t
	fp, i1 := t.locate(h)
	i2 := t.alt(i1, fp)
	b, slots, k := t.oldest(i1, i2, fp, uint(c.gen.Load()), false)
	if k >= 0 {
		s.replace(b, slots, uint(k), 0)
	}
	return k >= 0
}

// advance is Advance: the next generation becomes current and the slots of
// the one it reuses are cleared in place (with G = 1, every slot). A lookup
// never misses a key live for the whole of it: the pass clears only expired
// keys' slots and moves no fingerprint to another bucket; each bucket it
// changes is one write session, as a delete's (rewriteNarrow's 8-byte store
// puts the bits beside it back as they were), inside which a semi-sorted
// bucket's remaining slots move, so an overlapping lookup reads again.
func (c *concurrent) advance() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.cur.Load()
	if s == nil || s.t.gens == 0 {
		return 0
	}
	t := &s.t
	id := (c.gen.Load() + 1) % uint32(t.gens) // 0 for G = 1
	c.setGen(id, t.fbits)
	var n int
	switch t.class {
	case classExpNarrow:
		n = s.expireNarrow(uint(id))
	case classExpSemi:
		n = s.expireSemi(id)
	default:
		n = s.expireBuckets(id)
	}
	c.count -= n
	c.publishCount()
	return n
}

// expireNarrow is advance's pass over classExpNarrow, four lanes at once,
// its constants hoisted (else 150 instructions a bucket, f = 13, G = 4).
func (s *ctable) expireNarrow(id uint) int {
	t := &s.t
	l := t.lanes
	gens := l.onesLo * (t.slotMax &^ t.fpMask)
	pat := l.onesLo * uint64(id) << (t.fbits & 31)
	top, slot := t.f-1, t.slotMax
	n := 0
	for b := range t.m {
		w := t.narrowWord(b)
		hit := l.zero64(w&gens^pat) &^ l.zero64(w)
		if hit == 0 {
			continue
		}
		s.rewriteNarrow(b, w, w&^(hit>>top*slot))
		n += bits.OnesCount64(hit)
	}
	return n
}

// expireSemi is advance's pass over classExpSemi without decoding (through
// expireBuckets, 321 instructions a bucket, not 103, f = 13, G = 4).
func (s *ctable) expireSemi(id uint32) int {
	t := &s.t
	var e semiExpiry
	e.init(t, id)
	n := 0
	for b := range t.m {
		w := t.narrowWord(b)
		nib := uint64(semiDecode[w&(1<<semiCodeBits-1)])
		r := e.run(nib)
		if r == 0 {
			continue
		}
		k := e.moves[r].k
		if id == 0 {
			k -= t.semiEmpty(w) // the run holds the empty slots
		}
		if k != 0 {
			s.rewriteNarrow(b, w, e.clear(w, nib, r))
			n += k
		}
	}
	return n
}

// expireBuckets is advance's pass over any other expiring table (with
// G = 1, no generation bits: every slot is of generation 0, f = 32 too).
func (s *ctable) expireBuckets(id uint32) int {
	t := &s.t
	n := 0
	for b := range t.m {
		slots := t.bucketSlots(b)
		k := 0
		for j, v := range slots {
			if v != 0 && uint64(v)>>t.fbits == uint64(id) { // fbits is 32 where G = 1 and f = 32
				slots[j] = 0
				k++
			}
		}
		if k == 0 {
			continue
		}
		lo, hi := t.encode(slots)
		s.setBucket(b, lo, hi, false)
		n += k
	}
	return n
}

// Advance starts a new generation of an expiring filter and returns how
// many stored keys expired, as Filter.Advance does. It runs as writers do,
// while lookups go on, which never miss a key live for the whole lookup. It
// allocates nothing.
func (f *ConcurrentFilter[T]) Advance() int { return f.c.advance() }

// Generations is Config.Generations: 0 for a filter whose keys never expire.
func (f *ConcurrentFilter[T]) Generations() int { return int(f.c.view().t.gens) }
