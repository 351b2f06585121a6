//go:build linux && amd64

package cuckoo

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"testing"
)

// TestMappedFileTruncated shows what the View docs warn of: a lookup in a
// view over a mapped file that was truncated faults, and with
// debug.SetPanicOnFault the fault is a panic that recover catches (without
// it, SIGBUS ends the process).
func TestMappedFileTruncated(t *testing.T) {
	f := builtFilter(t, Config{Capacity: 200_000}, 200_000, intKey) // several pages
	path := filepath.Join(t.TempDir(), "f.cuckoo")
	if err := os.WriteFile(path, mustMarshal(t, f), 0o644); err != nil {
		t.Fatal(err)
	}
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	st, _ := file.Stat()
	data, err := syscall.Mmap(int(file.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Skip("mmap:", err)
	}
	defer syscall.Munmap(data)
	v, err := NewView[uint64](data)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	faulted := func() (fault bool) {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() { fault = recover() != nil }()
		for i := range 200_000 { // keys all over the table: pages past the new end
			v.Contains(intKey(i))
		}
		return false
	}()
	if !faulted {
		t.Fatal("lookups in a truncated mapping did not fault")
	}
}
