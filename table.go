package cuckoo

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"
	"unsafe"
)

// Layout selects how buckets are stored.
type Layout uint8

const (
	// Packed stores each fingerprint in f bits: a bucket is 4f bits.
	Packed Layout = iota
	// SemiSorted sorts the 4-bit prefixes of a bucket's fingerprints and
	// stores the sorted prefixes as one 12-bit code: a bucket is 4f-4 bits,
	// one bit per item less than Packed, for slightly slower lookups.
	SemiSorted
)

func (l Layout) String() string {
	switch l {
	case Packed:
		return "Packed"
	case SemiSorted:
		return "SemiSorted"
	}
	return "Layout(" + strconv.Itoa(int(l)) + ")"
}

// valid reports whether l is one of the layouts above.
func (l Layout) valid() bool { return l <= SemiSorted }

// The fingerprint widths a table takes, in bits.
const (
	minFingerprintBits = 4
	maxFingerprintBits = 32
)

// targetLoad is the fraction of the slots that Capacity fills, by
// fingerprint width. Random-walk insertion with look-ahead first fails at
// 0.967-0.975 of the slots for f >= 8 at 30K-1M items (lowest of 40 seeds at
// 30K, of 4 at 1M) and at 0.964 for f = 8, 0.970 for f = 13 at 10M, where it
// barely varies between seeds. Narrower fingerprints give each bucket only
// 2^f-1 alternates and many keys share a bucket pair and fingerprint, so
// they fill less and less predictably (lowest first failure: 0.742 for
// f = 4, 0.855 for 5, 0.942 for 6, 0.957 for 7); their filters get more
// buckets.
func targetLoad(f uint) float64 {
	switch f {
	case 4:
		return 0.65
	case 5:
		return 0.80
	case 6:
		return 0.92
	case 7:
		return 0.94
	}
	return 0.95
}

// bucketBits is the size of a bucket in bits for a layout and width.
func bucketBits(layout Layout, f uint) uint {
	if layout == SemiSorted {
		return slotsPerBucket*f - 1*slotsPerBucket
	}
	return slotsPerBucket * f
}

// maxBuckets bounds the bucket count: bucket indexes come from 32 bits of
// the hash.
const maxBuckets = 1 << 32

// tablePad is how many bytes follow the last bucket, so that a bucket is
// always read with whole 64-bit loads: two loads at byte offsets o and o+8
// read at most 16 bytes from the start of the last bucket, and a bucket
// never starts less than one byte before the end of the buckets.
const tablePad = 16

// probeReachOf is how far past the end of the last bucket the read-only
// probes (lookups, counts, batches, the structure check) read, for a shape:
// 8 bytes from the first byte of a bucket of slots of at most 16 bits, 16
// from that of a bucket of wider ones, less the bucket's own bytes; at most
// 8. A table that is only read (a compact encoding's, encoding_compact.go)
// needs no more padding than that; the writes of a Filter's table need
// tablePad. A table of an even number of buckets ends on a byte boundary,
// so the last bucket spans exactly its whole bytes.
func probeReachOf(f, bbits uint) uint64 {
	load := uint64(8)
	if f > 16 {
		load = 16
	}
	return load - uint64(bbits+7)/8
}

// tableBytes is the size of a table's data, padding included.
func tableBytes(m uint64, bbits uint) uint64 {
	return (m*uint64(bbits)+7)/8 + tablePad
}

// table is the bucket storage. Bucket i holds bbits bits starting at bit
// i*bbits of data, little-endian, whatever the host; data ends with tablePad
// zero bytes that are never part of a bucket.
type table struct {
	// What a single lookup reads comes first: with the reader's hasher and
	// key kind before it, the first two cache lines (see reader).
	m0      uint64 // base bucket count, even, >= 2: m = m0 << k (geometry.go)
	fpRange uint64 // 2^fbits - 1, the number of non-empty fingerprints
	data    []byte
	shape
	m uint64 // bucket count

	// A growable table's stage (geometry.go); g = k = 0 for a fixed one.
	fbits  uint   // fingerprint bits
	fpMask uint64 // 2^fbits - 1
	g, k   uint   // doublings in all, and done
	fill   int    // items before a growable table doubles: stageCapacity
	lshift uint   // 32 - g: the layer bits are the top g of a 32-bit word
	rbits  uint   // g - k: layer bits a slot keeps
	rmask  uint32 // 2^rbits - 1
}

// shape is what a table's code needs that follows from its layout and slot
// width alone: the probe to run and the constants of its lane arithmetic.
// It holds no pointer, so that copying it from its template (shapeOf) is a
// plain copy.
type shape struct {
	class   probeClass // the single-key probe (lookup.go)
	layout  Layout
	nibble  bool   // buckets are not whole bytes: every other one starts 4 bits into a byte
	reach   uint8  // bytes the probes read past the last bucket: probeReachOf
	bbytes  uint64 // bytes per bucket, for byte-aligned buckets
	bbits   uint   // bits per bucket
	f       uint   // bits per slot, 4..32: fbits, and g-k layer bits (geometry.go)
	lanes   lanes  // SWAR constants for four f-bit lanes
	slotMax uint64 // 2^f - 1: a slot's bits
	perBits uint64 // ceil(2^64 / bbits): bucketCount's reciprocal

	// The semi-sorted layout's constants (table_semisort.go).
	w            uint       // low bits per fingerprint, f-4
	lowMask      uint32     // 2^w - 1
	fourBitsOnly uint64     // 0xf when w = 0: the prefix match is the answer
	semiLanes    lanes      // SWAR constants for four w-bit lanes
	unspread     [16]uint64 // 4-bit slot mask -> top bits of the other w-bit lanes, w <= 15
}

// probeClass names the code of a table's single-key probe. It follows from
// the layout and the width, so it is chosen once per table (classify) and
// lookup's switch on it always goes the same way for one filter.
type probeClass uint8

// Their order is relied on by packedNarrow, oneWord, byWords and
// wordBuckets only.
const (
	class8           probeClass = iota // packed, f = 8: buckets of 4 bytes
	class16                            // packed, f = 16: buckets of 8 bytes
	classNarrow                        // packed, other f < 16: one load holds a bucket
	classSemi                          // semi-sorted, 5 <= f <= 16: one load holds a bucket
	classGrownNarrow                   // a growable table (geometry.go), packed, slots of <= 16 bits
	classGeneric                       // f > 16 (buckets of up to 128 bits), and semi-sorted f = 4
	classGrown                         // a growable table, any other
)

// packedNarrow reports whether the class is that of a fixed packed table
// with slots of at most 16 bits: class8, class16 or classNarrow.
func (c probeClass) packedNarrow() bool { return c <= classNarrow }

// oneWord reports whether the class is that of a fixed table whose buckets
// one 64-bit load holds: packedNarrow, or classSemi.
func (c probeClass) oneWord() bool { return c <= classSemi }

// byWords reports whether shape.hasWords tests tables of the class:
// classNarrow and classSemi.
func (c probeClass) byWords() bool { return c-classNarrow <= classSemi-classNarrow }

// wordBuckets reports whether one load of narrowWord holds a bucket of the
// class: oneWord, or a growable packed table of slots of <= 16 bits.
func (c probeClass) wordBuckets() bool { return c <= classGrownNarrow }

func classify(layout Layout, f uint) probeClass {
	switch {
	case f > 16 || layout == SemiSorted && f == 4:
		return classGeneric
	case layout == SemiSorted:
		return classSemi
	case f == 8:
		return class8
	case f == 16:
		return class16
	}
	return classNarrow
}

// newTable is an empty fixed table of m buckets of f-bit fingerprints.
func newTable(m uint64, f uint, layout Layout) table { return newStage(m, f, 0, 0, layout) }

// newStage is an empty table of m0<<k buckets whose slots hold fbits-bit
// fingerprints and g-k layer bits: stage k of a growable table (geometry.go).
func newStage(m0 uint64, fbits, g, k uint, layout Layout) table {
	t := tableShape(m0, fbits, g, k, layout)
	t.data = newTableData(tableBytes(t.m, t.bbits))
	return t
}

// newTableData allocates a zeroed table of n bytes, asking for huge pages
// where the platform has them (pages_linux.go) before any page is touched.
// The bytes are the memory of whole 64-bit words, so that a ConcurrentFilter
// can take over a table a Filter's code built (ctableOver).
func newTableData(n uint64) []byte {
	w := make([]uint64, (n+7)/8)
	d := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w))), len(w)*8)[:n]
	adviseHugePages(d)
	return d
}

// tableShape is a table without data: decoding points its data at encoded
// bytes instead of allocating.
func tableShape(m0 uint64, fbits, g, k uint, layout Layout) table {
	var t table
	t.setShape(m0, fbits, g, k, layout)
	return t
}

// setShape makes t a table of m0<<k buckets of fbits-bit fingerprints at
// stage k of g (geometry.go), without data. Its shape is copied from a shared
// template (shapeOf), so that it costs one copy and a few stores: probing a
// filter straight from its bytes (encoded.go) makes one per call, in place,
// since copying a struct just written field by field stalls on the stores.
func (t *table) setShape(m0 uint64, fbits, g, k uint, layout Layout) {
	f := fbits + g - k
	t.shape = *shapeOf(layout, f)
	t.data = nil
	t.m, t.m0 = m0<<k, m0
	t.fbits, t.fpRange, t.fpMask = fbits, 1<<fbits-1, 1<<fbits-1
	t.g, t.k, t.fill = g, k, 0
	t.lshift, t.rbits, t.rmask = 32-g, g-k, 1<<(g-k)-1
	if g > 0 {
		t.class = classGrown
		if layout == Packed && f <= 16 {
			t.class = classGrownNarrow
		}
		t.fill = int(float64(t.m*slotsPerBucket) * targetLoad(f))
	}
}

// shapes holds every layout's shapes, by slot width 4..32 (indexes masked
// to the array's bounds, so that reading one needs no bounds check). They
// are made at start-up, 58 of them, 17 KiB, so that reading one needs no
// synchronization either.
var shapes = func() (s [2][64]*shape) {
	for _, layout := range []Layout{Packed, SemiSorted} {
		for f := uint(minFingerprintBits); f <= maxFingerprintBits; f++ {
			s[layout][f] = makeShape(layout, f)
		}
	}
	return s
}()

// shapeOf is the shape of the tables of a layout and slot width f.
func shapeOf(layout Layout, f uint) *shape { return shapes[layout&1][f&63] }

// makeShape is the shape of the tables of a layout and slot width f.
func makeShape(layout Layout, f uint) *shape {
	s := &shape{
		f:       f,
		bbits:   bucketBits(layout, f),
		layout:  layout,
		lanes:   newLanes(f),
		slotMax: 1<<f - 1,
		class:   classify(layout, f),
	}
	s.bbytes = uint64(s.bbits / 8)
	s.perBits = math.MaxUint64/uint64(s.bbits) + 1
	s.nibble = s.bbits%8 != 0
	s.reach = uint8(probeReachOf(f, s.bbits))
	if layout == SemiSorted {
		s.w = f - 4
		s.lowMask = 1<<s.w - 1
		s.semiLanes = newLanes(s.w)
		if s.w == 0 {
			s.fourBitsOnly = 0xf
		} else {
			s.unspread = semiUnspread(s.w)
		}
	}
	return s
}

// bucketCount is the number of buckets in n bits of buckets, and whether
// that is a whole, even number in 2..maxBuckets. It divides by a multiply,
// whose quotient is exact for n < 2^57, and a product that gives n back
// proves it exact for any n (m <= 2^32 and bbits <= 128 cannot overflow).
// Rotating m-2 right by one moves an odd count's low bit to the top, so one
// comparison tests both evenness and the range.
func (s *shape) bucketCount(n uint64) (m uint64, ok bool) {
	m, _ = bits.Mul64(n, s.perBits)
	return m, m*uint64(s.bbits) == n && bits.RotateLeft64(m-2, -1) <= (maxBuckets-2)/2
}

// load64 reads 8 bytes little-endian at byte offset o.
func load64(b []byte, o uint64) uint64 { return binary.LittleEndian.Uint64(b[o : o+8]) }

// load64At is load64 without the bounds check, for the probes: every bucket
// index is below m by construction (locate and alt reduce modulo m), and the
// table pads the last bucket so that 16 bytes can be read from its start.
func load64At(b []byte, o uint64) uint64 {
	return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), o))[:])
}

// load32At is load64At for 4 bytes.
func load32At(b []byte, o uint64) uint32 {
	return binary.LittleEndian.Uint32((*[4]byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), o))[:])
}

func store64(b []byte, o uint64, v uint64) { binary.LittleEndian.PutUint64(b[o:o+8], v) }

// bucket128 reads the bucket that starts at bit pos as a 128-bit value; bits
// past the bucket's end are left in place for the caller to mask.
func bucket128(b []byte, pos uint64) (lo, hi uint64) {
	o, s := pos>>3, pos&7
	lo, hi = load64(b, o), load64(b, o+8)
	// A shift by 64 gives 0 in Go, so s == 0 needs no branch.
	return lo>>s | hi<<(64-s), hi >> s
}

// bits128 returns the 64 bits of (lo, hi) from bit pos on.
func bits128(lo, hi uint64, pos uint) uint64 {
	if pos >= 64 {
		return hi >> (pos - 64)
	}
	return lo>>pos | hi<<(64-pos)
}

// narrowWord returns bucket i of a table with f <= 16, whose buckets are at
// most 64 bits, in the low bits of a word (the bits above it are the next
// bucket's): one load at the bucket's byte, and a shift by 4 bits where
// buckets are not whole bytes.
func (t *table) narrowWord(i uint64) uint64 {
	if t.nibble {
		p := i * uint64(t.bbits)
		return load64At(t.data, p>>3) >> (p & 7)
	}
	return load64At(t.data, i*t.bbytes)
}

// word is narrowWord for bytes that are not in a table (probeFixed). It
// is a copy: narrowWord calling it cost 2 instructions more a probe.
func (s *shape) word(data []byte, i uint64) uint64 {
	if s.nibble {
		p := i * uint64(s.bbits)
		return load64At(data, p>>3) >> (p & 7)
	}
	return load64At(data, i*s.bbytes)
}

// bucketAt reads bucket i of t as a value for the codec, with plain loads.
func (t *table) bucketAt(i uint64) (lo, hi uint64) {
	if t.f <= 16 {
		return t.narrowWord(i), 0
	}
	return bucket128(t.data, i*uint64(t.bbits))
}

// The operations below change buckets one at a time, for inserts and deletes;
// lookups take the probes in lookup_generic.go and table_semisort.go.

// add stores fp in a free slot of bucket i and reports whether there was one.
func (t *table) add(i uint64, fp uint32) bool {
	if t.layout == SemiSorted {
		return t.semiAdd(i, fp)
	}
	return t.packedAdd(i, fp)
}

// add2 stores v1 in the lowest free slot of bucket i1, or failing that v2
// in the lowest of bucket i2, and reports whether either had one. (v1 and v2
// are a key's fingerprint as each of its buckets holds it: the same but in
// a growable table.)
func (t *table) add2(i1 uint64, v1 uint32, i2 uint64, v2 uint32) bool {
	if t.layout == SemiSorted {
		return t.semiAdd2(i1, v1, i2, v2)
	}
	return t.packedAdd2(i1, v1, i2, v2)
}

// remove deletes one copy of fp from bucket i and reports whether there was one.
func (t *table) remove(i uint64, fp uint32) bool {
	if t.layout == SemiSorted {
		return t.semiRemove(i, fp)
	}
	return t.packedRemove(i, fp)
}

// swap replaces the fingerprint in slot k of bucket i with fp. It returns the
// old fingerprint and the slot fp ended in, which is where a later swap must
// look to take fp out again.
func (t *table) swap(i uint64, k uint, fp uint32) (uint32, uint) {
	if t.layout == SemiSorted {
		return t.semiSwap(i, k, fp)
	}
	return t.packedSwap(i, k, fp)
}

// replace writes fp into slot k of bucket i, whose fingerprints are s
// (bucketSlots), and returns the slot fp ends in: swap, with the bucket
// already decoded.
func (t *table) replace(i uint64, s [4]uint32, k uint, fp uint32) uint {
	if t.layout == SemiSorted {
		s[k] = fp
		t.semiWrite(i, s)
		return semiRank(s, fp)
	}
	t.setSlot(i, k, fp)
	return k
}

// bucketSlots returns the four fingerprints of bucket i (0 for an empty
// slot), in slot order: the order swap's k refers to.
func (t *table) bucketSlots(i uint64) [4]uint32 {
	if t.f <= 16 {
		return t.slotsOfNarrow(t.narrowWord(i))
	}
	return t.slotsOf(bucket128(t.data, i*uint64(t.bbits)))
}

// validBucket reports whether bucket i's bits are a possible encoding: always
// for the packed layout, a valid sorted code for the semi-sorted one.
func (t *table) validBucket(i uint64) bool {
	return t.layout != SemiSorted || t.semiValid(i)
}

// holds is non-zero exactly when bucket i holds v.
func (t *table) holds(i uint64, v uint32) uint64 {
	switch {
	case t.f > 16 || t.layout == SemiSorted && t.w == 0:
		lo, hi := t.matchesAt(i, v)
		return lo | hi
	case t.layout == SemiSorted:
		x := t.semiLows(t.narrowWord(i), uint64(v>>(t.w&31))*0x1111, uint64(v&t.lowMask)*t.semiLanes.onesLo)
		return (x - t.semiLanes.onesLo) &^ x & t.semiLanes.topsLo
	}
	x := t.narrowWord(i) ^ uint64(v)*t.lanes.onesLo
	return (x - t.lanes.onesLo) &^ x & t.lanes.topsLo
}

// matchesAt is matches or semiMatches, by the layout.
func (t *table) matchesAt(i uint64, v uint32) (lo, hi uint64) {
	if t.layout == SemiSorted {
		return t.semiMatches(i, v)
	}
	return t.matches(i, v)
}

// countMatches is the number of slots of bucket i1 that hold v1 and of
// bucket i2 that hold v2, counting a bucket once if i1 == i2.
func (t *table) countMatches(i1 uint64, v1 uint32, i2 uint64, v2 uint32) int {
	n := t.bucketMatches(i1, v1)
	if i2 != i1 {
		n += t.bucketMatches(i2, v2)
	}
	return n
}

// slot0Is reports whether slot 0 of bucket i could hold v, for a fixed
// table whose buckets are one word (class.wordBuckets, lookup.go): slot 0
// of the packed layout, or the low part of slot 0 of the semi-sorted one,
// whose smallest fingerprint it is. A bucket that holds nothing but v has
// it there, so a false answer lets an insert into two full buckets skip
// countMatches (two decodes and compares); a full bucket of other keys
// gives a true one only once in 2^f (2^w).
func (t *table) slot0Is(i uint64, v uint32) bool {
	b, m := t.narrowWord(i), t.slotMax
	if t.class == classSemi {
		b, m = b>>semiCodeBits, uint64(t.lowMask)
	}
	return (b^uint64(v))&m == 0
}

// bucketMatches is the number of slots of bucket i that hold v.
func (t *table) bucketMatches(i uint64, v uint32) int {
	lo, hi := t.matchesAt(i, v)
	return bits.OnesCount64(lo) + bits.OnesCount64(hi)
}

// hasFree reports whether bucket i has an empty slot.
func (t *table) hasFree(i uint64) bool {
	switch {
	case t.layout == SemiSorted:
		return t.semiHasFree(i)
	case t.f <= 16:
		return t.freeMarks(t.narrowWord(i)) != 0
	}
	lo, hi := t.matches(i, 0)
	return lo|hi != 0
}

// The bucket codec: decoding, encoding, matching and finding a free slot in
// one bucket given as a value (lo, hi) that holds its bits from bit 0 on
// (for f <= 16, lo alone, as narrowWord gives it), for both layouts, with
// no knowledge of where the bucket lies. The Filter's table and the
// concurrent filter's (concurrent_table.go) load buckets their own way and
// share it; the Filter's hot paths (lookup.go, insert.go) have specialized
// copies of the narrow cases.

// valueMatches marks, one bit a slot, the slots of the bucket (lo, hi)
// that hold v (v = 0 marks the empty slots of a packed bucket).
func (t *table) valueMatches(lo, hi uint64, v uint32) (mlo, mhi uint64) {
	switch {
	case t.layout == SemiSorted:
		return t.semiMatchesOf(lo, hi, v)
	case t.f <= 16:
		return t.lanes.zero64(lo ^ uint64(v)*t.lanes.onesLo), 0
	}
	plo, phi := t.lanes.broadcast(v)
	return t.lanes.zero128(lo^plo, hi^phi)
}

// slotsOf decodes the bucket (lo, hi): its four values, 0 for an empty slot,
// in the order the Filter's bucketSlots gives them (slot order when packed,
// ascending when semi-sorted).
func (t *table) slotsOf(lo, hi uint64) (s [4]uint32) {
	switch {
	case t.f <= 16:
		return t.slotsOfNarrow(lo)
	case t.layout == SemiSorted:
		return t.semiSlotsOf(lo, hi)
	}
	for k := range s {
		s[k] = uint32(bits128(lo, hi, uint(k)*t.f)) & uint32(t.slotMax)
	}
	return s
}

// packSlots is the bucket value that holds the values s: in slot order
// when packed, sorted when semi-sorted.
func (t *table) packSlots(s [4]uint32) (lo, hi uint64) {
	if t.layout == SemiSorted {
		return t.semiPack(s[0], s[1], s[2], s[3])
	}
	for k, v := range s {
		pos := uint(k) * t.f
		if pos < 64 {
			lo |= uint64(v) << pos
			hi |= uint64(v) >> (64 - pos) // pos = 0 shifts by 64: nothing
		} else {
			hi |= uint64(v) << (pos - 64)
		}
	}
	return lo, hi
}

// freeSlot is the index of the lowest empty slot among s, or -1: in a
// semi-sorted bucket the empty slots sort first.
func freeSlot(s [4]uint32) int {
	for k, v := range s {
		if v == 0 {
			return k
		}
	}
	return -1
}

// slotsOfNarrow is slotsOf for f <= 16.
func (t *table) slotsOfNarrow(w uint64) [4]uint32 {
	if t.layout == SemiSorted {
		return t.semiNarrowSlots(w)
	}
	return t.narrowSlots(w)
}

// narrowWith is the bucket w, read as narrowWord (f <= 16), with v added in
// a free slot, which it must have: the lowest one when packed, in its
// sorted place when semi-sorted.
func (t *table) narrowWith(w uint64, v uint32) uint64 {
	if t.layout == SemiSorted {
		return t.semiWith(w, v)
	}
	return w | uint64(v)<<t.firstSlot(t.freeMarks(w), 0)
}

// freeIn reports whether the bucket w, read as narrowWord (f <= 16), has
// an empty slot.
func (t *table) freeIn(w uint64) bool {
	if t.layout == SemiSorted {
		return t.semiFree(w)
	}
	return t.freeMarks(w) != 0
}
