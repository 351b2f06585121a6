//go:build !amd64 || !gc || purego || race

package cuckoo

import "sync/atomic"

// storeRelease is store_amd64.go's, here atomic.StoreUint64 (arm64: STLR).
func storeRelease(p *uint64, v uint64) { atomic.StoreUint64(p, v) }

// unalignedLoads tells whether atomic loads may be unaligned (loadNarrow).
const unalignedLoads = false
