package cuckoo

// Keys with lifetimes of their own (InsertFor, InsertUniqueFor) in an
// expiring filter (generations.go). Advance clears the slots of the
// generation it makes current, so a key stored in generation
// (gen + ticks) mod G, gen the current one, is cleared by the ticks-th
// Advance after it: it lives at least ticks-1 and at most ticks ticks,
// and ticks = G is the current generation, Insert's. Its age (table.age)
// is then G - ticks: a key's life left is G minus its age, whatever life
// it was given, so Delete (the oldest copy: the least life left) and
// InsertUnique (the youngest: the most) read lifetimes as they read ages.

// lifeGen returns the generation id in which a key inserted now lives
// ticks calls of Advance, or ErrLifetime.
func (t *table) lifeGen(gen uint, ticks int) (uint, error) {
	if t.gens == 0 {
		return 0, formatErr(ErrLifetime, "%d ticks: the filter's keys never expire (Config.Generations 0)", ticks)
	}
	if ticks < 1 || ticks > int(t.gens) {
		return 0, formatErr(ErrLifetime, "%d ticks, not in 1..%d (Config.Generations)", ticks, t.gens)
	}
	return (gen + uint(ticks)) % t.gens, nil
}

// insertFor is InsertFor: insertHash with the generation of ticks'
// lifetime current meanwhile (a doubling keeps it in the new table's
// genV), then the current one again.
func (c *core) insertFor(h uint64, ticks int) error {
	if c.t.data == nil {
		return errZeroFilter
	}
	gen := c.t.gen()
	id, err := c.t.lifeGen(gen, ticks)
	if err != nil {
		return err
	}
	c.t.setGen(id)
	err = c.insertHash(h)
	c.t.setGen(gen)
	return err
}

// insertUniqueFor is InsertUniqueFor in an expiring table (G >= 2): a
// present key's youngest copy gets ticks' lifetime if it has less left,
// in place; an absent key is inserted for ticks.
func (c *core) insertUniqueFor(h uint64, ticks uint) (bool, error) {
	b, v, s := c.t.copies(h)
	if j, k, x := c.t.lengthen(&s, v, c.t.gen(), ticks); k >= 0 {
		if x != s[j][k] {
			c.t.replace(b[j], s[j], uint(k), x)
		}
		return false, nil
	}
	if err := c.insertFor(h, int(ticks)); err != nil {
		return false, err
	}
	return true, nil
}

// lengthen finds, among the slots s of a key's two buckets that hold it as
// v, the copy with the most life left (k < 0 if none), and returns it as
// it should be after a refresh for ticks: in the generation of ticks'
// lifetime if that is longer than its own, else as it is. gen is the
// current generation; ticks is in 1..G, G >= 2.
func (t *table) lengthen(s *[2][4]uint32, v [2]uint32, gen, ticks uint) (j, k int, x uint32) {
	j, k = t.oldest(s, v, uint32(gen)<<(t.kbits&31), true)
	if k < 0 {
		return j, k, 0
	}
	x = s[j][k]
	if t.gens-t.age(x, gen) < ticks {
		x = x&uint32(t.keyMask) | uint32((gen+ticks)%t.gens)<<(t.kbits&31)
	}
	return j, k, x
}
