package cuckoo

import "unsafe"

// hashBlock is how many keys ContainsBatch hashes before it probes them.
const hashBlock = 256

// ContainsBatch answers Contains for every key and returns how many were
// found. found[i] receives the answer for keys[i] where i < len(found); found
// may be shorter than keys, or nil to only count.
//
// A batch first hashes a block of keys, then locates every key's buckets and
// fetches them, then tests them, so that the memory latency of many keys
// overlaps. In bench/RESULTS.md a packed filter's batch takes 0.4-0.7 of the
// time per key of a loop over Contains at 1M keys and 0.25-0.4 at 32M; a
// semi-sorted filter's gains little or nothing at 1M, where decoding
// buckets dominates.
func (f *Filter[T]) ContainsBatch(keys []T, found []bool) int {
	return containsKeys(&f.c.reader, keys, found)
}

// ContainsHashBatch is ContainsBatch for keys hashed with Hash.
func (f *Filter[T]) ContainsHashBatch(hashes []uint64, found []bool) int {
	return containsBatch(&f.c.t, hashes, found)
}

// containsKeys is ContainsBatch for the filter or view that c reads.
func containsKeys[T Hashable](c *reader, keys []T, found []bool) int {
	var hs [hashBlock]uint64
	n := 0
	for off := 0; off < len(keys); off += hashBlock {
		chunk := keys[off:min(off+hashBlock, len(keys))]
		hashKeys(&c.h, c.kind, chunk, hs[:])
		n += containsBatch(&c.t, hs[:len(chunk)], window(found, off))
	}
	return n
}

// hashKeys sets out[i] to the hash of keys[i], keys of the given kind
// hashed by h; out is at least as long as keys.
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
// The keys after it are not inserted.
//
// A batch hashes a block of keys and fetches the buckets of the keys ahead
// while it inserts, so that an insert rarely waits for memory: in a large
// filter it is much faster per key than a loop of Insert (README,
// "Performance").
func (f *Filter[T]) InsertBatch(keys []T) (int, error) {
	var hs [hashBlock]uint64
	n := 0
	for off := 0; off < len(keys); off += hashBlock {
		chunk := keys[off:min(off+hashBlock, len(keys))]
		hashKeys(&f.c.h, f.c.kind, chunk, hs[:])
		k, err := f.c.insertHashes(hs[:len(chunk)])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// InsertHashBatch is InsertBatch for keys hashed with Hash.
func (f *Filter[T]) InsertHashBatch(hashes []uint64) (int, error) { return f.c.insertHashes(hashes) }

// insertHashes inserts hs in order and returns how many went in, stopping
// at the first error. While it inserts a chunk of keys it has the buckets
// of the next chunk fetched.
func (c *core) insertHashes(hs []uint64) (int, error) {
	prefetchBuckets(&c.t, hs[:min(len(hs), batchChunk)])
	for off := 0; off < len(hs); off += batchChunk {
		end := min(off+batchChunk, len(hs))
		if end < len(hs) {
			prefetchBuckets(&c.t, hs[end:min(end+batchChunk, len(hs))])
		}
		for i, h := range hs[off:end] {
			if err := c.insertHash(h); err != nil {
				return off + i, err
			}
		}
	}
	return len(hs), nil
}

// window is found[off:], or nil when off is past its end.
func window(found []bool, off int) []bool {
	if off >= len(found) {
		return nil
	}
	return found[off:]
}
