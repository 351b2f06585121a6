package cuckoo

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// ConcurrentFilter's protocol: lookups that take no lock beside any number
// of writers, and never a false negative; an insert into a free slot that
// takes no lock either.
//
// Stripes. A table's (ctable's) buckets are split into stripes, stripe(b) =
// b mod S (S a power of two, at most 1024), each with a version and a lock
// (concurrent_locks.go). What may remove a fingerprint from a bucket, or
// move one (a delete, a displacement, an expiring key's refresh, Advance),
// holds the stripes of the buckets it changes, taken in ascending order so
// that no writers wait in a cycle, and changes a bucket in a write session,
// the stripe's version odd meanwhile.
//
// Claims. Fills need neither. In a free table (fixed, packed, one-word
// buckets: ctable.free) an insert claims an empty slot by one
// compare-and-swap of the aligned word that holds it (ctable.claim), with
// no lock and no counter: it fails if any bit of that word changed since
// the insert read it, so two claims never take one slot. A slot across two
// words is filled holding its bucket's stripe, as no claim touches it. In
// other tables (semi-sorted, whose fill re-sorts a bucket; growable, which
// must count its stage; f > 16) a fill holds its buckets' stripes.
//
// Bits. Buckets share words with their neighbours, so no writer stores a
// word it read: a holder changes its full slots by xoring their difference
// in by compare-and-swap (ctable.flip), and fills by claim or atomic or.
// A claim changes only an empty slot's bits and a holder's flip only a full
// slot's, so each leaves the other's bits as they were, whatever the order.
//
// Readers take no lock and store nothing: they atomically load the table
// pointer, a key's two buckets and, to answer "absent", two versions. A
// claim or a fill only adds a fingerprint and needs no session. Go's
// atomics are sequentially consistent, so a reader whose load sees a change
// sees all its writer did before it.
//
// The invariant: outside a session on one of its two buckets, every stored
// key's fingerprint is in one of them. A displacement path is found without
// a lock (concurrent_search.go), then, its stripes held, checked and
// applied from its free end back, each fingerprint copied into its new
// bucket before its old slot is overwritten. Its free end is claimed too: a
// claim that took it first makes the writer search again, having changed
// nothing. A key's fingerprint moves only between its two buckets, and a
// writer moving it holds both: at most one session at a time can take it
// from a bucket.
//
// A lookup loads both buckets' versions, reads both buckets, and answers
// "found" at once (a torn read can only make up a false positive). Else it
// answers "absent" only if both versions were even and are unchanged: no
// session overlapped the reads, so at their start the invariant put the
// fingerprint in one bucket, and no session removed it before it was read.
// Else it reads again, after maxOptimistic tries holding both stripes.
//
// Stopping. Growth, Advance, Reset, Merge, Clone, Snapshot and the encoders
// hold every stripe (stop), which stops every writer but claims, as does an
// insert that cannot tell otherwise whether it fails (ErrFull,
// ErrTooManyDuplicates). Claims only fill: a table full for a stopped
// writer stays full. Growth and Reset publish a new table with one atomic
// pointer store; a writer notices it once it holds a stripe and starts
// again there (a claim into a table Reset replaced is an insert before the
// Reset); a lookup answers for the table it loaded. Clone, Snapshot
// and the encoders copy the words atomically and count the copy. Merge
// copies the table and publishes the merge: it seals the old table first,
// and a claim that sees the seal after its compare-and-swap, which the copy
// may have missed, waits for Merge and, if it replaced the table, inserts
// again (the key may then be stored twice). Advance clears the reused
// generation's slots in sessions first and only then stores it as the one
// inserts take (genV, which claims load): stored before the pass, a claim
// of it into a bucket the pass had yet to reach would be cleared at once.
// Reset stores generation 0 before it publishes its table, so a claim that
// loads the new table loads it. An insert stores a generation current at
// some moment during its call.
//
// InsertUnique looks first without a lock: a key found (in an expiring
// table, in the current generation) returns false. Else it decides and
// inserts holding its first bucket's stripe, which every decision for the
// key holds, so of concurrent calls for one key exactly one adds it: in a
// free table that does not expire that stripe alone (claimUnique), as
// what moves or deletes the key's fingerprint holds both of its stripes;
// else both. Len counts a free table's filled slots (about 8
// instructions a bucket), as claims count nowhere; other tables sum the
// stripes' counts, each stored with its stripe's unlock. No word is written
// by every insert. concurrent_model_test.go checks every interleaving of a
// reader with a writer, with two writers whose stripes are apart, and with
// a claim beside a writer that holds the claim's bucket.

// ConcurrentFilter is a cuckoo filter that many goroutines may use at once,
// made with NewConcurrent, or NewConcurrentFrom a Filter: every method is
// safe for concurrent use but the decoders (UnmarshalBinary, UnmarshalText,
// ReadFrom), which replace the whole filter. Queries (Contains, Count,
// ContainsBatch, their ...Hash forms, Hash) take no lock, unless writes keep
// spoiling their reads, and never report a stored key absent whatever
// writers do. Inserts and deletes (Insert, InsertBatch, InsertUnique,
// Delete, their ...Hash forms) run from any number of goroutines at once:
// in a fixed Packed filter of at most 16-bit fingerprints an insert into a
// free slot is one compare-and-swap, InsertUnique of a key already there a
// lookup, and anything else holds only the stripes of the buckets it
// changes; a writer that waits spins briefly, then sleeps. Advance, Reset,
// Merge, Clone, Snapshot, the encoders, a doubling of a growable filter, and
// an insert into a filter too full to tell otherwise whether it fails stop
// the writers meanwhile. It encodes in Filter's format; Snapshot returns a
// Filter copy (for AppendCompact or EncodedSize, which this type lacks).
//
// It answers as a Filter holding the same keys does; only its table's bytes
// differ (which free slot a key takes, and displacements along shortest
// paths here), and so, near full, may which inserts fail. The zero ConcurrentFilter acts as
// the zero Filter does; Clone and Snapshot of it are zero too.
type ConcurrentFilter[T Hashable] struct {
	c concurrent
}

// concurrent is a ConcurrentFilter's state, shared by every key type.
type concurrent struct {
	// What lookups read: never written after NewConcurrent but cur.
	h           hasher
	kind        keyKind
	keys        probeKind // reader.keys
	cur         atomic.Pointer[ctable]
	capacity    int
	maxCapacity int

	_ cpu.CacheLinePad // writers' stores stay off the readers' lines

	// What every writer reads, claims too, and only stop's holder writes.
	locks    []stripeLock // the writers' (concurrent_locks.go)
	maxKicks int
	gen      atomic.Uint32
	// The current generation's bits as the current table's slots hold them
	// (a published table's genV, which readers may copy, is never written).
	genV atomic.Uint32

	_      cpu.CacheLinePad
	approx atomic.Int64 // a growable filter's Len, give or take a batch a stripe (unlockAdding)

	_ cpu.CacheLinePad // the displacing writer's and stop's, off the lines above
	// What the writer holding every stripe (stop) uses: the count of a
	// table that is not free, exact meanwhile, and the PRNG (a Filter's
	// state, kept for Snapshot and the encoding).
	count   int
	rng     uint64
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
	r := reader{h: newHasher(p.seed), kind: kindOf[T](), keys: keysOf(kindOf[T]()), capacity: p.capacity,
		maxCapacity: p.maxCapacity}
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
	c.h, c.kind, c.keys, c.capacity, c.maxCapacity = r.h, r.kind, r.keys, r.capacity, r.maxCapacity
	c.maxKicks, c.rng, c.count = maxKicks, rng, r.count
	c.path = make([]pathNode, 0, searchBuckets*maxKicks+2)
	c.locks = locksFor(s.t.m0 << s.t.g) // the last table's stripes
	c.locks[0].state.Store(uint64(r.count) << lockShift)
	c.approx.Store(int64(r.count))
	c.gen.Store(uint32(s.t.gen()))
	c.genV.Store(s.t.genV)
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
	return f.c.lookup(f.c.keys, 0, unsafe.Pointer(&key))
}

// ContainsHash is Contains for a key hashed with Hash.
func (f *ConcurrentFilter[T]) ContainsHash(h uint64) bool {
	return f.c.lookup(probeHashed, h, nil)
}

// Count is Filter.Count; while writers run, it counts what the buckets held
// at one moment during the call, give or take copies inserted meanwhile.
func (f *ConcurrentFilter[T]) Count(key T) int { return f.c.copies(f.c.keys, 0, unsafe.Pointer(&key)) }

// CountHash is Count for a key hashed with Hash.
func (f *ConcurrentFilter[T]) CountHash(h uint64) int { return f.c.copies(probeHashed, h, nil) }

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
// key already there (in an expiring filter, inserted in the current
// generation) costs a lookup: no lock, no store. A harness counting new
// keys so counts none twice, and misses about D x FalsePositiveRate of D
// distinct keys: FalsePositiveRate below 1/D makes the count exact in
// expectation (Filter.InsertUnique).
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
	hits, pk := 0, c.keys
	if k == kindHash {
		pk = probeHashed
	}
	for i := range n {
		h, q := kindArgs(k, unsafe.Add(p, uintptr(i)*size))
		ok := c.lookup(pk, h, q)
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
// way, and within the writes under way of it otherwise. A fixed Packed
// filter of at most 16-bit fingerprints counts its table's filled slots,
// as its lock-free inserts write no counter: it reads the whole table,
// about 3 ms for a Capacity of 4M (BenchmarkConcurrentLen); call it
// between batches, not for every key. Others sum a count a stripe, at most
// 1024, about 1 µs.
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
	return reader{t: c.cur.Load().t, h: c.h, kind: c.kind, keys: c.keys, count: c.len(),
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

// lookup reports whether the filter may hold a key of key class pk, as
// reader.lookup takes it: one switch on pk and the current table's probe
// picks the hash and the probe, which loads both buckets' versions, then
// the buckets; whole-byte and nibble-aligned buckets share loadNarrow, whose
// shift is branch-free. Tables of wider buckets, and retries, read by
// countIn (lookupAt); strings and []byte hash in lookupString, keys of
// other kinds in lookupKey. The exhaustive case list is reader.lookup's,
// written again: it spares the jump table a bounds check. Nosplit as
// reader.lookup.
//
//go:nosplit
func (c *concurrent) lookup(pk probeKind, h uint64, p unsafe.Pointer) bool {
	var s *ctable
	if s = c.cur.Load(); s == nil { // a zero ConcurrentFilter: empty
		return false
	}
	t := &s.t
	// Base addresses in locals, as the compiler reloads fields after each
	// atomic load; versions first, so their loads overlap the buckets' misses.
	w, seq := unsafe.Pointer(unsafe.SliceData(s.words)), unsafe.Pointer(unsafe.SliceData(s.seq))
	var i1, i2, q1, q2 uint64
	var hit bool
	switch (pk | t.probe) & 63 {
	case probeInts | probe8:
		h = c.h.u64(*(*uint64)(p))
		fallthrough
	case probeHashed | probe8: // a bucket is half a word
		var fp uint32
		fp, i1 = locateOn(h, t.fpRange, t.m0)
		i2, q1 = t.alt(i1, fp), version(seq, i1&s.smask)
		q2 = version(seq, i2&s.smask)
		var x uint64
		if unalignedLoads { // the words are the byte stream: a bucket is 4 aligned bytes
			x = uint64(atomic.LoadUint32((*uint32)(unsafe.Add(w, i1*4)))) | uint64(atomic.LoadUint32((*uint32)(unsafe.Add(w, i2*4))))<<32
		} else {
			x = loadWord(w, i1>>1)>>(i1&1*32)&(1<<32-1) | loadWord(w, i2>>1)>>(i2&1*32)<<32
		}
		x ^= uint64(fp) * ones8
		hit = (x-ones8)&^x&tops8 != 0
	case probeInts | probe16:
		h = c.h.u64(*(*uint64)(p))
		fallthrough
	case probeHashed | probe16: // a bucket is a word
		var fp uint32
		fp, i1 = locateOn(h, t.fpRange, t.m0)
		i2, q1 = t.alt(i1, fp), version(seq, i1&s.smask)
		q2 = version(seq, i2&s.smask)
		pat := uint64(fp) * ones16
		x1, x2 := loadWord(w, i1)^pat, loadWord(w, i2)^pat
		hit = ((x1-ones16)&^x1|(x2-ones16)&^x2)&tops16 != 0
	case probeInts | probeBytes, probeInts | probeNibbles:
		h = c.h.u64(*(*uint64)(p))
		fallthrough
	case probeHashed | probeBytes, probeHashed | probeNibbles: // keyLanes: generation bits are not compared
		var fp uint32
		fp, i1 = locateOn(h, t.fpRange, t.m0)
		i2, q1 = t.alt(i1, fp), version(seq, i1&s.smask)
		q2 = version(seq, i2&s.smask)
		pat := uint64(fp) * t.keyLanes.onesLo
		hit = t.keyLanes.anyZero(loadNarrow(w, i1*uint64(t.bbits))^pat, loadNarrow(w, i2*uint64(t.bbits))^pat)
	case probeInts | probeSemi, probeInts | probeSemiNibbles:
		h = c.h.u64(*(*uint64)(p))
		fallthrough
	case probeHashed | probeSemi, probeHashed | probeSemiNibbles:
		var fp uint32
		fp, i1 = locateOn(h, t.fpRange, t.m0)
		i2, q1 = t.alt(i1, fp), version(seq, i1&s.smask)
		q2 = version(seq, i2&s.smask)
		bp := uint64(fp>>(t.w&31)) * 0x1111 // the mask spares a check of the shift
		bl := uint64(fp&t.lowMask) * t.semiLanes.onesLo
		hit = t.semiLanes.anyZero(t.semiLows(loadNarrow(w, i1*uint64(t.bbits)), bp, bl), t.semiLows(loadNarrow(w, i2*uint64(t.bbits)), bp, bl))
	case probeInts | probeExpSemi:
		h = c.h.u64(*(*uint64)(p))
		fallthrough
	case probeHashed | probeExpSemi:
		var fp uint32
		fp, i1 = locateOn(h, t.fpRange, t.m0)
		i2, q1 = t.alt(i1, fp), version(seq, i1&s.smask)
		q2 = version(seq, i2&s.smask)
		bp := uint64(fp>>(t.w&31)) * 0x1111
		bl := uint64(fp&t.lowMask) * t.semiLanes.onesLo
		hit = t.semiLanes.anyZero(t.semiKeyLows(loadNarrow(w, i1*uint64(t.bbits)), bp, bl), t.semiKeyLows(loadNarrow(w, i2*uint64(t.bbits)), bp, bl))
	case probeInts | probeGrownNarrow:
		h = c.h.u64(*(*uint64)(p))
		fallthrough
	case probeHashed | probeGrownNarrow: // the buckets where the stage puts them, for the values they hold there
		fp, b := locateOn(h, t.fpRange, t.m0)
		l1, l2 := t.layers(h, fp)
		var v1, v2 uint32
		i1, v1 = t.staged(b, l1, fp)
		i2, v2 = t.staged(t.alt(b, fp), l2, fp)
		q1 = version(seq, i1&s.smask)
		q2 = version(seq, i2&s.smask)
		ones := t.keyLanes.onesLo
		hit = t.keyLanes.anyZero(loadNarrow(w, i1*uint64(t.bbits))^uint64(v1)*ones, loadNarrow(w, i2*uint64(t.bbits))^uint64(v2)*ones)
	case probeInts | probeGrown, probeInts | probeGeneric:
		h = c.h.u64(*(*uint64)(p))
		fallthrough
	case probeHashed | probeGrown, probeHashed | probeGeneric:
		return c.lookupAt(s, h)
	case probeKeys, probeKeys | 1, probeKeys | 2, probeKeys | 3, probeKeys | 4, probeKeys | 5, probeKeys | 6, probeKeys | 7,
		probeKeys | 8, probeKeys | 9, probeKeys | 10, probeKeys | 11, probeKeys | 12, probeKeys | 13, probeKeys | 14, probeKeys | 15:
		return c.lookupKey(p)
	case probeString | 1, probeString | 2, probeString | 3, probeString | 4, probeString | 5, probeString | 6,
		probeString | 7, probeString | 8, probeString | 9, probeString | 10:
		return c.lookupString(p)
	case probeInts | probeNone, probeInts | 11, probeInts | 12, probeInts | 13, probeInts | 14, probeInts | 15,
		probeHashed | probeNone, probeHashed | 11, probeHashed | 12, probeHashed | 13, probeHashed | 14, probeHashed | 15,
		probeString | probeNone, probeString | 11, probeString | 12, probeString | 13, probeString | 14, probeString | 15:
		return false // values no probe and key class make: every one a case spares the jump a bounds check
	}
	if hit {
		return true
	}
	if (q1|q2)&1 == 0 && version(seq, i1&s.smask) == q1 && version(seq, i2&s.smask) == q2 {
		return false
	}
	return c.lookupAt(s, h) // a write session overlapped: read again
}

// version loads version counter i of the counters at seq: by the
// intrinsic, as atomic.Uint64.Load's inlined call leaves a NOP in lookup.
func version(seq unsafe.Pointer, i uint64) uint64 {
	return atomic.LoadUint64((*uint64)(unsafe.Add(seq, i*8)))
}

// lookupKey is lookup of a key of class probeKeys (reader.lookupKey).
//
//go:noinline
func (c *concurrent) lookupKey(p unsafe.Pointer) bool {
	return c.lookup(probeHashed, c.h.otherKey(c.kind, p), nil)
}

// lookupString is lookup of a key of class probeString
// (reader.lookupString).
//
//go:noinline
func (c *concurrent) lookupString(p unsafe.Pointer) bool {
	s := *(*string)(p)
	if uint64(len(s))-9 > 7 {
		return c.lookup(probeHashed, c.h.str(s), nil)
	}
	return c.lookup(probeHashed, c.h.str16(s), nil)
}

// lookupAt is a lookup of hash h in table s by countIn, which locates the
// buckets itself, so that lookup keeps only h live.
func (c *concurrent) lookupAt(s *ctable, h uint64) bool { return c.countIn(s, h) > 0 }

// copies is Count and CountHash: the key of key class pk as lookup takes
// it, hashed by the case of lookup's switch on pk and the current table's
// probe, then counted by countIn, whose reads are validated whatever they
// count. A zero ConcurrentFilter (no table) counts none.
func (c *concurrent) copies(pk probeKind, h uint64, p unsafe.Pointer) int {
	s := c.cur.Load()
	if s == nil {
		return 0
	}
	switch (pk | s.t.probe) & 63 {
	case probeInts | probe8, probeInts | probeBytes, probeInts | probeNibbles, probeInts | probe16,
		probeInts | probeSemi, probeInts | probeSemiNibbles, probeInts | probeExpSemi,
		probeInts | probeGrownNarrow, probeInts | probeGrown, probeInts | probeGeneric:
		h = c.h.u64(*(*uint64)(p))
	case probeKeys | probe8, probeKeys | probeBytes, probeKeys | probeNibbles, probeKeys | probe16,
		probeKeys | probeSemi, probeKeys | probeSemiNibbles, probeKeys | probeExpSemi,
		probeKeys | probeGrownNarrow, probeKeys | probeGrown, probeKeys | probeGeneric:
		h = c.h.otherKey(c.kind, p)
	case probeString | probe8, probeString | probeBytes, probeString | probeNibbles, probeString | probe16,
		probeString | probeSemi, probeString | probeSemiNibbles, probeString | probeExpSemi,
		probeString | probeGrownNarrow, probeString | probeGrown, probeString | probeGeneric:
		h = c.h.str(*(*string)(p))
	case probeHashed | probe8, probeHashed | probeBytes, probeHashed | probeNibbles, probeHashed | probe16,
		probeHashed | probeSemi, probeHashed | probeSemiNibbles, probeHashed | probeExpSemi,
		probeHashed | probeGrownNarrow, probeHashed | probeGrown, probeHashed | probeGeneric:
	default:
		return 0 // values no probe and key class make
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

// insert adds the key of kind k at p (a hash for kindHash), hashed here
// so that a free insert is one call: in a free table by a claim of the
// first claimable slot of its first bucket that has one, both read first so
// that their misses overlap, the choice made without a branch on a slot's
// position; by a claim of a slot across two words holding its bucket's
// stripe alone (fillHeld); else, or if another claim took the slot first,
// by put. A claim that Merge may have missed (sealed) waits for it and, if
// Merge replaced the table, inserts again in the new one.
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
	if s := c.cur.Load(); s.free {
		t := &s.t
		fp, i1 := t.locate(h)
		i2 := altBySign(i1, fp, t.m0)
		v := fp | c.genV.Load() // 0 if keys never expire
		w1, w2 := s.word(i1), s.word(i2)
		at, ok := s.slotFor(i1, w1, i2, w2)
		if ok {
			ok = s.claim(at, v)
		} else if t.lanes.zero64(w1)|t.lanes.zero64(w2) != 0 { // room across two words
			i := i1
			if t.lanes.zero64(w1) == 0 {
				i = i2
			}
			ok = c.fillHeld(s, i, v)
		}
		if ok {
			if !s.sealed.Load() {
				return nil
			}
			c.mu.Lock() // Merge's stop holds mu until it returns
			c.mu.Unlock()
			if c.cur.Load() == s {
				return nil
			}
		}
	}
	_, err := c.put(h, false)
	return err
}

// fillHeld puts v into an empty slot of bucket b of free table s holding
// b's stripe alone, which a slot across two words needs, and reports
// whether it did.
func (c *concurrent) fillHeld(s *ctable, b uint64, v uint32) bool {
	l := &c.locks[b&s.smask]
	l.lock()
	ok := c.cur.Load() == s && s.claimHeld(b, s.word(b), v)
	l.release(0)
	return ok
}

// insertHashes inserts hs in order, the next chunk's buckets fetched
// meanwhile, and returns how many went in.
func (c *concurrent) insertHashes(hs []uint64) (int, error) {
	if c.kind == kindInvalid {
		return 0, errZeroConcurrent
	}
	c.cur.Load().prefetch(hs[:min(len(hs), batchChunk)])
	for off := 0; off < len(hs); off += batchChunk {
		end := min(off+batchChunk, len(hs))
		if end < len(hs) {
			c.cur.Load().prefetch(hs[end:min(end+batchChunk, len(hs))])
		}
		for i := range hs[off:end] {
			if err := c.insert(kindHash, unsafe.Pointer(&hs[off+i])); err != nil {
				return off + i, err
			}
		}
	}
	return len(hs), nil
}

// insertUnique is InsertUnique: a key already there, in a table that
// does not expire, answers by lookup's probe; a new one in a free table is
// decided and claimed holding one stripe (claimUnique); anything else goes
// to put.
func (c *concurrent) insertUnique(h uint64) (bool, error) {
	if c.kind == kindInvalid {
		return false, errZeroConcurrent
	}
	if s := c.cur.Load(); s.t.genBits == 0 {
		if c.lookup(probeHashed, h, nil) {
			return false, nil
		}
		if s.free && c.claimUnique(s, h) {
			return true, nil
		}
	}
	return c.put(h, true)
}

// claimUnique adds the key of hash h to free table s, which does not
// expire, if its buckets lack it, holding the stripe of its first bucket
// b1 alone, and reports whether it did; if not (a hit, a lost claim, no
// slot it may fill), put decides. Of concurrent calls for one key exactly
// one adds it, as each decides holding b1's stripe, which put takes too.
// A miss is sure: while b1's stripe is held, no value equal to the key's
// leaves b1 or b2, as such a value's buckets are b1 and b2 (alt is an
// involution) and what moves or deletes it holds both stripes; claims
// only add; so a read of the buckets, torn or not, holds it if they do.
func (c *concurrent) claimUnique(s *ctable, h uint64) bool {
	t := &s.t
	fp, i1 := t.locate(h)
	i2 := t.alt(i1, fp)
	l := &c.locks[i1&s.smask]
	l.lock()
	w1, w2 := s.word(i1), s.word(i2)
	ok := c.cur.Load() == s
	if pat := uint64(fp) * t.lanes.onesLo; ok && t.lanes.anyZero(w1^pat, w2^pat) {
		ok = false // there, or a false positive: put tells
	} else if ok {
		if p, room := s.slotFor(i1, w1, i2, w2); room {
			ok = s.claim(p, fp)
		} else { // a slot across two words, b1's alone held
			ok = s.claimHeld(i1, w1, fp)
		}
	}
	l.release(0)
	return ok
}

// put inserts the key of hash h, holding stripes, and reports whether it
// added it: with unique, unless its buckets hold it (InsertUnique, which in
// an expiring table refreshes it), which a lookup tells first without a
// lock if it needs no refresh, else deciding holding both buckets'
// stripes. A writer holds the stripes of the buckets it changes, in
// ascending order: the key's for a free slot or a one-step move, a path's
// for a longer one, found beforehand without a lock and checked once held
// (displace). Anything else (a failing search, a growable table at its
// stage's capacity) runs as the one writer, holding every stripe (putAll).
// A table replaced meanwhile (a doubling, Reset, Merge) is noticed once a
// stripe is held, and the insert starts again in the new one.
func (c *concurrent) put(h uint64, unique bool) (bool, error) {
	for {
		s := c.cur.Load()
		t := &s.t
		b1, v1, b2, v2 := t.place(h)
		if unique && s.t.genBits != 0 && c.present(s, b1, v1, b2, v2) {
			return false, nil
		}
		if t.canGrow() && c.stageFull(s) {
			return c.putAll(h, unique) // doubles first
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

// present reports, from reads without a lock, whether expiring table s
// holds the key its buckets b1 and b2 would hold as v1 and v2 in the
// current generation, so that InsertUnique need not refresh it (a table
// that does not expire asks lookup, in insertUnique). A read torn by a
// writer may make up a hit, as rarely as a false positive; a miss is
// decided again holding the stripes (refresh).
func (c *concurrent) present(s *ctable, b1 uint64, v1 uint32, b2 uint64, v2 uint32) bool {
	gv := c.genV.Load()
	x1, x2 := s.slots(b1), s.slots(b2)
	for k := range slotsPerBucket {
		if x1[k] == v1|gv || x2[k] == v2|gv {
			return true
		}
	}
	return false
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
	gv := c.genV.Load()
	lo1, hi1 := s.read(b1) // both read first: their misses overlap
	lo2, hi2 := s.read(b2)
	ok := false
	for !ok && (t.roomIn(lo1, hi1) || t.roomIn(lo2, hi2)) {
		if ok = s.addTo(b1, lo1, hi1, v1|gv) || s.addTo(b2, lo2, hi2, v2|gv); !ok {
			lo1, hi1 = s.read(b1) // a claim took the room: both may be full now
			lo2, hi2 = s.read(b2)
		}
	}
	// Both full, which they stay: only a holder empties a slot. moveNear
	// reads 8 buckets, within search's budget for MaxKicks >= 2.
	ok = ok || t.class.oneWord() && c.maxKicks >= 2 && c.moveNear(s, b1, lo1, b2, lo2, v1|gv, false)
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
	gv := c.genV.Load()
	b, slots := [2]uint64{b1, b2}, [2][4]uint32{s.slots(b1), s.slots(b2)}
	j, k := s.t.oldest(&slots, [2]uint32{v1, v2}, gv, true)
	if k < 0 {
		return false
	}
	if v := slots[j][k]&uint32(s.t.keyMask) | gv; slots[j][k] != v {
		s.replace(b[j], slots[j], uint(k), v)
	}
	return true
}

// putAll is put as the one writer: holding every stripe, as a Filter
// inserts (growing a growable table when its stage is full), and telling
// ErrFull and ErrTooManyDuplicates. Claims go on meanwhile in a free
// table: they only fill slots, so a full table stays full.
func (c *concurrent) putAll(h uint64, unique bool) (bool, error) {
	c.stop()
	defer c.start()
	if s := c.cur.Load(); unique {
		if b1, v1, b2, v2 := s.t.place(h); c.refresh(s, b1, v1, b2, v2) {
			return false, nil
		}
	}
	if err := c.insertAll(c.cur.Load(), h, c.genV.Load()); err != nil {
		return false, err
	}
	return true, nil
}

// insertAll is Filter's insert, every stripe held, of the key of hash h
// with generation bits gv (genV, or InsertFor's). A doubling runs
// core.insertGrowing, which writes only new tables no reader sees, and
// publishes the one holding the key; a failed insert publishes nothing.
func (c *concurrent) insertAll(s *ctable, h uint64, gv uint32) error {
	full := s.t.canGrow() && c.count >= s.t.stageCapacity() // doubles first
	if !full {
		b1, v1, b2, v2 := s.t.place(h)
		err := c.insertAt(s, b1, v1|gv, b2, v2|gv)
		if err != ErrFull || !s.t.canGrow() {
			return err
		}
	}
	// Its first write is to a doubled table: the stage is full, or ErrFull.
	r := c.reader(s.t)
	r.t.genV = gv
	g := newCore(r, c.maxKicks)
	g.rng = c.rng
	x := placedKey{h: h}
	if err := g.insertGrowing(&x, !full); err != nil {
		return err // the PRNG state too is as it was
	}
	if unsafe.SliceData(g.t.data) == unsafe.SliceData(s.t.data) {
		panic("cuckoo: a growable insert ended in the published table")
	}
	// The current generation's bits in the doubled table, whose keys are
	// a bit narrower.
	g.t.genV = c.gen.Load() << (g.t.kbits & 31)
	c.rng = g.rng
	c.genV.Store(g.t.genV)
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
	for { // a claim may take the path's free end: it only fills the table
		path, end := s.search(c.path, c.maxKicks, b1, v1, b2, v2)
		if end < 0 {
			if s.count(b1, v1)+s.count(b2, v2) == 2*slotsPerBucket {
				return ErrTooManyDuplicates
			}
			return ErrFull
		}
		if s.apply(path, end) {
			c.count++
			return nil
		}
	}
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
		j, k := s.t.oldest(&slots, [2]uint32{v1, v2}, c.genV.Load(), false)
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
	// The generation first: a claim that loads the new table loads genV
	// after it.
	c.gen.Store(0)
	c.genV.Store(0)
	c.publish(n)
	// Every stripe's count goes, held: a grown table's stripes are more than
	// its first table's, and lenOf counts only the current table's.
	for i := range c.held {
		c.locks[i].state.And(lockHeld | lockParked) // held, its sleepers still noted
		c.locks[i].pend = 0
	}
	c.approx.Store(0)
	c.count, c.stopped, c.rng = 0, 0, c.h.seed
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
