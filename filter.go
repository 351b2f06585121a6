package cuckoo

import (
	"math"
	"math/bits"
	"unsafe"
)

// Filter is a cuckoo filter of keys of type T: a set that answers "maybe
// present" or "certainly absent" with two memory accesses and about f/0.95
// bits per key.
//
// Contains, Count, Hash and the other read-only methods may be called from
// many goroutines at once. A call that changes the filter (Insert, Delete,
// Reset, ...) needs exclusive access; a ConcurrentFilter needs none.
//
// Make filters with New. The zero Filter holds no table: UnmarshalBinary,
// UnmarshalText and ReadFrom turn it into a decoded filter, the encoding
// methods return an error, Seed returns 0, Clone returns another zero
// Filter, String says it is zero, the counts (Len, Capacity, Slots, ...)
// are 0 (LoadFactor and EstimatedFalsePositiveRate NaN), and the other
// methods (queries, inserts, deletes, batches, Merge) panic.
//
// A Filter value must not be copied: g := *f makes a second Filter that
// shares f's table but counts its items separately, so a change through
// either corrupts the other. Clone makes an independent copy.
type Filter[T Hashable] struct {
	c core
}

// reader is what answering queries needs; Filter and View share it, so both
// take the same lookup code.
type reader struct {
	h           hasher
	kind        keyKind // how keys of the filter's type are hashed
	t           table
	count       int
	capacity    int
	maxCapacity int // = capacity for a fixed filter
}

// core is a filter's whole state: its reader and what modifying needs.
type core struct {
	reader
	maxKicks int
	rng      uint64 // displacement PRNG state, seeded from the seed
	kickBuf  []byte // the path of a long displacement walk; see kick
}

// New returns an empty filter, or an error wrapping ErrInvalidConfig that
// names the offending Config field.
//
// On Linux, New asks the kernel to back the table's whole 2 MiB pages with
// transparent huge pages (madvise MADV_HUGEPAGE). Measured in the README
// ("Performance"): lookups in a 220 MB table 15-31% faster, in a 55 MB
// table a few percent for batches and no change for single lookups.
// Whether and how soon the kernel complies is the system's THP setting.
func New[T Hashable](cfg Config) (*Filter[T], error) {
	p, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	r := reader{t: newStage(p.m, p.f, p.g, 0, p.layout), h: newHasher(p.seed), kind: kindOf[T](),
		capacity: p.capacity, maxCapacity: p.maxCapacity}
	r.setKey(p.key)
	return &Filter[T]{c: newCore(r, p.maxKicks)}, nil
}

func newCore(r reader, maxKicks int) core {
	c := core{reader: r, maxKicks: maxKicks, rng: r.h.seed}
	if maxKicks > kickStackSteps {
		c.kickBuf = make([]byte, (maxKicks+3)/4)
	}
	return c
}

// Hash returns the hash of key that the ...Hash methods take. Filters with
// the same Seed give the same hash, so a key hashed once can probe many
// filters.
func (f *Filter[T]) Hash(key T) uint64 { return hashKeyOf(&f.c.reader, key) }

// Contains reports whether key may be in the filter. It is never false for
// an inserted key that was not deleted; it is true for other keys with
// probability about EstimatedFalsePositiveRate.
func (f *Filter[T]) Contains(key T) bool { return f.c.lookup(f.c.kind, unsafe.Pointer(&key)) }

// ContainsHash is Contains for a key hashed with Hash.
func (f *Filter[T]) ContainsHash(h uint64) bool {
	return f.c.t.data != nil && f.c.lookup(kindHash, unsafe.Pointer(&h))
}

// Count returns how many copies of key's fingerprint its two buckets hold,
// 0 to 8: the copies of key inserted, plus any other key's matching
// fingerprint.
func (f *Filter[T]) Count(key T) int { return f.c.countHash(f.Hash(key)) }

// CountHash is Count for a key hashed with Hash.
func (f *Filter[T]) CountHash(h uint64) int { return f.c.countHash(h) }

// Insert adds key. It returns ErrFull if no free slot was found within
// MaxKicks displacements and ErrTooManyDuplicates if the filter already
// holds 8 copies of key's fingerprint in key's buckets. After an error the
// filter holds exactly what it held, in the same table at the same size: a
// failed insert never loses a stored key. (Only the displacement PRNG,
// which MarshalBinary records, has moved on.)
func (f *Filter[T]) Insert(key T) error { return f.c.insert(f.c.kind, unsafe.Pointer(&key)) }

// InsertHash is Insert for a key hashed with Hash.
func (f *Filter[T]) InsertHash(h uint64) error {
	if f.c.t.data == nil {
		return errZeroFilter
	}
	return f.c.insertHash(h)
}

// InsertUnique adds key unless Contains(key) already reports it. It returns
// whether it added it. A false positive makes it skip a key that was not
// there: later lookups still find that key, but Delete must not be used with
// keys inserted this way.
func (f *Filter[T]) InsertUnique(key T) (bool, error) {
	h := f.Hash(key)
	if f.ContainsHash(h) {
		return false, nil
	}
	if err := f.InsertHash(h); err != nil {
		return false, err
	}
	return true, nil
}

// Delete removes one copy of key and reports whether it found one. Delete
// only keys that were inserted: deleting a key that was not inserted may
// remove another key's matching fingerprint, and then the filter can wrongly
// answer false for that key.
func (f *Filter[T]) Delete(key T) bool { return f.c.delete(f.Hash(key)) }

// DeleteHash is Delete for a key hashed with Hash.
func (f *Filter[T]) DeleteHash(h uint64) bool { return f.c.delete(h) }

// Clone returns an independent copy of the filter: its own table with the
// same bytes, and the same Len, Capacity, Seed, MaxKicks and displacement
// PRNG state, so the copy answers like the filter and, given the same
// operations, continues to the same bytes. Later changes to either do not
// affect the other. The Clone of a zero Filter is a new zero Filter.
func (f *Filter[T]) Clone() *Filter[T] {
	if f.c.t.data == nil {
		return new(Filter[T])
	}
	g := &Filter[T]{c: newCore(f.c.reader, f.c.maxKicks)}
	g.c.t.data = newTableData(uint64(len(f.c.t.data)))
	copy(g.c.t.data, f.c.t.data)
	g.c.rng = f.c.rng
	return g
}

// Reset empties the filter and restarts its displacement PRNG, so that the
// same operations give the same table as on a new filter. A growable filter
// that has grown returns to its first table, which Reset allocates.
func (f *Filter[T]) Reset() { f.c.reset() }

// Len is the number of items stored.
func (f *Filter[T]) Len() int { return f.c.count }

// Seed is the hash seed in use: Config.Seed, or DefaultSeed when that was 0.
// Filters and views with the same Seed give the same Hash(key), so a hash
// from one probes the others; a hash from a filter of another seed misses
// every key. It is 0 only for the zero Filter.
func (f *Filter[T]) Seed() uint64 { return f.c.h.seed }

// Capacity is the Capacity the filter was made for.
func (f *Filter[T]) Capacity() int { return f.c.capacity }

// MaxCapacity is the most items the filter takes: Config.MaxCapacity for a
// growable filter, Capacity for a fixed one.
func (f *Filter[T]) MaxCapacity() int { return f.c.maxCapacity }

// Slots is the number of fingerprint slots: 4 per bucket.
func (f *Filter[T]) Slots() int { return f.c.slots() }

// LoadFactor is Len / Slots.
func (f *Filter[T]) LoadFactor() float64 { return f.c.loadFactor() }

// FingerprintBits is the fingerprint width in bits.
func (f *Filter[T]) FingerprintBits() int { return int(f.c.t.fbits) }

// Layout is the bucket encoding.
func (f *Filter[T]) Layout() Layout { return f.c.t.layout }

// SizeBytes is the size of the table in bytes, the few padding bytes at its
// end included.
func (f *Filter[T]) SizeBytes() int { return len(f.c.t.data) }

// EstimatedFalsePositiveRate is the expected false-positive rate of Contains
// at the current load.
func (f *Filter[T]) EstimatedFalsePositiveRate() float64 { return f.c.estimatedFPR() }

// hash is the hash of the key of the reader's kind at p.
func (c *reader) hash(p unsafe.Pointer) uint64 { return c.h.key(c.kind, p) }

// hashKeyOf is Hash of key by r, or for a zero Filter or View, which has no
// hasher, by a filter of the default seed.
func hashKeyOf[T Hashable](r *reader, key T) uint64 {
	if r.kind == kindInvalid {
		h := newHasher(DefaultSeed)
		return h.key(kindOf[T](), unsafe.Pointer(&key))
	}
	return r.hash(unsafe.Pointer(&key))
}

func (c *reader) countHash(h uint64) int {
	if c.t.data == nil {
		return 0
	}
	return c.t.countMatches(c.t.place(h))
}

func (c *reader) slots() int { return int(c.t.m) * slotsPerBucket }

func (c *reader) loadFactor() float64 {
	if c.t.m == 0 { // a zero filter
		return 0
	}
	return float64(c.count) / float64(c.slots())
}

// estimatedFPR is the expected rate: a growable filter that has doublings
// left matches its slots' layer bits too, 2^(g-k) times rarer.
func (c *reader) estimatedFPR() float64 {
	if c.t.m == 0 {
		return 0
	}
	return -math.Expm1(-2 * slotsPerBucket * c.loadFactor() / (float64(c.t.fpRange) * float64(uint64(1)<<(c.t.g-c.t.k))))
}

// insert adds the key of kind k at p (a hash for kindHash).
//
// Its first part is the common case of a packed table with slots of at
// most 16 bits and a free slot in one of the key's buckets, in one
// function: both buckets read before either is tested, the first with a
// free slot chosen (the compiler keeps this a branch; an arithmetic choice
// measured no faster), the slot written in place. Its second is the same
// for a fixed semi-sorted table with f <= 16 (semiAdd2Narrow). A fixed
// table goes from either straight to the displacement walk (insertFull)
// when both buckets are full; the other cases take insertSlow.
func (c *core) insert(k keyKind, p unsafe.Pointer) error {
	var h uint64
	switch k { // as in lookup
	case kindInt:
		h = c.h.u64(*(*uint64)(p))
	case kindHash:
		h = *(*uint64)(p)
	default:
		if k == kindInvalid {
			return errZeroFilter
		}
		h = c.h.key(k, p)
	}
	t := &c.t
	// Packed with slots of at most 16 bits (the first three classes are the
	// fixed tables of that kind), and a growable one that need not double.
	if t.class.packedNarrow() || t.class == classGrownNarrow && c.count < t.fill {
		fp, i1 := t.locate(h)
		i2 := t.alt(i1, fp)
		v1, v2 := fp, fp
		if t.g != 0 { // a growable table that need not double first
			l1, l2 := t.layers(h, fp)
			i1, v1 = t.staged(i1, l1, fp)
			i2, v2 = t.staged(i2, l2, fp)
		}
		z1 := t.freeMarks(t.narrowWord(i1))
		z2 := t.freeMarks(t.narrowWord(i2))
		i, v, z := i1, v1, z1
		if z1 == 0 {
			i, v, z = i2, v2, z2
		}
		if z != 0 {
			t.setSlotAt(i*uint64(t.bbits)+t.firstSlot(z, 0), v)
			c.count++
			return nil
		}
		err := c.insertFull(i1, v1, i2, v2)
		if err == ErrFull && t.canGrow() {
			return c.insertGrown(h)
		}
		return err
	}
	if t.class == classSemi {
		fp, i1 := t.locate(h)
		i2 := t.alt(i1, fp)
		if t.semiAdd2Narrow(i1, fp, i2, fp) {
			c.count++
			return nil
		}
		return c.insertFull(i1, fp, i2, fp)
	}
	return c.insertSlow(h)
}

// insertSlow is insert for everything but the common case: a full pair of
// buckets; the other layouts and widths; a growable filter (grow.go).
func (c *core) insertSlow(h uint64) error {
	if !c.t.canGrow() {
		return c.insertAt(c.t.place(h))
	}
	x := placedKey{h: h}
	return c.insertGrowing(&x, false)
}

// insertGrown is insertGrowing for the key of hash h, which has just failed
// with ErrFull at a stage that can double. Apart, so that insert's frame
// does not hold the key's placedKey.
//
//go:noinline
func (c *core) insertGrown(h uint64) error {
	x := placedKey{h: h}
	return c.insertGrowing(&x, true)
}

// insertAt adds a key that bucket i1 would hold as v1 and bucket i2 as v2.
// After an error the table is exactly as it was.
func (c *core) insertAt(i1 uint64, v1 uint32, i2 uint64, v2 uint32) error {
	if c.t.add2(i1, v1, i2, v2) {
		c.count++
		return nil
	}
	return c.insertFull(i1, v1, i2, v2)
}

// insertFull is insertAt once both buckets are known to be full.
func (c *core) insertFull(i1 uint64, v1 uint32, i2 uint64, v2 uint32) error {
	// If they hold nothing but the key's fingerprint, no displacement can
	// help: it can only ever live in these two buckets.
	if (!c.t.class.wordBuckets() || c.t.slot0Is(i1, v1)) && c.t.countMatches(i1, v1, i2, v2) == 2*slotsPerBucket {
		return ErrTooManyDuplicates
	}
	if !c.kick(i1, v1, i2, v2) {
		return ErrFull
	}
	c.count++
	return nil
}

// grow doubles a growable filter's table (geometry.go).
func (c *core) grow() { c.t = c.t.double() }

func (c *core) insertHash(h uint64) error { return c.insert(kindHash, unsafe.Pointer(&h)) }

func (c *core) delete(h uint64) bool {
	if c.t.data == nil {
		return false
	}
	i1, v1, i2, v2 := c.t.place(h)
	if c.t.remove(i1, v1) || c.t.remove(i2, v2) {
		c.count--
		return true
	}
	return false
}

func (c *core) reset() {
	if c.t.k > 0 { // a grown table: back to the first stage, as New made it
		c.t = newStage(c.t.m0, c.t.fbits, c.t.g, 0, c.t.layout)
	} else {
		clear(c.t.data)
	}
	c.count = 0
	c.rng = c.h.seed
}

// rand returns the next value of the displacement PRNG (wyrand).
func (c *core) rand() uint64 {
	c.rng += 0xa0761d6478bd642f
	hi, lo := bits.Mul64(c.rng, c.rng^0xe7037ed1a0b428db)
	return hi ^ lo
}
