package cuckoo

import "runtime"

// containsAt reports whether bucket i1 or i2 holds fp, by the codec.
func containsAt(t *table, i1, i2 uint64, fp uint32) bool {
	return t.holds(i1, fp)|t.holds(i2, fp) != 0
}

// batchChunk is how many keys the generic batch locates before probing:
// enough for a core's 10-20 outstanding misses, small enough for the stack.
const batchChunk = 32

// containsBatchGeneric is containsBatch in pure Go, for a fixed table.
func containsBatchGeneric(t *table, hs []uint64, found []bool) int {
	n := 0
	for off := 0; off < len(hs); off += batchChunk {
		n += containsChunk(t, hs[off:min(off+batchChunk, len(hs))], found[min(off, len(found)):])
	}
	return n
}

// touchBuckets loads a byte of both buckets of every hash in hs, so that
// their cache lines arrive while the caller works on something else.
func touchBuckets(t *table, hs []uint64) {
	var x uint64
	bb := uint64(t.bbits)
	for _, h := range hs {
		i1, _, i2, _ := t.place(h)
		x += uint64(t.data[i1*bb>>3]) + uint64(t.data[i2*bb>>3])
	}
	runtime.KeepAlive(x) // the loads are the point: keep them
}

// containsChunk probes up to batchChunk hashes, loading every bucket pair
// before testing any, so that the loads miss the cache independently.
func containsChunk(t *table, hs []uint64, found []bool) int {
	var fps [batchChunk]uint32
	var i1s, i2s [batchChunk]uint64
	hs = hs[:min(len(hs), batchChunk)]
	for i, h := range hs {
		fp, i1 := t.locate(h)
		fps[i], i1s[i], i2s[i] = fp, i1, t.alt(i1, fp)
	}
	var words [2 * batchChunk]uint64
	bb := uint64(t.bbits)
	for i := range hs {
		words[2*i] = load64(t.data, i1s[i]*bb>>3)
		words[2*i+1] = load64(t.data, i2s[i]*bb>>3)
	}
	n := 0
	for i := range hs {
		var ok bool
		if t.f <= 16 {
			p1, p2 := i1s[i]*bb, i2s[i]*bb
			m1, _ := t.match(words[2*i]>>(p1&7), 0, fps[i])
			m2, _ := t.match(words[2*i+1]>>(p2&7), 0, fps[i])
			ok = m1|m2 != 0
		} else {
			ok = containsAt(t, i1s[i], i2s[i], fps[i])
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
