//go:build gc && !purego

package cuckoo

import "golang.org/x/sys/cpu"

// The arm64 batch is scalar assembly: what it adds to the Go code is PRFM,
// prefetching both buckets of a whole chunk of keys before any is probed.
// Every arm64 CPU Go runs on has ASIMD; x/sys/cpu's flag is checked anyway so
// that GODEBUG=cpu.asimd=off selects the generic code.
var (
	hasBatchAsm = cpu.ARM64.HasASIMD
	hasWideAsm  = false // no vector hashing on arm64: NEON has no 64-bit multiply

	useBatchAsm = hasBatchAsm
	useWideAsm  = false
)

func asmName() string { return "arm64" }

// locatePacked fills s with the bucket positions and fingerprints of hs and
// prefetches both buckets of every hash; len(hs) <= probeChunk.
func locatePacked(t *table, hs []uint64, s *probeScratch) {
	if len(hs) > 0 {
		locatePackedARM64(t, &hs[0], len(hs), s)
	}
}

func hashBatchAsm(h *hasher, keys []uint64, out []uint64) { hashBatchGeneric(h, keys, out) }

// locatePackedARM64 does what locate and alt do for hs[0:n] into s, and
// issues PRFM PLDL1KEEP, which Go cannot, for the first and last byte
// probePacked loads of both buckets. It reads hs[0:n] and nothing of the
// table: a prefetch never faults.
//
//go:noescape
func locatePackedARM64(t *table, hs *uint64, n int, s *probeScratch)

// probePacked tests the n located keys of s against the table, writes
// found[0:n] and returns how many were found: the generic SWAR probe
// without bounds checks, a chunk a call. It reads 8 or 16 bytes from each
// bucket's first byte, at most 15 past the last bucket's start (tablePad).
//
//go:noescape
func probePacked(t *table, s *probeScratch, n int, found *bool) int
