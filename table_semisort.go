package cuckoo

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

// semiDecode maps a code to its four sorted nibbles, nibble k in bits
// [4k, 4k+4). Codes 3876..4095 are invalid and decode to 0; the array is
// 4096 long so that indexing with a 12-bit value needs no bounds check. It is
// 8 KiB, shared by every filter.
var semiDecode [1 << semiCodeBits]uint16

// semiEncLo[a<<4|b] + semiEncHi[c<<4|d] is semiEncode(a, b, c, d): the
// four terms of the combinatorial number system summed two by two, so that
// encoding takes two loads. 1 KiB, shared by every filter.
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
			semiEncLo[x<<4|y] = choose[0][x] + choose[1][y+1]
			semiEncHi[x<<4|y] = choose[2][x+2] + choose[3][y+3]
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
	return semiEncLo[(a<<4|b)&255] + semiEncHi[(c<<4|d)&255]
}

// semiSpread is the top bits of the w-bit lanes (w >= 1) of the slots in
// the 4-bit mask, as a 128-bit value.
// The slots are selected with a mask, not a branch: which slots match is
// random, and a mispredicted branch costs more than the loop.
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

// semiMatches returns a mask, non-zero exactly when bucket i holds fp, with
// one bit per matching slot.
func (t *table) semiMatches(i uint64, fp uint32) (lo, hi uint64) {
	return t.semiMatchesAt(i*uint64(t.bbits), fp)
}

// semiMatchesAt is semiMatches for the bucket at bit position p.
func (t *table) semiMatchesAt(p uint64, fp uint32) (lo, hi uint64) {
	if t.f <= 16 { // one load holds the bucket; see containsGeneric
		b := load64At(t.data, p>>3) >> (p & 7)
		return t.semiMatch64(b, uint64(fp>>t.w)*0x1111, uint64(fp&t.lowMask)*t.semiLanes.onesLo), 0
	}
	blo, bhi := bucket128(t.data, p)
	prefix := semiPrefixMatch(blo, uint64(fp>>t.w)*0x1111)
	if t.w == 0 {
		return prefix, 0 // f = 4: the code is the whole bucket
	}
	llo, lhi := blo>>semiCodeBits|bhi<<(64-semiCodeBits), bhi>>semiCodeBits
	plo, phi := t.semiLanes.broadcast(fp & t.lowMask)
	zlo, zhi := t.semiLanes.zero128(llo^plo, lhi^phi)
	slo, shi := semiSpread(prefix, t.w)
	return zlo & slo, zhi & shi
}

// semiMatchesOf is semiMatches for a bucket already loaded as a 128-bit
// value (lo, hi), any width: the concurrent filter (concurrent_table.go)
// reads its buckets from 64-bit words itself.
func (t *table) semiMatchesOf(blo, bhi uint64, fp uint32) (lo, hi uint64) {
	if t.f <= 16 {
		return t.semiMatch64(blo, uint64(fp>>t.w)*0x1111, uint64(fp&t.lowMask)*t.semiLanes.onesLo), 0
	}
	prefix := semiPrefixMatch(blo, uint64(fp>>t.w)*0x1111)
	if t.w == 0 {
		return prefix, 0
	}
	llo, lhi := blo>>semiCodeBits|bhi<<(64-semiCodeBits), bhi>>semiCodeBits
	plo, phi := t.semiLanes.broadcast(fp & t.lowMask)
	zlo, zhi := t.semiLanes.zero128(llo^plo, lhi^phi)
	slo, shi := semiSpread(prefix, t.w)
	return zlo & slo, zhi & shi
}

// semiMatch64 is semiMatches on a bucket already loaded, for f <= 16, given
// the broadcast prefix bp and low part bl of the fingerprint.
func (t *table) semiMatch64(b, bp, bl uint64) uint64 {
	prefix := semiPrefixMatch(b, bp)
	return t.semiLanes.zero64(b>>semiCodeBits^bl)&^t.unspread[prefix] | prefix&t.fourBitsOnly
}

// semiLows is the low parts of a bucket (given as narrowWord, f <= 16) xored
// with bl, the broadcast low part of a fingerprint, with the top bit of
// every lane whose prefix is not the fingerprint's (bp, broadcast) set: a
// lane is zero exactly where the bucket holds the fingerprint, so anyZero
// over the w-bit lanes tells whether it does.
func (s *shape) semiLows(b, bp, bl uint64) uint64 {
	return b>>semiCodeBits ^ bl | s.unspread[semiPrefixMatch(b, bp)]
}

// semiNarrowSlots is semiSlotsOf for f <= 16, where the code and the four
// low parts, 12 + 4w <= 60 bits, are in one word b.
func (t *table) semiNarrowSlots(b uint64) [4]uint32 {
	s0, s1, s2, s3 := semiNarrow4(b, t.w&15, t.lowMask) // w < 13: the mask spares the shifts' checks
	return [4]uint32{s0, s1, s2, s3}
}

// semiNarrow4 is semiNarrowSlots as four results, which stay in
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

// semiSlotsOf decodes a bucket given as a 128-bit value (lo, hi).
func (t *table) semiSlotsOf(blo, bhi uint64) (s [4]uint32) {
	nib := uint32(semiDecode[blo&(1<<semiCodeBits-1)])
	lows := blo>>semiCodeBits | bhi<<(64-semiCodeBits) // low parts of slots 0..3 while 4w <= 64
	for k := uint(0); k < slotsPerBucket; k++ {
		low := lows >> (k * t.w)
		if t.w > 16 { // slots 2 and 3 straddle or pass bit 64 of the low parts
			low = bits128(lows, bhi>>semiCodeBits, k*t.w)
		}
		s[k] = nib>>(4*k)&0xf<<t.w | uint32(low)&t.lowMask
	}
	return s
}

// semiHasFree reports whether bucket i has an empty slot.
func (t *table) semiHasFree(i uint64) bool {
	p := i * uint64(t.bbits)
	return t.semiFree(load64At(t.data, p>>3) >> (p & 7))
}

// semiFree reports whether a bucket, given from its first bit on (the code
// and slot 0's low part suffice), has an empty slot: its smallest
// fingerprint, slot 0, is 0.
//
// Slot 0's low part is tested first: it is in b, while the prefix needs a
// load from semiDecode that waits for b. A full bucket has a low part of 0
// only once in 2^w, so the walk's look-ahead, which tests four buckets a
// step, almost never waits for the table (filling 1M keys, f = 13: -8%,
// 8 interleaved runs; README, "Inserts").
func (t *table) semiFree(b uint64) bool {
	return uint32(b>>semiCodeBits)&t.lowMask == 0 && semiDecode[b&(1<<semiCodeBits-1)]&0xf == 0
}

// semiAdd2 is add2 for the semi-sorted layout.
func (t *table) semiAdd2(i1 uint64, v1 uint32, i2 uint64, v2 uint32) bool {
	if t.f > 16 {
		return t.semiAdd(i1, v1) || t.semiAdd(i2, v2)
	}
	return t.semiAdd2Narrow(i1, v1, i2, v2)
}

// semiAdd2Narrow is semiAdd2 for f <= 16, where one load holds a bucket.
// Both buckets are read before either is tested, so that their cache
// misses overlap.
func (t *table) semiAdd2Narrow(i1 uint64, v1 uint32, i2 uint64, v2 uint32) bool {
	b1, b2 := t.narrowWord(i1), t.narrowWord(i2)
	i, v, b := i1, v1, b1
	if !t.semiFree(b1) {
		i, v, b = i2, v2, b2
		if !t.semiFree(b2) {
			return false
		}
	}
	// semiWith, written out: the call costs an insert 14 instructions
	// (bench/icount, f = 13: 404 against 390).
	w, mask := t.w&15, t.lowMask
	_, s1, s2, s3 := semiNarrow4(b, w, mask)
	v, s1 = minMax(v, s1)
	s1, s2 = minMax(s1, s2)
	s2, s3 = minMax(s2, s3)
	t.semiStoreNarrow(i, semiPackNarrow(v, s1, s2, s3, w, mask))
	return true
}

// semiWith is the encoding of the bucket b, given as narrowWord (f <= 16),
// which has a free slot, with v added. Its callers store it (with
// semiStoreNarrow, or the concurrent filter's atomic stores).
func (t *table) semiWith(b uint64, v uint32) uint64 {
	w, mask := t.w&15, t.lowMask
	_, s1, s2, s3 := semiNarrow4(b, w, mask)
	// The slots are sorted and slot 0, the smallest, is 0, the free slot: v
	// takes its place and moves up to its rank, three comparators instead
	// of a sort.
	v, s1 = minMax(v, s1)
	s1, s2 = minMax(s1, s2)
	s2, s3 = minMax(s2, s3)
	return semiPackNarrow(v, s1, s2, s3, w, mask)
}

// semiWrite stores the fingerprints s, in any order, as bucket i, leaving
// every other bit of the table as it was.
func (t *table) semiWrite(i uint64, s [4]uint32) {
	lo, hi := t.semiPack(s[0], s[1], s[2], s[3])
	if t.f > 16 {
		t.writeBucket(i, lo, hi)
		return
	}
	t.semiStoreNarrow(i, lo)
}

// semiStoreNarrow stores x, an encoded bucket, as bucket i of a table with
// f <= 16: 12 + 4w <= 60 bits, one word, one read-modify-write.
func (t *table) semiStoreNarrow(i uint64, x uint64) {
	p := i * uint64(t.bbits)
	o, sh := p>>3, p&7
	bucket := (uint64(1)<<(t.bbits&63) - 1) << sh
	store64(t.data, o, load64(t.data, o)&^bucket|x<<sh)
}

// semiPack is the encoding of a bucket holding the fingerprints a, b, c, d,
// in any order, as a 128-bit value: what semiWrite stores, for callers that
// store it themselves (the concurrent filter).
//
// It sorts them with a five-comparator network. The order of fingerprints
// is random, so a branch on it would be mispredicted half the time; the
// comparators are arithmetic (minMax) because the compiler makes min and
// max branches where, as here, the results index a table (semiEncode). The
// values are scalars, not an array's elements, so they stay in registers.
func (t *table) semiPack(a, b, c, d uint32) (lo, hi uint64) {
	a, b = minMax(a, b)
	c, d = minMax(c, d)
	a, c = minMax(a, c)
	b, d = minMax(b, d)
	b, c = minMax(b, c)
	return t.semiPackSorted(a, b, c, d)
}

// semiPackSorted is semiPack for a <= b <= c <= d.
func (t *table) semiPackSorted(a, b, c, d uint32) (lo, hi uint64) {
	if t.f <= 16 {
		return semiPackNarrow(a, b, c, d, t.w&15, t.lowMask), 0
	}
	w, mask := t.w&31, t.lowMask // w < 29: the mask spares the shifts' checks
	lo = uint64(semiEncode(a>>w, b>>w, c>>w, d>>w))
	for k, v := range [4]uint32{a, b, c, d} {
		v, pos := uint64(v&mask), semiCodeBits+uint(k)*w
		if pos < 64 {
			lo |= v << pos
			hi |= v >> (64 - pos)
		} else {
			hi |= v << (pos - 64)
		}
	}
	return lo, hi
}

// semiPackNarrow is semiPackSorted for f <= 16: 12 + 4w <= 60 bits, one
// word, for a table with w low bits (w < 13) of mask mask.
func semiPackNarrow(a, b, c, d uint32, w uint, mask uint32) uint64 {
	x := uint64(d&mask)<<w | uint64(c&mask)
	x = x<<w | uint64(b&mask)
	x = x<<w | uint64(a&mask)
	return x<<semiCodeBits | uint64(semiEncode(a>>w, b>>w, c>>w, d>>w))
}

// writeBucket stores the bbits low bits of (lo, hi) as bucket i. A bucket
// starts 0 or 4 bits into a byte and spans at most 128 bits with that
// offset, so two 64-bit words hold it.
func (t *table) writeBucket(i uint64, lo, hi uint64) {
	p := i * uint64(t.bbits)
	o, s := p>>3, p&7
	mlo, mhi := ^uint64(0), ^uint64(0)
	if t.bbits < 64 {
		mlo, mhi = 1<<t.bbits-1, 0
	} else if t.bbits < 128 {
		mhi = 1<<(t.bbits-64) - 1
	}
	// Shift value and mask up by s; a shift by 64 gives 0.
	lo, hi = lo<<s, hi<<s|lo>>(64-s)
	mlo, mhi = mlo<<s, mhi<<s|mlo>>(64-s)
	store64(t.data, o, load64(t.data, o)&^mlo|lo&mlo)
	store64(t.data, o+8, load64(t.data, o+8)&^mhi|hi&mhi)
}

// minMax is (min(a, b), max(a, b)) without a branch.
func minMax(a, b uint32) (uint32, uint32) {
	swap := uint32(int64(uint64(b)-uint64(a)) >> 63) // all ones when b < a
	x := (a ^ b) & swap
	return a ^ x, b ^ x
}

// semiValid reports whether bucket i is a valid encoding: a code below 3876
// and, among slots with equal prefixes, ascending low parts, with empty
// slots all zero. A table built by this package always is.
func (t *table) semiValid(i uint64) bool {
	p := i * uint64(t.bbits)
	if load64(t.data, p>>3)>>(p&7)&(1<<semiCodeBits-1) >= semiCodes {
		return false
	}
	s := t.bucketSlots(i)
	return s[0] <= s[1] && s[1] <= s[2] && s[2] <= s[3]
}

func (t *table) semiAdd(i uint64, fp uint32) bool {
	if !t.semiHasFree(i) {
		return false
	}
	s := t.bucketSlots(i)
	s[0] = fp
	t.semiWrite(i, s)
	return true
}

func (t *table) semiRemove(i uint64, fp uint32) bool {
	s := t.bucketSlots(i)
	for k := range s {
		if s[k] == fp {
			s[k] = 0
			t.semiWrite(i, s)
			return true
		}
	}
	return false
}

// semiSwap replaces the k-th smallest fingerprint of bucket i with fp; the
// bucket is re-sorted, and at is fp's new rank: the first slot that holds
// fp once sorted, after the fingerprints smaller than it.
func (t *table) semiSwap(i uint64, k uint, fp uint32) (old uint32, at uint) {
	s := t.bucketSlots(i)
	old, s[k] = s[k], fp
	t.semiWrite(i, s)
	return old, semiRank(s, fp)
}

// semiRank is the slot of v in bucket s once sorted: the number of
// fingerprints of s smaller than it.
func semiRank(s [4]uint32, v uint32) (r uint) {
	for _, x := range s {
		if x < v {
			r++
		}
	}
	return r
}

// probeSortedAt tests, for each i, the fingerprint fps[i] in the buckets at
// bit positions pos1[i] and pos2[i], as the assembly's locating pass gives
// them (lookup_asm.go); it writes found and returns how many were found.
func (t *table) probeSortedAt(pos1, pos2, fps []uint64, found []bool) int {
	n := 0
	for i := range found {
		fp := uint32(fps[i])
		alo, ahi := t.semiMatchesAt(pos1[i], fp)
		blo, bhi := t.semiMatchesAt(pos2[i], fp)
		found[i] = alo|ahi|blo|bhi != 0
		if found[i] {
			n++
		}
	}
	return n
}

// sortedHolds reports whether either of two semi-sorted buckets of f <= 16,
// given as narrowWord, holds fp: containsGeneric's test (lookup_generic.go).
func (t *table) sortedHolds(b1, b2 uint64, fp uint32) bool {
	bp := uint64(fp>>t.w) * 0x1111
	bl := uint64(fp&t.lowMask) * t.semiLanes.onesLo
	return t.semiMatch64(b1, bp, bl)|t.semiMatch64(b2, bp, bl) != 0
}
