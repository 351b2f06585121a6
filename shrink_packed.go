package cuckoo

// The packed layout's halving, a merged bucket's values assembled in one
// or two words with no branch on its slots (shrink.go halves through the
// codec, the reference).

// halveNarrow is halveSlots for a packed table whose halved buckets are
// one word (classGrownNarrow), as doubleNarrow is the reverse: a merged
// bucket of at most four values is assembled in a word with no branch on
// its slots, in halveSlots' order, and or'ed in with one load and store;
// one of more than four goes through the codec (halveRange). halveSlots,
// by the codec's calls and a branch on each slot (mispredicted in a table
// a quarter full), made a Packed halving 1.75 times as slow as a doubling
// (BenchmarkHalveVsDouble).
func (t *table) halveNarrow(n *table) (over []overflowValue) {
	bb, nb, bucket := uint64(t.bbits), uint64(n.bbits), uint64(1)<<(t.bbits&63)-1 // bbits < 64: f < 16
	var m merger
	m.init(t, n)
	p := uint64(0) // bucket 2b's first bit in t
	for b := range n.m {
		w0 := load64At(t.data, p>>3) >> (p & 7) & bucket // narrowWord's load
		p += bb
		w1 := load64At(t.data, p>>3) >> (p & 7) & bucket
		p += bb
		x, ok := m.merge(w0, w1)
		if !ok {
			over = t.halveRange(n, b, b+1, over)
			continue
		}
		q := b * nb
		store64(n.data, q>>3, load64(n.data, q>>3)|x<<(q&7))
	}
	return over
}

// merger is halveNarrow's merge of two one-word buckets of f-bit slots
// into one of nf = f+1: each bucket's values are moved down over its empty
// slots (compress), those of the second put above the first's, the lanes
// widened to nf bits, and each value unsplit.
type merger struct {
	lanes      lanes        // t's
	gather     uint64       // multiplies a bucket's lanes' top bits into bits 60-63 (f < 16)
	f          uint         // t's slot width
	cmp        [16]compress // by the bucket's non-empty slots, one bit each
	spread     [4]uint64    // spread[k]: lane k of f bits, which moves k bits up
	keys, gens uint64       // the widened lanes' key bits below c, and bits above
	cbits      [8]uint64    // cbits[k]: bit c of the first k widened lanes, k <= 4
}

// compress moves a bucket's values down over its empty slots in two
// steps (Hacker's Delight, 7-4): the lanes in by1 down one lane, then those
// in by2 down two; n is the values.
type compress struct {
	by1, by2 uint64
	n        uint
}

// init makes m the merger of t's buckets into n's.
func (m *merger) init(t, n *table) {
	f := t.f & 31
	m.lanes, m.f = t.lanes, f
	for k := range uint(slotsPerBucket) {
		m.gather |= 1 << (60 + k - (k*f + f - 1))
		m.spread[k] = t.slotMax << (k * f)
		m.cbits[k+1] = m.cbits[k] | 1<<(k*n.f+t.kbits)
	}
	keys := uint64(1)<<t.kbits - 1
	m.keys = n.lanes.onesLo * keys
	m.gens = n.lanes.onesLo * (t.slotMax &^ keys)
	for occ := range uint(16) {
		c := &m.cmp[occ]
		for k := range uint(slotsPerBucket) {
			if occ>>k&1 == 0 {
				continue
			}
			d := k - c.n // the empty slots below k
			if d&1 != 0 {
				c.by1 |= t.slotMax << (k * f)
			}
			if d&2 != 0 {
				c.by2 |= t.slotMax << ((k - d&1) * f)
			}
			c.n++
		}
	}
}

// merge is the word of the values of buckets w0 and w1, unsplit from
// child 0 and 1, if they are at most four.
func (m *merger) merge(w0, w1 uint64) (uint64, bool) {
	f := m.f & 31
	c0, c1 := &m.cmp[m.occupied(w0)], &m.cmp[m.occupied(w1)]
	n0, n := c0.n, c0.n+c1.n
	if n > slotsPerBucket {
		return 0, false
	}
	x := c0.apply(w0, f) | c1.apply(w1, f)<<(n0*f&63)
	x = x&m.spread[0] | x&m.spread[1]<<1 | x&m.spread[2]<<2 | x&m.spread[3]<<3
	return x&m.keys | x&m.gens<<1 | m.cbits[n&7]&^m.cbits[n0&7], true
}

// occupied marks the non-empty slots of one-word bucket w, one bit each.
func (m *merger) occupied(w uint64) uint64 {
	return ((w&m.lanes.restLo + m.lanes.restLo | w) & m.lanes.topsLo) * m.gather >> 60
}

// apply moves the values of one-word bucket w down over its empty slots.
func (c *compress) apply(w uint64, f uint) uint64 {
	w = w&^c.by1 | w&c.by1>>(f&31)
	return w&^c.by2 | w&c.by2>>(2*f&63)
}

// halveWide is halveSlots for a packed table of two-word buckets (f > 16
// halved), as halveNarrow for one-word ones: a merged bucket's values are
// gathered unsplit with no branch on a slot (gather), and if they are at
// most four, encoded and or'ed in; one of more goes through the codec
// (halveRange).
func (t *table) halveWide(n *table) (over []overflowValue) {
	bb := uint64(t.bbits)
	mlo, mhi := bucketMask(t.bbits)
	p := uint64(0) // bucket 2b's first bit in t
	for b := range n.m {
		lo0, hi0 := bucket128(t.data, p)
		lo1, hi1 := bucket128(t.data, p+bb)
		p += 2 * bb
		var vs [2 * slotsPerBucket]uint32
		i := t.gather(&vs, 0, lo0&mlo, hi0&mhi, 0)
		i = t.gather(&vs, i, lo1&mlo, hi1&mhi, 1)
		if i > slotsPerBucket {
			over = t.halveRange(n, b, b+1, over)
			continue
		}
		lo, hi := n.packedEncode([slotsPerBucket]uint32(vs[:slotsPerBucket]))
		n.orBucket(b, lo, hi)
	}
	return over
}

// gather puts the values of bucket (lo, hi), of child c, unsplit, in vs
// from i on, and returns where the next goes: each slot's value is stored
// at i, which moves on only if it is not empty, so vs holds the values from
// 0 up and zeros above, with no branch on a slot.
func (t *table) gather(vs *[2 * slotsPerBucket]uint32, i uint, lo, hi, c uint64) uint {
	f, slot := t.f&63, t.slotMax // 16 <= f < 32: the masks spare the shifts' checks
	kt, key := t.kbits&31, uint32(t.keyMask)
	for range slotsPerBucket {
		v := lo & slot
		nz := (v + slot) >> f // 1 exactly when v is not 0
		x := uint32(v)
		vs[i&7] = (x&^key)<<1 | uint32(c&nz)<<kt | x&key // unsplit
		i += uint(nz)
		lo, hi = lo>>f|hi<<((64-f)&63), hi>>f
	}
	return i
}
