package cuckoo

// batchChunk is how many keys a batch locates before it probes them: enough
// to keep a core's 10-20 outstanding cache misses busy, small enough for the
// stack.
const batchChunk = 32

// ContainsBatch answers Contains for every key and returns how many were
// found. found[i] receives the answer for keys[i] where i < len(found); found
// may be shorter than keys, or nil to only count.
//
// A batch first locates every key's buckets and loads their first words,
// then tests them, so that the memory latency of many keys overlaps: with
// filters larger than the CPU caches it is several times faster per key than
// a loop over Contains.
func (f *keyed[T]) ContainsBatch(keys []T, found []bool) int {
	var hs [batchChunk]uint64
	n := 0
	for off := 0; off < len(keys); off += batchChunk {
		chunk := keys[off:min(off+batchChunk, len(keys))]
		for i := range chunk {
			hs[i] = f.Hash(chunk[i])
		}
		n += f.containsChunk(hs[:len(chunk)], window(found, off))
	}
	return n
}

// ContainsHashBatch is ContainsBatch for keys hashed with Hash.
func (c *reader) ContainsHashBatch(hashes []uint64, found []bool) int {
	n := 0
	for off := 0; off < len(hashes); off += batchChunk {
		n += c.containsChunk(hashes[off:min(off+batchChunk, len(hashes))], window(found, off))
	}
	return n
}

// window is found[off:], or nil when off is past its end.
func window(found []bool, off int) []bool {
	if off >= len(found) {
		return nil
	}
	return found[off:]
}

// containsChunk probes up to batchChunk hashes in two passes: the first
// locates every bucket pair and issues the loads, which miss the cache
// independently of each other; the second tests the loaded words.
func (c *reader) containsChunk(hs []uint64, found []bool) int {
	var fps [batchChunk]uint32
	var i1s, i2s [batchChunk]uint64
	hs = hs[:min(len(hs), batchChunk)]
	for i, h := range hs {
		fp, i1 := c.t.locate(h)
		fps[i], i1s[i], i2s[i] = fp, i1, c.t.alt(i1, fp)
	}
	var words [2 * batchChunk]uint64
	bb := uint64(c.t.bbits)
	for i := range hs {
		words[2*i] = load64(c.t.data, i1s[i]*bb>>3)
		words[2*i+1] = load64(c.t.data, i2s[i]*bb>>3)
	}
	n := 0
	for i := range hs {
		var ok bool
		if c.t.layout == SemiSorted {
			ok = containsSemi(&c.t, hs[i])
		} else if c.t.f <= 16 {
			p1, p2 := i1s[i]*bb, i2s[i]*bb
			pat := uint64(fps[i]) * c.t.lanes.onesLo
			x1 := words[2*i]>>(p1&7) ^ pat
			x2 := words[2*i+1]>>(p2&7) ^ pat
			ok = c.t.lanes.zero64(x1)|c.t.lanes.zero64(x2) != 0
		} else {
			ok = contains128(&c.t, i1s[i], i2s[i], fps[i])
		}
		if i < len(found) {
			found[i] = ok
		}
		if ok {
			n++
		}
	}
	return n
}
