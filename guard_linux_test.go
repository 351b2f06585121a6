package cuckoo

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestGuardPage puts a table flush against a PROT_NONE page: its padding
// ends on the page boundary, so a probe that reads past the padding faults
// and kills the test. Every implementation probes every bucket of the end of
// the table, for every width.
func TestGuardPage(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, layout := range layouts {
			for f := uint(4); f <= 32; f++ {
				for _, m := range []uint64{2, 10, 1000} {
					testGuardPage(t, layout, f, m)
				}
			}
		}
	})
}

func testGuardPage(t *testing.T, layout Layout, f uint, m uint64) {
	tb := fullTable(m, f, layout)
	tb.data = append(guardedBytes(t, len(tb.data))[:0], tb.data...)
	hs := endHashes(&tb)
	found := make([]bool, len(hs))
	c := &reader{t: tb}
	containsBatch(&c.t, hs, found)
	for i, h := range hs {
		if found[i] != containsGeneric(&tb, h) || c.containsHash(h) != found[i] {
			t.Fatalf("%v f=%d m=%d hash %d: batch %v, generic %v", layout, f, m, i, found[i], containsGeneric(&tb, h))
		}
	}
}

// TestGuardPageCompact is TestGuardPage for compact encodings,
// whose trailers are as short as the probes' reach allows (these, of no
// items and the default seed, the shortest): the encoding ends on
// the page boundary, and ContainsHashEncoded and a view's lookups and
// batches probe every bucket of the end of the table.
func TestGuardPageCompact(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, layout := range layouts {
			for f := uint(4); f <= 32; f++ {
				for _, m := range []uint64{2, 10, 1000} {
					testGuardPageCompact(t, layout, f, m)
				}
			}
		}
	})
}

func testGuardPageCompact(t *testing.T, layout Layout, f uint, m uint64) {
	tb := fullTable(m, f, layout)
	r := &reader{t: tb, h: newHasher(DefaultSeed)}
	enc := append([]byte{compactVersion}, tb.data[:len(tb.data)-tablePad]...)
	enc = appendCompactTrailer(enc, 0, r, kindInt)
	data := append(guardedBytes(t, len(enc))[:0], enc...)
	v, err := NewViewUnverified[uint64](data)
	if err != nil {
		t.Fatalf("%v f=%d m=%d: %v", layout, f, m, err)
	}
	hs := endHashes(&tb)
	found := make([]bool, len(hs))
	v.ContainsHashBatch(hs, found)
	for i, h := range hs {
		want := containsGeneric(&tb, h)
		got, err := ContainsHashEncoded(data, h)
		if err != nil || got != want || found[i] != want || v.ContainsHash(h) != want {
			t.Fatalf("%v f=%d m=%d hash %d: ContainsHashEncoded %v, %v; batch %v; generic %v", layout, f, m, i, got, err, found[i], want)
		}
	}
}

// fullTable is a table of m buckets whose every slot holds 2^f - 1.
func fullTable(m uint64, f uint, layout Layout) table {
	tb := newTable(m, f, layout)
	for i := range tb.data[:len(tb.data)-tablePad] {
		tb.data[i] = 0xff
	}
	return tb
}

// endHashes are the hashes of fingerprints 1 and 2^f - 1 in each of tb's
// last 8 buckets.
func endHashes(tb *table) []uint64 {
	var hs []uint64
	for i := tb.m - min(tb.m, 8); i < tb.m; i++ {
		for _, fp := range []uint32{1, uint32(tb.fpRange)} {
			hs = append(hs, hashFor(tb, i, fp))
		}
	}
	return hs
}

// guardedBytes returns size bytes of fresh memory that end where a
// PROT_NONE page begins, so that a read past them faults. They are unmapped
// when the test ends.
func guardedBytes(t *testing.T, size int) []byte {
	page := unix.Getpagesize()
	pages := (size+page-1)/page + 1
	mem, err := unix.Mmap(-1, 0, pages*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Skip("mmap:", err)
	}
	t.Cleanup(func() {
		if err := unix.Munmap(mem); err != nil {
			t.Error(err)
		}
	})
	end := (pages - 1) * page
	if err := unix.Mprotect(mem[end:], unix.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	return mem[end-size : end : end]
}
