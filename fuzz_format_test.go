package cuckoo

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// addFormatSeeds seeds a format fuzz target with valid encodings: the golden
// files and small filters of each layout and key family.
func addFormatSeeds(f *testing.F) {
	for _, c := range goldenCases {
		if b, err := os.ReadFile(filepath.Join("testdata", c.file)); err == nil {
			f.Add(b)
		}
	}
	for _, l := range layouts {
		for _, bits := range []int{4, 9, 16, 23, 32} {
			cfg := Config{Capacity: 6, FingerprintBits: bits, Layout: l}
			if _, err := New[uint64](cfg); err != nil {
				continue
			}
			f.Add(mustMarshal(f, builtFilter(f, cfg, 6, intKey)))
			f.Add(mustMarshal(f, builtFilter(f, cfg, 3, stringKey)))
			f.Add(mustMarshal(f, builtFilter(f, cfg, 0, func(i int) float64 { return float64(i) })))
		}
		// Growable, at its first stage and grown.
		cfg := Config{Capacity: 4, MaxCapacity: 32, FingerprintBits: 7, Layout: l}
		f.Add(mustMarshal(f, builtFilter(f, cfg, 3, intKey)))
		f.Add(mustMarshal(f, builtFilter(f, cfg, 20, intKey)))
		// Compact, with the default seed and another.
		for _, seed := range []uint64{0, 3} {
			for _, bits := range []int{4, 11, 17} {
				cfg := Config{Capacity: 6, FingerprintBits: bits, Layout: l, Seed: seed}
				f.Add(mustCompact(f, builtFilter(f, cfg, 6, intKey)))
				f.Add(mustCompact(f, builtFilter(f, cfg, 5, stringKey)))
			}
		}
	}
	for _, c := range compactGolden {
		if b, err := os.ReadFile(filepath.Join("testdata", c.file)); err == nil {
			f.Add(b)
		}
	}
	addExpiringFormatSeeds(f)
}

// reencode is the encoding of g in the kind of data: compact, or with a
// header.
func reencode[T Hashable](t *testing.T, g *Filter[T], data []byte) []byte {
	if isCompact(data[0]) {
		return mustCompact(t, g)
	}
	return mustMarshal(t, g)
}

// FuzzUnmarshal decodes arbitrary bytes: an error wrapping a format sentinel,
// or a filter that re-encodes to exactly the same bytes and keeps working.
func FuzzUnmarshal(f *testing.F) {
	addFormatSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		switch {
		case fuzzUnmarshal[uint64](t, data):
		case fuzzUnmarshal[string](t, data):
		case fuzzUnmarshal[float64](t, data):
		}
	})
}

// fuzzUnmarshal reports whether data is a filter of T's family.
func fuzzUnmarshal[T Hashable](t *testing.T, data []byte) bool {
	var g Filter[T]
	if err := g.UnmarshalBinary(data); err != nil {
		checkFormatErr(t, err, "UnmarshalBinary")
		return false
	}
	if !bytes.Equal(reencode(t, &g, data), data) {
		t.Fatal("the decoded filter re-encodes differently")
	}
	var r Filter[T]
	if n, err := r.ReadFrom(bytes.NewReader(data)); !isCompact(data[0]) && (err != nil || n != int64(len(data))) {
		t.Fatalf("ReadFrom: %d bytes, %v; UnmarshalBinary accepted them", n, err)
	} else if isCompact(data[0]) && !errors.Is(err, ErrIncompatible) {
		t.Fatalf("ReadFrom of a compact encoding: %v", err)
	}
	text, err := g.MarshalText()
	var tg Filter[T]
	if err != nil || tg.UnmarshalText(text) != nil || !bytes.Equal(mustMarshal(t, &tg), mustMarshal(t, &g)) {
		t.Fatalf("the text encoding does not round-trip: %v", err)
	}
	if g.Len() > g.Slots() || g.Capacity() <= 0 {
		t.Fatalf("Len %d, Slots %d, Capacity %d", g.Len(), g.Slots(), g.Capacity())
	}
	var k T
	if err := g.Insert(k); err == nil && !g.Contains(k) {
		t.Fatal("inserted key not found")
	}
	return true
}

// FuzzView makes views of arbitrary bytes: NewView accepts exactly what
// UnmarshalBinary accepts, and the view answers like the decoded filter.
func FuzzView(f *testing.F) {
	addFormatSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		switch {
		case fuzzView(t, data, intKey):
		case fuzzView(t, data, stringKey):
		case fuzzView(t, data, func(i int) float64 { return float64(i) }):
		}
	})
}

func fuzzView[T Hashable](t *testing.T, data []byte, key func(int) T) bool {
	v, err := NewView[T](data)
	var g Filter[T]
	uerr := g.UnmarshalBinary(data)
	if (err == nil) != (uerr == nil) {
		t.Fatalf("NewView: %v; UnmarshalBinary: %v", err, uerr)
	}
	// EncodedLen never panics, and knows the length of what NewView accepts,
	// but for a compact encoding, which does not record it.
	if n, lerr := EncodedLen(data); err == nil && !isCompact(data[0]) && (lerr != nil || n != len(data)) {
		t.Fatalf("NewView accepted %d bytes; EncodedLen says %d, %v", len(data), n, lerr)
	}
	// The unverified view may accept a corrupt table, but must not panic.
	if u, err := NewViewUnverified[T](data); err == nil {
		for i := range 64 {
			_ = u.Contains(key(i))
			_ = u.Count(key(i))
		}
	}
	if err != nil {
		checkFormatErr(t, err, "NewView")
		return false
	}
	if !bytes.Equal(reencode(t, &g, data), data) {
		t.Fatal("the decoded filter re-encodes differently")
	}
	keys := make([]T, 256)
	for i := range keys {
		keys[i] = key(i)
	}
	checkAnswers(t, &g, v, keys, isCompact(data[0]))
	return true
}
