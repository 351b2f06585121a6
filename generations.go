package cuckoo

import "math/bits"

// Keys that expire (Config.Generations): a filter of G generations whose
// Advance forgets the keys of the oldest one. Inserts are in insert.go.
//
// A slot of an expiring table holds id<<f | fp: the key's f-bit fingerprint
// under g = ceil(log2 G) generation bits, id (0..G-1, cycling) the
// generation the key was stored or last refreshed (InsertUnique) in. The
// fingerprint alone decides where a key lives (fpMask: table.other and the
// walks), and a displacement moves whole slots, generation and all. A
// lookup compares only a slot's fingerprint bits, in the same load
// (fpLanes, expiringLows). Advance clears the generation it reuses in one
// pass, so that Len counts live keys, inserts reuse the slots at once, and
// no expired slot is left to match: the false-positive rate is that of f
// bits at the same load.
//
// Delete removes the oldest slot matching the key's fingerprint in its two
// buckets, InsertUnique refreshes the youngest: keys whose fingerprints and
// buckets collide are one key to the filter, present while the youngest of
// their slots lives, and both choices keep that slot at least as young as
// the youngest live copy of any of them, so no live key goes missing. A
// colliding key's current copy so stands for a refresh, as a false
// positive does for a plain InsertUnique (TestInsertUniqueColliding), and
// a Delete of the refreshed key can take it. Refreshing the oldest slot
// instead keeps colliding keys' slots alive while either is seen: with
// f = 8, G = 4, TestConcurrentExpiringStress then ran out of room at 5,983
// live keys of a Capacity of 6,000.

// newTableFor is the empty table of a Config resolved to p.
func newTableFor(p *params) table {
	t := shapeFor(p)
	t.data = newTableData(tableBytes(t.m, t.bbits))
	return t
}

// shapeFor is the empty table of a Config resolved to p, without data.
func shapeFor(p *params) table {
	if p.gens == 0 {
		return tableShape(p.m, p.f, p.g, 0, p.layout)
	}
	return expiringShape(p.m, p.f, p.layout, p.gens)
}

// firstShape is the shape of t's first table, without data: what Reset
// returns to.
func (t *table) firstShape() table {
	if t.gens == 0 {
		return tableShape(t.m0, t.fbits, t.g, 0, t.layout)
	}
	return expiringShape(t.m0, t.fbits, t.layout, t.gens)
}

// expiringShape is a fixed table of m buckets without data whose slots hold
// fbits-bit fingerprints under the generation bits of gens generations;
// with gens = 1, a plain table.
func expiringShape(m uint64, fbits uint, layout Layout, gens uint) table {
	gb := genBits(gens)
	t := tableShape(m, fbits+gb, 0, 0, layout)
	t.fbits, t.fpRange, t.fpMask = fbits, 1<<fbits-1, 1<<fbits-1
	t.gens, t.genBits = gens, gb
	if gb > 0 {
		t.fpLanes = fpLanesOf(t.f, fbits)
		switch {
		case t.codec.packedNarrow():
			t.class = classExpNarrow
		case t.codec == classSemi && gb <= 4:
			// The generation bits are the top gb of each 4-bit prefix.
			t.class = classExpSemi
			t.semiFpP = 0x1111 * (1<<(4-gb) - 1)
		default:
			t.class = classExpiring
		}
	}
	return t
}

// fpLanesOf is newLanes(f) for the low fbits bits of each lane, a slot's
// fingerprint: the zero tests with them (zero64, zero128, the batch
// probes') carry into no generation bit, so they see the fingerprint alone.
func fpLanesOf(f, fbits uint) lanes {
	l := lanes{onesLo: newLanes(f).onesLo, onesHi: newLanes(f).onesHi}
	for k := uint(0); k < slotsPerBucket; k++ {
		setBit128(&l.topsLo, &l.topsHi, k*f+fbits-1)
		for b := range fbits - 1 {
			setBit128(&l.restLo, &l.restHi, k*f+b)
		}
	}
	return l
}

// expiringValue is what a slot holds for fingerprint fp stored in
// generation gen.
func (t *table) expiringValue(fp uint32, gen uint) uint32 {
	return uint32(gen)<<(t.fbits&31) | fp
}

// expiringHas reports whether bucket i1 or i2 holds fingerprint fp, of any
// generation: lookup's probe of classExpiring.
func (t *table) expiringHas(i1, i2 uint64, fp uint32) bool {
	return t.expiringHolds(i1, fp)|t.expiringHolds(i2, fp) != 0
}

// expiringWords is expiringHas for classExpNarrow or classExpSemi, given
// the buckets as narrowWord reads them.
func (t *table) expiringWords(w1, w2 uint64, fp uint32) bool {
	if t.class == classExpSemi {
		bp := uint64(fp>>(t.w&31)) * 0x1111
		bl := uint64(fp&t.lowMask) * t.semiLanes.onesLo
		return t.semiLanes.anyZero(t.expiringLows(w1, bp, bl), t.expiringLows(w2, bp, bl))
	}
	ones := t.lanes.onesLo
	x1, x2 := w1^uint64(fp)*ones, w2^uint64(fp)*ones
	return ((x1-ones)&^x1|(x2-ones)&^x2)&t.fpLanes.topsLo != 0
}

// expiringAt is expiringHolds for the bucket at bit p, for the batches.
func (t *table) expiringAt(p uint64, fp uint32) bool {
	for _, v := range t.decode(t.bucketFrom(p)) {
		if v&uint32(t.fpMask) == fp { // fp != 0: never an empty slot
			return true
		}
	}
	return false
}

// expiringLows is semiLows for a table of classExpSemi: the prefixes'
// generation bits are masked off before they are compared with bp's.
func (t *table) expiringLows(b, bp, bl uint64) uint64 {
	x := (uint64(semiDecode[b&(1<<semiCodeBits-1)]) ^ bp) & t.semiFpP
	z := ^((x&0x7777 + 0x7777) | x) & 0x8888 // semiPrefixMatch's
	return b>>semiCodeBits ^ bl | t.unspread[(z>>3)*0x249>>9&0xf]
}

// age is how many generations ago slot value v was stored; gen is current.
func (t *table) age(v uint32, gen uint) uint {
	id := uint(v >> (t.fbits & 31))
	if id > gen {
		return gen + t.gens - id
	}
	return gen - id
}

// oldest finds the oldest slot holding fingerprint fp in buckets i1 and i2
// (the youngest if young): its bucket, the bucket's slots and its index
// among them, or k < 0 if neither holds fp.
func (t *table) oldest(i1, i2 uint64, fp uint32, gen uint, young bool) (b uint64, s [4]uint32, k int) {
	k, best := -1, uint(0)
	for _, i := range [2]uint64{i1, i2} {
		slots := t.bucketSlots(i)
		for j, v := range slots {
			if v&uint32(t.fpMask) != fp {
				continue
			}
			if a := t.age(v, gen); k < 0 || young && a < best || !young && a > best {
				b, s, k, best = i, slots, j, a
			}
		}
	}
	return b, s, k
}

// expire clears the slots of generation id and returns how many.
func (t *table) expire(id uint) int {
	switch {
	case t.codec == classSemi && t.genBits <= 4:
		return t.expireSemiNarrow(uint32(id))
	case t.class != classExpNarrow:
		return t.expireEach(id)
	}
	// Four lanes at once: one load a bucket, and a store if it changes.
	l, f, bb := t.lanes, t.f&31, uint64(t.bbits)
	gens := l.onesLo * (t.slotMax &^ t.fpMask)
	pat := l.onesLo * uint64(id) << (t.fbits & 31)
	n := 0
	for i := range t.m {
		p := i * bb
		w := load64(t.data, p>>3)
		b := w >> (p & 7)
		hit := l.zero64(b&gens^pat) &^ l.zero64(b)
		if hit == 0 {
			continue
		}
		n += bits.OnesCount64(hit)
		clr := hit >> (f - 1) * t.slotMax // each marked lane, all ones
		store64(t.data, p>>3, w&^(clr<<(p&7)))
	}
	return n
}

// expireEach is expire for any expiring table, bucket by bucket.
func (t *table) expireEach(id uint) int {
	n := 0
	for i := range t.m {
		s := t.bucketSlots(i)
		k := 0
		for j, v := range s {
			if v != 0 && v>>(t.fbits&31) == uint32(id) {
				s[j] = 0
				k++
			}
		}
		if k > 0 {
			lo, hi := t.encode(s)
			t.setBucket(i, lo, hi)
			n += k
		}
	}
	return n
}

// expireSemiNarrow is expire for a semi-sorted table of one-word buckets
// and at most 4 generation bits, without decoding them (semiExpiry).
func (t *table) expireSemiNarrow(id uint32) int {
	var e semiExpiry
	e.init(t, id)
	n := 0
	if id == 0 { // the runs hold the empty slots, which are not counted
		for i := range t.m {
			b := t.narrowWord(i)
			nib := uint64(semiDecode[b&(1<<semiCodeBits-1)])
			if r := e.run(nib); r != 0 {
				n += e.moves[r].k - t.semiEmpty(b)
				t.setNarrow(i, e.clear(b, nib, r))
			}
		}
		return n
	}
	// Each bucket's word is loaded before the previous bucket's store, and
	// that store's bits patched in: a load after the store waits for it
	// (14.5 ns a bucket against 16.5, f = 13, G = 4).
	data, bb := t.data, uint64(t.bbits)
	mask := ^uint64(0) >> (64 - bb&63)
	word := load64At(data, 0)
	for p, stop := uint64(0), t.m*bb; p < stop; p += bb {
		o, sh, no := p>>3, p&7, (p+bb)>>3
		next := load64At(data, no) // the table has 16 bytes from the last bucket's start
		b := word >> sh
		nib := uint64(semiDecode[b&(1<<semiCodeBits-1)])
		if r := e.run(nib); r != 0 {
			n += e.moves[r].k
			d := (b ^ e.clear(b, nib, r)) & mask << sh
			store64At(data, o, word^d)
			next ^= d >> 1 >> ((no-o)*8 - 1&63) // the bits of this bucket in next; no-o is 2..8
		}
		word = next
	}
	return n
}

// semiEmpty is the number of empty slots of bucket b (narrowWord) of a
// semi-sorted table: those whose prefix and low part are both 0.
func (t *table) semiEmpty(b uint64) int {
	l, rest, w := b>>semiCodeBits, t.semiLanes.restLo, t.w&15
	zero := semiPrefixMatch(b, 0) // the slots whose prefix is 0
	// The top bit of each lane whose low part or prefix is not 0.
	used := ((l&rest + rest) | l | t.unspread[zero]) & t.semiLanes.topsLo >> (w - 1)
	return 4 - int(used&1+used>>w&1+used>>(2*w)&1+used>>(3*w)&1)
}

// semiExpiry clears one generation from a semi-sorted table of one-word
// buckets whose at most 4 generation bits top each slot's prefix. Sorted,
// a generation's slots are a run; cleared, they are the smallest, so the
// bucket stays sorted with the run moved to the bottom and the slots below
// it up by its length k (prefixes by 4k bits, low parts by kw): 77
// instructions a bucket, not expireEach's 201 (f = 13, G = 4).
type semiExpiry struct {
	idN, genN uint64 // id in the generation bits of each prefix, and their mask
	// moves[r] clears run r (a mask of slots) by products: no shift counts.
	moves [16]semiMove
}

type semiMove struct {
	lowP, mulP, lowL, mulL uint64
	k                      int
}

// init sets e up to clear generation id from t.
func (e *semiExpiry) init(t *table, id uint32) {
	sh := (4 - t.genBits) & 3 // genBits in 1..4
	e.idN, e.genN = 0x1111*uint64(id<<sh), 0x1111*(0xf<<sh&0xf)
	for r := range e.moves {
		if r == 0 {
			continue
		}
		end, k := uint(bits.Len(uint(r))), uint(bits.OnesCount(uint(r)))
		e.moves[r] = semiMove{
			lowP: 1<<(4*end) - 1, mulP: 1 << (4 * k),
			lowL: 1<<(end*t.w) - 1, mulL: 1 << (k * t.w),
			k: int(k),
		}
	}
}

// run marks, one bit a slot, the run of generation id's slots of a bucket
// whose prefixes decode to nib.
func (e *semiExpiry) run(nib uint64) uint64 {
	x := (nib ^ e.idN) & e.genN
	z := ^((x&0x7777 + 0x7777) | x) & 0x8888
	return (z >> 3) * 0x249 >> 9 & 0xf // semiPrefixMatch's
}

// clear is bucket b, whose prefixes decode to nib, with the slots of its
// run r cleared; the bits above the bucket are not kept.
func (e *semiExpiry) clear(b, nib, r uint64) uint64 {
	m := &e.moves[r&15]
	l := b >> semiCodeBits
	nib = nib&^m.lowP | nib*m.mulP&m.lowP
	l = l&^m.lowL | l*m.mulL&m.lowL
	return l<<semiCodeBits | semiEncodeNibbles(nib)
}

// insertUniqueExpiring is InsertUnique for an expiring table: a present
// key's youngest copy moves to the current generation, in place.
func (c *core) insertUniqueExpiring(h uint64) (bool, error) {
	t := &c.t
	fp, i1 := t.locate(h)
	i2 := t.alt(i1, fp)
	if b, s, k := t.oldest(i1, i2, fp, c.gen, true); k >= 0 {
		if v := t.expiringValue(fp, c.gen); s[k] != v {
			t.replace(b, s, uint(k), v)
		}
		return false, nil
	}
	if err := c.insertExpiring(h); err != nil {
		return false, err
	}
	return true, nil
}

// deleteExpiring is Delete for an expiring table: the oldest copy goes.
func (c *core) deleteExpiring(h uint64) bool {
	t := &c.t
	fp, i1 := t.locate(h)
	i2 := t.alt(i1, fp)
	b, s, k := t.oldest(i1, i2, fp, c.gen, false)
	if k < 0 {
		return false
	}
	t.replace(b, s, uint(k), 0)
	c.count--
	return true
}

// advance is Advance: the next generation becomes current, and the slots
// stored in it G generations ago are cleared; it returns how many.
func (c *core) advance() int {
	t := &c.t
	switch t.gens {
	case 0:
		return 0
	case 1: // every key expires
		n := c.count
		clear(t.data)
		c.count = 0
		return n
	}
	if c.gen++; c.gen == t.gens {
		c.gen = 0
	}
	n := t.expire(c.gen)
	c.count -= n
	return n
}
