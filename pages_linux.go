package cuckoo

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePage is the size of a transparent huge page on Linux's common
// configurations (x86-64, and arm64 with 4 KiB pages). On a system whose huge
// pages are larger the advice below is harmless and has no effect.
const hugePage = 2 << 20

// hugePages turns the advice off for benchmarks that compare page sizes.
var hugePages = true

// adviseHugePages asks the kernel to back the whole 2 MiB pages inside b with
// transparent huge pages (madvise MADV_HUGEPAGE). A large table is read at
// random: with 4 KiB pages nearly every probe of a table of tens of MiB misses
// the TLB and walks the page tables, which also limits how many cache misses
// a batch can have in flight. Many systems set THP to "madvise", so memory
// gets huge pages only when asked. Pages not yet touched fault in as huge
// pages; pages already touched may be merged later by khugepaged. Tables
// smaller than a huge page, and the partial pages at both ends, are left
// alone, so this costs no memory. Errors (a kernel without THP) are ignored:
// the advice only changes speed.
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
