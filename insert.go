package cuckoo

import (
	"unsafe"
)

// insert adds the key of kind k at p (a hash for kindHash). The common
// classes are written out: both buckets are read before either is tested,
// so that their cache misses overlap.
func (c *core) insert(k keyKind, p unsafe.Pointer) error {
	var h uint64
	switch k { // as in lookup
	case kindInt:
		h = c.h.u64(*(*uint64)(p))
	case kindHash:
		h = *(*uint64)(p)
	default:
		if k == kindInvalid {
			return errZeroFilter
		}
		h = c.h.key(k, p)
	}
	t := &c.t
	// Packed with slots of at most 16 bits, fixed or growable, expiring or
	// not: a value is the fingerprint in the current generation (genV, 0 if
	// keys never expire), under its layer bits if growable.
	if t.class.packedNarrow() || t.class == classGrownNarrow && c.count < t.fill {
		fp, i1 := t.locate(h)
		i2 := t.alt(i1, fp)
		v1 := fp | t.genV
		v2 := v1
		if t.g != 0 { // a growable table that need not double first
			l1, l2 := t.layers(h, fp)
			i1, v1 = t.staged(i1, l1, v1)
			i2, v2 = t.staged(i2, l2, v2)
		}
		z1 := t.freeMarks(t.narrowWord(i1))
		z2 := t.freeMarks(t.narrowWord(i2))
		i, v, z := i1, v1, z1
		if z1 == 0 {
			i, v, z = i2, v2, z2
		}
		if z != 0 {
			t.setSlotAt(i*uint64(t.bbits)+t.firstSlot(z, 0), v)
			c.count++
			return nil
		}
		err := c.insertFull(i1, v1, i2, v2)
		if err == ErrFull && t.canGrow() {
			return c.insertGrown(h)
		}
		return err
	}
	if t.class == classSemi || t.class == classExpSemi {
		fp, i1 := t.locate(h)
		i2 := t.alt(i1, fp)
		v := fp | t.genV
		if t.semiAdd2(i1, i2, v) {
			c.count++
			return nil
		}
		return c.insertFull(i1, v, i2, v)
	}
	return c.insertSlow(h)
}

// semiAdd2 is add2 for a semi-sorted table of one-word buckets.
func (t *table) semiAdd2(i1, i2 uint64, v uint32) bool {
	b1, b2 := t.narrowWord(i1), t.narrowWord(i2)
	i, b := i1, b1
	if !t.semiFree(b1) {
		i, b = i2, b2
		if !t.semiFree(b2) {
			return false
		}
	}
	// semiWith, written out: its call cost 14 instructions (f = 13).
	w, mask := t.w&15, t.lowMask
	_, s1, s2, s3 := semiNarrow4(b, w, mask)
	v, s1 = minMax(v, s1)
	s1, s2 = minMax(s1, s2)
	s2, s3 = minMax(s2, s3)
	t.setNarrow(i, semiPackNarrow(v, s1, s2, s3, w, mask))
	return true
}

// errZeroFilter is what a zero Filter's inserts, batches and encodings return.
var errZeroFilter = formatErr(ErrIncompatible, "the Filter was made neither by New nor by decoding (UnmarshalBinary, UnmarshalText, ReadFrom): a zero Filter has no table")

// insertSlow is insert for the classes core.insert does not write out.
func (c *core) insertSlow(h uint64) error {
	x := placedKey{h: h}
	if !c.t.canGrow() {
		return c.insertAt(x.placeIn(&c.t))
	}
	return c.insertGrowing(&x, false)
}

// insertAt adds a key that bucket i1 would hold as v1 and bucket i2 as v2.
// After an error the table is exactly as it was.
func (c *core) insertAt(i1 uint64, v1 uint32, i2 uint64, v2 uint32) error {
	if c.t.add2(i1, v1, i2, v2) {
		c.count++
		return nil
	}
	return c.insertFull(i1, v1, i2, v2)
}

// insertFull is insertAt once both buckets are known to be full.
func (c *core) insertFull(i1 uint64, v1 uint32, i2 uint64, v2 uint32) error {
	// Buckets of only the key's fingerprint (any generation): no walk can
	// help, it lives only there; slot0Is spares most inserts countMatches
	// (40 instructions, 1M keys, expiring, f = 13).
	if (!c.t.class.wordBuckets() || c.t.slot0Is(i1, v1)) && c.t.countMatches(i1, v1, i2, v2) == 2*slotsPerBucket {
		return ErrTooManyDuplicates
	}
	if !c.kick(i1, v1, i2, v2) {
		return ErrFull
	}
	c.count++
	return nil
}

func (c *core) insertHash(h uint64) error { return c.insert(kindHash, unsafe.Pointer(&h)) }

// kick makes room for a key whose full buckets i1 and i2 hold it as v1 and
// v2 by a random walk of up to maxKicks steps, each moving a fingerprint to
// its other bucket, preferring one with room (higher loads, fewer steps); a
// failed walk, its slots recorded (2 bits a step), is undone bit for bit.
func (c *core) kick(i1 uint64, v1 uint32, i2 uint64, v2 uint32) bool {
	var stack [kickStackSteps / 4]byte
	path := stack[:]
	if c.maxKicks > kickStackSteps {
		path = c.kickBuf
	}
	switch t := &c.t; {
	case t.class.packedNarrow(): // kickNarrow takes a slot's fingerprint bits
		return c.kickNarrow(path, i1, i2, v1)
	case t.class == classSemi || t.class == classExpSemi:
		return c.kickSemi(path, i1, i2, v1)
	case t.class == classGrownNarrow:
		return c.kickGrownNarrow(path, i1, v1, i2, v2)
	case t.genBits != 0: // growable and expiring, wide slots: kickWalk, whose other keeps generations
	case t.class == classGrown && t.layout == Packed:
		return c.kickGrownWide(path, i1, v1, i2, v2)
	}
	return c.kickWalk(path, i1, v1, i2, v2)
}

// kickWalk is kick for any table, with path to record the steps in.
func (c *core) kickWalk(path []byte, i1 uint64, v1 uint32, i2 uint64, v2 uint32) bool {
	t := &c.t
	b, cur, r := c.walkStart(i1, v1, i2, v2)
	for k := 0; k < c.maxKicks; k++ {
		r = c.stepBits(k, r)
		s := t.bucketSlots(b)
		var o [slotsPerBucket]uint64
		var ov [slotsPerBucket]uint32
		for j, v := range s {
			o[j], ov[j] = t.other(b, v)
		}
		at := firstFree(t.freeOf(o), uint(r&3))
		r >>= 2
		setStep(path, k, t.replace(b, s, at, cur))
		b, cur = o[at], ov[at]
		if t.add(b, cur) {
			return true
		}
	}
	c.unkick(path, b, cur)
	return false
}

// kickNarrow is kickWalk for a packed table of one-word buckets, fixed or
// expiring, reusing the look-ahead's reads (never of b: alt(b, fp) != b):
// 257 instructions an insert against kickWalk's 372 (f = 13).
func (c *core) kickNarrow(path []byte, i1, i2 uint64, fp uint32) bool {
	// Locals: the compiler reloads fields after each store to the table.
	t := &c.t
	data, m, bbits := t.data, t.m0, uint64(t.bbits)
	f, mask, fpm := t.f&31, uint64(t.slotMax), uint64(t.fpMask) // fpm: a slot's fingerprint bits, all of it but in an expiring table
	ones, tops := t.lanes.onesLo, t.lanes.topsLo
	word := func(i uint64) uint64 { // narrowWord, for byte-aligned buckets too
		p := i * bbits
		return load64At(data, p>>3) >> (p & 7)
	}
	free := func(w uint64) uint64 { return (w - ones) &^ w & tops } // freeMarks
	b, cur, r := c.walkStart(i1, fp, i2, fp)
	for k := 0; k < c.maxKicks; k++ {
		r = c.stepBits(k, r)
		w := word(b)
		o := [slotsPerBucket]uint64{
			altOn(b, uint32(w&fpm), m), altOn(b, uint32(w>>f&fpm), m),
			altOn(b, uint32(w>>(2*f)&fpm), m), altOn(b, uint32(w>>(3*f)&fpm), m),
		}
		z := [slotsPerBucket]uint64{free(word(o[0])), free(word(o[1])), free(word(o[2])), free(word(o[3]))}
		at := firstFree([slotsPerBucket]bool{z[0] != 0, z[1] != 0, z[2] != 0, z[3] != 0}, uint(r&3))
		r >>= 2
		sh := at * f
		victim := uint32(w >> sh & mask)
		t.setSlotAt(b*bbits+uint64(sh), cur)
		setStep(path, k, at)
		b, cur = o[at], victim
		if z[at] != 0 {
			t.putFirst(b, z[at], cur)
			return true
		}
	}
	c.unkick(path, b, cur)
	return false
}

// kickGrownNarrow is kickNarrow for a growable table (classGrownNarrow),
// values moving layer bits and all: 505 instructions an insert against
// kickWalk's 612 (f = 13, growing from 1/1024).
func (c *core) kickGrownNarrow(path []byte, i1 uint64, v1 uint32, i2 uint64, v2 uint32) bool {
	t := &c.t
	data, bbits := t.data, uint64(t.bbits)
	ones, tops := t.lanes.onesLo, t.lanes.topsLo
	// key: a slot's key bits; an expiring table's generation bits (gens)
	// stay with the value that moves.
	g, f, key, gens := t.stage(), t.f&31, uint32(t.keyMask), uint32(t.slotMax&^t.keyMask)
	word := func(i uint64) uint64 { // narrowWord, for byte-aligned buckets too
		p := i * bbits
		return load64At(data, p>>3) >> (p & 7)
	}
	b, cur, r := c.walkStart(i1, v1, i2, v2)
	for k := 0; k < c.maxKicks; k++ {
		r = c.stepBits(k, r)
		w := word(b)
		base, low := g.split(b)
		other := func(v uint32) (uint64, uint32) {
			fp, l := g.otherLayer(low, v)
			return g.at(altOn(base, fp, g.m0), l, fp)
		}
		var o [slotsPerBucket]uint64
		var ov [slotsPerBucket]uint32
		o[0], ov[0] = other(uint32(w) & key)
		o[1], ov[1] = other(uint32(w>>f) & key)
		o[2], ov[2] = other(uint32(w>>(2*f)) & key)
		o[3], ov[3] = other(uint32(w>>(3*f)) & key)
		free := func(i uint64) uint64 { w := word(i); return (w - ones) &^ w & tops } // freeMarks
		z := [slotsPerBucket]uint64{free(o[0]), free(o[1]), free(o[2]), free(o[3])}
		at := firstFree([slotsPerBucket]bool{z[0] != 0, z[1] != 0, z[2] != 0, z[3] != 0}, uint(r&3))
		r >>= 2
		t.setSlotAt(b*bbits+uint64(at*f), cur)
		setStep(path, k, at)
		b, cur = o[at], ov[at]
		if gens != 0 { // the generation bits move with the value
			cur |= uint32(w>>(at*f)) & gens
		}
		if z[at] != 0 {
			t.putFirst(b, z[at], cur)
			return true
		}
	}
	c.unkick(path, b, cur)
	return false
}

// kickGrownWide is kickGrownNarrow for packed slots of 17 to 32 bits, a
// growable filter's first stages: 40 instructions an insert less than
// kickWalk (f = 13, growing from 1/1024: 505 against 545).
func (c *core) kickGrownWide(path []byte, i1 uint64, v1 uint32, i2 uint64, v2 uint32) bool {
	t := &c.t
	g, f, mask := t.stage(), t.f, uint32(t.slotMax) // f up to 32: bits128 takes any position
	bb := uint64(t.bbits)
	b, cur, r := c.walkStart(i1, v1, i2, v2)
	for k := 0; k < c.maxKicks; k++ {
		r = c.stepBits(k, r)
		lo, hi := bucket128(t.data, b*bb)
		base, low := g.split(b)
		other := func(j uint) (uint64, uint32) {
			fp, l := g.otherLayer(low, uint32(bits128(lo, hi, j*f))&mask)
			return g.at(altOn(base, fp, g.m0), l, fp)
		}
		var o [slotsPerBucket]uint64
		var ov [slotsPerBucket]uint32
		o[0], ov[0] = other(0)
		o[1], ov[1] = other(1)
		o[2], ov[2] = other(2)
		o[3], ov[3] = other(3)
		var flo, fhi [slotsPerBucket]uint64 // the empty slots of o[j]
		var free [slotsPerBucket]bool
		for j := range o {
			lo, hi := bucket128(t.data, o[j]*bb)
			flo[j], fhi[j] = t.packedMatch(lo, hi, 0)
			free[j] = flo[j]|fhi[j] != 0
		}
		at := firstFree(free, uint(r&3))
		r >>= 2
		t.setSlotAt(b*bb+uint64(at*f), cur)
		setStep(path, k, at)
		if b, cur = o[at], ov[at]; free[at] {
			t.setSlotAt(b*bb+t.firstSlot(flo[at], fhi[at]), cur)
			return true
		}
	}
	c.unkick(path, b, cur)
	return false
}

// walkStart draws a walk's random bits; the top one picks its first bucket.
func (c *core) walkStart(i1 uint64, v1 uint32, i2 uint64, v2 uint32) (b uint64, v uint32, r uint64) {
	r = c.rand()
	if r>>63 != 0 {
		return i2, v2, r
	}
	return i1, v1, r
}

// stepBits is step k's random bits, r those left: 2 a step, a draw per 32.
func (c *core) stepBits(k int, r uint64) uint64 {
	if k%32 == 0 && k > 0 {
		return c.rand()
	}
	return r
}

// unkick undoes a failed walk that ended holding cur, out of bucket b.
func (c *core) unkick(path []byte, b uint64, cur uint32) {
	for k := c.maxKicks - 1; k >= 0; k-- {
		b, cur = c.t.other(b, cur)
		cur, _ = c.t.swap(b, step(path, k), cur)
	}
}

// freeOf reports which buckets of o have room, all read before any test.
func (t *table) freeOf(o [slotsPerBucket]uint64) (free [slotsPerBucket]bool) {
	var lo, hi [slotsPerBucket]uint64
	if t.f <= 16 {
		for k := range o {
			lo[k] = t.narrowWord(o[k])
		}
		for k := range free {
			free[k] = t.roomIn(lo[k], 0)
		}
		return free
	}
	for k := range o {
		lo[k], hi[k] = t.bucketAt(o[k])
	}
	for k := range free {
		free[k] = t.roomIn(lo[k], hi[k])
	}
	return free
}

// firstFree is the first k with free[k] from start on, wrapping; else start.
func firstFree(free [slotsPerBucket]bool, start uint) uint {
	for n := uint(0); n < slotsPerBucket; n++ {
		if k := (start + n) % slotsPerBucket; free[k] {
			return k
		}
	}
	return start
}

func setStep(path []byte, k int, slot uint) {
	sh := uint(k%4) * 2
	path[k/4] = path[k/4]&^(3<<sh) | byte(slot)<<sh
}

func step(path []byte, k int) uint { return uint(path[k/4]>>(uint(k%4)*2)) & 3 }

// kickSemi is kickNarrow for a semi-sorted table of one-word buckets,
// fixed or expiring; a slot number is a rank in the bucket's sorted order:
// 387 instructions an insert against kickWalk's 492 (f = 13).
func (c *core) kickSemi(path []byte, i1, i2 uint64, v uint32) bool {
	t := &c.t
	m, fpm := t.m0, uint32(t.fpMask)
	b, cur, r := c.walkStart(i1, v, i2, v)
	for k := 0; k < c.maxKicks; k++ {
		r = c.stepBits(k, r)
		var s [slotsPerBucket]uint32
		s[0], s[1], s[2], s[3] = semiNarrow4(t.narrowWord(b), t.w&15, t.lowMask)
		o := [slotsPerBucket]uint64{altBySign(b, s[0]&fpm, m), altBySign(b, s[1]&fpm, m), altBySign(b, s[2]&fpm, m), altBySign(b, s[3]&fpm, m)}
		ow := [slotsPerBucket]uint64{t.narrowWord(o[0]), t.narrowWord(o[1]), t.narrowWord(o[2]), t.narrowWord(o[3])}
		at := firstFree([slotsPerBucket]bool{t.semiFree(ow[0]), t.semiFree(ow[1]), t.semiFree(ow[2]), t.semiFree(ow[3])}, uint(r&3))
		r >>= 2
		victim := s[at]
		s[at] = cur
		x, _ := t.semiPack(s[0], s[1], s[2], s[3])
		t.setNarrow(b, x)
		setStep(path, k, semiRank(s, cur)) // cur's slot once sorted, as replaceIn would find it
		b, cur = o[at], victim
		if t.semiFree(ow[at]) {
			t.setNarrow(b, t.semiWith(ow[at], cur))
			return true
		}
	}
	c.unkick(path, b, cur)
	return false
}
