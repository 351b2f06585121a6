package cuckoo

import (
	"unsafe"

	"github.com/klauspost/cpuid/v2"
)

// hashBlock is how many keys ContainsBatch hashes before it probes them.
const hashBlock = 256

// ContainsBatch answers Contains for every key and returns how many were
// found. found[i] receives the answer for keys[i] where i < len(found); found
// may be shorter than keys, or nil to only count.
//
// It hashes a block of keys, fetches all their buckets, then tests them, so
// that the keys' cache misses overlap: in a table larger than the caches it
// costs a fraction of a loop of Contains (bench/RESULTS.md).
func (f *Filter[T]) ContainsBatch(keys []T, found []bool) int {
	return containsKeys(&f.c.reader, keys, found)
}

// ContainsHashBatch is ContainsBatch for keys hashed with Hash.
func (f *Filter[T]) ContainsHashBatch(hashes []uint64, found []bool) int {
	return containsBatch(&f.c.t, hashes, found)
}

// containsKeys is ContainsBatch for the filter or view that c reads.
func containsKeys[T Hashable](c *reader, keys []T, found []bool) int {
	if c.t.data == nil {
		return containsNone(len(keys), found)
	}
	var hs [hashBlock]uint64
	n := 0
	for off := 0; off < len(keys); off += hashBlock {
		chunk := keys[off:min(off+hashBlock, len(keys))]
		hashKeys(&c.h, c.kind, chunk, hs[:])
		n += containsBatch(&c.t, hs[:len(chunk)], found[min(off, len(found)):])
	}
	return n
}

// hashKeys sets out[i] to h's hash of keys[i]; len(out) >= len(keys).
func hashKeys[T Hashable](h *hasher, kind keyKind, keys []T, out []uint64) {
	if kind == kindInt { // 8-byte integers: hashed several at a time
		hashBatch(h, unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(keys))), len(keys)), out)
		return
	}
	for i := range keys {
		out[i] = h.key(kind, unsafe.Pointer(&keys[i]))
	}
}

// InsertBatch inserts keys in order, as a loop of Insert would, with the
// same result: it returns len(keys) and nil, or the number inserted before
// the first key whose insert failed and that insert's error (ErrFull or
// ErrTooManyDuplicates), which leaves the filter as the failed Insert would.
// The keys after it are not inserted. While it inserts, it fetches the
// buckets of the keys ahead, so that in a large filter it costs a fraction
// of a loop of Insert (bench/RESULTS.md).
func (f *Filter[T]) InsertBatch(keys []T) (int, error) {
	if f.c.t.data == nil && len(keys) > 0 {
		return 0, errZeroFilter
	}
	var b keyBatch
	for off := 0; b.more(off, len(keys)); off += hashBlock {
		b.add(f.c.insertHashes(hashedBlock(&b, &f.c.h, f.c.kind, keys[off:])))
	}
	return b.n, b.err
}

// keyBatch is an InsertBatch under way: the hashes of a block of keys, and
// how many keys went in before the first error.
type keyBatch struct {
	hs  [hashBlock]uint64
	n   int
	err error
}

func (b *keyBatch) add(n int, err error) { b.n, b.err = b.n+n, err }

func (b *keyBatch) more(off, n int) bool { return off < n && b.err == nil }

// hashedBlock hashes up to hashBlock keys into b.hs; taking the insert as
// a function value would make b.hs escape, an allocation a call.
func hashedBlock[T Hashable](b *keyBatch, h *hasher, kind keyKind, keys []T) []uint64 {
	keys = keys[:min(len(keys), hashBlock)]
	hashKeys(h, kind, keys, b.hs[:])
	return b.hs[:len(keys)]
}

// InsertHashBatch is InsertBatch for keys hashed with Hash.
func (f *Filter[T]) InsertHashBatch(hashes []uint64) (int, error) {
	if f.c.t.data == nil && len(hashes) > 0 {
		return 0, errZeroFilter
	}
	return f.c.insertHashes(hashes)
}

// insertHashes inserts hs in order, up to the first error, and returns how
// many went in, fetching while it inserts chunk k the buckets of chunk k+2
// and the first buckets of chunk k+1's walks (walkAhead).
func (c *core) insertHashes(hs []uint64) (int, error) {
	chunk := func(k int) []uint64 {
		off := min(k*batchChunk, len(hs))
		return hs[off:min(off+batchChunk, len(hs))]
	}
	ahead := c.walkAhead()
	prefetchBuckets(&c.t, chunk(0))
	if len(hs) > batchChunk {
		prefetchBuckets(&c.t, chunk(1))
	}
	if ahead {
		prefetchWalks(&c.t, chunk(0))
	}
	for k, off := 0, 0; off < len(hs); k, off = k+1, off+batchChunk {
		if next := chunk(k + 2); len(next) > 0 {
			prefetchBuckets(&c.t, next)
		}
		if ahead {
			prefetchWalks(&c.t, chunk(k+1))
		}
		for i, h := range chunk(k) {
			if err := c.insertHash(h); err != nil {
				return off + i, err
			}
		}
	}
	return len(hs), nil
}

// walkPrefetchMin is the table size, in bytes, from which insertHashes
// prefetches walks: half the L3, shared with the keys and other cores (on
// 32 MiB: 25 MiB fills 12-15% faster, 1.6 MiB 26-34% slower), else 16 MiB,
// a guess. A variable for tests.
var walkPrefetchMin = walkPrefetchSize(cpuid.CPU.Cache.L3)

// walkPrefetchSize is walkPrefetchMin for l3 bytes of L3, <= 0 if unknown.
func walkPrefetchSize(l3 int) int {
	if l3 <= 0 {
		return 16 << 20
	}
	return l3 / 2
}

// walkAhead reports whether insertHashes prefetches walks: with the
// assembly's prefetch, for a large fixed table whose buckets are one word.
func (c *core) walkAhead() bool {
	t := &c.t
	return t.batchAsm() && t.class.oneWord() && len(t.data) >= walkPrefetchMin
}

// prefetchWalks prefetches, for each hash of hs (at most batchChunk) whose
// buckets are full, the other buckets of their fingerprints, its walk's
// first reads; it only reads, so a bucket changed before its key goes in
// costs a wasted prefetch.
func prefetchWalks(t *table, hs []uint64) {
	var offs [2 * slotsPerBucket * batchChunk]uint64
	n := 0
	bb := uint64(t.bbits)
	for _, h := range hs {
		fp, i1 := t.locate(h)
		i2 := t.alt(i1, fp)
		w1, w2 := t.narrowWord(i1), t.narrowWord(i2)
		if t.roomIn(w1, 0) || t.roomIn(w2, 0) {
			continue
		}
		s1, s2, fpm := t.decode(w1, 0), t.decode(w2, 0), uint32(t.fpMask)
		for k := range slotsPerBucket {
			offs[n+k] = t.alt(i1, s1[k]&fpm) * bb >> 3
			offs[n+slotsPerBucket+k] = t.alt(i2, s2[k]&fpm) * bb >> 3
		}
		n += 2 * slotsPerBucket
	}
	if n > 0 {
		prefetchLines(unsafe.SliceData(t.data), &offs[0], n)
	}
}
