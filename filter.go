package cuckoo

import (
	"math"
	"unsafe"
)

// Filter is a cuckoo filter of keys of type T: a set that answers "maybe
// present" or "certainly absent" with two memory accesses and about f/0.95
// bits per key. Make it with New, Build, BuildHashes or DecodeKeyed, or
// decode into a zero Filter. Its methods that change nothing (queries,
// introspection, Clone, encoders) may run from many goroutines at once;
// the others need exclusive access (a ConcurrentFilter's need none). A
// Filter must not be copied (a copy shares the table, not the count; go vet
// reports it): Clone makes an independent one.
//
// The zero Filter answers as an empty filter that cannot take keys: its
// queries find nothing, Delete, Reset and Advance do nothing, its counts,
// rates, Seed and Generations are 0, Hash hashes as DefaultSeed does, and
// its inserts, Merge and encoders return errors wrapping ErrIncompatible;
// the decoders turn it into a decoded filter.
type Filter[T Hashable] struct {
	_ noCopy
	c core
}

// noCopy makes go vet's copylocks check report a copied Filter, taking no
// space as the first field: vet treats a type with Lock and Unlock as a lock.
type noCopy struct{}

func (*noCopy) Lock() {}

func (*noCopy) Unlock() {}

// New returns an empty filter, or an error wrapping ErrInvalidConfig that
// names the offending Config field. It allocates the table, O(Capacity)
// bytes, asking Linux for transparent huge pages, which speed up lookups in
// large tables.
func New[T Hashable](cfg Config) (*Filter[T], error) {
	p, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	r := reader{t: newStage(p.m, p.f, p.g, 0, p.layout, p.gens), h: newHasher(p.seed), kind: kindOf[T](),
		keys: keysOf(kindOf[T]()), capacity: p.capacity, maxCapacity: p.maxCapacity}
	r.setKey(p.key)
	return &Filter[T]{c: newCore(r, p.maxKicks)}, nil
}

// Hash returns the hash of key that the ...Hash methods take, the same in
// every filter of the same Seed (and Key).
func (f *Filter[T]) Hash(key T) uint64 { return hashKeyOf(&f.c.reader, key) }

// Contains reports whether key may be in the filter. It is never false for
// an inserted key that was neither deleted nor expired (Advance); it is
// true for other keys with probability about EstimatedFalsePositiveRate.
func (f *Filter[T]) Contains(key T) bool {
	return f.c.lookup(f.c.keys, 0, unsafe.Pointer(&key))
}

// ContainsHash is Contains for a key hashed with Hash.
func (f *Filter[T]) ContainsHash(h uint64) bool {
	return f.c.lookup(probeHashed, h, nil)
}

// Count returns how many copies of key's fingerprint its two buckets hold,
// 0 to 8: key's copies, and any other key's matching fingerprint.
func (f *Filter[T]) Count(key T) int { return f.c.copies(f.c.keys, 0, unsafe.Pointer(&key)) }

// CountHash is Count for a key hashed with Hash.
func (f *Filter[T]) CountHash(h uint64) int { return f.c.copies(probeHashed, h, nil) }

// Insert adds key, with at most MaxKicks displacements. After ErrFull (they
// found no free slot) or ErrTooManyDuplicates (key's buckets hold 8 copies
// of its fingerprint) the filter holds what it held, in the same table;
// only the displacement PRNG has moved on.
func (f *Filter[T]) Insert(key T) error { return f.c.insert(f.c.kind, unsafe.Pointer(&key)) }

// InsertHash is Insert for a key hashed with Hash.
func (f *Filter[T]) InsertHash(h uint64) error {
	if f.c.t.data == nil {
		return errZeroFilter
	}
	return f.c.insertHash(h)
}

// InsertUnique adds key unless Contains(key) already reports it, and
// returns whether it added it. An error (ErrFull, ErrTooManyDuplicates, as
// Insert's) means key was not stored and is not a repeat: handle it, never
// read it as "seen". A false positive skips a key (later lookups still find
// it), so do not Delete keys inserted this way. In an expiring filter a key
// already present has its youngest copy moved to the current generation: a
// key seen once a generation never expires. There, too, a copy of another
// key with the same fingerprint and buckets can stand for it, so do not
// Delete keys that InsertUnique refreshed either.
//
// A harness that counts new keys by InsertUnique's true undercounts by its
// false positives: of D distinct keys it misses about D x FalsePositiveRate
// (each new key is taken for a repeat with at most the rate's probability,
// the filter at Capacity). For a count exact in expectation, fewer than
// one missed key, set FalsePositiveRate below 1/D: 1e-7 for a million keys.
func (f *Filter[T]) InsertUnique(key T) (bool, error) {
	h := f.Hash(key)
	if f.c.t.genBits != 0 {
		return f.c.insertUniqueExpiring(h)
	}
	if f.ContainsHash(h) {
		return false, nil
	}
	err := f.InsertHash(h)
	return err == nil, err
}

// InsertFor is Insert for a key of an expiring filter that lives ticks
// calls of Advance, 1 to Generations, instead of Generations: at least
// ticks-1 and at most ticks ticks. Its slot takes the generation that the
// ticks-th Advance from now clears, so InsertFor(key, Generations) is
// Insert(key). Other ticks, or a filter whose keys never expire, return an
// error wrapping ErrLifetime and change nothing.
func (f *Filter[T]) InsertFor(key T, ticks int) error { return f.c.insertFor(f.Hash(key), ticks) }

// InsertUniqueFor is InsertUnique with InsertFor's lifetime: an absent key
// is inserted to live ticks calls of Advance; a present key's copy with the
// most life left is given ticks if it has less, and is never shortened.
// Its errors are InsertFor's and InsertUnique's.
func (f *Filter[T]) InsertUniqueFor(key T, ticks int) (bool, error) {
	h := f.Hash(key)
	if f.c.t.data == nil {
		return false, errZeroFilter
	}
	if _, err := f.c.t.lifeGen(0, ticks); err != nil {
		return false, err
	}
	if f.c.t.genBits == 0 { // G = 1: every key lives one tick
		return f.InsertUnique(key)
	}
	return f.c.insertUniqueFor(h, uint(ticks))
}

// Delete removes one copy of key (in an expiring filter, the oldest) and
// reports whether it found one. Delete only keys that were inserted: another
// may remove a stored key's matching fingerprint, a false negative for it.
func (f *Filter[T]) Delete(key T) bool { return f.c.delete(f.Hash(key)) }

// DeleteHash is Delete for a key hashed with Hash.
func (f *Filter[T]) DeleteHash(h uint64) bool { return f.c.delete(h) }

// Clone returns an independent copy of the filter, PRNG state included, so
// that given the same operations it continues to the same bytes, in a new
// table of SizeBytes. The Clone of a zero Filter is zero.
func (f *Filter[T]) Clone() *Filter[T] {
	if f.c.t.data == nil {
		return new(Filter[T])
	}
	g := &Filter[T]{c: newCore(f.c.reader, f.c.maxKicks)}
	g.c.t.data = append(newTableData(uint64(len(f.c.t.data)))[:0], f.c.t.data...)
	g.c.rng = f.c.rng
	return g
}

// Reset empties the filter and restarts its displacement PRNG, as New made
// it; a grown filter returns to its first table, which Reset allocates.
func (f *Filter[T]) Reset() {
	c := &f.c
	if c.t.k > 0 {
		c.t = newStage(c.t.m0, c.t.fbits, c.t.g, 0, c.t.layout, c.t.gens)
	} else {
		clear(c.t.data)
		c.t.setGen(0)
	}
	c.count, c.rng, c.wait = 0, c.h.seed, 0
}

// Len is the number of items stored.
func (f *Filter[T]) Len() int { return f.c.count }

// Seed is the hash seed, the same Hash(key) in filters of the same Seed
// (and Key): Config.Seed, or DefaultSeed for 0; 0 only for the zero Filter.
func (f *Filter[T]) Seed() uint64 { return f.c.h.seed }

// Capacity is how many distinct keys the filter's table accepts from empty,
// with MaxKicks at its default or above: Config.Capacity (or MaxCapacity, see
// Config.MaxCapacity) for a filter made by New; for one made by Build or
// decoded from a compact encoding, whose Len may exceed it, what New
// promises for a table of its size.
func (f *Filter[T]) Capacity() int { return f.c.capacity }

// MaxCapacity is how many distinct keys the filter accepts from empty,
// growing: Config.MaxCapacity, or Capacity for a fixed filter.
func (f *Filter[T]) MaxCapacity() int { return f.c.maxCapacity }

// Slots is the number of fingerprint slots: 4 per bucket.
func (f *Filter[T]) Slots() int { return f.c.slots() }

// LoadFactor is Len / Slots.
func (f *Filter[T]) LoadFactor() float64 { return f.c.loadFactor() }

// FingerprintBits is the fingerprint width in bits.
func (f *Filter[T]) FingerprintBits() int { return int(f.c.t.fbits) }

// Layout is the bucket encoding.
func (f *Filter[T]) Layout() Layout { return f.c.t.layout }

// SizeBytes is the size of the table in bytes, its padding included.
func (f *Filter[T]) SizeBytes() int { return len(f.c.t.data) }

// EstimatedFalsePositiveRate is Contains's expected rate at the current load.
func (f *Filter[T]) EstimatedFalsePositiveRate() float64 { return f.c.estimatedFPR() }

func (c *reader) hash(p unsafe.Pointer) uint64 { return c.h.key(c.kind, p) }

// hashKeyOf is Hash of key by r, or by DefaultSeed for a zero Filter or View.
func hashKeyOf[T Hashable](r *reader, key T) uint64 {
	if r.kind == kindInvalid {
		return Hash(key)
	}
	return r.hash(unsafe.Pointer(&key))
}

func (c *reader) slots() int { return int(c.t.m) * slotsPerBucket }

func (c *reader) loadFactor() float64 {
	if c.t.m == 0 {
		return 0
	}
	return float64(c.count) / float64(c.slots())
}

// estimatedFPR is the expected rate; slots with doublings left match their
// layer bits too, 2^(g-k) times rarer.
func (c *reader) estimatedFPR() float64 {
	if c.t.m == 0 {
		return 0
	}
	return -math.Expm1(-2 * slotsPerBucket * c.loadFactor() / (float64(c.t.fpRange) * float64(uint64(1)<<(c.t.g-c.t.k))))
}

// Advance starts a new generation of an expiring filter (Config.Generations
// G) and returns how many stored keys expired: those inserted (or, by
// InsertUnique, refreshed) G calls of Advance ago, which Len no longer
// counts, whose slots inserts may reuse, and which lookups answer as keys
// never inserted. A key lives from its insert until the G-th Advance after
// it: called once a tick, at least G-1 and at most G ticks. After a pause
// (downtime, a stopped process), call it once for every tick missed, at
// most G times: G calls expire every key. With G = 1 Advance empties the
// filter; without Generations it does nothing and returns 0. It is one
// pass over the table, in order, writing the buckets it changes, and
// allocates nothing, but where it halves: a filter that grew (MaxCapacity)
// halves its table, as many times as its live keys fit the smaller table's
// Capacity (Info.TableCapacity), never below its first table, and not
// within G calls of Advance of a doubling, so a burst's memory comes back
// once its keys expire and a steady window keeps one size. A halving that
// cannot place every key changes nothing, and is tried again G calls
// later.
func (f *Filter[T]) Advance() int { return f.c.advance() }

// Shrink halves a grown filter's table as many times as its keys fit the
// smaller table's Capacity (Info.TableCapacity), never below the first
// table, and reports whether it halved: the step an expiring filter's
// Advance takes by itself, for a growable filter whose keys were deleted.
// Every key stays, and the rate stays within the configured one. A halving
// that cannot place every key leaves the filter as it was. It allocates
// the smaller table.
func (f *Filter[T]) Shrink() bool {
	halved, _ := f.c.shrink()
	return halved
}

// Generations is Config.Generations: 0 for a filter whose keys never expire.
func (f *Filter[T]) Generations() int { return int(f.c.t.gens) }
