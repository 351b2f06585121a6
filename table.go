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
	if l.valid() {
		return layoutNames[l]
	}
	return "Layout(" + strconv.Itoa(int(l)) + ")"
}

var layoutNames = [...]string{Packed: "Packed", SemiSorted: "SemiSorted"}

func (l Layout) valid() bool { return l <= SemiSorted }

// The fingerprint widths a table takes, in bits.
const (
	minFingerprintBits = 4
	maxFingerprintBits = 32
)

// targetLoad is the fraction of the slots Capacity fills, below the load
// where inserts first failed (bench/RESULTS.md, "Where inserts first fail").
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

// genBits is a slot's generation bits for gens generations: ceil(log2 gens).
func genBits(gens uint) uint { return uint(bits.Len(max(gens, 1) - 1)) }

func bucketBits(layout Layout, f uint) uint {
	if layout == SemiSorted {
		return slotsPerBucket * (f - 1)
	}
	return slotsPerBucket * f
}

// maxBuckets bounds the bucket count: indexes come from 32 bits of a hash.
const maxBuckets = 1 << 32

// tablePad is how many bytes follow the last bucket, so that two 64-bit
// loads from any bucket's first byte stay inside the table.
const tablePad = 16

// probeReachOf is how far the probes' 8- or 16-byte loads read past the
// last bucket: the padding a table only read (a compact encoding) needs.
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

// table is the bucket storage: bucket i is bbits bits from bit i*bbits of
// data, little-endian on any host; tablePad zero bytes follow the last.
//
// A slot holds a value: a key, its low kbits bits, under genBits
// generation bits. The key is the fingerprint (fbits bits, never 0) under
// the layer bits a growable table keeps (growth.go); the generation bits
// are an expiring table's (generations.go). Lookups compare keys, so the
// generation bits are invisible to them, and an empty slot is 0.
type table struct {
	// What a lookup reads comes first: the reader's first two cache lines.
	m0      uint64 // base bucket count, even, >= 2: m = m0 << k (growth.go)
	fpRange uint64 // 2^fbits - 1, the number of non-empty fingerprints
	data    []byte
	shape
	m uint64 // bucket count

	// A growable table's stage (growth.go); g = k = 0 for a fixed one.
	fbits  uint   // fingerprint bits
	fpMask uint64 // 2^fbits - 1
	g, k   uint   // doublings in all, and done
	fill   int    // items before a growable table doubles: stageCapacity
	lshift uint   // 32 - g: the layer bits are the top g of a 32-bit word
	rbits  uint   // g - k: layer bits a slot keeps
	rmask  uint32 // 2^rbits - 1

	// An expiring table's generations (generations.go), 0 if none.
	gens uint   // Config.Generations
	genV uint32 // the current generation's bits, as a slot holds them (id << kbits): what an insert ors in
}

// shape is what follows from a table's layout and slot widths alone. It
// holds no pointer, so that copying it from its template is a plain copy.
type shape struct {
	class   probeClass // the single-key probe (lookup.go)
	probe   probeKind  // lookup's case: class, and the buckets' alignment (probeOf)
	codec   probeClass // a fixed table's class for this shape: holds' test
	layout  Layout
	nibble  bool   // buckets are not whole bytes: every other one starts 4 bits into a byte
	reach   uint8  // bytes the probes read past the last bucket: probeReachOf
	bbytes  uint64 // bytes per bucket, for byte-aligned buckets
	bbits   uint   // bits per bucket
	f       uint   // bits per slot, 4..32: kbits + genBits
	lanes   lanes  // SWAR constants for four f-bit lanes
	slotMax uint64 // 2^f - 1: a slot's bits

	// The key bits of a slot; a slot of an expiring table has genBits more.
	kbits    uint
	genBits  uint
	keyMask  uint64 // 2^kbits - 1
	keyLanes lanes  // lanes whose top bit is each slot's top key bit: lanes if genBits = 0
	perBits  uint64 // ceil(2^64 / bbits): bucketCount's reciprocal

	// The semi-sorted layout's constants (table_semisort.go).
	w            uint       // low bits per fingerprint, f-4
	lowMask      uint32     // 2^w - 1
	fourBitsOnly uint64     // 0xf when w = 0: the prefix match is the answer
	keyPrefixes  uint64     // classExpSemi: the key bits of the four prefixes, as semiDecode gives them
	semiLanes    lanes      // SWAR constants for four w-bit lanes
	unspread     [16]uint64 // 4-bit slot mask -> top bits of the other w-bit lanes, w <= 15
}

// probeClass names a table's single-key probe, chosen once so that
// lookup's switch always goes one way; the predicates rely on the order.
type probeClass uint8

const (
	class8           probeClass = iota // packed, f = 8: buckets of 4 bytes
	class16                            // packed, f = 16: buckets of 8 bytes
	classNarrow                        // packed, slots of < 16 bits, or of <= 16 with generation bits
	classSemi                          // semi-sorted, 5 <= f <= 16: one load holds a bucket
	classExpSemi                       // classSemi with 1 to 4 generation bits, the tops of the prefixes
	classGrownNarrow                   // a growable table (growth.go), packed, slots of <= 16 bits
	classGeneric                       // packed f > 16; semi-sorted f > 16 or f = 4, or more generation bits
	classGrown                         // a growable table, any other
)

// packedNarrow: a fixed packed table of one-word buckets.
func (c probeClass) packedNarrow() bool { return c <= classNarrow }

// oneWord: a fixed table of one-word buckets.
func (c probeClass) oneWord() bool { return c <= classExpSemi }

// byWords: the classes shape.hasWords tests.
func (c probeClass) byWords() bool { return c-classNarrow <= classSemi-classNarrow }

// wordBuckets: oneWord, or classGrownNarrow.
func (c probeClass) wordBuckets() bool { return c <= classGrownNarrow }

// packedWords: a packed table of one-word buckets, of any kind.
func (c probeClass) packedWords() bool { return c.packedNarrow() || c == classGrownNarrow }

// locate maps a hash's low 32 bits to a fingerprint, never 0, and its high
// 32 to the first (growable: base) bucket, each by a multiply and a shift,
// so that no bucket count need be a power of two.
func (t *table) locate(h uint64) (fp uint32, i1 uint64) { return locateOn(h, t.fpRange, t.m0) }

// locateOn is locate for fpRange fingerprints and m base buckets.
func locateOn(h, fpRange, m uint64) (fp uint32, i1 uint64) {
	return uint32(uint64(uint32(h))*fpRange>>32) + 1, (h >> 32) * m >> 32
}

// alt is the other bucket of fp stored in bucket i, an involution:
//
//	alt(i, fp) = (m - i - r(fp)) mod m,  r(fp) odd, 1 <= r(fp) < m
//
// m even and r odd make i - alt(i, fp) odd: every key has two distinct
// buckets.
func (t *table) alt(i uint64, fp uint32) uint64 { return altOn(i, fp, t.m0) }

// altOn is alt for m buckets.
func altOn(i uint64, fp uint32, m uint64) uint64 {
	r := uint64(fp*0x9e3779b1)*m>>32 | 1
	// Wrap with a mask: a branch would be mispredicted half the time. The
	// borrow makes it (SBB), one instruction less than the sign's shift.
	j, b := bits.Sub64(m, i+r, 0)
	return j + m&-b
}

// altBySign is altOn with the wrap's mask from the sign of m - i - r, for
// kickSemi, whose four alternates at once keep m - i common this way, and
// the concurrent filter's insert and moveNear: there altOn's form made the
// compiler spill (2 instructions a semi-sorted insert, 6 a concurrent one,
// f = 13).
func altBySign(i uint64, fp uint32, m uint64) uint64 {
	r := uint64(fp*0x9e3779b1)*m>>32 | 1
	j := m - i - r
	return j + m&uint64(int64(j)>>63)
}

// newStage is an empty table at stage k of g (growth.go) whose keys live
// gens generations (generations.go; 0: they never expire).
func newStage(m0 uint64, fbits, g, k uint, layout Layout, gens uint) table {
	t := tableShape(m0, fbits, g, k, layout, gens)
	t.data = newTableData(tableBytes(t.m, t.bbits))
	return t
}

// newTableData allocates a zeroed table of n bytes in whole 64-bit words,
// which a ConcurrentFilter can take over, advising huge pages.
func newTableData(n uint64) []byte {
	w := make([]uint64, (n+7)/8)
	d := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w))), len(w)*8)[:n]
	adviseHugePages(d)
	return d
}

// tableShape is a table without data, which decoding points at its bytes.
func tableShape(m0 uint64, fbits, g, k uint, layout Layout, gens uint) table {
	var t table
	t.setShape(m0, fbits, g, k, layout, gens)
	return t
}

// setShape is tableShape in place: encoded.go makes one per call, and a
// struct copied just after its fields are written stalls.
func (t *table) setShape(m0 uint64, fbits, g, k uint, layout Layout, gens uint) {
	kbits, gb := fbits+g-k, genBits(gens)
	t.shape = *shapeOf(layout, kbits+gb)
	if gb > 0 {
		t.setGenBits(gb)
	}
	t.data = nil
	t.m, t.m0 = m0<<k, m0
	t.fbits, t.fpRange, t.fpMask = fbits, 1<<fbits-1, 1<<fbits-1
	t.g, t.k, t.fill = g, k, 0
	t.lshift, t.rbits, t.rmask = 32-g, g-k, 1<<(g-k)-1
	t.gens, t.genV = gens, 0
	if g > 0 {
		if t.class.packedNarrow() {
			t.class = classGrownNarrow
		} else {
			t.class = classGrown
		}
		t.fill = int(float64(t.m*slotsPerBucket) * targetLoad(kbits))
	}
	t.probe = t.probeOf()
}

// setGenBits makes s the shape of slots whose top gb bits are generation
// bits, which lookups do not compare.
func (s *shape) setGenBits(gb uint) {
	s.genBits, s.kbits = gb, s.f-gb
	s.keyMask = 1<<s.kbits - 1
	s.keyLanes = keyLanesOf(s.f, s.kbits)
	switch {
	case s.layout == Packed && s.f <= 16: // class8's and class16's tests compare whole slots
		s.codec = classNarrow
	case s.codec == classSemi && gb <= 4:
		s.codec = classExpSemi
		s.keyPrefixes = 0x1111 * (1<<(4-gb) - 1)
	case s.layout == SemiSorted: // generation bits in the low parts
		s.codec = classGeneric
	}
	s.class = s.codec
}

// shapes holds every layout's shapes by slot width, made at start-up.
var shapes = func() (s [2][64]*shape) {
	for _, layout := range []Layout{Packed, SemiSorted} {
		for f := uint(minFingerprintBits); f <= maxFingerprintBits; f++ {
			s[layout][f] = makeShape(layout, f)
		}
	}
	return s
}()

func shapeOf(layout Layout, f uint) *shape { return shapes[layout&1][f&63] }

// makeShape is the shape of the tables of a layout and slot width f.
func makeShape(layout Layout, f uint) *shape {
	s := &shape{f: f, bbits: bucketBits(layout, f), layout: layout, lanes: newLanes(f), slotMax: 1<<f - 1}
	s.kbits, s.keyMask, s.keyLanes = f, s.slotMax, s.lanes
	switch {
	case layout == SemiSorted:
		s.class = classGeneric
		if f > 4 && f <= 16 {
			s.class = classSemi
		}
	case f == 8:
		s.class = class8
	case f == 16:
		s.class = class16
	case f > 16:
		s.class = classGeneric
	default:
		s.class = classNarrow
	}
	s.codec = s.class
	s.bbytes = uint64(s.bbits / 8)
	s.perBits = math.MaxUint64/uint64(s.bbits) + 1
	s.nibble = s.bbits%8 != 0
	s.probe = s.probeOf()
	s.reach = uint8(probeReachOf(f, s.bbits))
	// The semi-sorted codec's constants, for every shape: only it reads them.
	s.w = f - 4
	s.lowMask = 1<<s.w - 1
	s.keyPrefixes = 0xffff
	s.semiLanes = newLanes(s.w)
	if s.w == 0 {
		s.fourBitsOnly = 0xf
	} else {
		s.unspread = semiUnspread(s.w)
	}
	return s
}

// bucketCount is n bits' bucket count and whether it is whole, even and in
// 2..maxBuckets (m-2 rotated right by 1 puts an odd m's low bit on top).
func (s *shape) bucketCount(n uint64) (m uint64, ok bool) {
	m, _ = bits.Mul64(n, s.perBits)
	return m, m*uint64(s.bbits) == n && bits.RotateLeft64(m-2, -1) <= (maxBuckets-2)/2
}

func load64(b []byte, o uint64) uint64 { return binary.LittleEndian.Uint64(b[o : o+8]) }

// load64At is load64 without the bounds check, for the probes: every bucket
// index is below m (locate, alt), and tablePad covers the rest.
func load64At(b []byte, o uint64) uint64 {
	return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), o))[:])
}

func load32At(b []byte, o uint64) uint32 {
	return binary.LittleEndian.Uint32((*[4]byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), o))[:])
}

func store64(b []byte, o uint64, v uint64) { binary.LittleEndian.PutUint64(b[o:o+8], v) }

// store64At is store64 without the bounds check (load64At).
func store64At(b []byte, o uint64, v uint64) {
	binary.LittleEndian.PutUint64((*[8]byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), o))[:], v)
}

// bucket128 is the 128 bits from bit pos on, for the caller to mask.
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

// narrowWord is bucket i of a table with f <= 16 in a word's low bits, the
// next bucket above: one load, shifted where buckets are not whole bytes.
func (t *table) narrowWord(i uint64) uint64 {
	if t.nibble {
		p := i * uint64(t.bbits)
		return load64At(t.data, p>>3) >> (p & 7)
	}
	return load64At(t.data, i*t.bbytes)
}

// word is narrowWord for bytes not in a table (probeFixed); narrowWord
// calling it cost 2 instructions a probe.
func (s *shape) word(data []byte, i uint64) uint64 {
	if s.nibble {
		p := i * uint64(s.bbits)
		return load64At(data, p>>3) >> (p & 7)
	}
	return load64At(data, i*s.bbytes)
}

// bucketAt reads bucket i as a value for the codec, with plain loads.
func (t *table) bucketAt(i uint64) (lo, hi uint64) { return t.bucketFrom(i * uint64(t.bbits)) }

// bucketFrom is bucketAt for the bucket at bit p.
func (t *table) bucketFrom(p uint64) (lo, hi uint64) {
	if t.f <= 16 {
		return load64At(t.data, p>>3) >> (p & 7), 0
	}
	return bucket128(t.data, p)
}

// setBucket stores (lo, hi) as bucket i, ignoring its bits past the bucket
// and leaving every other bit of the table as it was.
func (t *table) setBucket(i, lo, hi uint64) {
	if t.f <= 16 {
		t.setNarrow(i, lo)
		return
	}
	p := i * uint64(t.bbits)
	o, s := p>>3, p&7
	mlo, mhi := bucketMask(t.bbits)
	// Shift value and mask up by s; a shift by 64 gives 0.
	lo, hi = lo<<s, hi<<s|lo>>(64-s)
	mlo, mhi = mlo<<s, mhi<<s|mlo>>(64-s)
	store64(t.data, o, load64(t.data, o)&^mlo|lo&mlo)
	store64(t.data, o+8, load64(t.data, o+8)&^mhi|hi&mhi)
}

// setNarrow is setBucket for f <= 16: one read-modify-write.
func (t *table) setNarrow(i, x uint64) {
	p := i * uint64(t.bbits)
	o, sh := p>>3, p&7
	bucket := ^uint64(0) >> ((64 - t.bbits) & 63) << sh
	store64(t.data, o, load64(t.data, o)&^bucket|x<<sh&bucket)
}

// bucketMask is the mask of the low n bits of a 128-bit value, n <= 128.
func bucketMask(n uint) (lo, hi uint64) {
	switch {
	case n < 64:
		return 1<<n - 1, 0
	case n < 128:
		return ^uint64(0), 1<<(n-64) - 1
	}
	return ^uint64(0), ^uint64(0)
}

// setSlotAt writes v into the packed slot at bit position p.
func (t *table) setSlotAt(p uint64, v uint32) {
	o, s := p>>3, p&7
	w := load64(t.data, o)
	w = w&^(t.slotMax<<s) | uint64(v)<<s
	store64(t.data, o, w)
}

// putFirst stores fp in the lowest slot marked in z of bucket i, a packed
// bucket with f <= 16: a byte or two where slots are whole bytes.
func (t *table) putFirst(i, z uint64, fp uint32) {
	switch t.class {
	case class8:
		t.data[i*4+uint64(bits.TrailingZeros64(z)>>3)] = byte(fp)
	case class16:
		o := i*8 + uint64(bits.TrailingZeros64(z)>>4*2)
		binary.LittleEndian.PutUint16(t.data[o:o+2], uint16(fp))
	default:
		t.setSlotAt(i*uint64(t.bbits)+t.firstSlot(z, 0), fp)
	}
}

// The bucket codec, on a bucket's value (lo, hi) from its bit 0 (f <= 16:
// lo, higher bits ignored): the one place that chooses a layout's codec;
// the plain and concurrent tables load and store around it.

// decode returns the bucket's four values, 0 for an empty slot: in slot
// order when packed, ascending when semi-sorted.
func (s *shape) decode(lo, hi uint64) (v [4]uint32) {
	if s.layout == SemiSorted {
		if s.f <= 16 {
			v[0], v[1], v[2], v[3] = semiNarrow4(lo, s.w&15, s.lowMask) // w < 13: the mask spares the shifts' checks
			return v
		}
		return s.semiSlots(lo, hi)
	}
	if s.f <= 16 {
		return s.narrowSlots(lo)
	}
	return s.packedSlots(lo, hi)
}

// encode is the bucket value that holds the values v: in slot order when
// packed, sorted when semi-sorted. It has no bits past the bucket's.
func (s *shape) encode(v [4]uint32) (lo, hi uint64) {
	if s.layout == SemiSorted {
		return s.semiPack(v[0], v[1], v[2], v[3])
	}
	return s.packedEncode(v)
}

// match marks, one bit a slot, the slots of the bucket whose key is v's,
// of any generation (v = 0 marks the empty ones): zero exactly when none is.
func (s *shape) match(lo, hi uint64, v uint32) (mlo, mhi uint64) {
	if s.layout == SemiSorted {
		return s.semiMatch(lo, hi, v)
	}
	return s.packedMatch(lo, hi, v)
}

// roomIn reports whether the bucket has an empty slot: semi-sorted, whether
// slot 0 is (semiFree: 61 instructions an insert less than semiMatch,
// f = 13, bench/icount); packed, by anyZero's test borrowing across the two
// words, which lets it inline (16 instructions a growable semi-sorted insert).
func (s *shape) roomIn(lo, hi uint64) bool {
	if s.layout == SemiSorted {
		return s.semiFree(lo)
	}
	l, b := bits.Sub64(lo, s.lanes.onesLo, 0)
	return l&^lo&s.lanes.topsLo|(hi-s.lanes.onesHi-b)&^hi&s.lanes.topsHi != 0
}

// insertInto is the bucket with v added in an empty slot, if it has one:
// the lowest when packed, in its sorted place when semi-sorted.
func (s *shape) insertInto(lo, hi uint64, v uint32) (uint64, uint64, bool) {
	if s.layout == SemiSorted {
		return s.semiInsert(lo, hi, v)
	}
	return s.packedInsert(lo, hi, v)
}

// replaceIn is the bucket of the values vs with vs[k] replaced by v, and
// the slot v ends in, where a later replaceIn restores the bucket's bits:
// k when packed, v's rank when semi-sorted.
func (s *shape) replaceIn(vs [4]uint32, k uint, v uint32) (lo, hi uint64, at uint) {
	vs[k&3] = v
	if s.layout == SemiSorted {
		lo, hi = s.semiPack(vs[0], vs[1], vs[2], vs[3])
		return lo, hi, semiRank(vs, v)
	}
	lo, hi = s.packedEncode(vs)
	return lo, hi, k
}

// expiry is what Advance's pass needs to clear generation id from a bucket
// (shape.expireIn), worked out once.
type expiry struct {
	id        uint32
	gens, pat uint64     // packed one-word buckets: each lane's generation bits, and id in them
	semi      semiExpiry // semi-sorted one-word buckets (table_semisort.go)
}

// expiryOf is Advance's pass clearing generation id from t's buckets.
func (t *table) expiryOf(id uint32) expiry {
	e := expiry{id: id}
	switch t.codec {
	case classNarrow:
		e.gens = t.lanes.onesLo * (t.slotMax &^ t.keyMask)
		e.pat = t.lanes.onesLo * uint64(id) << (t.kbits & 31)
	case classExpSemi:
		e.semi.init(&t.shape, id)
	}
	return e
}

// expireIn is the bucket with its slots of generation e.id emptied, and
// how many there were; its bits past the bucket are not kept.
func (s *shape) expireIn(lo, hi uint64, e *expiry) (uint64, uint64, int) {
	switch s.codec {
	case classNarrow:
		lo, n := s.packedExpire(lo, e)
		return lo, 0, n
	case classExpSemi:
		lo, n := s.semiExpire(lo, e)
		return lo, 0, n
	}
	vs, n := s.decode(lo, hi), 0
	for k, v := range vs {
		if v != 0 && uint64(v)>>(s.kbits&63) == uint64(e.id) { // kbits is 32 where G = 1 and f = 32
			vs[k] = 0
			n++
		}
	}
	lo, hi = s.encode(vs)
	return lo, hi, n
}

// split doubles a growable table's bucket into the two of shape n: each
// value goes to the child of its key's top bit, which it loses
// (keyTopUp); both canonical.
func (s *shape) split(lo, hi uint64, n *shape) [2][2]uint64 {
	if s.layout == SemiSorted {
		return s.semiSplit(lo, hi, n)
	}
	return s.packedSplit(lo, hi, n)
}

// keyMatch is match by decoding, one bit a slot, for any layout.
func (s *shape) keyMatch(lo, hi uint64, v uint32) (m uint64) {
	for k, x := range s.decode(lo, hi) {
		if (x^v)&uint32(s.keyMask) == 0 {
			m |= 1 << k
		}
	}
	return m
}

// keyTopUp is value v with its key's top bit moved to the slot's top, the
// generation bits down one: split gives each value to the child of its
// top bit, which it loses (a plain value's key's top bit is on top).
func (s *shape) keyTopUp(v uint32) uint32 {
	kt, top := (s.kbits-1)&31, (s.f-1)&31
	return v>>kt&1<<top | v&(1<<kt-1) | v>>1&^(1<<kt-1)
}

// slotOf is the first slot of vs that holds v, or -1.
func slotOf(vs [4]uint32, v uint32) int {
	for k, x := range vs {
		if x == v {
			return k
		}
	}
	return -1
}

// canonical reports whether the bucket's bits are those that encode gives
// for its values, as in every table this package writes.
func (s *shape) canonical(lo, hi uint64) bool {
	mlo, mhi := bucketMask(s.bbits)
	elo, ehi := s.encode(s.decode(lo, hi))
	return elo == lo&mlo && ehi == hi&mhi
}

// bucketSlots returns the four values of bucket i, as decode orders them;
// narrowWord inlines where bucketAt does not.
func (t *table) bucketSlots(i uint64) [4]uint32 {
	if t.f <= 16 {
		return t.decode(t.narrowWord(i), 0)
	}
	return t.decode(t.bucketAt(i))
}

// validBucket reports whether bucket i's bits are canonical.
func (t *table) validBucket(i uint64) bool { return t.canonical(t.bucketAt(i)) }

// add stores v in a free slot of bucket i and reports whether there was one.
func (t *table) add(i uint64, v uint32) bool {
	// narrowWord, as bucketSlots: 11 instructions a growable insert.
	var lo, hi uint64
	if t.f <= 16 {
		lo = t.narrowWord(i)
	} else {
		lo, hi = t.bucketAt(i)
	}
	if t.layout == Packed { // one slot changes: setSlotAt stores it alone
		p, ok := t.packedFree(lo, hi)
		if ok {
			t.setSlotAt(i*uint64(t.bbits)+p, v)
		}
		return ok
	}
	lo, hi, ok := t.semiInsert(lo, hi, v) // insertInto, the layout known
	if ok {
		t.setBucket(i, lo, hi)
	}
	return ok
}

// add2 is add(i1, v1) or else add(i2, v2): a key as each bucket holds it.
func (t *table) add2(i1 uint64, v1 uint32, i2 uint64, v2 uint32) bool {
	return t.add(i1, v1) || t.add(i2, v2)
}

// swap puts v in slot k of bucket i: the old value and v's slot (replaceIn).
func (t *table) swap(i uint64, k uint, v uint32) (uint32, uint) {
	vs := t.bucketSlots(i)
	return vs[k&3], t.replace(i, vs, k, v)
}

// replace is swap for bucket i already decoded as vs.
func (t *table) replace(i uint64, vs [4]uint32, k uint, v uint32) uint {
	lo, hi, at := t.replaceIn(vs, k, v)
	t.setBucket(i, lo, hi)
	return at
}

func (t *table) hasFree(i uint64) bool { return t.roomIn(t.bucketAt(i)) }

// holds is non-zero exactly when bucket i holds v's key, one-word buckets
// tested inline (260 instructions a growable semi-sorted lookup, 338 by
// match).
func (t *table) holds(i uint64, v uint32) uint64 {
	switch t.codec {
	case classSemi:
		x := t.semiLows(t.narrowWord(i), uint64(v>>(t.w&31))*0x1111, uint64(v&t.lowMask)*t.semiLanes.onesLo)
		return (x - t.semiLanes.onesLo) &^ x & t.semiLanes.topsLo
	case classExpSemi:
		x := t.semiKeyLows(t.narrowWord(i), uint64(v>>(t.w&31))*0x1111, uint64(v&t.lowMask)*t.semiLanes.onesLo)
		return (x - t.semiLanes.onesLo) &^ x & t.semiLanes.topsLo
	case class8, class16, classNarrow:
		x := t.narrowWord(i) ^ uint64(v)*t.keyLanes.onesLo
		return (x - t.keyLanes.onesLo) &^ x & t.keyLanes.topsLo
	}
	lo, hi := t.bucketAt(i)
	mlo, mhi := t.match(lo, hi, v)
	return mlo | mhi
}

// bucketMatches is the number of slots of bucket i that hold v's key.
func (t *table) bucketMatches(i uint64, v uint32) int {
	lo, hi := t.bucketAt(i)
	mlo, mhi := t.match(lo, hi, v)
	return bits.OnesCount64(mlo) + bits.OnesCount64(mhi)
}

// countMatches is bucketMatches(i1, v1), plus (i2, v2)'s if i2 != i1.
func (t *table) countMatches(i1 uint64, v1 uint32, i2 uint64, v2 uint32) int {
	n := t.bucketMatches(i1, v1)
	if i2 != i1 {
		n += t.bucketMatches(i2, v2)
	}
	return n
}

// slot0Is reports whether slot 0 of one-word bucket i (semi-sorted: its low
// part) could hold v's fingerprint bits: a bucket of only v would, so false
// spares insertFull countMatches, and other buckets give true once in 2^f
// (2^w semi-sorted).
func (t *table) slot0Is(i uint64, v uint32) bool {
	b, m := t.narrowWord(i), t.fpMask
	if t.layout == SemiSorted { // the smallest slot: its low part, all fingerprint bits
		b, m = b>>semiCodeBits, uint64(t.lowMask)
	}
	return (b^uint64(v))&m == 0
}
