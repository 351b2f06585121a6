package cuckoo

// placedKey is the key an insert places: by its hash, or (Merge) by the value
// v that bucket b of a table at stage k holds for it.
type placedKey struct {
	h      uint64
	b      uint64
	v      uint32
	k      uint
	stored bool // b, v and k, not h
}

// placeIn returns the key's two buckets in t and the value each would hold.
func (x *placedKey) placeIn(t *table) (b1 uint64, v1 uint32, b2 uint64, v2 uint32) {
	if !x.stored {
		return t.place(x.h)
	}
	b1, v1 = t.restage(x.b, x.v, x.k)
	b2, v2 = t.other(b1, v1)
	return b1, v1, b2, v2
}

// insertGrowing inserts x into c's table, which can double, by the growth
// policy that Insert and Merge share: the table doubles first when it holds as
// many items as its stage is made for, and again each time the insert
// fails with ErrFull while it can double (failed says that x has just
// failed so at the current stage). ErrFull comes only once the last stage
// has failed too, and then the filter is as it was, stage and bytes: a
// doubling builds a new table and does not touch the old one.
// ErrTooManyDuplicates is returned before any doubling: a doubling keeps
// the copies of a key together, so it would not help. (A failure after
// doublings takes a tiny MaxKicks or keys that collide on purpose; each
// such failure repeats the doublings.)
//
// The concurrent filter's insertSlow follows the same policy on tables no
// reader sees until one takes the key. The two share no loop: written once
// behind an interface, the loop made every core that calls insert escape,
// Build's on the stack too, an allocation a built filter.
func (c *core) insertGrowing(x *placedKey, failed bool) error {
	if !failed && c.count >= c.t.stageCapacity() {
		if c.t.countMatches(x.placeIn(&c.t)) == 2*slotsPerBucket {
			return ErrTooManyDuplicates
		}
		failed = true // doubles first
	}
	if !failed {
		err := c.insertAt(x.placeIn(&c.t))
		if err != ErrFull || !c.t.canGrow() {
			return err
		}
	}
	old := c.t
	for {
		c.grow()
		err := c.insertAt(x.placeIn(&c.t))
		if err != ErrFull || !c.t.canGrow() {
			if err != nil {
				c.t = old
			}
			return err
		}
	}
}
