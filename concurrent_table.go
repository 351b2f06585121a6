package cuckoo

import (
	"math/bits"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// ctable is the concurrent filter's table (protocol in concurrent.go), its
// bytes in 64-bit words holding the byte stream little-endian on every host
// (le64), so that every access can be an aligned atomic one.
type ctable struct {
	words []uint64        // the table's bytes, then padding (ctableWords)
	seq   []atomic.Uint64 // a version per stripe of buckets: stripe(b) = b & smask
	smask uint64          // len(seq) - 1, a power of two minus one
	t     table           // the table, whose data is words' memory
	rec   recorder        // empty but in the model test's build (concurrent_record.go)
}

// maxStripes caps the version counters (the smallest power of two at least
// the bucket count, up to this): 8 KiB stays cached beside the buckets, and
// a session makes a lookup of other buckets retry about 2 times in 1024.
const maxStripes = 1024

// ctableWords is the number of words for m buckets of bbits bits: two words
// of padding keep the three words from a bucket's first, and tablePad's
// loads, in range, so the readers' loads skip bounds checks.
func ctableWords(m uint64, bbits uint) uint64 { return (m*uint64(bbits)+63)/64 + 2 }

var _ [2*8 - tablePad]struct{} // the padding covers the table's

// newCtable is an empty ctable of shape t (whose data is ignored).
func newCtable(t table) *ctable {
	t.data = newTableData(tableBytes(t.m, t.bbits))
	return ctableOver(t)
}

// ctableOver is a ctable over t's data (from newTableData: whole words, at
// least ctableWords); t must not be written through anything else afterwards.
func ctableOver(t table) *ctable {
	n := ctableWords(t.m, t.bbits)
	if uint64(cap(t.data)) < n*8 {
		panic("cuckoo: a concurrent table over too few bytes")
	}
	s := &ctable{t: t}
	s.words = unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(t.data))), n)
	s.t.data = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s.words))), n*8)
	stripes := min(maxStripes, max(2, uint64(1)<<bits.Len64(t.m-1))) // a power of two
	s.seq = make([]atomic.Uint64, stripes)
	s.smask = stripes - 1
	return s
}

// ctableOf is a ctable holding a copy of t's buckets.
func ctableOf(t *table) *ctable {
	s := newCtable(*t)
	copy(s.t.data, t.data[:(t.m*uint64(t.bbits)+7)/8])
	return s
}

// le64 converts between a word's value and its bytes' little-endian value.
func le64(x uint64) uint64 {
	if cpu.IsBigEndian {
		return bits.ReverseBytes64(x)
	}
	return x
}

// loadWord atomically loads word i of the words at w, read little-endian.
func loadWord(w unsafe.Pointer, i uint64) uint64 {
	return le64(atomic.LoadUint64((*uint64)(unsafe.Add(w, i*8))))
}

// loadNarrow atomically reads the bucket at bit p of the words at w into the
// low bits of a word. Where unalignedLoads, one 8-byte load that may
// straddle two words and tear, as two word loads may: the versions catch both.
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

func (s *ctable) version(b uint64) uint64 { return s.stripe(b).Load() }

// join returns the 64 bits from bit sh (0..63) of the word pair (w0, w1);
// w1 shifts in two steps so no count reaches 64, which Go would check for.
func join(w0, w1 uint64, sh uint64) uint64 { return w0>>(sh&63) | w1<<1<<((63-sh)&63) }

// count is the number of slots of bucket b that hold v's key, read
// atomically.
func (s *ctable) count(b uint64, v uint32) int {
	mlo, mhi := s.bucketMatches(b, v)
	return bits.OnesCount64(mlo) + bits.OnesCount64(mhi)
}

// bucketMatches is the codec's match for v of bucket b, read atomically.
func (s *ctable) bucketMatches(b uint64, v uint32) (mlo, mhi uint64) {
	lo, hi := s.read(b)
	return s.t.match(lo, hi, v)
}

// read is bucket b as a codec value, read atomically (bits past the
// bucket are the next bucket's): two word loads for f <= 16, else three.
func (s *ctable) read(b uint64) (lo, hi uint64) {
	w, p := unsafe.Pointer(unsafe.SliceData(s.words)), b*uint64(s.t.bbits)
	if s.t.f <= 16 {
		return loadNarrow(w, p), 0
	}
	i, sh := p>>6, p&63
	w0, w1, w2 := loadWord(w, i), loadWord(w, i+1), loadWord(w, i+2)
	return join(w0, w1, sh), join(w1, w2, sh)
}

// fill sets the empty slot at bit p to v with a release store to each of
// its one or two words, or where unalignedLoads one 8-byte store of its
// bytes. A reader may see any part of the new bits (no x86 vendor promises
// a misaligned store is seen whole): safe, as a fill removes nothing.
func (s *ctable) fill(p uint64, v uint32) {
	if unalignedLoads {
		a := (*uint64)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(s.words)), p>>3))
		storeRelease(a, *a|uint64(v)<<(p&7))
		s.rec.storeBytes(s, p>>3)
		return
	}
	i, sh := p>>6, p&63
	w := s.pair(i)
	x := le64(le64(w[0]) | uint64(v)<<sh) // unchanged if v lies in word i+1
	storeRelease(&w[0], x)
	s.rec.store(s, false, i, x)
	if x := uint64(v) >> 1 >> (63 - sh); x != 0 { // the bits past word i; none when sh == 0
		x = le64(le64(w[1]) | x)
		storeRelease(&w[1], x)
		s.rec.store(s, false, i+1, x)
	}
}

// pair is words i to i+2, for the writer, without a bounds check.
func (s *ctable) pair(i uint64) *[3]uint64 {
	return (*[3]uint64)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(s.words)), i*8))
}

// bump opens or closes a write session on bucket b: its stripe's version is
// odd within it.
func (s *ctable) bump(b uint64) {
	v := s.seq[b&s.smask].Add(1)
	s.rec.store(s, true, b&s.smask, v)
}

// store sets word i to w (as le64 gives it) with a release store.
func (s *ctable) store(i, w uint64) {
	storeRelease(&s.words[i], w)
	s.rec.store(s, false, i, w)
}

// setBucket stores (lo, hi), ignoring bits past the bucket's, as bucket b,
// each changed word with a release store. An insert (the new value holds
// every old one) that changes one word needs no write session: the bucket
// before or after the store holds every key a reader must find.
func (s *ctable) setBucket(b, lo, hi uint64, insert bool) {
	if s.t.f <= 16 {
		s.setNarrow(b, lo, insert)
		return
	}
	p := b * uint64(s.t.bbits)
	i, sh := p>>6, p&63
	mlo, mhi := bucketMask(s.t.bbits)
	lo, hi = lo&mlo, hi&mhi
	// Shifted up by sh, value and mask span up to three words; a shift by 64 gives 0.
	v := [3]uint64{lo << sh, hi<<sh | lo>>(64-sh), hi >> (64 - sh)}
	m := [3]uint64{mlo << sh, mhi<<sh | mlo>>(64-sh), mhi >> (64 - sh)}
	w := s.pair(i)
	var x [3]uint64
	changed := 0
	for k := range uint64(3) {
		if x[k] = le64(le64(w[k])&^m[k] | v[k]); x[k] != w[k] {
			changed++
		}
	}
	session := !insert || changed > 1
	if session {
		s.bump(b)
	}
	for k := range uint64(3) {
		if x[k] != w[k] {
			s.store(i+k, x[k])
		}
	}
	if session {
		s.bump(b)
	}
}

// setNarrow is setBucket for a bucket x of at most 64 bits; where
// unalignedLoads a session across two words is one 8-byte store. The
// semi-sorted insert calls it directly, as setBucket's frame is large (549
// instructions an insert, not 563, f = 13, conc semi).
func (s *ctable) setNarrow(b, x uint64, insert bool) {
	n := uint64(s.t.bbits)
	p := b * n
	i, sh := p>>6, p&63
	w := s.pair(i)
	d := (join(le64(w[0]), le64(w[1]), sh) ^ x) & (^uint64(0) >> ((64 - n) & 63))
	d0, d1 := d<<sh, d>>1>>(63-sh)      // word i's part, word i+1's; shifts below 64
	if insert && (d0 == 0 || d1 == 0) { // one word changes, or none
		if d0 != 0 {
			s.store(i, w[0]^le64(d0))
		} else if d1 != 0 {
			s.store(i+1, w[1]^le64(d1))
		}
		return
	}
	s.bump(b)
	if unalignedLoads && d0 != 0 && d1 != 0 && p&7+n <= 64 {
		a := (*uint64)(unsafe.Add(unsafe.Pointer(w), sh>>3))
		storeRelease(a, *a^d<<(p&7))
		s.rec.storeBytes(s, p>>3)
	} else {
		if d0 != 0 {
			s.store(i, w[0]^le64(d0))
		}
		if d1 != 0 {
			s.store(i+1, w[1]^le64(d1))
		}
	}
	s.bump(b)
}

// rewriteNarrow is setNarrow outside an insert, for Advance, of bucket b
// read as w (setNarrow reads it again: 123 instructions a bucket, f = 13,
// G = 4, conc gen): one session, one 8-byte store where unalignedLoads,
// which holds the bucket, as the expiring classes that call it have
// buckets of at most 60 bits when they start 4 bits into a byte.
func (s *ctable) rewriteNarrow(b, w, x uint64) {
	if !unalignedLoads {
		s.setNarrow(b, x, false)
		return
	}
	n := uint64(s.t.bbits)
	p := b * n
	d := (w ^ x) & (^uint64(0) >> ((64 - n) & 63))
	a := (*uint64)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(s.words)), p>>3))
	s.bump(b)
	storeRelease(a, *a^d<<(p&7))
	s.rec.storeBytes(s, p>>3)
	s.bump(b)
}

// addTo puts v into an empty slot of bucket b, read as (lo, hi), and
// reports whether there was one. For one-word buckets freeMarks inlines (17
// instructions less a growable insert than packedFree, f = 13, conc grow).
func (s *ctable) addTo(b, lo, hi uint64, v uint32) bool {
	t := &s.t
	if t.layout == Packed {
		var p uint64
		ok := false
		if t.f <= 16 {
			z := t.freeMarks(lo)
			p, ok = t.firstSlot(z, 0), z != 0
		} else {
			p, ok = t.packedFree(lo, hi)
		}
		if ok {
			s.fill(b*uint64(t.bbits)+p, v)
		}
		return ok
	}
	lo, hi, ok := s.t.insertInto(lo, hi, v)
	if ok {
		s.setBucket(b, lo, hi, true)
	}
	return ok
}

// replace puts v into slot k of bucket b, whose values are vs: an insert
// if the slot is empty.
func (s *ctable) replace(b uint64, vs [4]uint32, k uint, v uint32) {
	if s.t.class.packedWords() {
		s.replaceNarrow(b, k, v, vs[k&3] == 0)
		return
	}
	lo, hi, _ := s.t.replaceIn(vs, k, v)
	s.setBucket(b, lo, hi, vs[k&3] == 0)
}

// replaceNarrow is replace for a packed bucket of at most 64 bits, without
// decoding (16 instructions less an expiring insert than replaceIn, f = 13).
func (s *ctable) replaceNarrow(b uint64, k uint, v uint32, empty bool) {
	t := &s.t
	sh := uint64(k&3) * uint64(t.f) & 63
	s.setBucket(b, t.narrowWord(b)&^(t.slotMax<<sh)|uint64(v)<<sh, 0, empty)
}
