//go:build gc && !purego

package cuckoo

import "golang.org/x/sys/cpu"

// The arm64 batch is scalar assembly for PRFM: both buckets of a chunk's
// keys prefetched before any is probed. Every arm64 CPU has ASIMD; its flag
// is checked so that GODEBUG=cpu.asimd=off selects the generic code.
var (
	hasBatchAsm = cpu.ARM64.HasASIMD
	hasWideAsm  = false // no vector hashing on arm64: NEON has no 64-bit multiply

	useBatchAsm = hasBatchAsm
	useWideAsm  = false
)

func asmName() string { return "arm64" }

// locatePacked locates hs (<= probeChunk) into s, prefetching both buckets.
func locatePacked(t *table, hs []uint64, s *probeScratch) {
	if len(hs) > 0 {
		locatePackedARM64(t, &hs[0], len(hs), s)
	}
}

func hashBatchAsm(h *hasher, keys []uint64, out []uint64) { hashBatchGeneric(h, keys, out) }

// locatePackedARM64 does locate and alt for hs[0:n] into s, and issues
// PRFM PLDL1KEEP, which Go cannot, for the first and last byte probePacked
// loads of each bucket; it reads nothing of the table (no prefetch faults).
//
//go:noescape
func locatePackedARM64(t *table, hs *uint64, n int, s *probeScratch)

// probePacked tests the n located keys of s, writes found[0:n] and returns
// how many were found, without bounds checks: it reads 8 or 16 bytes from
// each bucket's first byte, at most 15 past the last's start (tablePad).
//
//go:noescape
func probePacked(t *table, s *probeScratch, n int, found *bool) int
