//go:build (amd64 || arm64) && gc && !purego

package cuckoo

const haveAsm = true

// probeChunk is how many keys one assembly call locates or probes. It bounds
// the time spent in a call, which the scheduler cannot preempt, to well under
// a microsecond, and the scratch space to a few KiB of stack.
const probeChunk = 32

// probeScratch carries a chunk of located keys from the locating pass to the
// probing pass: the bit position of both buckets and the fingerprint.
type probeScratch struct {
	pos1 [probeChunk]uint64
	pos2 [probeChunk]uint64
	fp   [probeChunk]uint64
}

// containsBatchAsm is containsBatch for the packed layout in assembly. It is
// software-pipelined a chunk deep: while chunk k is probed, the buckets of
// chunk k+1 are already located and prefetched, so the memory system always
// has a chunk's worth of misses (2*probeChunk lines) to work on.
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
		w := window(found, off)
		if len(w) >= cur {
			n += probePacked(t, &s[k], cur, &w[0])
		} else {
			n += probePacked(t, &s[k], cur, &tmp[0])
			copy(w, tmp[:cur])
		}
	}
	return n
}
