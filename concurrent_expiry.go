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
	c.gen.Store(uint32(id))
	c.genV = uint32(id) << (s.t.kbits & 31)
	n := s.expire(s.t.expiryOf(uint32(id)))
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

// InsertFor is Filter.InsertFor: the key lives ticks calls of Advance. It
// stops the writers meanwhile, as Advance does (lifetimes.go).
func (f *ConcurrentFilter[T]) InsertFor(key T, ticks int) error {
	_, err := f.c.insertFor(f.Hash(key), ticks, false)
	return err
}

// InsertUniqueFor is Filter.InsertUniqueFor, one atomic step as
// InsertUnique is; it stops the writers meanwhile.
func (f *ConcurrentFilter[T]) InsertUniqueFor(key T, ticks int) (bool, error) {
	return f.c.insertFor(f.Hash(key), ticks, true)
}

// insertFor is InsertFor (InsertUniqueFor if unique) as the one writer:
// insertAll with the generation of ticks' lifetime as genV meanwhile.
func (c *concurrent) insertFor(h uint64, ticks int, unique bool) (bool, error) {
	if c.kind == kindInvalid {
		return false, errZeroConcurrent
	}
	c.stop()
	defer c.start()
	s := c.cur.Load()
	gen := uint(c.gen.Load())
	id, err := s.t.lifeGen(gen, ticks)
	if err != nil {
		return false, err
	}
	if unique {
		b1, v1, b2, v2 := s.t.place(h)
		if s.t.genBits == 0 { // G = 1
			if c.refresh(s, b1, v1, b2, v2) {
				return false, nil
			}
		} else {
			b, slots := [2]uint64{b1, b2}, [2][4]uint32{s.slots(b1), s.slots(b2)}
			if j, k, x := s.t.lengthen(&slots, [2]uint32{v1, v2}, gen, uint(ticks)); k >= 0 {
				if x != slots[j][k] {
					s.replace(b[j], slots[j], uint(k), x)
				}
				return false, nil
			}
		}
	}
	c.genV = uint32(id) << (s.t.kbits & 31)
	err = c.insertAll(h)
	c.genV = uint32(gen) << (c.cur.Load().t.kbits & 31) // a doubling published a table of narrower keys
	return err == nil, err
}
