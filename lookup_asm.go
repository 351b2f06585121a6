//go:build (amd64 || arm64) && gc && !purego

package cuckoo

const haveAsm = true

// probeChunk is how many keys an assembly call, which cannot be preempted,
// handles: well under a microsecond, and a few KiB of stack for scratch.
const probeChunk = 32

// probeScratch carries a chunk of located keys from the locating pass to the
// probing pass: the bit position of both buckets and the fingerprint.
type probeScratch struct {
	pos1 [probeChunk]uint64
	pos2 [probeChunk]uint64
	fp   [probeChunk]uint64
}

// containsBatchAsm is containsBatch by the assembly, a chunk located ahead
// so that its misses are in flight while the one before is probed.
func containsBatchAsm(t *table, hs []uint64, found []bool) int {
	if len(hs) == 0 {
		return 0
	}
	var s [2]probeScratch
	var tmp [probeChunk]bool
	n := 0
	next := min(len(hs), probeChunk)
	locatePacked(t, hs[:next], &s[0])
	for off, k := 0, 0; off < len(hs); off, k = off+probeChunk, k^1 {
		cur := next
		if o := off + probeChunk; o < len(hs) {
			next = min(len(hs)-o, probeChunk)
			locatePacked(t, hs[o:o+next], &s[k^1])
		}
		w := found[min(off, len(found)):]
		if len(w) >= cur {
			n += probeLocated(t, &s[k], w[:cur])
		} else {
			n += probeLocated(t, &s[k], tmp[:cur])
			copy(w, tmp[:cur])
		}
	}
	return n
}

// prefetchBucketsAsm is prefetchBuckets by the locating pass's prefetches.
func prefetchBucketsAsm(t *table, hs []uint64) {
	var s probeScratch
	locatePacked(t, hs, &s)
}

// probeLocated tests a located chunk of len(found) keys, writes found and
// returns the count: packed in assembly; semi-sorted one-word buckets by
// lookup's inline tests in a loop that calls nothing (the codec, which
// does not inline: 256 instructions a key, f = 13), the others by the codec.
func probeLocated(t *table, s *probeScratch, found []bool) int {
	if t.layout == Packed {
		return probePacked(t, s, len(found), &found[0])
	}
	if t.class == classSemi || t.class == classExpSemi {
		return probeSemiWords(t, s, found)
	}
	return probeSortedAt(t, s, found)
}

// probeSemiWords is probeLocated for a table of classSemi or classExpSemi,
// whose keys are the bits of keyPrefixes (all of them for classSemi).
func probeSemiWords(t *table, s *probeScratch, found []bool) int {
	n := 0
	for i := range found {
		fp := uint32(s.fp[i])
		p1, p2 := s.pos1[i], s.pos2[i]
		bp := uint64(fp>>(t.w&31)) * 0x1111
		bl := uint64(fp&t.lowMask) * t.semiLanes.onesLo
		w1 := load64At(t.data, p1>>3) >> (p1 & 7)
		w2 := load64At(t.data, p2>>3) >> (p2 & 7)
		ok := t.semiLanes.anyZero(t.semiKeyLows(w1, bp, bl), t.semiKeyLows(w2, bp, bl))
		found[i] = ok
		if ok {
			n++
		}
	}
	return n
}

// probeSortedAt is probeLocated for the other semi-sorted tables (f = 4,
// f > 16, G > 16) by the codec.
func probeSortedAt(t *table, s *probeScratch, found []bool) int {
	n := 0
	for i := range found {
		fp := uint32(s.fp[i])
		alo, ahi := t.bucketFrom(s.pos1[i])
		blo, bhi := t.bucketFrom(s.pos2[i])
		mlo, mhi := t.match(alo, ahi, fp)
		nlo, nhi := t.match(blo, bhi, fp)
		found[i] = mlo|mhi|nlo|nhi != 0
		if found[i] {
			n++
		}
	}
	return n
}

// prefetchLines prefetches, for each byte offset o in offs[0:n], the lines
// holding data[o] and data[o+7]: a bucket a narrow probe loads 8 bytes of.
// It reads offs[0:n] and nothing of data: a prefetch never faults.
//
//go:noescape
func prefetchLines(data *byte, offs *uint64, n int)
