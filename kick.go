package cuckoo

// kickStackSteps is the longest displacement walk whose path is kept on the
// stack; longer MaxKicks use a buffer allocated with the filter.
const kickStackSteps = 512

// kick makes room for a key whose buckets i1 and i2 are full (holding it as
// v1 and v2), by a random walk: put it into a random slot of one of its
// buckets, take out the fingerprint that was there, move it to its other
// bucket, and so on until a fingerprint lands in a free slot or maxKicks
// steps are done.
//
// Each step prefers a fingerprint whose other bucket has room (a look-ahead
// of one step), which lets the walk reach higher loads in fewer steps.
//
// The walk records which slot each step wrote (2 bits a step). If it fails it
// runs backwards: the homeless fingerprint's other bucket is the bucket it
// was taken from, and swapping it back into the recorded slot hands back the
// fingerprint placed there. Undoing every step restores the table bit for
// bit, so a failed insert loses nothing.
func (c *core) kick(i1 uint64, v1 uint32, i2 uint64, v2 uint32) bool {
	var stack [kickStackSteps / 4]byte
	path := stack[:]
	if c.maxKicks > kickStackSteps {
		path = c.kickBuf
	}
	switch grown, packed := c.t.g != 0, c.t.layout == Packed; {
	case c.t.f > 16:
		if grown && packed {
			return c.kickGrownWide(path, i1, v1, i2, v2)
		}
	case grown && packed:
		return c.kickGrownNarrow(path, i1, v1, i2, v2)
	case packed:
		return c.kickNarrow(path, i1, i2, v1)
	case !grown:
		return c.kickSemi(path, i1, i2, v1)
	}
	return c.kickWalk(path, i1, v1, i2, v2)
}

// kickWalk is kick for any table, with path to record the steps in. Each
// step decodes its bucket once: the look-ahead's other buckets and values
// are where the victim then goes.
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

// kickNarrow is kick for a fixed packed table with f <= 16, whose buckets
// are one word each. It takes the same steps as kick, with fewer
// instructions: a step reads its bucket once, and the look-ahead's reads of
// the four other buckets are what the step then uses, both for the bucket
// the victim goes to and for that bucket's free slot. (The bucket written,
// b, is never one of them: alt(b, fp) != b.)
func (c *core) kickNarrow(path []byte, i1, i2 uint64, fp uint32) bool {
	// What a step needs, in locals: the compiler reloads fields after each
	// store to the table.
	t := &c.t
	data, m, bbits := t.data, t.m0, uint64(t.bbits)
	f, mask := t.f&31, uint64(t.slotMax)
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
			altOn(b, uint32(w&mask), m), altOn(b, uint32(w>>f&mask), m),
			altOn(b, uint32(w>>(2*f)&mask), m), altOn(b, uint32(w>>(3*f)&mask), m),
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

// kickGrownNarrow is kickNarrow for a growable packed table with slots of
// at most 16 bits (classGrownNarrow), whose values move to their other
// places as other gives them, layer bits and all: the same steps as
// kickWalk, each reading its bucket once and reusing the look-ahead's
// reads.
func (c *core) kickGrownNarrow(path []byte, i1 uint64, v1 uint32, i2 uint64, v2 uint32) bool {
	t := &c.t
	g, f, mask := t.stage(), t.f&31, uint32(t.slotMax)
	b, cur, r := c.walkStart(i1, v1, i2, v2)
	for k := 0; k < c.maxKicks; k++ {
		r = c.stepBits(k, r)
		w := t.narrowWord(b)
		base, low := g.split(b)
		var o [slotsPerBucket]uint64
		var ov [slotsPerBucket]uint32
		var z [slotsPerBucket]uint64
		var free [slotsPerBucket]bool
		for j := range o { // other, inlined
			fp, l := g.otherLayer(low, uint32(w>>(uint(j)*f))&mask)
			o[j], ov[j] = g.at(altOn(base, fp, g.m0), l, fp)
			z[j] = t.freeMarks(t.narrowWord(o[j]))
			free[j] = z[j] != 0
		}
		at := firstFree(free, uint(r&3))
		r >>= 2
		t.setSlotAt(b*uint64(t.bbits)+uint64(at*f), cur)
		setStep(path, k, at)
		if b, cur = o[at], ov[at]; z[at] != 0 {
			t.putFirst(b, z[at], cur)
			return true
		}
	}
	c.unkick(path, b, cur)
	return false
}

// kickGrownWide is kickGrownNarrow for slots of 17 to 32 bits, whose
// buckets of up to 128 bits take two loads (bucketAt).
func (c *core) kickGrownWide(path []byte, i1 uint64, v1 uint32, i2 uint64, v2 uint32) bool {
	t := &c.t
	g, f, mask := t.stage(), t.f, uint32(t.slotMax) // f up to 32: bits128 takes any position
	b, cur, r := c.walkStart(i1, v1, i2, v2)
	for k := 0; k < c.maxKicks; k++ {
		r = c.stepBits(k, r)
		lo, hi := t.bucketAt(b)
		base, low := g.split(b)
		var o [slotsPerBucket]uint64
		var ov [slotsPerBucket]uint32
		var free [slotsPerBucket]bool
		for j := range o { // other, inlined
			fp, l := g.otherLayer(low, uint32(bits128(lo, hi, uint(j)*f))&mask)
			o[j], ov[j] = g.at(altOn(base, fp, g.m0), l, fp)
			flo, fhi := t.matches(o[j], 0)
			free[j] = flo|fhi != 0
		}
		at := firstFree(free, uint(r&3))
		r >>= 2
		t.setSlotAt(b*uint64(t.bbits)+uint64(at*f), cur)
		setStep(path, k, at)
		if b, cur = o[at], ov[at]; free[at] {
			flo, fhi := t.matches(b, 0)
			t.setSlotAt(b*uint64(t.bbits)+t.firstSlot(flo, fhi), cur)
			return true
		}
	}
	c.unkick(path, b, cur)
	return false
}

// walkStart draws a walk's first random bits and picks its first bucket,
// i1 or i2, with the top one; it returns the bucket, the value the key has
// there (v1 or v2) and the bits.
func (c *core) walkStart(i1 uint64, v1 uint32, i2 uint64, v2 uint32) (b uint64, v uint32, r uint64) {
	r = c.rand()
	if r>>63 != 0 {
		return i2, v2, r
	}
	return i1, v1, r
}

// stepBits returns the random bits for step k of a walk, given those left
// from the step before, r: 2 a step, a new draw every 32 steps.
func (c *core) stepBits(k int, r uint64) uint64 {
	if k%32 == 0 && k > 0 {
		return c.rand()
	}
	return r
}

// unkick undoes a failed walk of c.maxKicks steps that ended holding cur,
// taken out of bucket b.
func (c *core) unkick(path []byte, b uint64, cur uint32) {
	for k := c.maxKicks - 1; k >= 0; k-- {
		b, cur = c.t.other(b, cur)
		cur, _ = c.t.swap(b, step(path, k), cur)
	}
}

// freeOf reports which of the buckets o have an empty slot. They are all
// read before any is tested, so that their cache misses overlap.
func (t *table) freeOf(o [slotsPerBucket]uint64) (free [slotsPerBucket]bool) {
	if t.f <= 16 { // one load a bucket
		var w [slotsPerBucket]uint64
		for k := range w {
			w[k] = t.narrowWord(o[k])
		}
		for k := range w {
			free[k] = t.freeIn(w[k])
		}
		return free
	}
	for k := range free {
		free[k] = t.hasFree(o[k])
	}
	return free
}

// firstFree is the first k, from start on and wrapping, with free[k]; start
// if there is none.
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
