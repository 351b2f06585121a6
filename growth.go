package cuckoo

// Growth (Config.MaxCapacity above Capacity) doubles a filter without its
// keys, keeping every key, its false-positive rate, and lookups of two
// buckets; insertGrowing holds the policy. Stage k, 0 to g, has m0 * 2^k
// buckets. A key's hash gives an f-bit fingerprint fp, a base bucket i1 in
// [0, m0) (locate) and g layer bits L. At stage k its first bucket is
// B1 = i1*2^k + L>>(g-k), and the g-k layer bits no index holds yet are
// kept above the fingerprint (place, restage): a slot has f+g-k bits,
// fp | (L mod 2^(g-k)) << f.
//
// The second bucket has base alt(i1, fp) and layer bits L ^ H(fp), so that
// displacements move load between layers. A slot keeps its own bucket's
// layer bits, so one rule, an involution, serves both (other): in bucket
// B = i*2^k + l, v = fp | r<<f has layer l<<(g-k) | r, and its other place
// is base alt(i, fp) in that layer ^ H(fp).
//
// Doubling (double): bucket B of stage k becomes 2B and 2B+1, each slot
// going by its top layer bit, which it loses, in one pass. A lookup at
// stage k compares f+g-k bits, so the rate is at most the configured one
// at every stage. L is the top g bits of the low 32 bits of locate's
// fingerprint product, which needs f+g <= 32.

// place returns a key's two buckets and its key as each holds it, which
// an insert stores with the current generation's bits (placeIn); readers
// of a ConcurrentFilter call it, so it reads no genV, which Advance writes.
func (t *table) place(h uint64) (b1 uint64, v1 uint32, b2 uint64, v2 uint32) {
	fp, i1 := t.locate(h)
	i2 := t.alt(i1, fp)
	if t.g == 0 {
		return i1, fp, i2, fp
	}
	l1, l2 := t.layers(h, fp)
	b1, v1 = t.staged(i1, l1, fp)
	b2, v2 = t.staged(i2, l2, fp)
	return b1, v1, b2, v2
}

// layers returns a key's two g-bit layers; masked shifts let it inline.
func (t *table) layers(h uint64, fp uint32) (l1, l2 uint32) {
	ls := t.lshift & 31
	l1 = uint32(uint64(uint32(h))*t.fpRange) >> ls
	return l1, l1 ^ fp*layerMul>>ls
}

// staged returns the bucket at this stage of base bucket i in layer l, and
// the value a slot there holds for fp: stageGeometry.at on the table's
// fields (57 instructions less a grown lookup than a stageGeometry).
func (t *table) staged(i uint64, l, fp uint32) (uint64, uint32) {
	return i<<(t.k&63) | uint64(l>>(t.rbits&31)), fp | (l&t.rmask)<<(t.fbits&31)
}

// other returns the other place of value v held in bucket b: the bucket,
// and the value as that bucket holds it.
func (t *table) other(b uint64, v uint32) (uint64, uint32) {
	if t.g == 0 { // fpMask: an expiring table's generation bits are not the fingerprint's
		return t.alt(b, v&uint32(t.fpMask)), v
	}
	s := t.stage()
	if t.genBits == 0 { // the test costs less than the masks (16 instructions a growable semi-sorted insert)
		return s.other(b, v)
	}
	gen := v &^ uint32(t.keyMask) // stays as it is
	b, v = s.other(b, v^gen)
	return b, v | gen
}

// stageGeometry is what other needs of a growable table, in a value that a
// loop storing to the table keeps in registers.
type stageGeometry struct {
	m0                      uint64
	k, rbits, fbits, lshift uint
	fpMask, rmask           uint32
}

func (t *table) stage() stageGeometry {
	return stageGeometry{t.m0, t.k, t.rbits, t.fbits, t.lshift, uint32(t.fpMask), t.rmask}
}

// other is table.other for a growable table's key v: the other base
// bucket, at the same stage, in the key's other layer.
func (s *stageGeometry) other(b uint64, v uint32) (uint64, uint32) {
	base, low := s.split(b)
	fp, l := s.otherLayer(low, v)
	return s.at(altOn(base, fp, s.m0), l, fp)
}

// split returns the base bucket of bucket b and the layer bits its index
// holds, in place in a full layer: what a walk's step computes once.
func (s *stageGeometry) split(b uint64) (base uint64, low uint32) {
	k := s.k & 31 // k <= g < 32: the masks tell the compiler so
	return b >> k, uint32(b&(1<<k-1)) << (s.rbits & 31)
}

// otherLayer returns the fingerprint of value v, of a bucket that split gave
// low, and the key's other layer.
func (s *stageGeometry) otherLayer(low, v uint32) (fp, l uint32) {
	fp = v & s.fpMask
	l = low | v>>(s.fbits&31) // the full layer
	return fp, l ^ fp*layerMul>>(s.lshift&31)
}

// at is table.staged.
func (s *stageGeometry) at(i uint64, l, fp uint32) (uint64, uint32) {
	return i<<(s.k&31) | uint64(l>>(s.rbits&31)), fp | (l&s.rmask)<<(s.fbits&31)
}

// layerMul makes H(fp), the top g bits of fp*layerMul: another multiplier
// than alt's, so that a fingerprint's layer and bucket offsets are unrelated.
const layerMul = 0x85ebca6b

// double returns the table of the next stage, holding every value of t.
func (t *table) double() table {
	n := newStage(t.m0, t.fbits, t.g, t.k+1, t.layout, t.gens)
	n.genV = t.genV >> 1 // the key lost a layer bit
	t.doubleInto(&n)
	return n
}

// doubleInto is double into n, an empty table of the next stage; bucket128
// and orBucket inline, where bucketAt and setBucket do not (4 instructions
// a growable insert, f = 13).
func (t *table) doubleInto(n *table) {
	if t.class == classGrownNarrow {
		t.doubleNarrow(n)
		return
	}
	bb := uint64(t.bbits)
	for b := range t.m {
		lo, hi := bucket128(t.data, b*bb)
		c := t.split(lo, hi, &n.shape)
		n.orBucket(2*b, c[0][0], c[0][1])
		n.orBucket(2*b+1, c[1][0], c[1][1])
	}
}

// orBucket ors the bucket value (lo, hi), which has no bits past the
// bucket's, into the empty bucket i.
func (t *table) orBucket(i, lo, hi uint64) {
	p := i * uint64(t.bbits)
	o, s := p>>3, p&7
	store64(t.data, o, load64(t.data, o)|lo<<s)
	store64(t.data, o+8, load64(t.data, o+8)|hi<<s|lo>>1>>(63-s))
}

// doubleNarrow is doubleInto for classGrownNarrow: each child bucket is
// assembled in a word and or'ed in with one load and store.
func (t *table) doubleNarrow(n *table) {
	f, top, nf, nb := t.f&31, (t.f-1)&31, n.f&31, uint64(n.bbits)
	mask, low := uint64(t.slotMax), uint64(1)<<top-1
	gens := t.genBits != 0
	for b := range t.m {
		var x0, x1 uint64 // the children's words
		var s0, s1 uint   // where their next value goes, in bits
		put := func(v uint64) {
			switch {
			case v == 0:
			case v>>top == 0:
				x0 |= v << (s0 & 63)
				s0 += nf
			default:
				x1 |= (v & low) << (s1 & 63)
				s1 += nf
			}
		}
		w := t.narrowWord(b)
		if gens {
			w = t.keyTopUpWord(w)
		}
		put(w & mask)
		put(w >> f & mask)
		put(w >> (2 * f) & mask)
		put(w >> (3 * f) & mask)
		p := 2 * b * nb
		store64(n.data, p>>3, load64(n.data, p>>3)|x0<<(p&7))
		p += nb
		store64(n.data, p>>3, load64(n.data, p>>3)|x1<<(p&7))
	}
}

// keyTopUpWord is keyTopUp of the four values of one-word bucket w at
// once: the lanes' key's top bits go up to the slot's top, the key's other
// bits stay and the generation bits go down one.
func (t *table) keyTopUpWord(w uint64) uint64 {
	ones := t.lanes.onesLo
	top, key, gens := ones<<((t.kbits-1)&31), ones*(t.keyMask>>1), ones*((t.slotMax&^t.keyMask)>>1)
	return (w&top)<<(t.genBits&31) | w&key | w>>1&gens
}

// firstShape is the shape of t's first table, without data: what Reset
// returns to.
func (t *table) firstShape() table { return tableShape(t.m0, t.fbits, t.g, 0, t.layout, t.gens) }

func (t *table) canGrow() bool { return t.k < t.g }

// stageCapacity is how many items the table takes before a growable filter
// doubles it: the fill its slot width reaches at capacity.
func (t *table) stageCapacity() int { return t.fill }

// restage returns where a table at stage t.k >= k keeps the value v that
// stage k keeps in bucket b.
func (t *table) restage(b uint64, v uint32, k uint) (uint64, uint32) {
	fp := v & uint32(t.fpMask)
	l := uint32(b&(1<<k-1))<<(t.g-k) | v>>t.fbits // the full layer
	r := t.g - t.k
	return b>>k<<t.k | uint64(l>>r), fp | (l&(1<<r-1))<<t.fbits
}

// placedKey is the key an insert places: by its hash, or (Merge) by the value
// v that bucket b of a table at stage k holds for it.
type placedKey struct {
	h      uint64
	b      uint64
	v      uint32
	k      uint
	stored bool // b, v and k, not h
}

// placeIn returns the key's two buckets in t and the value each would
// hold, in the current generation.
func (x *placedKey) placeIn(t *table) (b1 uint64, v1 uint32, b2 uint64, v2 uint32) {
	if !x.stored {
		b1, v1, b2, v2 = t.place(x.h)
		return b1, v1 | t.genV, b2, v2 | t.genV
	}
	b1, v1 = t.restage(x.b, x.v, x.k)
	b2, v2 = t.other(b1, v1)
	return b1, v1, b2, v2
}

// insertGrowing inserts x by the policy Insert, Merge and the concurrent
// insertSlow share: the table doubles first when its stage is full, and
// again on each ErrFull while it can (failed: x has just failed at this
// stage). ErrFull comes only after the last stage, with the filter as it
// was; ErrTooManyDuplicates first, as a doubling keeps copies together.
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

// grow doubles the table; an expiring one then waits G calls of Advance
// before it may halve (shrink.go).
func (c *core) grow() {
	c.t = c.t.double()
	c.wait = int(c.t.gens)
}

// insertGrown is insertGrowing for the key of hash h, which has just failed
// with ErrFull; apart, to keep the placedKey out of insert's frame.
//
//go:noinline
func (c *core) insertGrown(h uint64) error {
	x := placedKey{h: h}
	return c.insertGrowing(&x, true)
}
