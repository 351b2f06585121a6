package cuckoo

// Halving, the reverse of a doubling (growth.go): a grown table whose keys
// fit the previous stage's goes back to it, so memory a burst took comes
// back. Bucket B of stage k-1 takes the values of buckets 2B and 2B+1 of
// stage k, each value getting back, as its key's top bit, the layer bit
// its doubling took from it: the bucket it came from, 2B+c, gives c
// (unsplit). A merged bucket holds up to 8 values; the first 4 are stored
// in place, and the rest are inserted into the new table as any key is,
// displacing others to their other buckets; a packed table merges in a
// word or two with no branch on a slot (shrink_packed.go), to the same bits
// and in the same order. A halving that cannot place every value (ErrFull,
// which a table at most at its Capacity makes rare) drops the new table
// and leaves the filter as it was. Lookups compare a bit more of each key
// in the smaller table, so at a load within its Capacity the rate stays
// within the configured one, as when it grew.
//
// An expiring filter halves in Advance (core.settle) once its live keys fit
// the smaller table's Capacity, as many times as they fit, never below its
// first table, and not before the G-th call of Advance after a doubling
// (the one that expires the keys inserted with it) or a failed halving, so
// that a window at the edge of a size does not flap: a doubling then a
// halving at most once in G ticks. A growable filter whose keys never
// expire halves when its user calls Shrink.

// unsplit is value v of a bucket of stage k that is its parent's child c,
// as the parent (stage k-1) holds it: c becomes the key's top bit, the
// generation bits go up one; s is stage k's shape.
func (s *shape) unsplit(v uint32, c uint64) uint32 {
	kt := s.kbits & 31
	return (v&^uint32(s.keyMask))<<1 | uint32(c)<<kt | v&uint32(s.keyMask)
}

// overflowValue is a value a halving could not store in its merged bucket.
type overflowValue struct {
	b uint64
	v uint32
}

// halve makes the table the one of the previous stage, holding every value,
// and reports whether it could; if not, the filter is as it was.
func (c *core) halve() bool {
	old := c.t
	if old.k == 0 || old.data == nil {
		return false
	}
	n := newStage(old.m0, old.fbits, old.g, old.k-1, old.layout, old.gens)
	n.setGen(old.gen())
	over := old.halveInto(&n)
	if len(over) == 0 {
		c.t = n
		return true
	}
	count, rng := c.count, c.rng
	c.t = n
	for _, x := range over {
		if b2, v2 := c.t.other(x.b, x.v); c.insertAt(x.b, x.v, b2, v2) != nil {
			c.t, c.count, c.rng = old, count, rng
			return false
		}
	}
	c.count = count
	return true
}

// halveInto stores the values of t's buckets in n, the empty table of the
// previous stage, bucket B's from 2B and 2B+1, and returns those that did
// not fit their merged bucket, in the order halveSlots gives.
func (t *table) halveInto(n *table) []overflowValue {
	switch {
	case n.class == classGrownNarrow:
		return t.halveNarrow(n)
	case n.layout == Packed:
		return t.halveWide(n)
	}
	return t.halveSlots(n)
}

// halveSlots is halveInto through the codec, a bucket's values at a time:
// any layout, and the reference for halveNarrow and halveWide.
func (t *table) halveSlots(n *table) []overflowValue { return t.halveRange(n, 0, n.m, nil) }

// halveRange is halveSlots for n's buckets from to to-1: over with the
// values that did not fit appended.
func (t *table) halveRange(n *table, from, to uint64, over []overflowValue) []overflowValue {
	for b := from; b < to; b++ {
		var vs [slotsPerBucket]uint32
		i := 0
		for c := range uint64(2) {
			for _, v := range t.bucketSlots(2*b + c) {
				switch {
				case v == 0:
				case i < slotsPerBucket:
					vs[i] = t.unsplit(v, c)
					i++
				default:
					over = append(over, overflowValue{b, t.unsplit(v, c)})
				}
			}
		}
		if i > 0 {
			lo, hi := n.encode(vs)
			n.setBucket(b, lo, hi)
		}
	}
	return over
}

// shrinkable reports whether the table can halve with count keys: it has
// grown, and they fit the previous stage's Capacity (Info.TableCapacity).
func (r *reader) shrinkable() bool {
	return r.t.k > 0 && r.count <= r.capacity<<(r.t.k-1)
}

// shrink halves the table as many times as its keys fit, and reports
// whether it halved at all and whether a halving failed.
func (c *core) shrink() (halved, failed bool) {
	for c.shrinkable() {
		if !c.halve() {
			return halved, true
		}
		halved = true
	}
	return halved, false
}

// settle is Advance's halving of an expiring table: none before the G-th
// call of Advance after a doubling or a failed halving (wait), which
// expires the keys inserted with the doubling, else as many as fit.
func (c *core) settle() {
	if !c.due() {
		return
	}
	if _, failed := c.shrink(); failed {
		c.wait = int(c.t.gens)
	}
}

// due counts a call of Advance against the wait and reports whether a
// halving may be tried: the wait is over, and the keys fit.
func (r *reader) due() bool {
	if r.wait > 0 {
		if r.wait--; r.wait > 0 {
			return false
		}
	}
	return r.shrinkable()
}
