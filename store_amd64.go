//go:build gc && !purego && !race

package cuckoo

// storeRelease sets *p to v with a release store: no earlier load or store
// is reordered after it, which is all the concurrent filter's writer needs
// (concurrent.go). On amd64 every store is one, so this is a plain MOV,
// where atomic.StoreUint64 is an XCHG that also drains the store buffer and
// holds back every later load: about 5% of an insert (README,
// "Concurrency"). It is assembly so that the compiler can neither reorder
// nor drop it; under the race detector, which does not see into assembly,
// it is atomic.StoreUint64 (store_other.go).
//
//go:noescape
func storeRelease(p *uint64, v uint64)

// unalignedLoads tells whether an atomic 64-bit load may read any address
// (concurrent_table.go, loadNarrow).
const unalignedLoads = true
