package cuckoo

// The halving of a packed table whose buckets are one word, a word at a
// time (shrink.go halves through the codec).

// halveNarrow is halveSlots for a packed table whose halved buckets are
// one word (classGrownNarrow), as doubleNarrow is the reverse: a merged
// bucket of at most four values is assembled in a word with no branch on
// its slots, in halveSlots' order, and or'ed in with one load and store;
// one of more than four goes value by value (mergeOver). halveSlots, by the
// codec's calls and a branch on each slot (mispredicted in a table a
// quarter full), made a Packed halving 1.75 times as slow as a doubling
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
			x, over = t.mergeOver(b, w0, w1, n.f, over)
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

// mergeOver is halveNarrow's merge of buckets w0 and w1 holding more than
// four values, value by value: the word of the first four, unsplit, and
// over with the rest appended.
func (t *table) mergeOver(b, w0, w1 uint64, nf uint, over []overflowValue) (x uint64, _ []overflowValue) {
	f, s := t.f&31, uint(0)
	for c, w := range [2]uint64{w0, w1} {
		for ; w != 0; w >>= f {
			switch v := uint32(w & t.slotMax); {
			case v == 0:
			case s < slotsPerBucket*nf:
				x |= uint64(t.unsplit(v, uint64(c))) << (s & 63)
				s += nf
			default:
				over = append(over, overflowValue{b, t.unsplit(v, uint64(c))})
			}
		}
	}
	return x, over
}
