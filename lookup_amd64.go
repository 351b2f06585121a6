//go:build gc && !purego

package cuckoo

import (
	"github.com/klauspost/cpuid/v2"
	"golang.org/x/sys/cpu"
)

// x/sys/cpu decides, so GODEBUG=cpu.avx2=off (avx512f, ...) turns the
// assembly off. The batch needs AVX2 to locate four keys at once and
// BMI1/BMI2 (ANDN, SHRX, MULX) to probe; the wide path AVX-512 F/DQ/VL to
// do eight with VPMULLQ.
var (
	hasBatchAsm = cpu.X86.HasAVX2 && cpu.X86.HasBMI1 && cpu.X86.HasBMI2
	hasWideAsm  = hasBatchAsm && cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ &&
		cpu.X86.HasAVX512VL && !avx512Throttles()

	useBatchAsm = hasBatchAsm
	useWideAsm  = hasWideAsm
)

// avx512Throttles reports what x/sys/cpu cannot: an Intel CPU before Ice
// Lake (no AVX512-IFMA), whose 512-bit multiplies slow it for milliseconds.
func avx512Throttles() bool {
	return cpuid.CPU.VendorID == cpuid.Intel && !cpuid.CPU.Supports(cpuid.AVX512IFMA)
}

func asmName() string {
	if useWideAsm {
		return "avx512"
	}
	return "avx2"
}

// locatePacked locates hs (<= probeChunk) into s, prefetching both buckets.
func locatePacked(t *table, hs []uint64, s *probeScratch) {
	lanes := 4
	if useWideAsm {
		lanes = 8
	}
	if len(hs) < lanes {
		// The vector loops read whole vectors of hashes; a short tail is
		// padded (the extra lanes locate and prefetch bucket 0, harmlessly).
		var pad [8]uint64
		copy(pad[:], hs)
		hs = pad[:lanes]
	}
	if useWideAsm {
		locatePackedAVX512(t, &hs[0], len(hs), s)
	} else {
		locatePackedAVX2(t, &hs[0], len(hs), s)
	}
}

// hashBatchAsm is hashBatch with AVX-512, 8 keys a vector; len(out) >= len(keys).
func hashBatchAsm(h *hasher, keys []uint64, out []uint64) {
	n := len(keys) &^ 7
	if n > 0 {
		hashU64AVX512(h, &keys[0], n, &out[0])
	}
	hashBatchGeneric(h, keys[n:], out[n:])
}

// locatePackedAVX2 computes locate and alt, four hashes a vector, into s
// and prefetches the first and last line probePacked reads of each bucket,
// which Go cannot. It reads hs[0:n] (n >= 4, the last vector overlapping)
// and nothing of the table (prefetches never fault); it needs t.m < 2^32.
//
//go:noescape
func locatePackedAVX2(t *table, hs *uint64, n int, s *probeScratch)

// locatePackedAVX512 is locatePackedAVX2 eight hashes a vector; n >= 8.
//
//go:noescape
func locatePackedAVX512(t *table, hs *uint64, n int, s *probeScratch)

// probePacked tests the n located keys of s, writes found[0:n] and returns
// how many were found: the SWAR probe in straight-line BMI code without
// bounds checks. It reads 8 (f <= 16) or 16 bytes from each bucket's first
// byte, at most 15 past the last bucket's start, which tablePad covers.
//
//go:noescape
func probePacked(t *table, s *probeScratch, n int, found *bool) int

// hashU64AVX512 sets out[i] = h.u64(keys[i]) for i < n, n a multiple of 8:
// xxh3's 8-byte path (rotate, xor, rrmxmx) with VPROLQ and VPMULLQ, which Go
// cannot vectorise. It reads keys[0:n] and writes out[0:n], nothing else.
//
//go:noescape
func hashU64AVX512(h *hasher, keys *uint64, n int, out *uint64)
