//go:build gc && !purego && !race

package cuckoo

// unalignedLoads tells whether atomic loads may be unaligned (loadNarrow).
const unalignedLoads = true
