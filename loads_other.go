//go:build !amd64 || !gc || purego || race

package cuckoo

// unalignedLoads tells whether atomic loads may be unaligned (loadNarrow).
const unalignedLoads = false
