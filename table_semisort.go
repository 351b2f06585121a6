package cuckoo

import "math/bits"

// The semi-sorted layout (Fan et al. 2014, section 5.2) saves one bit per
// slot. A fingerprint of f bits is a 4-bit prefix (its top bits) and w = f-4
// low bits. A bucket keeps its four fingerprints sorted, so the four prefixes
// form a sorted multiset of nibbles, one of C(16+4-1, 4) = 3876, stored as a
// 12-bit code instead of 16 bits:
//
//	bits [0, 12)              code of the sorted prefixes
//	bits [12 + k*w, 12+(k+1)w) low bits of slot k, k = 0..3
//
// 4f-4 bits a bucket. Empty slots hold fingerprint 0, so they sort first.
// Sorting by the whole fingerprint (not the prefix alone) makes the encoding
// of a multiset unique, so undoing an operation restores the same bits.

const (
	semiCodes    = 3876 // sorted multisets of four nibbles
	semiCodeBits = 12
)

// semiDecode maps a code to its sorted nibbles, nibble k in bits 4k..4k+3;
// invalid codes give 0, and a 12-bit index needs no bounds check.
var semiDecode [1 << semiCodeBits]uint16

// semiEncLo[b<<4|a] + semiEncHi[d<<4|c] is semiEncode(a, b, c, d), in
// semiDecode's nibble order so that decoded nibbles encode with no shuffle.
var semiEncLo, semiEncHi [256]uint16

func init() {
	var choose [4][19]uint16 // choose[k][n] = C(n, k+1)
	for n := range 19 {
		c := uint64(1)
		for k := range 4 {
			c = c * uint64(n-k) / uint64(k+1) // C(n, k+1), 0 once k >= n
			choose[k][n] = uint16(c)
		}
	}
	for x := range uint32(16) {
		for y := range uint32(16) {
			semiEncLo[y<<4|x] = choose[0][x] + choose[1][y+1]
			semiEncHi[y<<4|x] = choose[2][x+2] + choose[3][y+3]
		}
	}
	for a := range uint32(16) {
		for b := a; b < 16; b++ {
			for c := b; c < 16; c++ {
				for d := c; d < 16; d++ {
					semiDecode[semiEncode(a, b, c, d)] = uint16(a | b<<4 | c<<8 | d<<12)
				}
			}
		}
	}
}

// semiEncode is the code of sorted nibbles a <= b <= c <= d: the rank of the
// strictly increasing sequence (a, b+1, c+2, d+3) in the combinatorial number
// system, which numbers the 3876 multisets 0..3875 with no gaps.
func semiEncode(a, b, c, d uint32) uint16 {
	return semiEncLo[(b<<4|a)&255] + semiEncHi[(d<<4|c)&255]
}

// semiEncodeNibbles is the code of sorted nibbles n in semiDecode's order.
func semiEncodeNibbles(n uint64) uint64 {
	return uint64(semiEncLo[n&255] + semiEncHi[n>>8&255])
}

// semiSpread is the top bits of the w-bit lanes (w >= 1) of the slots in
// the 4-bit mask, as a 128-bit value, selected without a branch.
func semiSpread(mask uint64, w uint) (lo, hi uint64) {
	for k := uint(0); k < slotsPerBucket; k++ {
		var l, h uint64
		setBit128(&l, &h, k*w+w-1)
		sel := -(mask >> k & 1)
		lo, hi = lo|l&sel, hi|h&sel
	}
	return lo, hi
}

// semiUnspread maps each 4-bit mask of slots to the top bits of the other
// slots' w-bit lanes, for w <= 15, where four lanes fit a word.
func semiUnspread(w uint) (u [16]uint64) {
	for m := range u {
		u[m], _ = semiSpread(uint64(^m&0xf), w)
	}
	return u
}

// semiPrefixMatch returns bit k set for each sorted nibble of code equal to
// the prefix whose broadcast (prefix * 0x1111) is bp.
func semiPrefixMatch(code, bp uint64) uint64 {
	x := uint64(semiDecode[code&(1<<semiCodeBits-1)]) ^ bp
	z := ^((x&0x7777 + 0x7777) | x) & 0x8888 // top bit of each zero nibble
	// Bits 3, 7, 11, 15 -> bits 9, 10, 11, 12: the product's other terms
	// land elsewhere and never carry into them.
	return (z >> 3) * 0x249 >> 9 & 0xf
}

// semiMatch is match for the semi-sorted layout.
func (s *shape) semiMatch(blo, bhi uint64, fp uint32) (lo, hi uint64) {
	if s.genBits != 0 { // the generation bits, in the prefixes or beyond, masked off
		return s.keyMatch(blo, bhi, fp), 0
	}
	if s.f <= 16 {
		return s.semiMatch64(blo, uint64(fp>>s.w)*0x1111, uint64(fp&s.lowMask)*s.semiLanes.onesLo), 0
	}
	prefix := semiPrefixMatch(blo, uint64(fp>>s.w)*0x1111)
	if s.w == 0 {
		return prefix, 0 // f = 4: the code is the whole bucket
	}
	llo, lhi := blo>>semiCodeBits|bhi<<(64-semiCodeBits), bhi>>semiCodeBits
	plo, phi := s.semiLanes.broadcast(fp & s.lowMask)
	zlo, zhi := s.semiLanes.zero128(llo^plo, lhi^phi)
	slo, shi := semiSpread(prefix, s.w)
	return zlo & slo, zhi & shi
}

// semiMatch64 is semiMatch for f <= 16, of broadcast prefix bp and low bl.
func (s *shape) semiMatch64(b, bp, bl uint64) uint64 {
	prefix := semiPrefixMatch(b, bp)
	return s.semiLanes.zero64(b>>semiCodeBits^bl)&^s.unspread[prefix] | prefix&s.fourBitsOnly
}

// semiLows is a bucket's low parts (narrowWord, f <= 16) xor bl, the
// fingerprint's broadcast low part, with the top bit set in every lane whose
// prefix is not bp's: a lane is zero exactly where the bucket holds it.
func (s *shape) semiLows(b, bp, bl uint64) uint64 {
	return b>>semiCodeBits ^ bl | s.unspread[semiPrefixMatch(b, bp)]
}

// semiKeyLows is semiLows for a table of classExpSemi: the prefixes'
// generation bits are masked off before they are compared with bp's.
func (s *shape) semiKeyLows(b, bp, bl uint64) uint64 {
	x := (uint64(semiDecode[b&(1<<semiCodeBits-1)]) ^ bp) & s.keyPrefixes
	z := ^((x&0x7777 + 0x7777) | x) & 0x8888 // semiPrefixMatch's
	return b>>semiCodeBits ^ bl | s.unspread[(z>>3)*0x249>>9&0xf]
}

// semiNarrow4 is semiSlots for f <= 16 as four results, which stay in
// registers, for a table with w low bits (w < 13) of mask mask.
func semiNarrow4(b uint64, w uint, mask uint32) (s0, s1, s2, s3 uint32) {
	nib := uint32(semiDecode[b&(1<<semiCodeBits-1)])
	l := b >> semiCodeBits
	s0 = nib&0xf<<w | uint32(l)&mask
	l >>= w
	s1 = nib>>4&0xf<<w | uint32(l)&mask
	l >>= w
	s2 = nib>>8&0xf<<w | uint32(l)&mask
	return s0, s1, s2, nib>>12<<w | uint32(l>>w)&mask
}

// semiSlots decodes the bucket (lo, hi), f > 16: its four values, ascending.
func (s *shape) semiSlots(blo, bhi uint64) (v [4]uint32) {
	nib := uint32(semiDecode[blo&(1<<semiCodeBits-1)])
	lows := blo>>semiCodeBits | bhi<<(64-semiCodeBits) // low parts of slots 0..3 while 4w <= 64
	for k := uint(0); k < slotsPerBucket; k++ {
		low := lows >> (k * s.w)
		if s.w > 16 { // slots 2 and 3 straddle or pass bit 64 of the low parts
			low = bits128(lows, bhi>>semiCodeBits, k*s.w)
		}
		v[k] = nib>>(4*k)&0xf<<s.w | uint32(low)&s.lowMask
	}
	return v
}

// semiFree reports whether bucket b's slot 0, its smallest, is empty, low
// part first: the prefix's table load waits on b (1M-key fill -8%, f = 13).
func (s *shape) semiFree(b uint64) bool {
	return uint32(b>>semiCodeBits)&s.lowMask == 0 && semiDecode[b&(1<<semiCodeBits-1)]&0xf == 0
}

// semiWith is semiInsert for a one-word bucket b known to have room.
func (s *shape) semiWith(b uint64, v uint32) uint64 {
	w, mask := s.w&15, s.lowMask
	_, s1, s2, s3 := semiNarrow4(b, w, mask)
	// Slot 0 is the free one: v takes it and moves up to its rank.
	v, s1 = minMax(v, s1)
	s1, s2 = minMax(s1, s2)
	s2, s3 = minMax(s2, s3)
	return semiPackNarrow(v, s1, s2, s3, w, mask)
}

// semiInsert is the bucket with v added, if it has an empty slot.
func (s *shape) semiInsert(lo, hi uint64, v uint32) (uint64, uint64, bool) {
	switch {
	case !s.semiFree(lo):
		return lo, hi, false
	case s.f <= 16:
		return s.semiWith(lo, v), 0, true
	}
	vs := s.semiSlots(lo, hi)
	vs[0] = v // the smallest value, the empty slot's
	lo, hi = s.semiPack(vs[0], vs[1], vs[2], vs[3])
	return lo, hi, true
}

// semiSplit is split for the semi-sorted layout.
func (s *shape) semiSplit(lo, hi uint64, n *shape) (c [2][2]uint64) {
	half := uint32(1) << (s.f - 1)
	var vs [2][slotsPerBucket]uint32 // the children's values, 0 where a slot went to the other
	vals := s.decode(lo, hi)
	if s.genBits != 0 {
		for j, v := range vals {
			vals[j] = s.keyTopUp(v)
		}
	}
	for j, v := range vals {
		if v < half {
			vs[0][j] = v
		} else {
			vs[1][j] = v - half
		}
	}
	c[0][0], c[0][1] = n.semiPack(vs[0][0], vs[0][1], vs[0][2], vs[0][3])
	c[1][0], c[1][1] = n.semiPack(vs[1][0], vs[1][1], vs[1][2], vs[1][3])
	return c
}

// semiPack is the bucket of the values a, b, c, d in any order, sorted by
// five comparators without branches (minMax): random values mispredict.
func (s *shape) semiPack(a, b, c, d uint32) (lo, hi uint64) {
	a, b = minMax(a, b)
	c, d = minMax(c, d)
	a, c = minMax(a, c)
	b, d = minMax(b, d)
	b, c = minMax(b, c)
	if s.f <= 16 {
		return semiPackNarrow(a, b, c, d, s.w&15, s.lowMask), 0
	}
	return s.semiPackWide(a, b, c, d)
}

// semiPackWide is semiPack's encoding for f > 16, of a <= b <= c <= d.
func (s *shape) semiPackWide(a, b, c, d uint32) (lo, hi uint64) {
	w, mask := s.w&31, s.lowMask // w < 29: the mask spares the shifts' checks
	lo = uint64(semiEncode(a>>w, b>>w, c>>w, d>>w))
	for k, v := range [4]uint32{a, b, c, d} {
		lo, hi = or128(lo, hi, uint64(v&mask), semiCodeBits+uint(k)*w)
	}
	return lo, hi
}

// semiPackNarrow is semiPack's encoding for f <= 16, of a <= b <= c <= d,
// with w low bits (w < 13) of mask mask.
func semiPackNarrow(a, b, c, d uint32, w uint, mask uint32) uint64 {
	x := uint64(d&mask)<<w | uint64(c&mask)
	x = x<<w | uint64(b&mask)
	x = x<<w | uint64(a&mask)
	return x<<semiCodeBits | uint64(semiEncode(a>>w, b>>w, c>>w, d>>w))
}

// semiRank is the slot of v among the values vs once sorted.
func semiRank(vs [4]uint32, v uint32) (r uint) {
	for _, x := range vs {
		if x < v {
			r++
		}
	}
	return r
}

// minMax is (min(a, b), max(a, b)) without a branch.
func minMax(a, b uint32) (uint32, uint32) {
	swap := uint32(int64(uint64(b)-uint64(a)) >> 63) // all ones when b < a
	x := (a ^ b) & swap
	return a ^ x, b ^ x
}

// semiExpiry clears one generation from semi-sorted one-word buckets whose
// at most 4 generation bits top each slot's prefix. Sorted, a generation's
// slots are a run; cleared, they are the smallest, so the bucket stays
// sorted with the run moved to the bottom and the slots below it up by its
// length k (prefixes by 4k bits, low parts by kw): 77 instructions a
// bucket, not 201 by decoding (f = 13, G = 4).
type semiExpiry struct {
	idN, genN uint64 // id in the generation bits of each prefix, and their mask
	// moves[r] clears run r (a mask of slots) by products: no shift counts.
	moves [16]semiMove
}

type semiMove struct {
	lowP, mulP, lowL, mulL uint64
	k                      int
}

// init sets e up to clear generation id from buckets of shape s.
func (e *semiExpiry) init(s *shape, id uint32) {
	sh := (4 - s.genBits) & 3 // genBits in 1..4
	e.idN, e.genN = 0x1111*uint64(id<<sh), 0x1111*(0xf<<sh&0xf)
	for r := range e.moves {
		if r == 0 {
			continue
		}
		end, k := uint(bits.Len(uint(r))), uint(bits.OnesCount(uint(r)))
		e.moves[r] = semiMove{
			lowP: 1<<(4*end) - 1, mulP: 1 << (4 * k),
			lowL: 1<<(end*s.w) - 1, mulL: 1 << (k * s.w),
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

// semiExpire is expireIn for a semi-sorted one-word bucket b of classExpSemi.
func (s *shape) semiExpire(b uint64, e *expiry) (uint64, int) {
	nib := uint64(semiDecode[b&(1<<semiCodeBits-1)])
	r := e.semi.run(nib)
	if r == 0 {
		return b, 0
	}
	k := e.semi.moves[r&15].k
	if e.id == 0 { // the run holds the empty slots, which are not counted
		k -= s.semiEmpty(b)
	}
	return e.semi.clear(b, nib, r), k
}

// semiEmpty is the number of empty slots of bucket b (narrowWord) of a
// semi-sorted table: those whose prefix and low part are both 0.
func (s *shape) semiEmpty(b uint64) int {
	l, rest, w := b>>semiCodeBits, s.semiLanes.restLo, s.w&15
	zero := semiPrefixMatch(b, 0) // the slots whose prefix is 0
	// The top bit of each lane whose low part or prefix is not 0.
	used := ((l&rest + rest) | l | s.unspread[zero]) & s.semiLanes.topsLo >> (w - 1)
	return 4 - int(used&1+used>>w&1+used>>(2*w)&1+used>>(3*w)&1)
}
