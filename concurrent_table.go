package cuckoo

import (
	"encoding/binary"
	"math/bits"
	"runtime"
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
	batch int32           // a growable table's count batch (unlockAdding), set before publication
	// free: fills claim a slot without a lock (claim): a fixed packed table
	// of one-word buckets (probeClass.packedNarrow).
	free bool
	// sealed: Merge is copying the table to replace it; a fill without a
	// lock that sees it after its claim inserts again, holding stripes.
	sealed atomic.Bool
	t      table    // the table, whose data is words' memory
	rec    recorder // empty but in the model test's build (concurrent_record.go)
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
	s := &ctable{t: t, free: t.class.packedNarrow()}
	s.words = unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(t.data))), n)
	s.t.data = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s.words))), n*8)
	stripes := stripesFor(t.m)
	s.seq = make([]atomic.Uint64, stripes)
	s.smask = stripes - 1
	return s
}

// stripesFor is the stripes of a table of m buckets: the smallest power of
// two at least m, 2 to maxStripes.
func stripesFor(m uint64) uint64 { return min(maxStripes, max(2, uint64(1)<<bits.Len64(m-1))) }

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

// The writers' stores. A writer changes only buckets of the stripes it
// holds (concurrent_locks.go), but neighbouring buckets share words and may
// lie in stripes other writers hold, so a bucket's bits change by xoring
// their difference into each word they span atomically (flip; an or for a
// fill), which leaves the word's other bits as they are whatever other
// writers do to them meanwhile. Words are read atomically for the same
// reason (read, word).

// flip xors d (as le64 gives it), bits of a bucket the caller holds, into
// word i.
func (s *ctable) flip(i, d uint64) {
	p := &s.words[i]
	for {
		old := atomic.LoadUint64(p)
		if atomic.CompareAndSwapUint64(p, old, old^d) {
			s.rec.flip(s, i, d)
			return
		}
	}
}

// or ors d (as le64 gives it), bits of an empty slot of a bucket the caller
// holds, into word i: one instruction (LOCK OR) on amd64.
func (s *ctable) or(i, d uint64) {
	atomic.OrUint64(&s.words[i], d)
	s.rec.flip(s, i, d)
}

// word is one-word bucket b (f <= 16), read atomically.
func (s *ctable) word(b uint64) uint64 {
	return loadNarrow(unsafe.Pointer(unsafe.SliceData(s.words)), b*uint64(s.t.bbits))
}

// slots is bucket b's values, read atomically, as decode orders them.
func (s *ctable) slots(b uint64) [4]uint32 { return s.t.decode(s.read(b)) }

// fill sets the empty slot at bit p to v, in its one or two words, which
// no claim takes. A reader may see either part first: safe, as a fill
// removes nothing.
func (s *ctable) fill(p uint64, v uint32) {
	i, sh := p>>6, p&63
	s.or(i, le64(uint64(v)<<sh))
	if x := uint64(v) >> 1 >> (63 - sh); x != 0 { // the bits past word i; none when sh == 0
		s.or(i+1, le64(x))
	}
}

// bump opens or closes a write session on bucket b: its stripe's version is
// odd within it. Only the stripe's holder bumps it.
func (s *ctable) bump(b uint64) {
	v := s.seq[b&s.smask].Add(1)
	s.rec.store(s, b&s.smask, v)
}

// setBucket stores (lo, hi), ignoring bits past the bucket's, as bucket b.
// An insert (the new value holds every old one) that changes one word
// needs no write session: the bucket before or after the store holds every
// key a reader must find.
func (s *ctable) setBucket(b, lo, hi uint64, insert bool) {
	if s.t.f <= 16 {
		s.setNarrow(b, lo, insert)
		return
	}
	p := b * uint64(s.t.bbits)
	i, sh := p>>6, p&63
	mlo, mhi := bucketMask(s.t.bbits)
	olo, ohi := s.read(b)
	lo, hi = (lo^olo)&mlo, (hi^ohi)&mhi // the bits that change
	// Shifted up by sh, they span up to three words; a shift by 64 gives 0.
	d := [3]uint64{lo << sh, hi<<sh | lo>>(64-sh), hi >> (64 - sh)}
	changed := 0
	for _, x := range d {
		if x != 0 {
			changed++
		}
	}
	session := !insert || changed > 1
	if session {
		s.bump(b)
	}
	for k, x := range d {
		if x != 0 {
			s.flip(i+uint64(k), le64(x))
		}
	}
	if session {
		s.bump(b)
	}
}

// setNarrow is setBucket for a bucket x of at most 64 bits. The
// semi-sorted insert calls it directly, as setBucket's frame is large (549
// instructions an insert, not 563, f = 13, conc semi).
func (s *ctable) setNarrow(b, x uint64, insert bool) {
	s.rewrite(b, s.word(b), x, insert)
}

// rewrite is setNarrow for bucket b read as w.
func (s *ctable) rewrite(b, w, x uint64, insert bool) {
	n := uint64(s.t.bbits)
	p := b * n
	i, sh := p>>6, p&63
	d := (w ^ x) & (^uint64(0) >> ((64 - n) & 63))
	d0, d1 := d<<sh, d>>1>>(63-sh) // word i's part, word i+1's; shifts below 64
	session := !insert || d0 != 0 && d1 != 0
	if session {
		s.bump(b)
	}
	if d0 != 0 {
		s.flip(i, le64(d0))
	}
	if d1 != 0 {
		s.flip(i+1, le64(d1))
	}
	if session {
		s.bump(b)
	}
}

// claimable marks, as zero64 does, the empty slots of one-word bucket w
// at bit p of a free table that a claim can take: those within one
// aligned word. A slot across a word boundary d = -p mod 64 bits into the
// bucket has its top bit d to d+f-2 bits in; with d = 0 (none) those bits
// mark no slot, as a slot's top bit is f-1 bits in or more.
func (s *ctable) claimable(p, w uint64) uint64 {
	t := &s.t
	return t.lanes.zero64(w) &^ (t.slotMax >> 1 << (-p & 63))
}

// slotFor is the bit of the first claimable slot of one-word bucket i1,
// read as w1, else of i2, read as w2, and whether there is one: chosen
// without a branch on a slot's position, which resolves only after the
// buckets' misses.
func (s *ctable) slotFor(i1, w1, i2, w2 uint64) (uint64, bool) {
	t := &s.t
	p1, p2 := i1*uint64(t.bbits), i2*uint64(t.bbits)
	z1, z2 := s.claimable(p1, w1), s.claimable(p2, w2)
	p, z := p1, z1
	if z1 == 0 {
		p, z = p2, z2
	}
	return p + uint64(bits.TrailingZeros64(z)) + 1 - uint64(t.f), z != 0
}

// claim puts v into the empty slot at bit p of a free table, within one
// aligned word, without a lock: one compare-and-swap of that word, which
// fails if any bit of it changed meanwhile, and is tried again while the
// slot is still empty. So two claims never take one slot, and a claim never
// changes a bit but its slot's: holders' flips of their full slots commute
// with it. It reports whether v went in.
func (s *ctable) claim(p uint64, v uint32) bool {
	x, sh := &s.words[p>>6], p&63
	for old := atomic.LoadUint64(x); old&le64(s.t.slotMax<<sh) == 0; old = atomic.LoadUint64(x) {
		if atomic.CompareAndSwapUint64(x, old, old|le64(uint64(v)<<sh)) {
			s.rec.flip(s, p>>6, le64(uint64(v)<<sh))
			return true
		}
	}
	return false
}

// claimHeld puts v into an empty slot of one-word bucket b of a free
// table, read as w, whose stripe the caller holds: a slot across two words,
// which no claim touches, by ors (fill); another by a claim.
func (s *ctable) claimHeld(b, w uint64, v uint32) bool {
	t := &s.t
	p := b * uint64(t.bbits)
	c := s.claimable(p, w)
	for z := t.lanes.zero64(w); z != 0; z &= z - 1 {
		q := p + uint64(bits.TrailingZeros64(z)) + 1 - uint64(t.f)
		if z&-z&c == 0 {
			s.fill(q, v)
			return true
		}
		if s.claim(q, v) {
			return true
		}
	}
	return false
}

// addTo puts v into an empty slot of bucket b, read as (lo, hi), whose
// stripe the caller holds, and reports whether it did (in a free table, a
// claim may take the slot first). For one-word buckets freeMarks inlines
// (17 instructions less a growable insert than packedFree, f = 13, conc
// grow).
func (s *ctable) addTo(b, lo, hi uint64, v uint32) bool {
	t := &s.t
	if s.free {
		return s.claimHeld(b, lo, v)
	}
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
	w := s.word(b)
	s.rewrite(b, w, w&^(t.slotMax<<sh)|uint64(v)<<sh, empty)
}

// items counts the table's filled slots, read atomically: a free table's
// Len, as its fills are counted nowhere else. About 8 instructions a
// bucket.
func (s *ctable) items() int {
	t := &s.t
	n := 0
	for b := range t.m {
		n += bits.OnesCount64(t.lanes.zero64(s.word(b)))
	}
	return int(t.m)*slotsPerBucket - n
}

// copyTo copies the table's first len(dst) bytes to dst, each word read
// atomically, as claims may go on meanwhile.
func (s *ctable) copyTo(dst []byte) {
	for i := 0; i < len(dst); i += 8 {
		var b [8]byte
		binary.NativeEndian.PutUint64(b[:], atomic.LoadUint64(&s.words[i/8])) // the word's bytes as they lie
		copy(dst[i:], b[:])
	}
}

// prefetch fetches both buckets of each hash of hs (<= batchChunk): by the
// assembly's prefetches, else by atomic loads, as other writers change the
// words (prefetchBuckets' plain loads would race with them).
func (s *ctable) prefetch(hs []uint64) {
	if s.t.batchAsm() {
		prefetchBucketsAsm(&s.t, hs)
		return
	}
	var x uint64
	for _, h := range hs {
		b1, _, b2, _ := s.t.place(h)
		x += s.word(b1) ^ s.word(b2)
	}
	runtime.KeepAlive(x)
}
