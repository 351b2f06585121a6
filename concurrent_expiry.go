package cuckoo

// A ConcurrentFilter's expiring tables: generations.go's scheme, on a ctable.

// advance is Advance: the next generation becomes current and the slots of
// the one it reuses are cleared in place (with G = 1, every slot). A lookup
// never misses a key live for the whole of it: the pass clears only expired
// keys' slots and moves no fingerprint to another bucket; each bucket it
// changes is one write session, as a delete's (rewriteNarrow's 8-byte store
// puts the bits beside it back as they were), inside which a semi-sorted
// bucket's remaining slots move, so an overlapping lookup reads again.
func (c *concurrent) advance() int {
	s := c.cur.Load()
	if s == nil || s.t.gens == 0 {
		return 0
	}
	c.stop() // writers wait: none stores a key of the old generation after it
	defer c.start()
	s = c.cur.Load()
	id := (uint(c.gen.Load()) + 1) % s.t.gens // 0 for G = 1
	// The pass first, then the generation: claims go on meanwhile, and one
	// of the new generation's before the pass reached its bucket would be
	// cleared at once. Those of the old one stay.
	n := s.expire(s.t.expiryOf(uint32(id)))
	c.gen.Store(uint32(id))
	c.genV.Store(uint32(id) << (s.t.kbits & 31))
	c.count -= n
	return n
}

// expire clears generation e.id from every bucket (with G = 1, no
// generation bits: every slot, f = 32 too) and returns how many slots.
func (s *ctable) expire(e expiry) int {
	t := &s.t
	n := 0
	for b := range t.m {
		if t.f <= 16 {
			w := s.word(b)
			if x, _, k := t.expireIn(w, 0, &e); k != 0 {
				s.rewrite(b, w, x, false)
				n += k
			}
			continue
		}
		lo, hi := s.read(b)
		if lo, hi, k := t.expireIn(lo, hi, &e); k != 0 {
			s.setBucket(b, lo, hi, false)
			n += k
		}
	}
	return n
}

// Advance starts a new generation of an expiring filter and returns how
// many stored keys expired, as Filter.Advance does. Writers wait for it;
// lookups go on, and never miss a key live for the whole lookup. A key
// inserted after Advance returned lives through G more calls. It allocates
// nothing.
func (f *ConcurrentFilter[T]) Advance() int { return f.c.advance() }

// Generations is Config.Generations: 0 for a filter whose keys never expire.
func (f *ConcurrentFilter[T]) Generations() int { return int(f.c.view().t.gens) }
