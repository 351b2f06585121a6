//go:build !(amd64 || arm64) || !gc || purego

package cuckoo

const haveAsm = false

// The dispatch bools exist so that code testing them compiles; with haveAsm
// false the compiler drops those branches.
var (
	hasBatchAsm, useBatchAsm bool
	hasWideAsm, useWideAsm   bool
)

func asmName() string { return "generic" }

func containsBatchAsm(t *table, hs []uint64, found []bool) int {
	return containsBatchGeneric(t, hs, found)
}

func prefetchBucketsAsm(t *table, hs []uint64) { touchBuckets(t, hs) }

func hashBatchAsm(h *hasher, keys []uint64, out []uint64) { hashBatchGeneric(h, keys, out) }

func prefetchLines(data *byte, offs *uint64, n int) {}
