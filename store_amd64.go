//go:build gc && !purego && !race

package cuckoo

// storeRelease sets *p to v with a release store, all the concurrent
// writer needs: on amd64 a plain MOV, where atomic.StoreUint64's XCHG also
// drains the store buffer (about 5% of an insert). Assembly, so that the
// compiler can neither reorder nor drop it; under the race detector,
// atomic.StoreUint64 (store_other.go).
//
//go:noescape
func storeRelease(p *uint64, v uint64)

// unalignedLoads tells whether an atomic 64-bit load may read any address
// (concurrent_table.go, loadNarrow).
const unalignedLoads = true
