package cuckoo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"
)

// TestCompactRoundTrip: for every width and both layouts, key families and
// seeds, the compact encoding is the buckets and the shortest trailer that
// covers the probes' reach, and what
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
	tb := &f.c.t
	fields := compactFields + countLen(uint64(f.Len()))
	if f.Seed() != DefaultSeed {
		fields += compactSeedLen
	}
	want := 1 + int(tb.m)*int(tb.bbits)/8 + max(int(probeReachOf(tb.fbits, tb.bbits)), int(fields))
	if len(enc) != want || enc[0] != compactVersion {
		t.Fatalf("compact encoding of %d bytes starting %d, want %d starting %d", len(enc), enc[0], want, compactVersion)
	}
	// What AppendCompact's documentation promises beyond the buckets.
	extra, lo, hi := len(enc)-int(tb.m)*int(tb.bbits)/8, 4, 9
	if f.Seed() != DefaultSeed {
		lo, hi = 12, 16
	} else if f.Len() >= 1 && f.Len() <= 255 && tb.fbits >= 8 && tb.fbits <= 16 {
		lo, hi = 5, 5
	}
	if extra < lo || extra > hi {
		t.Fatalf("f=%d, %d items, seed %#x: %d bytes beyond the buckets, not %d to %d", tb.fbits, f.Len(), f.Seed(), extra, lo, hi)
	}
	testCompactReads(t, f, enc, key)
}

// testCompactReads checks what reads the compact encoding enc of f.
func testCompactReads[T Hashable](t *testing.T, f *Filter[T], enc []byte, key func(int) T) {
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
			// The capacity of the table, which for a filter of New is at
			// least the one it was made for, and the same for Build.
			if v.Capacity() != capacityFor(f.c.t.m, f.c.t.fbits) || v.Capacity() < f.Capacity() || v.Info().MaxCapacity != v.Capacity() {
				t.Fatalf("view Capacity %d, MaxCapacity %d; the filter's %d, %d slots", v.Capacity(), v.Info().MaxCapacity, f.Capacity(), f.Slots())
			}
		}
	})
	var g Filter[T]
	if err := g.UnmarshalBinary(enc); err != nil {
		t.Fatal(err)
	}
	checkAnswers(t, f, &g, keys, true)
	if !bytes.Equal(reencode(t, &g, enc), enc) {
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
		t.Fatalf("the decoded filter's encoding with a header: %v", err)
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
// UnmarshalBinary, NewView, NewViewUnverified and ContainsEncoded alike,
// with the same error; an encoding whose slots do not match its count, by
// the verifying readers.
func TestCompactChecks(t *testing.T) {
	f := builtFilter(t, Config{Capacity: 100, FingerprintBits: 12, Seed: 5}, 100, intKey)
	edit := func(off int, v byte) func([]byte) []byte { // off from the end
		return func(b []byte) []byte { b[len(b)-off] = v; return b }
	}
	seed := func(off int, v uint64) func([]byte) []byte {
		return func(b []byte) []byte { binary.LittleEndian.PutUint64(b[len(b)-off:], v); return b }
	}
	cut := map[string]func([]byte) []byte{
		"a byte short":   func(b []byte) []byte { return append(b[:1:1], b[2:]...) },
		"a bucket short": func(b []byte) []byte { return append(b[:1:1], b[7:]...) },
		"version only":   func(b []byte) []byte { return b[:1] },
	}
	// Seed 5 and 100 items: the seed, the count, the length's low byte,
	// flags, shape.
	seeded := maps.Clone(cut)
	maps.Copy(seeded, map[string]func([]byte) []byte{
		"flags":                 edit(2, compactMark|5|compactFlagSeed),
		"mark":                  edit(2, 1),
		"no seed flag":          edit(2, compactMark|1), // the seed's 8 bytes are then buckets: not a whole number of them
		"length":                func(b []byte) []byte { b[len(b)-3]++; return b },
		"bits 33":               edit(1, 1<<6|29), // integer keys
		"family 0":              edit(1, 8),
		"seed 0":                seed(12, 0),
		"default seed written":  seed(12, DefaultSeed),
		"count above the slots": edit(4, byte(min(255, 4*f.c.t.m+1))),
		"trailer only":          func(b []byte) []byte { return append(b[:1:1], b[len(b)-12:]...) },
	})
	testCompactChecks(t, f, mustCompact(t, f), seeded, edit(4, byte(f.Len()+1)))
	// The default seed, which ContainsEncoded reads on its
	// fast path: the count (1 byte, 12-bit slots reach 2 bytes), the
	// length's low byte, flags, shape.
	u := builtFilter(t, Config{Capacity: 100, FingerprintBits: 12}, 100, intKey)
	ue := mustCompact(t, u)
	if n := len(ue); ue[n-4] != byte(u.Len()) || ue[n-2] != compactMark|1 {
		t.Fatalf("the trailer % x of %d items", ue[n-4:], u.Len())
	}
	unseeded := maps.Clone(cut)
	maps.Copy(unseeded, map[string]func([]byte) []byte{
		"flags":                 edit(2, compactMark|7),
		"mark":                  edit(2, 1),
		"length":                func(b []byte) []byte { b[len(b)-3]++; return b },
		"bits 33":               edit(1, 1<<6|29),
		"family 0":              edit(1, 8),
		"count above the slots": edit(4, byte(min(255, 4*u.c.t.m+1))),
		"count in 2 bytes": func(b []byte) []byte {
			n := len(b)
			b[n-5], b[n-4], b[n-2] = b[n-4], 0, compactMark|2
			return b
		},
		"trailer only": func(b []byte) []byte { return append(b[:1:1], b[len(b)-4:]...) },
	})
	testCompactChecks(t, u, ue, unseeded, edit(4, byte(u.Len()+1)))
	// The count, on 5-bit slots, whose probes reach 5 bytes past
	// the buckets: the count in 2 bytes, to make up the reach, the length's
	// low byte, flags and shape.
	g := builtFilter(t, Config{Capacity: 100, FingerprintBits: 5}, 100, intKey)
	enc := mustCompact(t, g)
	if n := len(enc); enc[n-5] != byte(g.Len()) || enc[n-4] != 0 || enc[n-3] != byte(n) || enc[n-2] != compactMark|2 {
		t.Fatalf("the trailer % x of %d items", enc[n-5:], g.Len())
	}
	testCompactChecks(t, g, enc, map[string]func([]byte) []byte{
		"count short of the reach": edit(2, compactMark|1),
	}, edit(5, byte(g.Len()-1)))
}

// testCompactChecks runs TestCompactChecks on the encoding enc of f: each
// of the edits is refused alike, and miscount, which sets another count,
// by the verifying readers only.
func testCompactChecks(t *testing.T, f *Filter[uint64], enc []byte, edits map[string]func([]byte) []byte, miscount func([]byte) []byte) {
	for name, edit := range edits {
		name = fmt.Sprintf("%d bytes, %s", len(enc), name)
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
	bad := miscount(bytes.Clone(enc))
	if err := new(Filter[uint64]).UnmarshalBinary(bad); !errors.Is(err, ErrCorrupt) {
		t.Errorf("count off by one: %v", err)
	}
	if _, err := NewViewUnverified[uint64](bad); err != nil {
		t.Errorf("count off by one, unverified: %v", err)
	}
	if ok, err := ContainsEncoded(bad, uint64(1)); err != nil {
		t.Errorf("count off by one, ContainsEncoded: %v, %v", ok, err)
	}
}

// TestCompactTruncations: every prefix of a compact encoding is refused or,
// rarely, read as another filter: never a panic or a read past its end.
func TestCompactTruncations(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for _, f := range []int{4, 8, 13, 17, 32} {
			enc := mustCompact(t, builtFilter(t, Config{Capacity: 40, FingerprintBits: f, Layout: layout}, 40, stringKey))
			for n := range len(enc) {
				cut := bytes.Clone(enc[:n]) // reads past the end are TestGuardPageCompact's
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
	{"v5-compact-packed-f8.bin", Config{FingerprintBits: 8}, 50, false},
	{"v5-compact-semisorted-f11-string.bin", Config{FingerprintBits: 11, Layout: SemiSorted}, 120, true},
	{"v5-compact-packed-f17-seed.bin", Config{FingerprintBits: 17, Seed: 17}, 30, false},
	{"v5-compact-semisorted-f24-string-seed.bin", Config{FingerprintBits: 24, Layout: SemiSorted, Seed: 0xfeed}, 70, true},
	{"v5-compact-semisorted-f13-string.bin", Config{FingerprintBits: 13, Layout: SemiSorted}, 300, true},
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
	golden := goldenBytes(t, file, mustCompact(t, f)) // Build's and AppendCompact's
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

// TestCompactCutShort: a compact encoding cut short is refused, rather than
// read as a filter that rules its keys out, for the filters of a few dozen
// to a few hundred keys that storage engines write per block. Nothing
// guarantees it (there is no checksum), but with its length byte and flag
// mark the trailer should refuse all but about one in 2^20 cuts; without
// them, about one cut in 400, some 350 of these, reads as a filter.
func TestCompactCutShort(t *testing.T) {
	t.Parallel()
	for n := 20; n < 320; n++ {
		for _, f := range []int{10, 13} {
			keys := make([]string, n)
			for i := range keys {
				keys[i] = fmt.Sprintf("k%d-%d", n, i)
			}
			fl, err := Build(Config{FingerprintBits: f, Layout: SemiSorted}, keys)
			if err != nil {
				t.Fatal(err)
			}
			enc := mustCompact(t, fl)
			for cut := 1; cut < len(enc); cut++ {
				if _, err := NewViewUnverified[string](enc[:cut]); err == nil {
					t.Errorf("f=%d, %d keys: %d of %d bytes read as a filter", f, n, cut, len(enc))
				}
			}
		}
	}
}

// TestCompactWrongLength: a compact encoding one byte too long or too short,
// as a container that mis-slices its blocks gives it, is refused with the
// length named, not with whatever its shifted trailer then holds, for
// filters of several widths, layouts, seeds and counts.
func TestCompactWrongLength(t *testing.T) {
	const want = "cut short, extended, or not a filter"
	for _, c := range []struct {
		cfg Config
		n   int
	}{
		{Config{Capacity: 60, FingerprintBits: 8}, 50},
		{Config{Capacity: 100, FingerprintBits: 12, Seed: 5}, 100},
		{Config{Capacity: 120, FingerprintBits: 10, Layout: SemiSorted}, 120},
		{Config{Capacity: 30, FingerprintBits: 17, Seed: 17}, 30},
		{Config{Capacity: 300, FingerprintBits: 13, Layout: SemiSorted}, 300},
		{Config{Capacity: 40, FingerprintBits: 5}, 40},
		{Config{Capacity: 10, FingerprintBits: 32, Layout: SemiSorted}, 0},
	} {
		enc := mustCompact(t, builtFilter(t, c.cfg, c.n, stringKey))
		n := len(enc)
		for name, bad := range map[string][]byte{
			"a zero byte appended":      append(bytes.Clone(enc), 0),
			"a byte 0x90 appended":      append(bytes.Clone(enc), 0x90),
			"the next block's byte":     append(bytes.Clone(enc), enc[0]),
			"the last byte cut":         enc[:n-1],
			"the first bucket byte cut": append(enc[:1:1], enc[2:]...),
		} {
			what := fmt.Sprintf("f=%d, %v, %d keys, %s", c.cfg.FingerprintBits, c.cfg.Layout, c.n, name)
			err := new(Filter[string]).UnmarshalBinary(bad)
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v, want ErrCorrupt saying %q", what, err, want)
			}
			if ok, cerr := ContainsEncoded(bad, "key-1"); !ok || fmt.Sprint(cerr) != fmt.Sprint(err) {
				t.Errorf("%s: ContainsEncoded %v, %v", what, ok, cerr)
			}
		}
	}
}
