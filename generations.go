package cuckoo

// Keys that expire (Config.Generations): a filter of G generations whose
// Advance forgets the keys of the oldest one. A slot of an expiring table
// holds its key (table) under g = ceil(log2 G) generation bits, the id
// (0..G-1, cycling) of the generation the key was stored or last refreshed
// (InsertUnique) in. Only the fingerprint decides where a key lives, and a
// displacement moves whole slots, generation and all; lookups compare keys
// alone (keyLanes). Inserts or the current generation's bits (genV) into
// the value they store, and a growable table's doubling keeps each slot's
// generation above its key (growth.go). Advance clears the generation it
// reuses in one pass, so that Len counts live keys, inserts reuse the slots
// at once, and no expired slot is left to match: the false-positive rate is
// that of the key's bits at the same load.
//
// Delete removes the oldest slot holding the key in its two buckets,
// InsertUnique refreshes the youngest: keys whose fingerprints and buckets
// collide are one key to the filter, present while the youngest of their
// slots lives, and both choices keep that slot at least as young as the
// youngest live copy of any of them, so no live key goes missing. A
// colliding key's current copy so stands for a refresh, as a false
// positive does for a plain InsertUnique (TestInsertUniqueColliding), and
// a Delete of the refreshed key can take it. Refreshing the oldest slot
// instead keeps colliding keys' slots alive while either is seen: with
// f = 8, G = 4, TestConcurrentExpiringStress then ran out of room at 5,983
// live keys of a Capacity of 6,000.

// gen is the current generation, 0..gens-1 (0 if keys never expire).
func (t *table) gen() uint { return uint(t.genV >> (t.kbits & 31)) }

// setGen makes id the current generation.
func (t *table) setGen(id uint) { t.genV = uint32(id) << (t.kbits & 31) }

// age is how many generations ago slot value v was stored; gen is current.
func (t *table) age(v uint32, gen uint) uint {
	id := uint(v >> (t.kbits & 31))
	if id > gen {
		return gen + t.gens - id
	}
	return gen - id
}

// oldest finds, among the slots s of a key's two buckets, which hold the
// key as v, its oldest copy (the youngest if young), genV the current
// generation's bits (a ConcurrentFilter's table does not keep them): the
// bucket, 0 or 1, and the slot, or k < 0 if neither holds the key. In a
// table whose keys never expire, every slot is as old: the first.
func (t *table) oldest(s *[2][4]uint32, v [2]uint32, genV uint32, young bool) (j, k int) {
	k, best, gen := -1, uint(0), uint(genV>>(t.kbits&31))
	for i := range s {
		for n, x := range s[i] {
			if (x^v[i])&uint32(t.keyMask) != 0 { // a key is never 0: nor an empty slot
				continue
			}
			if a := t.age(x, gen); k < 0 || young && a < best || !young && a > best {
				j, k, best = i, n, a
			}
		}
	}
	return j, k
}

// copies is place(h) and the slots of both buckets, for oldest.
func (t *table) copies(h uint64) (b [2]uint64, v [2]uint32, s [2][4]uint32) {
	b[0], v[0], b[1], v[1] = t.place(h)
	return b, v, [2][4]uint32{t.bucketSlots(b[0]), t.bucketSlots(b[1])}
}

// expire clears the slots of generation id and returns how many.
func (t *table) expire(id uint) int {
	e := t.expiryOf(uint32(id))
	n := 0
	if t.f > 16 {
		for i := range t.m {
			lo, hi := t.bucketAt(i)
			if lo, hi, k := t.expireIn(lo, hi, &e); k != 0 {
				t.setBucket(i, lo, hi)
				n += k
			}
		}
		return n
	}
	// One word a bucket, each loaded before the previous bucket's store and
	// that store's bits patched in: a load after the store waits for it
	// (14.5 ns a bucket against 16.5, semi-sorted, f = 13, G = 4).
	data, bb := t.data, uint64(t.bbits)
	mask := ^uint64(0) >> ((64 - bb) & 63)
	word := load64At(data, 0)
	for p, stop := uint64(0), t.m*bb; p < stop; p += bb {
		o, sh, no := p>>3, p&7, (p+bb)>>3
		next := load64At(data, no) // the table has 16 bytes from the last bucket's start
		b := word >> sh
		if x, _, k := t.expireIn(b, 0, &e); k != 0 {
			n += k
			d := (b ^ x) & mask << sh
			store64At(data, o, word^d)
			next ^= d >> 1 >> ((no-o)*8 - 1&63) // the bits of this bucket in next; no-o is 1..8
		}
		word = next
	}
	return n
}

// insertUniqueExpiring is InsertUnique for an expiring table: a present
// key's youngest copy moves to the current generation, in place.
func (c *core) insertUniqueExpiring(h uint64) (bool, error) {
	return c.insertUniqueFor(h, c.t.gens)
}

// delete removes the oldest copy of the key of hash h.
func (c *core) delete(h uint64) bool {
	if c.t.data == nil {
		return false
	}
	b, v, s := c.t.copies(h)
	j, k := c.t.oldest(&s, v, c.t.genV, false)
	if k < 0 {
		return false
	}
	c.t.replace(b[j], s[j], uint(k), 0)
	c.count--
	return true
}

// advance is Advance: the next generation becomes current, and the slots
// stored in it G generations ago are cleared; it returns how many. A grown
// table then halves if its live keys fit a smaller one (settle).
func (c *core) advance() int {
	t := &c.t
	switch t.gens {
	case 0:
		return 0
	case 1: // every key expires
		n := c.count
		clear(t.data)
		c.count = 0
		if t.g > 0 {
			c.settle()
		}
		return n
	}
	id := (t.gen() + 1) % t.gens
	t.setGen(id)
	n := t.expire(id)
	c.count -= n
	if t.g > 0 { // a table that can have grown
		c.settle()
	}
	return n
}
