package cuckoo

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// vmFlags returns the VmFlags of the mapping of this process that holds
// address p, from /proc/self/smaps.
func vmFlags(t *testing.T, p uintptr) []string {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 {
			in = lo <= p && p < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.Fields(strings.TrimPrefix(line, "VmFlags:"))
		}
	}
	t.Skipf("no VmFlags for %#x in /proc/self/smaps", p)
	return nil
}

// hugeAdvised reports whether the first whole huge page inside b is advised
// MADV_HUGEPAGE ("hg" in its mapping's flags).
func hugeAdvised(t *testing.T, b []byte) bool {
	t.Helper()
	w := wholeHugePages(b)
	if len(w) == 0 {
		t.Fatalf("%d bytes hold no whole huge page", len(b))
	}
	for _, fl := range vmFlags(t, uintptr(unsafe.Pointer(unsafe.SliceData(w)))) {
		if fl == "hg" {
			return true
		}
	}
	return false
}

// requireAdviceVisible skips the test where the kernel (or an emulator such as
// qemu-user) does not record MADV_HUGEPAGE where smaps shows it.
func requireAdviceVisible(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("no transparent huge pages:", err)
	}
	m, err := unix.Mmap(-1, 0, 2*hugePage, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		t.Skip(err)
	}
	defer unix.Munmap(m)
	if err := unix.Madvise(m, unix.MADV_HUGEPAGE); err != nil {
		t.Skip("madvise:", err)
	}
	if !hugeAdvised(t, m) {
		t.Skip("MADV_HUGEPAGE is not shown in /proc/self/smaps here")
	}
}

func TestHugePagesAdvised(t *testing.T) {
	requireAdviceVisible(t)
	// 4M keys at the default 13 bits: a table of about 7 MiB.
	f := mustNew[uint64](t, Config{Capacity: 4 << 20})
	if !hugeAdvised(t, f.c.t.data) {
		t.Errorf("New: the %d-byte table is not advised MADV_HUGEPAGE", len(f.c.t.data))
	}
	for i := range uint64(1000) {
		if err := f.Insert(i); err != nil {
			t.Fatal(err)
		}
	}
	enc, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var g Filter[uint64]
	if err := g.UnmarshalBinary(enc); err != nil {
		t.Fatal(err)
	}
	if !hugeAdvised(t, g.c.t.data) {
		t.Errorf("UnmarshalBinary: the %d-byte table is not advised MADV_HUGEPAGE", len(g.c.t.data))
	}
	var r Filter[uint64]
	if _, err := r.ReadFrom(strings.NewReader(string(enc))); err != nil {
		t.Fatal(err)
	}
	if !hugeAdvised(t, r.c.t.data) {
		t.Errorf("ReadFrom: the %d-byte table is not advised MADV_HUGEPAGE", len(r.c.t.data))
	}
	for i := range uint64(1000) {
		if !g.Contains(i) || !r.Contains(i) {
			t.Fatalf("key %d lost after decoding", i)
		}
	}
}

// BenchmarkLargeTable compares filters of 32M and 128M keys (55 and 220 MB
// tables) on huge pages and on 4 KiB pages:
//
//	go test -run XXX -bench LargeTable -count 6 | benchstat -col /pages -
func BenchmarkLargeTable(b *testing.B) {
	for _, n := range []int{32 << 20, 128 << 20} {
		for _, huge := range []bool{true, false} {
			benchLargeTable(b, n, huge)
		}
	}
}

func benchLargeTable(b *testing.B, n int, huge bool) {
	b.Run(fmt.Sprintf("%s/pages=%s", sizeName(n), map[bool]string{true: "2M", false: "4K"}[huge]), func(b *testing.B) {
		name := fmt.Sprintf("large/%d/%v", n, huge)
		flt, ok := benchCache[name].(*Filter[uint64])
		if !ok {
			clear(benchCache)
			hugePages = huge
			flt = mustNew[uint64](b, Config{Capacity: n})
			hugePages = true
			for i := range uint64(n) {
				if err := flt.Insert(i); err != nil {
					b.Fatal(err)
				}
			}
			benchCache[name] = flt
		}
		b.Run("Contains", func(b *testing.B) {
			found := 0
			for i := 0; b.Loop(); i++ {
				if flt.Contains(uint64(i * 104729 & (n - 1))) {
					found++
				}
			}
			if found != b.N {
				b.Fatal("missed")
			}
		})
		b.Run("ContainsBatch", func(b *testing.B) {
			const batch = 1024
			keys := make([]uint64, batch)
			found := make([]bool, batch)
			for i := 0; b.Loop(); i++ {
				for j := range keys {
					keys[j] = uint64((i*batch + j) * 104729 & (n - 1))
				}
				if flt.ContainsBatch(keys, found) != batch {
					b.Fatal("batch missed")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/key")
		})
	})
}
