//go:build gc && !purego && !race

package cuckoo

// storeRelease sets *p to v with a release store, all the concurrent
// writer needs: on amd64 a plain MOV, where atomic.StoreUint64's XCHG also
// drains the store buffer (about 5% of an insert); in assembly, so that
// the compiler can neither reorder nor drop it.
//
//go:noescape
func storeRelease(p *uint64, v uint64)

// unalignedLoads tells whether atomic loads may be unaligned (loadNarrow).
const unalignedLoads = true
