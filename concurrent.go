package cuckoo

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// ConcurrentFilter's protocol: lookups that take no lock beside any number
// of writers, and never a false negative.
//
// A table's (ctable's) buckets are split into stripes, stripe(b) = b mod S
// (S a power of two, at most 1024), each with a version and a lock
// (concurrent_locks.go). A writer changes a bucket only holding its
// stripe's lock; it takes the locks of all the buckets it changes in
// ascending order, so no writers wait for each other in a cycle. Two writers
// so never change one bucket, nor bump one version, at once. Buckets share
// words with their neighbours, which may be in stripes another writer
// holds: a writer changes a word by an atomic or, or by a compare-and-swap
// of its own bucket's bits (ctable.flip), never by storing a word it read.
//
// Readers take no lock and store nothing: they atomically load the table
// pointer, a key's two buckets and, to answer "absent", two version
// counters. A writer changes a bucket in a write session, its stripe's
// version odd meanwhile; an insert made by one atomic change of one word,
// or by filling a slot a word at a time, only adds a fingerprint and needs
// no session. Writers' atomic changes are sequentially consistent, so a
// reader whose load sees a change sees all its writer did before it.
//
// The writers' invariant: outside a session on one of its two buckets,
// every stored key's fingerprint is in one of them. A displacement path is
// found without writing and without a lock (concurrent_search.go), then,
// its stripes held, checked to be still there and applied from its free end
// back, each fingerprint copied into its new bucket before its old slot is
// overwritten, so the invariant holds after every change. A key's
// fingerprint moves only between its two buckets, and a writer moving it
// holds both: so with many writers, as with one, at most one session at a
// time can take it from a bucket.
//
// A lookup loads both buckets' versions, reads both buckets, and answers
// "found" at once (a torn read can only make up a false positive). Else it
// answers "absent" only if both versions were even and are unchanged: then
// no session overlapped the reads, so at their start the invariant put the
// fingerprint in one bucket, and no session removed it before it was read.
// Else it reads again, after maxOptimistic tries holding both stripes, as a
// writer would. Both buckets need validating: a read of a move's
// destination before the move and of its source after would miss the key,
// and a torn read of a semi-sorted bucket being rewritten could miss any
// key in it.
//
// Growth, Advance, Reset, Merge, Clone, Snapshot and the encoders hold every
// stripe (stop), which stops all writers, as does an insert that cannot
// tell otherwise whether it fails (ErrFull, ErrTooManyDuplicates) or must
// double the table. Growth and Reset never change a published table: they
// publish a new one with one atomic pointer store (a doubling once its
// insert has put the key in). A writer notices a new table once it holds a
// stripe, and starts again in it; a lookup loads the pointer once: a key
// inserted before it began is in that table or its doubling, and a table
// replaced since answers for the moment of the replacement. Advance clears
// the slots of the generation it reuses, and changes the generation inserts
// store (genV) while every stripe is held, so a key inserted after it
// returned is in the new generation. InsertUnique decides and inserts
// holding both of the key's stripes, so of concurrent calls for one key
// exactly one adds it; Count validates whatever it finds. Len sums the
// stripes' counts, each written with its stripe's unlock, so no word is
// written by every insert. concurrent_model_test.go checks every
// interleaving of a reader with a writer, and with two writers at once.

// ConcurrentFilter is a cuckoo filter that many goroutines may use at once,
// made with NewConcurrent, or NewConcurrentFrom a Filter: every method is
// safe for concurrent use but the decoders (UnmarshalBinary, UnmarshalText,
// ReadFrom), which replace the whole filter. Queries (Contains, Count,
// ContainsBatch, their ...Hash forms, Hash) take no lock, unless writes keep
// spoiling their reads, and never report a stored key absent whatever
// writers do. Inserts and deletes (Insert, InsertBatch, InsertUnique,
// Delete, their ...Hash forms) run from any number of goroutines at once,
// each holding only the stripes of the buckets it changes; Advance, Reset,
// Merge, Clone, Snapshot, the encoders, a doubling of a growable filter, and
// an insert into a filter too full to tell otherwise whether it fails stop
// the writers meanwhile. It encodes in Filter's format; Snapshot returns a
// Filter copy (for AppendCompact or EncodedSize, which this type lacks).
//
// It answers as a Filter holding the same keys does; only its table's bytes
// differ once inserts displace fingerprints (along shortest paths here), and
// so, near full, may which inserts fail. The zero ConcurrentFilter acts as
// the zero Filter does; Clone and Snapshot of it are zero too.
type ConcurrentFilter[T Hashable] struct {
	c concurrent
}

// concurrent is a ConcurrentFilter's state, shared by every key type.
type concurrent struct {
	// What lookups read: never written after NewConcurrent but cur.
	h           hasher
	kind        keyKind
	cur         atomic.Pointer[ctable]
	capacity    int
	maxCapacity int

	_ cpu.CacheLinePad // writers' stores stay off the readers' lines

	locks    []stripeLock // the writers' (concurrent_locks.go)
	maxKicks int
	approx   atomic.Int64 // a growable filter's Len, give or take a batch a stripe (unlockAdding)
	gen      atomic.Uint32
	// What the writer holding every stripe (stop) uses: the exact count,
	// the PRNG (a Filter's state, kept for Snapshot and the encoding), and
	// the current generation's bits as the current table's slots hold them
	// (a published table's genV, which readers may copy, is never written),
	// which any writer reads holding a stripe.
	count   int
	rng     uint64
	genV    uint32
	mu      sync.Mutex  // one writer at a time uses path: a displacement (displace), or stop
	path    []pathNode  // the search queue of mu's holder: searchBuckets*MaxKicks + 2 nodes
	held    uint64      // the stripes stop took
	stopped int         // count when stop took them
	shrink  shrinkState // when an expiring table may halve (concurrent_expiry.go)
}

// maxOptimistic is how many lock-free reads a lookup tries before locking.
const maxOptimistic = 8

// NewConcurrent returns an empty concurrent filter, or an error wrapping
// ErrInvalidConfig that names the offending Config field. A growable one
// (MaxCapacity) grows as a Filter does.
func NewConcurrent[T Hashable](cfg Config) (*ConcurrentFilter[T], error) {
	p, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	r := reader{h: newHasher(p.seed), kind: kindOf[T](), capacity: p.capacity, maxCapacity: p.maxCapacity}
	r.setKey(p.key)
	f := &ConcurrentFilter[T]{}
	f.c.load(&r, newCtable(p.table()), p.maxKicks, r.h.seed)
	return f, nil
}

// NewConcurrentFrom returns a concurrent filter holding a copy of f: the
// same keys, Config and seed. f must not change while it is copied. Of a
// zero Filter, or nil, it returns a zero ConcurrentFilter.
func NewConcurrentFrom[T Hashable](f *Filter[T]) *ConcurrentFilter[T] {
	c := &ConcurrentFilter[T]{}
	if f != nil && f.c.t.data != nil {
		c.c.load(&f.c.reader, ctableOf(&f.c.t), f.c.maxKicks, f.c.rng)
	}
	return c
}

// load makes c the filter r with table s, which it publishes last.
func (c *concurrent) load(r *reader, s *ctable, maxKicks int, rng uint64) {
	c.h, c.kind, c.capacity, c.maxCapacity = r.h, r.kind, r.capacity, r.maxCapacity
	c.maxKicks, c.rng, c.count = maxKicks, rng, r.count
	c.path = make([]pathNode, 0, searchBuckets*maxKicks+2)
	c.locks = locksFor(s.t.m0 << s.t.g) // the last table's stripes
	c.locks[0].state.Store(uint64(r.count) << 1)
	c.approx.Store(int64(r.count))
	c.gen.Store(uint32(s.t.gen()))
	c.genV = s.t.genV
	c.setBatch(s)
	c.shrink = shrinkState{wait: r.wait, k: s.t.k} // concurrent_expiry.go
	c.cur.Store(s)
}

// Hash is Filter.Hash.
func (f *ConcurrentFilter[T]) Hash(key T) uint64 {
	if f.c.kind == kindInvalid { // a zero ConcurrentFilter
		return Hash(key)
	}
	return f.c.h.key(f.c.kind, unsafe.Pointer(&key))
}

// Contains reports whether key may be in the filter: never false for a key
// inserted before it began, unless a delete of it, or the Advance that
// expires it, began before it returned.
func (f *ConcurrentFilter[T]) Contains(key T) bool {
	return f.c.lookup(f.c.kind, unsafe.Pointer(&key))
}

// ContainsHash is Contains for a key hashed with Hash.
func (f *ConcurrentFilter[T]) ContainsHash(h uint64) bool {
	return f.c.kind != kindInvalid && f.c.lookup(kindHash, unsafe.Pointer(&h))
}

// Count is Filter.Count; while writers run, it counts what the buckets held
// at one moment during the call, give or take copies inserted meanwhile.
func (f *ConcurrentFilter[T]) Count(key T) int { return f.c.countHash(f.Hash(key)) }

// CountHash is Count for a key hashed with Hash.
func (f *ConcurrentFilter[T]) CountHash(h uint64) int { return f.c.countHash(h) }

// Insert adds key, with Filter.Insert's errors and promises, beside other
// writers and lookups: a failed insert leaves every key where a lookup
// finds it, and none half-moved.
func (f *ConcurrentFilter[T]) Insert(key T) error { return f.c.insert(f.c.kind, unsafe.Pointer(&key)) }

// InsertHash is Insert for a key hashed with Hash.
func (f *ConcurrentFilter[T]) InsertHash(h uint64) error {
	return f.c.insert(kindHash, unsafe.Pointer(&h))
}

// InsertBatch is Filter.InsertBatch: as a loop of Insert, with the same
// result, for less per key; other writers' inserts may come between its
// keys'.
func (f *ConcurrentFilter[T]) InsertBatch(keys []T) (int, error) {
	if f.c.kind == kindInvalid && len(keys) > 0 {
		return 0, errZeroConcurrent
	}
	var b keyBatch // as Filter.InsertBatch
	for off := 0; b.more(off, len(keys)); off += hashBlock {
		b.add(f.c.insertHashes(hashedBlock(&b, &f.c.h, f.c.kind, keys[off:])))
	}
	return b.n, b.err
}

// InsertHashBatch is InsertBatch for keys hashed with Hash.
func (f *ConcurrentFilter[T]) InsertHashBatch(hashes []uint64) (int, error) {
	n := 0
	for off := 0; off < len(hashes); off += hashBlock {
		k, err := f.c.insertHashes(hashes[off:min(off+hashBlock, len(hashes))])
		if n += k; err != nil {
			return n, err
		}
	}
	return n, nil
}

// InsertUnique is Filter.InsertUnique as one atomic step: of goroutines
// calling it for the same key at once, with no Delete of it meanwhile,
// exactly one adds it, unless a false positive hides the key from all of
// them or the insert fails (its error, as Filter's: never a repeat). A
// harness counting new keys so counts none twice, and misses about D x
// FalsePositiveRate of D distinct keys: FalsePositiveRate below 1/D makes
// the count exact in expectation (Filter.InsertUnique).
func (f *ConcurrentFilter[T]) InsertUnique(key T) (bool, error) { return f.c.insertUnique(f.Hash(key)) }

// Delete removes one copy of key (in an expiring filter, the oldest) and
// reports whether it found one, beside other writers; see Filter.Delete:
// delete only keys that were inserted.
func (f *ConcurrentFilter[T]) Delete(key T) bool { return f.c.delete(f.Hash(key)) }

// DeleteHash is Delete for a key hashed with Hash.
func (f *ConcurrentFilter[T]) DeleteHash(h uint64) bool { return f.c.delete(h) }

// ContainsBatch is Filter.ContainsBatch as a loop of Contains, which does
// not overlap the keys' memory accesses.
func (f *ConcurrentFilter[T]) ContainsBatch(keys []T, found []bool) int {
	return f.c.lookups(f.c.kind, unsafe.Pointer(unsafe.SliceData(keys)), unsafe.Sizeof(*new(T)), len(keys), found)
}

// ContainsHashBatch is ContainsBatch for keys hashed with Hash.
func (f *ConcurrentFilter[T]) ContainsHashBatch(hashes []uint64, found []bool) int {
	k := kindHash
	if f.c.kind == kindInvalid {
		k = kindInvalid // lookup's zero ConcurrentFilter
	}
	return f.c.lookups(k, unsafe.Pointer(unsafe.SliceData(hashes)), 8, len(hashes), found)
}

// lookups looks up the n keys of kind k and size size at p, noting each
// answer in found while it has room, and returns how many it found.
func (c *concurrent) lookups(k keyKind, p unsafe.Pointer, size uintptr, n int, found []bool) int {
	hits := 0
	for i := range n {
		ok := c.lookup(k, unsafe.Add(p, uintptr(i)*size))
		if i < len(found) {
			found[i] = ok
		}
		if ok {
			hits++
		}
	}
	return hits
}

// Reset is Filter.Reset, by publishing a new table, writers stopped
// meanwhile: lookups that began before it may still answer from the old
// one.
func (f *ConcurrentFilter[T]) Reset() { f.c.reset() }

// Len is the number of items stored: exact whenever no write is under
// way, and within the writes under way of it otherwise. It sums a count a
// stripe, at most 1024.
func (f *ConcurrentFilter[T]) Len() int {
	if f.c.kind == kindInvalid {
		return 0
	}
	return f.c.len()
}

// Capacity is Filter.Capacity.
func (f *ConcurrentFilter[T]) Capacity() int { return f.c.capacity }

// MaxCapacity is Filter.MaxCapacity.
func (f *ConcurrentFilter[T]) MaxCapacity() int { return f.c.maxCapacity }

// Slots is the number of fingerprint slots: 4 per bucket.
func (f *ConcurrentFilter[T]) Slots() int { r := f.c.view(); return r.slots() }

// LoadFactor is Len / Slots.
func (f *ConcurrentFilter[T]) LoadFactor() float64 { r := f.c.view(); return r.loadFactor() }

// FingerprintBits is the fingerprint width in bits.
func (f *ConcurrentFilter[T]) FingerprintBits() int { return int(f.c.view().t.fbits) }

// Layout is the bucket encoding.
func (f *ConcurrentFilter[T]) Layout() Layout { return f.c.view().t.layout }

// Seed is Filter.Seed.
func (f *ConcurrentFilter[T]) Seed() uint64 { return f.c.h.seed }

// SizeBytes is the table's memory: the buckets' words and the versions.
func (f *ConcurrentFilter[T]) SizeBytes() int {
	s := f.c.cur.Load()
	if s == nil {
		return 0
	}
	return 8 * (len(s.words) + len(s.seq))
}

// EstimatedFalsePositiveRate is Filter.EstimatedFalsePositiveRate.
func (f *ConcurrentFilter[T]) EstimatedFalsePositiveRate() float64 {
	r := f.c.view()
	return r.estimatedFPR()
}

// view is a reader of the current table's shape and Len, without a lock.
func (c *concurrent) view() reader {
	if c.cur.Load() == nil {
		return reader{}
	}
	return reader{t: c.cur.Load().t, h: c.h, kind: c.kind, count: c.len(),
		capacity: c.capacity, maxCapacity: c.maxCapacity}
}

// String describes the filter in one line, like Filter.String:
//
//	cuckoo.ConcurrentFilter(integer keys, 12-bit Packed, 3 items, capacity 1000, load 0.282%)
func (f *ConcurrentFilter[T]) String() string { return f.describe("cuckoo.ConcurrentFilter") }

// GoString is String with the key type, for the %#v verb.
func (f *ConcurrentFilter[T]) GoString() string {
	return f.describe(typeName[T]("cuckoo.ConcurrentFilter"))
}

// Format prints the filter with String, or GoString for %#v, never fields.
func (f *ConcurrentFilter[T]) Format(s fmt.State, verb rune) {
	formatWith(s, verb, f.String, f.GoString)
}

func (f *ConcurrentFilter[T]) describe(name string) string {
	r := f.c.view()
	return r.describe(name, "made neither by NewConcurrent nor by decoding")
}

// lookup reports whether the filter may hold the key of kind k at p (a hash
// for kindHash): one-word buckets are probed here, others and retries apart.
func (c *concurrent) lookup(k keyKind, p unsafe.Pointer) bool {
	var h uint64
	switch k {
	case kindInt:
		h = c.h.u64(*(*uint64)(p))
	case kindHash:
		h = *(*uint64)(p)
	default:
		if k == kindInvalid { // a zero ConcurrentFilter: empty
			return false
		}
		h = c.h.key(k, p)
	}
	s := c.cur.Load()
	t := &s.t
	if !t.class.oneWord() { // f > 16, semi-sorted f = 4, growable, G > 16
		return c.lookupOther(s, h)
	}
	fp, i1 := t.locate(h)
	i2 := t.alt(i1, fp)
	// Base addresses in locals, as the compiler reloads fields after each
	// atomic load; versions first, so their loads overlap the buckets' misses.
	w, seq := unsafe.Pointer(unsafe.SliceData(s.words)), unsafe.Pointer(unsafe.SliceData(s.seq))
	sq1, sq2 := (*atomic.Uint64)(unsafe.Add(seq, i1&s.smask*8)), (*atomic.Uint64)(unsafe.Add(seq, i2&s.smask*8))
	q1, q2 := sq1.Load(), sq2.Load()
	var hit bool
	switch t.class {
	case class8: // a bucket is half a word
		var x uint64
		if unalignedLoads { // the words are the byte stream: a bucket is 4 aligned bytes
			x = uint64(atomic.LoadUint32((*uint32)(unsafe.Add(w, i1*4)))) | uint64(atomic.LoadUint32((*uint32)(unsafe.Add(w, i2*4))))<<32
		} else {
			x = loadWord(w, i1>>1)>>(i1&1*32)&(1<<32-1) | loadWord(w, i2>>1)>>(i2&1*32)<<32
		}
		x ^= uint64(fp) * ones8
		hit = (x-ones8)&^x&tops8 != 0
	case class16: // a bucket is a word
		pat := uint64(fp) * ones16
		x1, x2 := loadWord(w, i1)^pat, loadWord(w, i2)^pat
		hit = ((x1-ones16)&^x1|(x2-ones16)&^x2)&tops16 != 0
	case classNarrow: // keyLanes: generation bits are not compared
		pat := uint64(fp) * t.keyLanes.onesLo
		hit = t.keyLanes.anyZero(loadNarrow(w, i1*uint64(t.bbits))^pat, loadNarrow(w, i2*uint64(t.bbits))^pat)
	case classSemi:
		bp := uint64(fp>>(t.w&31)) * 0x1111 // the mask spares a check of the shift
		bl := uint64(fp&t.lowMask) * t.semiLanes.onesLo
		hit = t.semiLanes.anyZero(t.semiLows(loadNarrow(w, i1*uint64(t.bbits)), bp, bl), t.semiLows(loadNarrow(w, i2*uint64(t.bbits)), bp, bl))
	default: // classExpSemi
		bp := uint64(fp>>(t.w&31)) * 0x1111
		bl := uint64(fp&t.lowMask) * t.semiLanes.onesLo
		hit = t.semiLanes.anyZero(t.semiKeyLows(loadNarrow(w, i1*uint64(t.bbits)), bp, bl), t.semiKeyLows(loadNarrow(w, i2*uint64(t.bbits)), bp, bl))
	}
	if hit {
		return true
	}
	if (q1|q2)&1 == 0 && sq1.Load() == q1 && sq2.Load() == q2 {
		return false
	}
	return c.lookupAt(s, h) // a write session overlapped: read again
}

// lookupOther is lookup for the other classes, apart so that lookup tests
// the class once (an instruction less a fixed lookup). It probes
// classGrownNarrow, the last stages of most growable filters, itself.
func (c *concurrent) lookupOther(s *ctable, h uint64) bool {
	t := &s.t
	if t.class != classGrownNarrow {
		return c.lookupAt(s, h)
	}
	fp, i1 := t.locate(h)
	i2 := t.alt(i1, fp)
	l1, l2 := t.layers(h, fp)
	b1, v1 := t.staged(i1, l1, fp)
	b2, v2 := t.staged(i2, l2, fp)
	sq1, sq2 := s.stripe(b1), s.stripe(b2)
	q1, q2 := sq1.Load(), sq2.Load()
	w, ones := unsafe.Pointer(unsafe.SliceData(s.words)), t.keyLanes.onesLo
	if t.keyLanes.anyZero(loadNarrow(w, b1*uint64(t.bbits))^uint64(v1)*ones, loadNarrow(w, b2*uint64(t.bbits))^uint64(v2)*ones) {
		return true
	}
	if (q1|q2)&1 == 0 && sq1.Load() == q1 && sq2.Load() == q2 {
		return false
	}
	return c.lookupAt(s, h) // a write session overlapped: read again
}

// lookupAt is a lookup of hash h in table s by countIn, which locates the
// buckets itself, so that lookup keeps only h live.
func (c *concurrent) lookupAt(s *ctable, h uint64) bool { return c.countIn(s, h) > 0 }

// countHash is Count.
func (c *concurrent) countHash(h uint64) int {
	s := c.cur.Load()
	if s == nil {
		return 0
	}
	return c.countIn(s, h)
}

// countIn counts the key of hash h in table s by reads validated like an
// absent answer whatever they count, then in the current table holding
// both buckets' stripes, which no writer changes meanwhile.
func (c *concurrent) countIn(s *ctable, h uint64) int {
	b1, v1, b2, v2 := s.t.place(h)
	for range maxOptimistic {
		q1, q2 := s.version(b1), s.version(b2)
		n := s.count(b1, v1) + s.count(b2, v2)
		if (q1|q2)&1 == 0 && s.version(b1) == q1 && s.version(b2) == q2 {
			return n
		}
	}
	for {
		s = c.cur.Load()
		b1, v1, b2, v2 = s.t.place(h)
		l1, l2 := b1&s.smask, b2&s.smask
		c.lock2(l1, l2)
		current := c.cur.Load() == s
		n := 0
		if current {
			n = s.count(b1, v1) + s.count(b2, v2)
		}
		c.unlock2(s, l1, l2, 0)
		if current {
			return n
		}
	}
}

// insert adds the key of kind k at p (a hash for kindHash).
func (c *concurrent) insert(k keyKind, p unsafe.Pointer) error {
	if c.kind == kindInvalid {
		return errZeroConcurrent
	}
	var h uint64
	switch k { // as in lookup
	case kindInt:
		h = c.h.u64(*(*uint64)(p))
	case kindHash:
		h = *(*uint64)(p)
	default:
		h = c.h.key(k, p)
	}
	if s := c.cur.Load(); s.t.class.oneWord() { // put's common case, without its call
		r := c.putWords(s, h)
		if r == pathAll {
			r = c.wordsFull(s, h)
		}
		switch r {
		case pathApplied:
			return nil
		case pathAll:
			_, err := c.putAll(h, false)
			return err
		}
	}
	_, err := c.put(h, false)
	return err
}

// insertHashes inserts hs in order, the next chunk's buckets fetched
// meanwhile, and returns how many went in.
func (c *concurrent) insertHashes(hs []uint64) (int, error) {
	if c.kind == kindInvalid {
		return 0, errZeroConcurrent
	}
	prefetchBuckets(&c.cur.Load().t, hs[:min(len(hs), batchChunk)])
	for off := 0; off < len(hs); off += batchChunk {
		end := min(off+batchChunk, len(hs))
		if end < len(hs) {
			prefetchBuckets(&c.cur.Load().t, hs[end:min(end+batchChunk, len(hs))])
		}
		for i, h := range hs[off:end] {
			if _, err := c.put(h, false); err != nil {
				return off + i, err
			}
		}
	}
	return len(hs), nil
}

func (c *concurrent) insertUnique(h uint64) (bool, error) {
	if c.kind == kindInvalid {
		return false, errZeroConcurrent
	}
	return c.put(h, true)
}

// put inserts the key of hash h and reports whether it added it: with
// unique, unless its buckets hold it (InsertUnique, which in an expiring
// table refreshes it), deciding holding both buckets' stripes. A writer
// holds the stripes of the buckets it changes, in ascending order: one
// for a free slot, the key's and the target's for a one-step move, a
// path's for a longer one, found beforehand without a lock and checked
// once held (displace). Anything else (a failing search, a growable table
// near its stage's capacity) runs as the one writer, holding every stripe
// (putAll). A table replaced meanwhile (a doubling, Reset) is noticed once
// a stripe is held, and the insert starts again in the new one.
func (c *concurrent) put(h uint64, unique bool) (bool, error) {
	for {
		s := c.cur.Load()
		t := &s.t
		if !unique && t.class.oneWord() {
			r := c.putWords(s, h)
			if r == pathAll {
				r = c.wordsFull(s, h)
			}
			switch r {
			case pathApplied:
				return true, nil
			case pathAgain:
				continue
			}
			return c.putAll(h, unique)
		} else if t.canGrow() && c.stageFull(s) {
			return c.putAll(h, unique) // doubles first
		}
		b1, v1, b2, v2 := t.place(h)
		if !unique && !t.class.oneWord() {
			switch c.fillAny(s, b1, v1, b2, v2) {
			case pathApplied:
				return true, nil
			case pathAgain:
				continue
			}
		}
		switch c.putHeld(s, b1, v1, b2, v2, unique) {
		case pathApplied:
			return true, nil
		case pathPresent:
			return false, nil
		case pathAgain:
			continue
		}
		return c.putAll(h, unique)
	}
}

// putWords is put's common case without unique in a table of one-word
// buckets, fixed or expiring, written out, lock and unlockAdding too (about
// 40 instructions an insert): a free slot in either bucket, read without a
// lock, filled holding its stripe alone. pathAll: both were full, or filled
// meanwhile (wordsFull).
func (c *concurrent) putWords(s *ctable, h uint64) pathResult {
	t := &s.t
	fp, i1 := t.locate(h)
	i2 := t.alt(i1, fp)
	w1, w2 := s.word(i1), s.word(i2) // both read first: their misses overlap
	if room1 := t.wordRoom(w1); room1 || t.wordRoom(w2) {
		i, w := i1, w1
		if !room1 {
			i, w = i2, w2
		}
		l := &c.locks[i&s.smask]
		x := l.state.Load()
		if x&1 != 0 || !l.state.CompareAndSwap(x, x|1) {
			x = c.wait(l)
		}
		r := pathAgain
		if c.cur.Load() == s {
			r = pathAll
			// Again, held: another writer may have filled the slot.
			if y := s.word(i); y == w || t.wordRoom(y) {
				v := fp | c.genV        // 0 if keys never expire
				if t.layout == Packed { // an empty slot: no write session needed
					s.fill(i*uint64(t.bbits)+t.firstSlot(t.freeMarks(y), 0), v)
				} else {
					s.rewrite(i, y, t.semiWith(y, v), true)
				}
				x, r = x+2, pathApplied // one key more
			}
		}
		l.state.Store(x)
		return r
	}
	return pathAll
}

// wordsFull is putWords for the key of hash h whose buckets were full:
// holding both stripes, a one-step move, else displace. Apart, so that
// putWords' common case keeps its registers (10 instructions an insert).
func (c *concurrent) wordsFull(s *ctable, h uint64) pathResult {
	t := &s.t
	fp, i1 := t.locate(h)
	i2 := t.alt(i1, fp)
	l1, l2 := i1&s.smask, i2&s.smask
	c.lock2(l1, l2)
	if c.cur.Load() != s {
		c.unlock2(s, l1, l2, 0)
		return pathAgain
	}
	v := fp | c.genV
	w1, w2 := s.word(i1), s.word(i2)
	ok := (t.wordRoom(w1) || t.wordRoom(w2)) && (s.addTo(i1, w1, 0, v) || s.addTo(i2, w2, 0, v)) ||
		c.maxKicks >= 2 && c.moveNear(s, i1, w1, i2, w2, v, false)
	c.unlock2(s, l1, l2, int64(b2i(ok)))
	if ok {
		return pathApplied
	}
	return c.displace(s, i1, fp, i2, fp, false)
}

// wordRoom is roomIn for a one-word bucket w, the layout's test written
// out (roomIn's borrow across two words costs 6 instructions an insert).
func (t *table) wordRoom(w uint64) bool {
	if t.layout == Packed {
		return t.freeMarks(w) != 0
	}
	return t.semiFree(w)
}

// fillAny is fillWords for the other tables, growable too, given the key's
// buckets and their values.
func (c *concurrent) fillAny(s *ctable, b1 uint64, v1 uint32, b2 uint64, v2 uint32) pathResult {
	t := &s.t
	lo1, hi1 := s.read(b1) // both read first: their misses overlap
	lo2, hi2 := s.read(b2)
	b, v := b1, v1
	if !t.roomIn(lo1, hi1) {
		if !t.roomIn(lo2, hi2) {
			return pathAll
		}
		b, v = b2, v2
	}
	l := b & s.smask
	c.lock(l)
	if c.cur.Load() != s {
		c.unlock(l)
		return pathAgain
	}
	lo, hi := s.read(b) // again, held: another writer may have filled the slot
	added := s.addTo(b, lo, hi, v|c.genV)
	c.unlockAdding(s, l, int64(b2i(added)))
	if added {
		return pathApplied
	}
	return pathAll
}

// putHeld is put with both buckets' stripes held: a refresh (unique), a
// free slot, a one-step move; else a path (displace).
func (c *concurrent) putHeld(s *ctable, b1 uint64, v1 uint32, b2 uint64, v2 uint32, unique bool) pathResult {
	t := &s.t
	l1, l2 := b1&s.smask, b2&s.smask
	c.lock2(l1, l2)
	if c.cur.Load() != s {
		c.unlock2(s, l1, l2, 0)
		return pathAgain
	}
	if unique && c.refresh(s, b1, v1, b2, v2) {
		c.unlock2(s, l1, l2, 0)
		return pathPresent
	}
	gv := c.genV
	lo1, hi1 := s.read(b1) // both read first: their misses overlap
	lo2, hi2 := s.read(b2)
	// moveNear reads 8 buckets, within search's budget for MaxKicks >= 2.
	ok := (t.roomIn(lo1, hi1) || t.roomIn(lo2, hi2)) && (s.addTo(b1, lo1, hi1, v1|gv) || s.addTo(b2, lo2, hi2, v2|gv)) ||
		t.class.oneWord() && c.maxKicks >= 2 && c.moveNear(s, b1, lo1, b2, lo2, v1|gv, false)
	c.unlock2(s, l1, l2, int64(b2i(ok)))
	if ok {
		return pathApplied
	}
	return c.displace(s, b1, v1, b2, v2, unique)
}

// refresh reports whether buckets b1 and b2, whose stripes the caller
// holds, hold the key they would hold as v1 and v2; in an expiring table it
// moves the key's youngest copy to the current generation.
func (c *concurrent) refresh(s *ctable, b1 uint64, v1 uint32, b2 uint64, v2 uint32) bool {
	if s.t.genBits == 0 {
		return s.count(b1, v1)+s.count(b2, v2) > 0
	}
	b, slots := [2]uint64{b1, b2}, [2][4]uint32{s.slots(b1), s.slots(b2)}
	j, k := s.t.oldest(&slots, [2]uint32{v1, v2}, c.genV, true)
	if k < 0 {
		return false
	}
	if v := slots[j][k]&uint32(s.t.keyMask) | c.genV; slots[j][k] != v {
		s.replace(b[j], slots[j], uint(k), v)
	}
	return true
}

// putAll is put as the one writer: holding every stripe, with the exact
// count, as a Filter inserts (growing a growable table when its stage is
// full), and telling ErrFull and ErrTooManyDuplicates.
func (c *concurrent) putAll(h uint64, unique bool) (bool, error) {
	c.stop()
	defer c.start()
	if s := c.cur.Load(); unique {
		if b1, v1, b2, v2 := s.t.place(h); c.refresh(s, b1, v1, b2, v2) {
			return false, nil
		}
	}
	if err := c.insertAll(h); err != nil {
		return false, err
	}
	return true, nil
}

// insertAll is Filter's insert on the current table, every stripe held. A
// free slot of a table of one-word buckets, fixed or expiring, is filled
// written out.
func (c *concurrent) insertAll(h uint64) error {
	s := c.cur.Load()
	t := &s.t
	if !t.class.oneWord() { // growable, f > 16, semi-sorted f = 4, G > 16
		return c.insertSlow(s, h)
	}
	fp, i1 := t.locate(h)
	i2 := t.alt(i1, fp)
	v := fp | c.genV // 0 if keys never expire
	// Both buckets are read first, so that their misses overlap.
	b1, b2 := s.word(i1), s.word(i2)
	if t.layout == Packed {
		z1, z2 := t.freeMarks(b1), t.freeMarks(b2)
		i, z := i1, z1
		if z1 == 0 {
			i, z = i2, z2
		}
		if z != 0 { // an empty slot: no write session needed (fill)
			s.fill(i*uint64(t.bbits)+t.firstSlot(z, 0), v)
			c.count++
			return nil
		}
	} else if free1 := t.semiFree(b1); free1 || t.semiFree(b2) {
		i, b := i1, b1
		if !free1 {
			i, b = i2, b2
		}
		s.setNarrow(i, t.semiWith(b, v), true)
		c.count++
		return nil
	}
	if c.maxKicks < 2 || !c.moveNear(s, i1, b1, i2, b2, v, true) {
		return c.displaceAll(s, i1, v, i2, v)
	}
	c.count++
	return nil
}

// insertSlow is Filter's insertSlow, every stripe held. A doubling runs
// core.insertGrowing, which writes only new tables no reader sees, and
// publishes the one holding the key; a failed insert publishes nothing.
func (c *concurrent) insertSlow(s *ctable, h uint64) error {
	full := s.t.canGrow() && c.count >= s.t.stageCapacity() // doubles first
	if !full {
		b1, v1, b2, v2 := s.t.place(h)
		err := c.insertAt(s, b1, v1|c.genV, b2, v2|c.genV)
		if err != ErrFull || !s.t.canGrow() {
			return err
		}
	}
	// Its first write is to a doubled table: the stage is full, or ErrFull.
	g := newCore(c.reader(s.t), c.maxKicks)
	g.rng = c.rng
	x := placedKey{h: h}
	if err := g.insertGrowing(&x, !full); err != nil {
		return err // the PRNG state too is as it was
	}
	if unsafe.SliceData(g.t.data) == unsafe.SliceData(s.t.data) {
		panic("cuckoo: a growable insert ended in the published table")
	}
	c.rng, c.genV = g.rng, g.t.genV
	n := ctableOver(g.t)
	n.rec = s.rec
	c.count = g.count
	c.publish(n)
	return nil
}

// insertAt adds a key that bucket b1 would hold as v1 and bucket b2 as v2,
// every stripe held; after an error the table is as it was.
func (c *concurrent) insertAt(s *ctable, b1 uint64, v1 uint32, b2 uint64, v2 uint32) error {
	lo1, hi1 := s.read(b1) // both read first: their misses overlap
	lo2, hi2 := s.read(b2)
	if !s.addTo(b1, lo1, hi1, v1) && !s.addTo(b2, lo2, hi2, v2) {
		return c.displaceAll(s, b1, v1, b2, v2)
	}
	c.count++
	return nil
}

// displaceAll is insertAt for full buckets b1 and b2, along a path, every
// stripe held. Buckets of only v1 and v2 (expiring: their keys) are
// ErrTooManyDuplicates, told once the search has failed, as it must, so no
// insert pays the test.
func (c *concurrent) displaceAll(s *ctable, b1 uint64, v1 uint32, b2 uint64, v2 uint32) error {
	path, end := s.search(c.path, c.maxKicks, b1, v1, b2, v2)
	if end < 0 {
		if s.count(b1, v1)+s.count(b2, v2) == 2*slotsPerBucket {
			return ErrTooManyDuplicates
		}
		return ErrFull
	}
	s.apply(path, end)
	c.count++
	return nil
}

// publish makes n the table that lookups load; the caller holds every
// stripe.
func (c *concurrent) publish(n *ctable) {
	c.setBatch(n)
	c.cur.Store(n)
	n.rec.publish(n)
}

// setBatch sets table s's count batch (unlockAdding): a growable table's,
// so that the counts its stripes keep from approx, less than a batch each,
// total a 64th of the stage's at most; 0 for a fixed table, which keeps no
// approx.
func (c *concurrent) setBatch(s *ctable) {
	s.batch = 0
	if s.t.canGrow() {
		s.batch = int32(max(1, uint64(s.t.fill)/(64*(s.smask+1))))
	}
}

// stageFull reports whether growable table s holds its stage's capacity:
// by approx alone where it is that far below, else by the stripes' exact
// counts (a batch of 1 keeps approx exact).
func (c *concurrent) stageFull(s *ctable) bool {
	a, fill := c.approx.Load(), int64(s.t.fill)
	if a < fill-int64(s.batch-1)*int64(s.smask+1) {
		return false
	}
	return s.batch == 1 || c.lenOf(s.smask+1) >= s.t.fill
}

func (c *concurrent) delete(h uint64) bool {
	for {
		s := c.cur.Load()
		if s == nil {
			return false
		}
		b1, v1, b2, v2 := s.t.place(h)
		l1, l2 := b1&s.smask, b2&s.smask
		c.lock2(l1, l2)
		if c.cur.Load() != s {
			c.unlock2(s, l1, l2, 0)
			continue
		}
		b, slots := [2]uint64{b1, b2}, [2][4]uint32{s.slots(b1), s.slots(b2)}
		j, k := s.t.oldest(&slots, [2]uint32{v1, v2}, c.genV, false)
		if k >= 0 {
			s.replace(b[j], slots[j], uint(k), 0)
		}
		c.unlock2(s, l1, l2, -int64(b2i(k >= 0)))
		return k >= 0
	}
}

// reset publishes a new empty table rather than clear the current one,
// which would hold every stripe odd, and lookups waiting, meanwhile.
func (c *concurrent) reset() {
	if c.cur.Load() == nil {
		return
	}
	c.stop()
	defer c.start()
	s := c.cur.Load()
	n := newCtable(s.t.firstShape())
	n.rec = s.rec
	c.publish(n)
	// Every stripe's count goes, held: a grown table's stripes are more than
	// its first table's, and lenOf counts only the current table's.
	for i := range c.held {
		c.locks[i].state.Store(1)
		c.locks[i].pend = 0
	}
	c.approx.Store(0)
	c.count, c.stopped, c.rng, c.genV = 0, 0, c.h.seed, 0
	c.gen.Store(0)
	c.shrink = shrinkState{}
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// errZeroConcurrent is what needs a table returns on a zero ConcurrentFilter.
var errZeroConcurrent = formatErr(ErrIncompatible, "the ConcurrentFilter was made neither by NewConcurrent, by NewConcurrentFrom of a Filter with a table, nor by decoding: a zero ConcurrentFilter has no table")
