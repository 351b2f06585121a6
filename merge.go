package cuckoo

import "fmt"

// Merge adds every fingerprint that o holds to f, without keys: afterwards
// f answers Contains and Count for every key inserted into either as if it
// had been inserted into f, so filters built in parallel become one; o is
// not changed. The filters must hash alike (Seed, Key) and have the same
// width, Layout and bucket geometry, as the same Config (MaxKicks aside)
// gives, and keys that never expire; otherwise, and for a nil or zero o or
// o == f, the error wraps ErrIncompatible. A growable f doubles as needed.
// Merge fills a copy of f's table, which it allocates, O(f's size): if the
// fingerprints do not all fit it returns an Insert's error, f as it was.
func (f *Filter[T]) Merge(o *Filter[T]) error {
	if err := f.checkMerge(o); err != nil {
		return err
	}
	c := f.c
	c.t.data = append(newTableData(uint64(len(f.c.t.data)))[:0], f.c.t.data...)
	if err := c.mergeTable(&o.c.t); err != nil {
		return err
	}
	f.c = c
	return nil
}

func (f *Filter[T]) checkMerge(o *Filter[T]) error {
	switch {
	case o == nil:
		return fmt.Errorf("%w: Merge with a nil *Filter", ErrIncompatible)
	case o == f:
		return fmt.Errorf("%w: Merge of a filter into itself (it would double every count)", ErrIncompatible)
	case f.c.t.data == nil || o.c.t.data == nil:
		return fmt.Errorf("%w: Merge with a zero Filter", ErrIncompatible)
	case f.c.h.seed != o.c.h.seed:
		return fmt.Errorf("%w: Merge of filters with different seeds", ErrIncompatible)
	case !sameKey(&f.c.h, &o.c.h):
		return fmt.Errorf("%w: Merge of filters with different keys (Config.Key)", ErrIncompatible)
	case f.c.t.fbits != o.c.t.fbits:
		return fmt.Errorf("%w: Merge of filters with different fingerprint widths (%d and %d bits)", ErrIncompatible, f.c.t.fbits, o.c.t.fbits)
	case f.c.t.layout != o.c.t.layout:
		return fmt.Errorf("%w: Merge of filters with different layouts (%v and %v)", ErrIncompatible, f.c.t.layout, o.c.t.layout)
	case f.c.t.m0 != o.c.t.m0:
		return fmt.Errorf("%w: Merge of filters with different first tables (%d and %d buckets: Capacity differs)", ErrIncompatible, f.c.t.m0, o.c.t.m0)
	case f.c.t.gens != 0 || o.c.t.gens != 0:
		return fmt.Errorf("%w: Merge of an expiring filter (Generations %d into %d): generations are not merged", ErrIncompatible, o.c.t.gens, f.c.t.gens)
	case f.c.t.g != o.c.t.g:
		return fmt.Errorf("%w: Merge of filters that can double different numbers of times (%d and %d: MaxCapacity differs)", ErrIncompatible, f.c.t.g, o.c.t.g)
	}
	return nil
}

// mergeTable adds the fingerprints of b, checked by Merge, to c's table in
// place, doubling as inserts do; on error it is partly merged: Merge copies.
func (c *core) mergeTable(b *table) error {
	for c.t.k < b.k {
		c.grow()
	}
	for i := range b.m {
		for _, v := range b.bucketSlots(i) {
			if v == 0 {
				continue
			}
			x := placedKey{b: i, v: v, k: b.k, stored: true}
			var err error
			if c.t.canGrow() {
				err = c.insertGrowing(&x, false)
			} else {
				err = c.insertAt(x.placeIn(&c.t))
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}
