package cuckoo

// A ConcurrentFilter's expiring tables: generations.go's scheme, on a ctable.

// advance is Advance: the next generation becomes current and the slots of
// the one it reuses are cleared in place (with G = 1, every slot). A lookup
// never misses a key live for the whole of it: the pass clears only expired
// keys' slots and moves no fingerprint to another bucket; each bucket it
// changes is one write session, as a delete's (rewrite's flips, a
// compare-and-swap of the difference, leave the bits beside it as they
// were), inside which a semi-sorted
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
	c.settle(s)
	return n
}

// shrinkState is a ConcurrentFilter's core.wait (shrink.go). Its inserts
// double without telling it (insertSlow), so it keeps the stage of the
// table it last saw, at an Advance, a halving, a load or a Reset: a table
// of a later stage has doubled since, and waits G calls of Advance.
type shrinkState struct {
	wait int  // core.wait, for a table of stage k
	k    uint // the stage wait was counted for
}

// now is core.wait for table t, the current one.
func (w *shrinkState) now(t *table) int {
	if t.k > w.k {
		return int(t.gens)
	}
	return w.wait
}

// settle is core.settle on the current table s, every stripe held (stop);
// it allocates nothing unless it halves (halve).
func (c *concurrent) settle(s *ctable) {
	if s.t.g == 0 {
		return
	}
	r := c.reader(s.t)
	due := r.due()
	c.shrink = shrinkState{wait: r.wait, k: s.t.k}
	if due && c.halve(s) {
		c.shrink.wait = int(s.t.gens)
	}
}

// halve is core.shrink on a core over the current table s, every stripe
// held, which writes only new tables no reader sees; it publishes the last,
// so readers of s meanwhile find every key in it, and reports whether a
// halving failed. The stripes the smaller table lacks give their counts to
// stripe 0, as stop counts only the current table's.
func (c *concurrent) halve(s *ctable) (failed bool) {
	g := newCore(c.reader(s.t), c.maxKicks)
	g.rng = c.rng
	_, failed = g.shrink()
	if g.t.k == s.t.k {
		return failed
	}
	c.shrink.k = g.t.k
	c.rng = g.rng
	c.genV.Store(g.t.genV)
	n := ctableOver(g.t)
	n.rec = s.rec
	c.publish(n)
	moved := 0
	for i := n.smask + 1; i < c.held; i++ {
		moved += int(int64(c.locks[i].state.Load()) >> lockShift)
		c.locks[i].state.And(lockHeld | lockParked) // held, with no count, its sleepers still noted
	}
	c.stopped -= moved // start adds it to stripe 0's
	c.approx.Add(-int64(moved))
	return failed
}

// Shrink is Filter.Shrink; writers wait for it, lookups go on and find
// every key in the table they read.
func (f *ConcurrentFilter[T]) Shrink() bool {
	c := &f.c
	if c.cur.Load() == nil {
		return false
	}
	c.stop()
	defer c.start()
	s := c.cur.Load()
	c.halve(s)
	return c.cur.Load() != s
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
// many stored keys expired, as Filter.Advance does, halving a filter that
// grew as it does. Writers wait for it; lookups go on, and never miss a key
// live for the whole lookup. A key inserted after Advance returned lives
// through G more calls. It allocates nothing but where it halves.
func (f *ConcurrentFilter[T]) Advance() int { return f.c.advance() }

// Generations is Config.Generations: 0 for a filter whose keys never expire.
func (f *ConcurrentFilter[T]) Generations() int { return int(f.c.view().t.gens) }

// InsertFor is Filter.InsertFor: the key lives ticks calls of Advance. It
// runs as the one writer, stopping the others meanwhile as Advance does:
// it takes every stripe's lock (up to 1,024), so it costs far more than
// Insert, which takes one; it suits keys whose lifetimes differ now and
// then, not a stream of them (lifetimes.go).
func (f *ConcurrentFilter[T]) InsertFor(key T, ticks int) error {
	_, err := f.c.insertFor(f.Hash(key), ticks, false)
	return err
}

// InsertUniqueFor is Filter.InsertUniqueFor, one atomic step as
// InsertUnique is; it stops the writers meanwhile, as InsertFor does, at
// InsertFor's cost.
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
	// Its generation's bits as a parameter: genV, which claims load, stays.
	err = c.insertAll(s, h, uint32(id)<<(s.t.kbits&31))
	return err == nil, err
}
