package cuckoo

// Probe dispatch. Every query funnels through the two functions below, and
// each picks its implementation for the table's layout in one switch: adding
// a layout's probe (semi-sorted, say) is one case here.
//
// The choice between assembly and Go is made once at start-up from CPU
// features (lookup_amd64.go, lookup_arm64.go), kept in plain package-level
// bools that tests flip, and compiled out under the purego tag (haveAsm is a
// constant false in lookup_noasm.go).
//
// Where assembly is used is decided by benchmarks (README, "Performance"):
//
//   - Single lookups stay in Go on every platform and layout. The Go probe
//     inlines into Contains; a lookup through an assembly call (measured as
//     a batch of one key) is slower at every width and size measured, so
//     there is no assembly single probe.
//   - Batches of the packed layout use assembly where the CPU has it, for
//     every width 4..32: one code path for f <= 16 (a bucket is one 64-bit
//     load and a shift) and one for f > 16 (two loads and a double shift),
//     both SWAR over the four lanes, so no width needs its own routine. All
//     keys are hashed (AVX-512, 8 at a time, for integer keys), both buckets
//     of every key located (4 or 8 a vector) and prefetched, and only then
//     probed, so dozens of cache misses are in flight at once. The generic
//     batch can only issue ordinary loads, which the core must retire.
//   - Semi-sorted batches take the assembly locating and prefetching pass,
//     then decode and test the prefetched buckets in Go (table_semisort.go);
//     semi-sorted single lookups take containsGeneric.

// contains reports whether the table holds hash h's fingerprint in either of
// its buckets. It inlines into its callers: one call from Contains to the
// probe.
func contains(t *table, h uint64) bool {
	return containsGeneric(t, h)
}

// containsBatch probes every hash and returns how many were found; found[i]
// receives the answer for hs[i] where i < len(found).
func containsBatch(t *table, hs []uint64, found []bool) int {
	switch {
	case haveAsm && useBatchAsm && t.m < 1<<32:
		return containsBatchAsm(t, hs, found)
	}
	return containsBatchGeneric(t, hs, found)
}

// hashBatch sets out[i] = h.u64(keys[i]) for every key; out is at least as
// long as keys.
func hashBatch(h *hasher, keys []uint64, out []uint64) {
	if haveAsm && useWideAsm {
		hashBatchAsm(h, keys, out)
		return
	}
	hashBatchGeneric(h, keys, out)
}

func hashBatchGeneric(h *hasher, keys []uint64, out []uint64) {
	out = out[:len(keys)]
	for i, k := range keys {
		out[i] = h.u64(k)
	}
}

// ProbeImplementation names the probe code in use: "avx512" or "avx2" on
// amd64, "arm64" on arm64 (scalar assembly with prefetches), "generic" for
// pure Go (other platforms, the purego build tag, or a CPU or GODEBUG
// setting that rules the assembly out).
func ProbeImplementation() string {
	switch {
	case !haveAsm || !useBatchAsm:
		return "generic"
	}
	return asmName()
}
