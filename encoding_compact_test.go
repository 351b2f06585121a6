package cuckoo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// mustCompact is AppendCompact(nil) that fails the test on error.
func mustCompact[T Hashable](tb testing.TB, f *Filter[T]) []byte {
	tb.Helper()
	b, err := f.AppendCompact(nil)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestCompactRoundTrip: for every width and both layouts, key families and
// seeds, the compact encoding is the buckets and 9 or 17 bytes, and what
// reads it (NewView, NewViewUnverified, UnmarshalBinary, UnmarshalText)
// answers like the filter, batches included, under every probe
// implementation; the decoded filter re-encodes to the same bytes and works
// on as a filter.
func TestCompactRoundTrip(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for f := 4; f <= 32; f++ {
			for _, seed := range []uint64{0, 7} {
				cfg := Config{Capacity: 300, FingerprintBits: f, Layout: layout, Seed: seed}
				t.Run(fmt.Sprintf("f%d/seed%d", f, seed), func(t *testing.T) {
					testCompactRoundTrip(t, builtFilter(t, cfg, 300, intKey), intKey)
					testCompactRoundTrip(t, builtFilter(t, cfg, 200, stringKey), stringKey)
				})
			}
		}
	})
}

func testCompactRoundTrip[T Hashable](t *testing.T, f *Filter[T], key func(int) T) {
	enc := mustCompact(t, f)
	want := 1 + int(f.c.t.m)*int(f.c.t.bbits)/8 + compactTrailer
	if f.Seed() != DefaultSeed {
		want += compactSeedLen
	}
	if len(enc) != want || enc[0] != formatVersion3 {
		t.Fatalf("compact encoding of %d bytes starting %d, want %d starting 3", len(enc), enc[0], want)
	}
	keys := make([]T, 1000)
	for i := range keys {
		keys[i] = key(i)
	}
	forEachImpl(t, func(t *testing.T) {
		for _, open := range []func([]byte) (*View[T], error){NewView[T], NewViewUnverified[T]} {
			v, err := open(enc)
			if err != nil {
				t.Fatal(err)
			}
			checkAnswers(t, f, v, keys, true)
			if v.Capacity() != max(f.Len(), 1) {
				t.Fatalf("view Capacity %d, Len %d", v.Capacity(), f.Len())
			}
		}
	})
	var g Filter[T]
	if err := g.UnmarshalBinary(enc); err != nil {
		t.Fatal(err)
	}
	checkAnswers(t, f, &g, keys, true)
	if !bytes.Equal(mustCompact(t, &g), enc) {
		t.Fatal("the decoded filter re-encodes differently")
	}
	text, err := g.MarshalText()
	var tg Filter[T]
	if err != nil || tg.UnmarshalText(text) != nil {
		t.Fatalf("text round trip: %v", err)
	}
	checkAnswers(t, f, &tg, keys, true)
	// The decoded filter is a whole filter: padded, and it takes inserts.
	if !allZero(g.c.t.data[len(g.c.t.data)-tablePad:]) || len(g.c.t.data) != len(f.c.t.data) {
		t.Fatal("the decoded table is not padded as New pads it")
	}
	for i := 1000; i < 1010; i++ {
		if err := g.Insert(key(i)); err == nil && !g.Contains(key(i)) {
			t.Fatalf("key %d inserted after decoding is missing", i)
		}
	}
	if _, err := NewView[T](mustMarshal(t, &g)); err != nil {
		t.Fatalf("the decoded filter's version 1 encoding: %v", err)
	}
}

// TestCompactRefused: the filters a compact encoding cannot describe, and
// the readers that need a length in the header.
func TestCompactRefused(t *testing.T) {
	for name, f := range map[string]*Filter[uint64]{
		"growable": mustNew[uint64](t, Config{Capacity: 10, MaxCapacity: 100}),
		"keyed":    mustNew[uint64](t, Config{Capacity: 10, Key: [16]byte{1}}),
		"zero":     new(Filter[uint64]),
	} {
		if b, err := f.AppendCompact([]byte("x")); !errors.Is(err, ErrIncompatible) || string(b) != "x" {
			t.Errorf("%s: %q, %v", name, b, err)
		}
	}
	enc := mustCompact(t, builtFilter(t, Config{Capacity: 50}, 50, intKey))
	if n, err := EncodedLen(enc); n != 0 || !errors.Is(err, ErrIncompatible) {
		t.Errorf("EncodedLen: %d, %v", n, err)
	}
	if n, err := new(Filter[uint64]).ReadFrom(bytes.NewReader(enc)); !errors.Is(err, ErrIncompatible) || n > 6 {
		t.Errorf("ReadFrom: %d, %v", n, err)
	}
	if err := new(Filter[string]).UnmarshalBinary(enc); !errors.Is(err, ErrIncompatible) {
		t.Errorf("integers read as strings: %v", err)
	}
	if a := testing.AllocsPerRun(10, func() { _, _ = f64(mustNew[uint64](t, Config{Capacity: 50})).AppendCompact(enc[:0:len(enc)]) }); a > 2 {
		t.Errorf("AppendCompact into room allocates %v times", a)
	}
}

// f64 is f, so that AllocsPerRun above counts New's allocations apart.
func f64(f *Filter[uint64]) *Filter[uint64] { return f }

// TestCompactChecks: every field of the trailer out of range, and lengths
// that are not buckets and a trailer, are refused with ErrCorrupt, by
// UnmarshalBinary, NewView and NewViewUnverified alike, with the same
// error; an encoding whose slots do not match its count, by the verifying
// readers.
func TestCompactChecks(t *testing.T) {
	f := builtFilter(t, Config{Capacity: 100, FingerprintBits: 12, Seed: 5}, 100, intKey)
	enc := mustCompact(t, f)
	tr := len(enc) - compactTrailer
	set := func(off int, v byte) func([]byte) []byte {
		return func(b []byte) []byte { b[tr+off] = v; return b }
	}
	setSeed := func(v uint64) func([]byte) []byte {
		return func(b []byte) []byte { binary.LittleEndian.PutUint64(b[tr-compactSeedLen:], v); return b }
	}
	cases := map[string]func([]byte) []byte{
		"flags":                 set(offCompactFlags, 2),
		"no seed flag":          set(offCompactFlags, 0), // the seed's 8 bytes are then buckets: not a whole number of them
		"layout":                set(offCompactLayout, 2),
		"bits 3":                set(offCompactBits, 3),
		"bits 33":               set(offCompactBits, 33),
		"family 0":              set(offCompactFamily, 0),
		"family 4":              set(offCompactFamily, 4),
		"seed 0":                setSeed(0),
		"default seed written":  setSeed(DefaultSeed),
		"count above the slots": func(b []byte) []byte { binary.LittleEndian.PutUint32(b[tr:], uint32(4*f.c.t.m+1)); return b },
		"a byte short":          func(b []byte) []byte { return append(b[:1:1], b[2:]...) },
		"a bucket short":        func(b []byte) []byte { return append(b[:1:1], b[7:]...) },
		"trailer only":          func(b []byte) []byte { return append(b[:1:1], b[tr:]...) },
		"version only":          func(b []byte) []byte { return b[:1] },
	}
	for name, edit := range cases {
		bad := edit(bytes.Clone(enc))
		err := new(Filter[uint64]).UnmarshalBinary(bad)
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
		for _, open := range []func([]byte) (*View[uint64], error){NewView[uint64], NewViewUnverified[uint64]} {
			if _, verr := open(bad); fmt.Sprint(verr) != fmt.Sprint(err) {
				t.Errorf("%s: a view says %v, UnmarshalBinary %v", name, verr, err)
			}
		}
		if ok, cerr := ContainsEncoded(bad, uint64(1)); !ok || fmt.Sprint(cerr) != fmt.Sprint(err) {
			t.Errorf("%s: ContainsEncoded %v, %v; UnmarshalBinary %v", name, ok, cerr, err)
		}
	}
	// The slots against the count: only the verifying readers look.
	bad := bytes.Clone(enc)
	binary.LittleEndian.PutUint32(bad[tr:], uint32(f.Len()+1))
	if err := new(Filter[uint64]).UnmarshalBinary(bad); !errors.Is(err, ErrCorrupt) {
		t.Errorf("count off by one: %v", err)
	}
	if _, err := NewViewUnverified[uint64](bad); err != nil {
		t.Errorf("count off by one, unverified: %v", err)
	}
}

// TestCompactTruncations: every prefix of a compact encoding is refused or,
// rarely, read as another filter: never a panic or a read past its end.
func TestCompactTruncations(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for _, f := range []int{4, 8, 13, 17, 32} {
			enc := mustCompact(t, builtFilter(t, Config{Capacity: 40, FingerprintBits: f, Layout: layout}, 40, stringKey))
			for n := range len(enc) {
				cut := bytes.Clone(enc[:n]) // its own allocation, so that a read past it is a read past the slice
				_, err := NewView[string](cut)
				_, uerr := NewViewUnverified[string](cut)
				_, cerr := ContainsEncoded(cut, "key-1")
				if err == nil {
					t.Fatalf("f=%d: %d of %d bytes verified", f, n, len(enc))
				}
				checkFormatErr(t, err, "NewView")
				if uerr != nil && cerr == nil || uerr == nil && cerr != nil {
					t.Fatalf("f=%d, %d bytes: NewViewUnverified %v, ContainsEncoded %v", f, n, uerr, cerr)
				}
			}
		}
	})
}

// compactGolden are the compact encodings kept in testdata/, built with
// Build from their keys: `go test -run GoldenCompact -update` rewrites them.
var compactGolden = []struct {
	file    string
	cfg     Config
	n       int
	strings bool
}{
	{"v3-compact-packed-f8.bin", Config{FingerprintBits: 8}, 50, false},
	{"v3-compact-semisorted-f11-string.bin", Config{FingerprintBits: 11, Layout: SemiSorted}, 120, true},
	{"v3-compact-packed-f17-seed.bin", Config{FingerprintBits: 17, Seed: 17}, 30, false},
	{"v3-compact-semisorted-f24-string-seed.bin", Config{FingerprintBits: 24, Layout: SemiSorted, Seed: 0xfeed}, 70, true},
}

// TestGoldenCompact checks the compact files in testdata/: each is what
// Build and AppendCompact give on this host, and reads back as that filter.
func TestGoldenCompact(t *testing.T) {
	for _, c := range compactGolden {
		t.Run(c.file, func(t *testing.T) {
			if c.strings {
				testGoldenCompact(t, c.file, c.cfg, c.n, stringKey)
			} else {
				testGoldenCompact(t, c.file, c.cfg, c.n, intKey)
			}
		})
	}
}

func testGoldenCompact[T Hashable](t *testing.T, file string, cfg Config, n int, key func(int) T) {
	keys := make([]T, n)
	for i := range keys {
		keys[i] = key(i)
	}
	f, err := Build(cfg, keys)
	if err != nil {
		t.Fatal(err)
	}
	enc := mustCompact(t, f)
	path := filepath.Join("testdata", file)
	if *update {
		if err := os.WriteFile(path, enc, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	golden, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(golden, enc) {
		t.Fatalf("Build and AppendCompact give other bytes than %s", path)
	}
	v, err := NewView[T](golden)
	if err != nil {
		t.Fatal(err)
	}
	checkAnswers(t, f, v, append(keys, key(n), key(n+1)), true)
	for _, k := range keys {
		if ok, err := ContainsEncoded(golden, k); !ok || err != nil {
			t.Fatalf("ContainsEncoded(%v): %v, %v", k, ok, err)
		}
	}
}
