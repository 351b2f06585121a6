package cuckoo

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePage is the size of a transparent huge page on x86-64, and arm64 with
// 4 KiB pages; where huge pages are larger the advice below has no effect.
const hugePage = 2 << 20

// hugePages turns the advice off for benchmarks that compare page sizes.
var hugePages = true

// adviseHugePages asks the kernel to back the whole 2 MiB pages inside b
// with transparent huge pages, which many systems give only when asked: a
// large table read at random misses the TLB on nearly every probe with 4 KiB
// pages (lookups in a 220 MB table 15-31% faster, bench/RESULTS.md). Partial
// pages are left alone, so it costs no memory; errors are ignored.
func adviseHugePages(b []byte) {
	if w := wholeHugePages(b); hugePages && len(w) > 0 {
		_ = unix.Madvise(w, unix.MADV_HUGEPAGE)
	}
}

// wholeHugePages is the part of b that covers whole, aligned huge pages;
// empty if there is none.
func wholeHugePages(b []byte) []byte {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := (p + hugePage - 1) &^ (hugePage - 1)
	end := (p + uintptr(len(b))) &^ (hugePage - 1)
	if end <= start {
		return nil
	}
	return b[start-p : end-p]
}
