package cuckoo

import "unsafe"

// View is a read-only filter that answers queries straight from an
// encoding (FORMAT.md), such as a memory-mapped file, with a Filter's lookup
// code and without copying the table. Make it with NewView,
// NewViewUnverified or NewKeyedView; its methods are safe for concurrent
// use. The zero View answers as an empty filter: its queries find nothing,
// its counts, rates and Seed are 0, and Hash hashes as DefaultSeed does.
//
// The bytes must not change while the View is in use; they read alike on
// any host (the table is little-endian), and the View asks for no huge pages
// (a mapper's choice). A lookup past the end of a mapped file that was
// truncated raises SIGBUS, which ends the process: map only files that
// nothing truncates (write a new one and rename it into place), or call
// debug.SetPanicOnFault(true) in the looking-up goroutine and stop using the
// View after the panic (see the mmap example).
type View[T Hashable] struct {
	r reader
}

// Hash is Filter.Hash.
func (v *View[T]) Hash(key T) uint64 { return hashKeyOf(&v.r, key) }

// Contains reports whether key may be in the filter; see Filter.Contains.
func (v *View[T]) Contains(key T) bool {
	return v.r.lookup(v.r.keys, 0, unsafe.Pointer(&key))
}

// ContainsHash is Contains for a key hashed with Hash.
func (v *View[T]) ContainsHash(h uint64) bool {
	return v.r.lookup(probeHashed, h, nil)
}

// ContainsBatch answers Contains for every key; see Filter.ContainsBatch.
func (v *View[T]) ContainsBatch(keys []T, found []bool) int { return containsKeys(&v.r, keys, found) }

// ContainsHashBatch is ContainsBatch for keys hashed with Hash.
func (v *View[T]) ContainsHashBatch(hashes []uint64, found []bool) int {
	return containsBatch(&v.r.t, hashes, found)
}

// Count is Filter.Count.
func (v *View[T]) Count(key T) int { return v.r.copies(v.r.keys, 0, unsafe.Pointer(&key)) }

// CountHash is Count for a key hashed with Hash.
func (v *View[T]) CountHash(h uint64) int { return v.r.copies(probeHashed, h, nil) }

// Len is the number of items stored.
func (v *View[T]) Len() int { return v.r.count }

// Seed is the hash seed of the encoded filter; see Filter.Seed.
func (v *View[T]) Seed() uint64 { return v.r.h.seed }

// Capacity is Filter.Capacity of the filter the view reads.
func (v *View[T]) Capacity() int { return v.r.capacity }

// Slots is the number of fingerprint slots: 4 per bucket.
func (v *View[T]) Slots() int { return v.r.slots() }

// LoadFactor is Len / Slots.
func (v *View[T]) LoadFactor() float64 { return v.r.loadFactor() }

// FingerprintBits is the fingerprint width in bits.
func (v *View[T]) FingerprintBits() int { return int(v.r.t.fbits) }

// Layout is the bucket encoding.
func (v *View[T]) Layout() Layout { return v.r.t.layout }

// SizeBytes is the size of the table (the encoding's part it reads).
func (v *View[T]) SizeBytes() int { return len(v.r.t.data) }

// EstimatedFalsePositiveRate is Filter.EstimatedFalsePositiveRate.
func (v *View[T]) EstimatedFalsePositiveRate() float64 { return v.r.estimatedFPR() }

// Generations is Filter.Generations of the encoded filter, which the view
// answers as when it was encoded; only a decoded Filter can Advance.
func (v *View[T]) Generations() int { return int(v.r.t.gens) }

// NewView returns a View that answers from data, exactly one encoding of a
// filter whose keys hash like T's (see UnmarshalBinary). It checks what
// UnmarshalBinary checks, with its errors, in O(len(data)) time, copying
// and allocating nothing proportional to data.
func NewView[T Hashable](data []byte) (*View[T], error) { return newView[T](data, checkAll, nil) }

// NewViewUnverified is NewView in constant time: it checks only the header
// (every field in range, len(data) the length it gives, the key family
// T's), with NewView's errors. It reads neither the CRC-32C nor the table,
// so a changed byte may make the View answer wrongly, false negatives
// included, but never read outside data or panic. Use it on bytes verified
// otherwise (a storage layer's checksum, an earlier NewView).
func NewViewUnverified[T Hashable](data []byte) (*View[T], error) {
	return newView[T](data, checkHeader, nil)
}

func newView[T Hashable](data []byte, level decodeLevel, key *sipHasher) (*View[T], error) {
	h, t, err := decode(data, kindOf[T](), level, key)
	if err != nil {
		return nil, err
	}
	return &View[T]{r: decodedReader[T](&h, t, key)}, nil
}
