//go:build !linux

package cuckoo

// adviseHugePages asks for huge pages on Linux only (pages_linux.go).
func adviseHugePages([]byte) {}
