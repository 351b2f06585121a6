package cuckoo

import (
	"encoding/binary"
	"math/bits"
	"runtime"
	"sync/atomic"
	"unsafe"
)

// ctable is the concurrent filter's bucket storage (concurrent.go has the
// protocol). It holds the same bit stream as a Filter's table, bucket i at
// bits [i*bbits, (i+1)*bbits), in 64-bit words instead of bytes: bit p of
// the stream is bit p%64 of words[p/64], on every host, so that every load
// and store of table memory can be an aligned sync/atomic operation.
//
// Readers load words only with atomic.LoadUint64. The writer (one at a time,
// under the filter's mutex) reads them with plain loads, since nothing else
// writes them, and stores them only with atomic.StoreUint64, inside a write
// session (the version of the bucket's stripe goes odd before the first
// store and even after the last) unless it only fills an empty slot (put).
//
// A ctable is published once (concurrent.cur) and then only changed in
// place by writes; growth and Reset publish another one and never write the
// old one again.
type ctable struct {
	words []uint64        // the buckets, then two zero words (ctableWords)
	seq   []atomic.Uint64 // a version per stripe of buckets: stripe(b) = b & smask
	smask uint64          // len(seq) - 1, a power of two minus one
	t     table           // the shape: every field but data, which is nil
	rec   *[]cevent       // tests only (concurrent_model_test.go): every store, in order
}

// maxStripes caps the number of version counters (a table has the smallest
// power of two of them at least its bucket count, up to this). 1024
// stripes of 8 bytes are 8 KiB, small enough to stay cached beside the
// buckets a lookup reads; a write session then makes a lookup of other
// buckets retry only if one of them shares its stripe, about 2 in 1024.
const maxStripes = 1024

// cevent is one store of a write, as the model-checking test records it:
// a word of table s, a stripe version of s, or the publication of s.
type cevent struct {
	s       *ctable
	version bool     // seq[i] = v, else words[i] = v
	publish bool     // s becomes the current table; words is its content then
	i, v    uint64   // the word or stripe and the value stored
	words   []uint64 // a copy of s.words at publication
}

// ctableWords is the number of words for m buckets of bbits bits: the
// buckets, rounded up to a whole word, then two words of padding, so that
// the three words from the one that holds a bucket's first bit are always
// in range (a bucket is at most 128 bits, so three words always hold it).
func ctableWords(m uint64, bbits uint) uint64 { return (m*uint64(bbits)+63)/64 + 2 }

// newCtable is an empty ctable of shape t (whose data is ignored).
func newCtable(t table) *ctable {
	t.data = nil
	s := &ctable{t: t}
	n := ctableWords(t.m, t.bbits)
	s.words = make([]uint64, n)
	adviseHugePages(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s.words))), n*8))
	stripes := uint64(maxStripes)
	for stripes/2 >= t.m && stripes > 2 {
		stripes /= 2
	}
	s.seq = make([]atomic.Uint64, stripes)
	s.smask = stripes - 1
	return s
}

// ctableOf is a ctable holding a copy of t's buckets.
func ctableOf(t *table) *ctable {
	s := newCtable(*t)
	bytesToWords(s.words, t.data[:(t.m*uint64(t.bbits)+7)/8])
	return s
}

// bytesToWords sets words to the little-endian bit stream b, zero after it.
func bytesToWords(words []uint64, b []byte) {
	for i := range words {
		var w [8]byte
		if o := i * 8; o < len(b) {
			copy(w[:], b[o:])
		}
		words[i] = binary.LittleEndian.Uint64(w[:])
	}
}

// appendWords appends the first n bytes of the bit stream of words to b.
// The caller holds the writer lock: no word changes while it reads them.
func appendWords(b []byte, words []uint64, n uint64) []byte {
	for i := uint64(0); i < n; i += 8 {
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], words[i/8])
		b = append(b, w[:min(8, n-i)]...)
	}
	return b
}

// The readers' loads. Every index is in range by construction (a bucket
// index is below m, and ctableWords pads for three words from the first
// word of the last bucket), so they skip the bounds checks.

// word atomically loads words[i].
func (s *ctable) word(i uint64) uint64 { return loadWord(unsafe.Pointer(unsafe.SliceData(s.words)), i) }

// loadWord atomically loads word i of the words at w.
func loadWord(w unsafe.Pointer, i uint64) uint64 {
	return atomic.LoadUint64((*uint64)(unsafe.Add(w, i*8)))
}

// loadNarrow is narrow for the bucket at bit p of the words at w. Where
// unalignedLoads (amd64, outside the race detector), the words are the
// table's byte stream and an atomic load is a plain one at any address, so
// one 8-byte load from the bucket's first byte holds it (buckets start on a
// multiple of 4 bits, those of 64 bits on a byte); it may straddle two
// words, and the two halves may come from different moments: a torn read,
// which the versions catch as they catch one of two words.
func loadNarrow(w unsafe.Pointer, p uint64) uint64 {
	if unalignedLoads {
		return atomic.LoadUint64((*uint64)(unsafe.Add(w, p>>3))) >> (p & 4)
	}
	i := p >> 6
	return join(loadWord(w, i), loadWord(w, i+1), p&63)
}

// stripe is the version counter of bucket b.
func (s *ctable) stripe(b uint64) *atomic.Uint64 {
	return (*atomic.Uint64)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(s.seq)), (b&s.smask)*8))
}

// version loads the version of bucket b's stripe.
func (s *ctable) version(b uint64) uint64 { return s.stripe(b).Load() }

// join returns the 64 bits from bit sh (0..63) of the word pair (w0, w1).
// w1 is shifted in two steps so that no shift count reaches 64, which Go
// would have to check for.
func join(w0, w1 uint64, sh uint64) uint64 { return w0>>(sh&63) | w1<<1<<((63-sh)&63) }

// narrow reads bucket b of a table with buckets of at most 64 bits into the
// low bits of a word (the bits above it are the next bucket's, as
// narrowWord's): two word loads.
func (s *ctable) narrow(b uint64) uint64 {
	return loadNarrow(unsafe.Pointer(unsafe.SliceData(s.words)), b*uint64(s.t.bbits))
}

// wide reads bucket b, any width, as a 128-bit value (bits past the bucket
// are the next bucket's): three word loads.
func (s *ctable) wide(b uint64) (lo, hi uint64) {
	p := b * uint64(s.t.bbits)
	i, sh := p>>6, p&63
	w0, w1, w2 := s.word(i), s.word(i+1), s.word(i+2)
	return join(w0, w1, sh), join(w1, w2, sh)
}

// holds is non-zero exactly when bucket b holds v: an atomic read of the
// bucket and the value test, for every layout and width.
func (s *ctable) holds(b uint64, v uint32) uint64 {
	mlo, mhi := s.bucketMatches(b, v)
	return mlo | mhi
}

// count is the number of slots of bucket b that hold v, read atomically.
func (s *ctable) count(b uint64, v uint32) int {
	mlo, mhi := s.bucketMatches(b, v)
	return bits.OnesCount64(mlo) + bits.OnesCount64(mhi)
}

// bucketMatches reads bucket b atomically and returns valueMatches of it for v.
func (s *ctable) bucketMatches(b uint64, v uint32) (mlo, mhi uint64) {
	var lo, hi uint64
	if s.t.f <= 16 {
		lo = s.narrow(b)
	} else {
		lo, hi = s.wide(b)
	}
	return s.t.valueMatches(lo, hi, v)
}

// The value-level bucket logic below works on a bucket given as a 128-bit
// value (lo, hi) holding its bits from bit 0 on; for f <= 16 hi is unused.
// It is the Filter's logic (table.go, table_packed.go, table_semisort.go)
// without the loads.

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
	if t.layout == SemiSorted {
		if t.f <= 16 {
			return t.semiNarrowSlots(lo)
		}
		return t.semiSlotsOf(lo, hi)
	}
	if t.f <= 16 {
		return narrowSlots(lo, t.f, uint32(t.slotMax))
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

// touch fetches both buckets of every hash in hs into the cache, so that
// their lines arrive while the writer works on something else: with the
// assembly locating pass where a Filter's batches use it, else with loads.
func (s *ctable) touch(hs []uint64) {
	if s.t.batchAsm() {
		// The locating pass prefetches; it reads nothing from the table,
		// only its address (the words hold the table's byte stream on the
		// little-endian hosts that have the assembly).
		t := s.t
		t.data = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s.words))), 8*len(s.words))
		prefetchBucketsAsm(&t, hs)
		return
	}
	var x uint64
	w, bb := unsafe.Pointer(unsafe.SliceData(s.words)), uint64(s.t.bbits)
	for _, h := range hs {
		b1, _, b2, _ := s.t.place(h)
		x += loadWord(w, b1*bb>>6) + loadWord(w, b2*bb>>6)
	}
	runtime.KeepAlive(x)
}

// The writer's side: plain reads, and stores inside write sessions.

// read returns bucket b as a 128-bit value with plain loads; only the
// writer, which is the only one to store, may call it. Where f <= 16, a
// bucket fits in lo, and hi is 0.
func (s *ctable) read(b uint64) (lo, hi uint64) {
	if s.t.f <= 16 {
		return s.readNarrow(b), 0
	}
	p := b * uint64(s.t.bbits)
	i, sh := p>>6, p&63
	w := s.words[i : i+3 : i+3]
	return join(w[0], w[1], sh), join(w[1], w[2], sh)
}

// readNarrow is read for buckets of at most 64 bits: two plain loads.
func (s *ctable) readNarrow(b uint64) uint64 {
	p := b * uint64(s.t.bbits)
	w := unsafe.Pointer(unsafe.SliceData(s.words))
	if haveAsm {
		// Little-endian, so the words are the table's byte stream: one load
		// from the bucket's first byte holds it, since buckets start on a
		// multiple of 4 bits and a bucket of 64 bits on a byte.
		return *(*uint64)(unsafe.Add(w, p>>3)) >> (p & 4)
	}
	i := p >> 6
	return join(*(*uint64)(unsafe.Add(w, i*8)), *(*uint64)(unsafe.Add(w, i*8+8)), p&63)
}

// fill sets the empty slot at bit p, whose bits are all zero, to v (at
// most 32 bits): v's bits are or'ed into the one or two words the slot
// lies in, each stored with a release store (store).
func (s *ctable) fill(p uint64, v uint32) {
	i, sh := p>>6, p&63
	w := s.pair(i)
	x := w[0] | uint64(v)<<sh // unchanged if v lies in word i+1
	storeRelease(&w[0], x)
	s.note(false, i, x)
	if x := uint64(v) >> 1 >> (63 - sh); x != 0 { // the bits past word i; none when sh == 0
		x |= w[1]
		storeRelease(&w[1], x)
		s.note(false, i+1, x)
	}
}

// pair is words i and i+1, for the writer, without a bounds check: the
// first word of a bucket or of a slot is followed by at least two
// (ctableWords).
func (s *ctable) pair(i uint64) *[2]uint64 {
	return (*[2]uint64)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(s.words)), i*8))
}

// slots decodes bucket b for the writer.
func (s *ctable) slots(b uint64) (v [4]uint32) {
	if s.t.f > 16 {
		return s.t.slotsOf(s.read(b))
	}
	w := s.readNarrow(b)
	if s.t.layout == SemiSorted {
		return s.t.semiNarrowSlots(w)
	}
	return narrowSlots(w, s.t.f, uint32(s.t.slotMax))
}

// narrowSlots is the four f-bit values (f <= 16) of the packed bucket in the
// low bits of w; m is 2^f - 1.
func narrowSlots(w uint64, f uint, m uint32) [4]uint32 {
	return [4]uint32{uint32(w) & m, uint32(w>>f) & m, uint32(w>>(2*f)) & m, uint32(w>>(3*f)) & m}
}

// begin and end open and close a write session on bucket b: its stripe's
// version is odd between them. Every store of table words is inside one.
func (s *ctable) begin(b uint64) { s.bump(b) }
func (s *ctable) end(b uint64)   { s.bump(b) }

func (s *ctable) bump(b uint64) {
	v := s.seq[b&s.smask].Add(1)
	s.note(true, b&s.smask, v)
}

// store sets words[i] to w with a release store (storeRelease): a reader
// that loads the word atomically sees it whole, and sees every store the
// writer made before it. The stores of a slot (fill, storeSlot) make the
// same two calls themselves, so that there is no call between them and
// storeRelease.
func (s *ctable) store(i, w uint64) {
	storeRelease(&s.words[i], w)
	s.note(false, i, w)
}

// note records a store for the model test, if it records.
func (s *ctable) note(version bool, i, v uint64) {
	if s.rec != nil {
		s.record(version, i, v)
	}
}

// record appends a store to the model test's record. It is kept out of
// line so that note inlines into the writers.
//
//go:noinline
func (s *ctable) record(version bool, i, v uint64) {
	*s.rec = append(*s.rec, cevent{s: s, version: version, i: i, v: v})
}

// storeBits sets the n bits (n <= 128) at bit p to the low n bits of
// (lo, hi), storing only the words whose bits change.
func (s *ctable) storeBits(p uint64, n uint, lo, hi uint64, plain bool) {
	if n < 64 && !plain { // a packed slot or a narrow bucket: one or two words
		s.storeSlot(p, n, lo)
		return
	}
	mlo, mhi := ^uint64(0), ^uint64(0)
	if n < 64 {
		mlo, mhi = 1<<n-1, 0
	} else if n < 128 {
		mhi = 1<<(n-64) - 1
	}
	lo, hi = lo&mlo, hi&mhi
	i, sh := p>>6, p&63
	// Shifted up by sh, value and mask span up to three words; a shift by
	// 64 gives 0.
	v := [3]uint64{lo << sh, hi<<sh | lo>>(64-sh), hi >> (64 - sh)}
	m := [3]uint64{mlo << sh, mhi<<sh | mlo>>(64-sh), mhi >> (64 - sh)}
	for k := range uint64(3) {
		if m[k] == 0 {
			continue
		}
		old := s.words[i+k]
		w := old&^m[k] | v[k]
		switch {
		case plain: // a table not yet published
			s.words[i+k] = w
		case w != old:
			s.store(i+k, w)
		}
	}
}

// storeSlot sets the n < 64 bits at bit p to v, storing the one or two
// words they lie in where they change.
func (s *ctable) storeSlot(p uint64, n uint, v uint64) {
	i, sh := p>>6, p&63
	w := s.pair(i)
	m := uint64(1)<<n - 1
	if x := w[0]&^(m<<sh) | (v&m)<<sh; x != w[0] {
		storeRelease(&w[0], x)
		s.note(false, i, x)
	}
	// The bits past word i: none when sh == 0.
	if x := w[1]&^(m>>1>>(63-sh)) | (v&m)>>1>>(63-sh); x != w[1] {
		storeRelease(&w[1], x)
		s.note(false, i+1, x)
	}
}

// put replaces the value in slot k of bucket b, whose values are s, with v:
// in a packed bucket the slot's bits, in a semi-sorted one the whole bucket,
// re-sorted and re-encoded. It is a write session unless it fills an empty
// slot without moving any stored fingerprint's bits where a reader could
// see them half moved: a packed slot, or a semi-sorted bucket that lies in
// one word, which one atomic store replaces. Such an add removes nothing a
// reader must find, so it needs no version change (concurrent.go).
func (s *ctable) put(b uint64, slots [4]uint32, k int, v uint32) {
	t := &s.t
	p, n, lo := b*uint64(t.bbits), t.bbits, uint64(v)
	var hi uint64
	empty := slots[k] == 0
	if t.layout == SemiSorted {
		slots[k] = v
		lo, hi = t.packSlots(slots)
	} else {
		p, n = p+uint64(uint(k)*t.f), t.f
	}
	if empty && (t.layout == Packed || p&63+uint64(n) <= 64) {
		s.storeBits(p, n, lo, hi, false)
		return
	}
	s.begin(b)
	s.storeBits(p, n, lo, hi, false)
	s.end(b)
}

// putBucket stores x, the encoding of bucket b (at most 64 bits) with one
// value added to it and every other value kept: one atomic store if the
// bucket lies in one word, which needs no write session (put), else a
// write session of two.
func (s *ctable) putBucket(b, x uint64) {
	n := s.t.bbits
	p := b * uint64(n)
	if p&63+uint64(n) <= 64 {
		s.storeSlot(p, n, x)
		return
	}
	s.begin(b)
	s.storeSlot(p, n, x)
	s.end(b)
}

// add puts v into the lowest empty slot of bucket b and reports whether
// there was one.
func (s *ctable) add(b uint64, v uint32) bool {
	if s.t.f <= 16 {
		return s.addNarrow(b, s.readNarrow(b), v)
	}
	lo, hi := s.read(b)
	return s.addTo(b, lo, hi, v)
}

// addNarrow is add for a table with f <= 16 and bucket b read as w
// (readNarrow). It fills the free slot in place, which needs no write
// session (put): a packed slot with one store, a semi-sorted bucket, whose
// values the added one may move, with putBucket.
func (s *ctable) addNarrow(b, w uint64, v uint32) bool {
	t := &s.t
	if t.layout == SemiSorted {
		if !t.semiFree(w) {
			return false
		}
		s.putBucket(b, t.semiWith(w, v))
		return true
	}
	z := t.freeMarks(w)
	if z == 0 {
		return false
	}
	s.fill(b*uint64(t.bbits)+t.firstSlot(z, 0), v)
	return true
}

// addTo is add for bucket b already read as (lo, hi).
func (s *ctable) addTo(b, lo, hi uint64, v uint32) bool {
	slots := s.t.slotsOf(lo, hi)
	k := freeSlot(slots)
	if k < 0 {
		return false
	}
	s.put(b, slots, k, v)
	return true
}

// remove clears the lowest slot of bucket b that holds v and reports whether
// there was one.
func (s *ctable) remove(b uint64, v uint32) bool {
	slots := s.slots(b)
	for k, x := range slots {
		if x == v {
			s.put(b, slots, k, 0)
			return true
		}
	}
	return false
}

// matches is the number of slots of bucket b that hold v, read by the writer.
func (s *ctable) matches(b uint64, v uint32) int {
	lo, hi := s.read(b)
	mlo, mhi := s.t.valueMatches(lo, hi, v)
	return bits.OnesCount64(mlo) + bits.OnesCount64(mhi)
}

// double returns the table of the next stage of a growable table, holding
// every value of s (growth.go: bucket B's values go to buckets 2B and 2B+1 by
// their top bit, which they lose). Its words are written with plain stores:
// nobody can read the new table before it is published. The buckets get
// exactly the bits table.double gives them.
func (s *ctable) double() *ctable {
	n := newCtable(tableShape(s.t.m0, s.t.fbits, s.t.g, s.t.k+1, s.t.layout))
	n.rec = s.rec
	top := s.t.f - 1
	bb := uint64(n.t.bbits)
	for b := range s.t.m {
		var halves [2][4]uint32
		var fill [2]int
		for _, v := range s.slots(b) {
			if v != 0 {
				h := v >> top
				halves[h][fill[h]] = v & (1<<top - 1)
				fill[h]++
			}
		}
		for h := range uint64(2) {
			if fill[h] > 0 {
				lo, hi := n.t.packSlots(halves[h])
				n.storeBits((2*b+h)*bb, n.t.bbits, lo, hi, true)
			}
		}
	}
	return n
}
