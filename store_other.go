//go:build !amd64 || !gc || purego || race

package cuckoo

import "sync/atomic"

// storeRelease sets *p to v with a release store; see store_amd64.go. Here
// it is atomic.StoreUint64 (on arm64 a store-release, STLR).
func storeRelease(p *uint64, v uint64) { atomic.StoreUint64(p, v) }

// unalignedLoads tells whether an atomic 64-bit load may read any address
// (concurrent_table.go, loadNarrow).
const unalignedLoads = false
