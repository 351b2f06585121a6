package cuckoo

// The operations of an expiring Filter (Config.Generations) that differ from
// a plain one's: an insert stores the current generation with the
// fingerprint, InsertUnique refreshes a present key's generation, Delete
// takes the oldest copy, and Advance clears a generation. The slots and
// the passes over them are in generations.go.

// insertExpiring is insert for an expiring table: the key's fingerprint
// stored in the current generation.
func (c *core) insertExpiring(h uint64) error {
	t := &c.t
	fp, i1 := t.locate(h)
	i2 := t.alt(i1, fp)
	v := t.expiringValue(fp, c.gen)
	if t.class == classExpNarrow { // core.insert's fast path
		z1, z2 := t.freeMarks(t.narrowWord(i1)), t.freeMarks(t.narrowWord(i2))
		i, z := i1, z1
		if z1 == 0 {
			i, z = i2, z2
		}
		if z != 0 {
			t.setSlotAt(i*uint64(t.bbits)+t.firstSlot(z, 0), v)
			c.count++
			return nil
		}
	} else if t.codec == classSemi {
		if t.semiAdd2(i1, i2, v) { // core.insert's semi-sorted fast path
			c.count++
			return nil
		}
	} else if t.add2(i1, v, i2, v) {
		c.count++
		return nil
	}
	return c.insertExpiringFull(i1, i2, fp, v)
}

// insertExpiringFull is insertExpiring once buckets i1 and i2 are known to
// be full, for fingerprint fp stored as v.
func (c *core) insertExpiringFull(i1, i2 uint64, fp, v uint32) error {
	t := &c.t
	// Eight copies of fp, of any generations: no displacement can help.
	// Such a bucket has fp in slot 0, which other keys' full buckets give
	// rarely (once in 2^11, semi-sorted, f = 13, G = 4): the test spares
	// most inserts countMatches, 40 instructions (1M keys, bench/icount).
	if (t.class == classExpiring || t.slot0Is(i1, fp)) && t.countMatches(i1, fp, i2, fp) == 2*slotsPerBucket {
		return ErrTooManyDuplicates
	}
	// kick: a packed table of narrow slots takes kickNarrow, the others the
	// general walk; the steps of both take a slot's fingerprint bits.
	kicked := c.kick(i1, v, i2, v)
	if !kicked {
		return ErrFull
	}
	c.count++
	return nil
}

// insertExpSemi is insertExpiring for classExpSemi, which core.insert
// calls: the class tests and the other cases left out, an insert took 404
// instructions instead of 407 (bench/icount, 1M keys, f = 13, G = 4).
func (c *core) insertExpSemi(h uint64) error {
	t := &c.t
	fp, i1 := t.locate(h)
	i2 := t.alt(i1, fp)
	v := t.expiringValue(fp, c.gen)
	if t.semiAdd2(i1, i2, v) {
		c.count++
		return nil
	}
	return c.insertExpiringFull(i1, i2, fp, v)
}

// insertUniqueExpiring is InsertUnique for an expiring table: a key already
// present has its youngest copy moved to the current generation, in place,
// and is not added.
func (c *core) insertUniqueExpiring(h uint64) (bool, error) {
	t := &c.t
	fp, i1 := t.locate(h)
	i2 := t.alt(i1, fp)
	if b, s, k := t.oldest(i1, i2, fp, c.gen, true); k >= 0 {
		if v := t.expiringValue(fp, c.gen); s[k] != v {
			t.replace(b, s, uint(k), v)
		}
		return false, nil
	}
	if err := c.insertExpiring(h); err != nil {
		return false, err
	}
	return true, nil
}

// deleteExpiring is Delete for an expiring table: it removes the oldest
// copy of the key's fingerprint.
func (c *core) deleteExpiring(h uint64) bool {
	t := &c.t
	fp, i1 := t.locate(h)
	i2 := t.alt(i1, fp)
	b, s, k := t.oldest(i1, i2, fp, c.gen, false)
	if k < 0 {
		return false
	}
	t.replace(b, s, uint(k), 0)
	c.count--
	return true
}

// advance is Advance: the next generation becomes current, and the slots
// stored in it G generations ago are cleared. It returns how many.
func (c *core) advance() int {
	t := &c.t
	switch t.gens {
	case 0:
		return 0
	case 1: // every key expires
		n := c.count
		clear(t.data)
		c.count = 0
		return n
	}
	if c.gen++; c.gen == t.gens {
		c.gen = 0
	}
	n := t.expire(c.gen)
	c.count -= n
	return n
}
