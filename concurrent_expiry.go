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
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.cur.Load()
	if s == nil || s.t.gens == 0 {
		return 0
	}
	id := (uint(c.gen.Load()) + 1) % s.t.gens // 0 for G = 1
	c.gen.Store(uint32(id))
	c.genV = uint32(id) << (s.t.kbits & 31)
	n := s.expire(s.t.expiryOf(uint32(id)))
	c.count -= n
	c.publishCount()
	return n
}

// expire clears generation e.id from every bucket (with G = 1, no
// generation bits: every slot, f = 32 too) and returns how many slots.
func (s *ctable) expire(e expiry) int {
	t := &s.t
	n := 0
	for b := range t.m {
		if t.f <= 16 {
			w := t.narrowWord(b)
			if x, _, k := t.expireIn(w, 0, &e); k != 0 {
				s.rewriteNarrow(b, w, x)
				n += k
			}
			continue
		}
		lo, hi := t.bucketAt(b)
		if lo, hi, k := t.expireIn(lo, hi, &e); k != 0 {
			s.setBucket(b, lo, hi, false)
			n += k
		}
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
