package cuckoo

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestMergeShards builds one filter per shard of a key set, merges them
// into one, and checks that the merged filter holds every key, counts them
// all, and answers other keys like a filter built from all the keys would
// (the same rate), for fixed and growable filters of both layouts.
func TestMergeShards(t *testing.T) {
	t.Parallel()
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for _, cfg := range []Config{
			{Capacity: 40_000, FingerprintBits: 12},
			{Capacity: 1000, MaxCapacity: 1000 << 6, FingerprintBits: 12}, // shards grow to different stages
		} {
			cfg.Layout = layout
			t.Run(fmt.Sprint(cfg.MaxCapacity > 0), func(t *testing.T) {
				const n, shards = 36_000, 5
				parts := make([]*Filter[uint64], shards)
				for s := range parts {
					parts[s] = mustNew[uint64](t, cfg)
				}
				whole := mustNew[uint64](t, cfg)
				for i := range uint64(n) {
					k := i * 0x9e3779b97f4a7c15
					// Uneven shards: shard s gets keys with i%15 in [s(s+1)/2, (s+1)(s+2)/2).
					s := 0
					for r := int(i % 15); r >= s+1; s++ {
						r -= s + 1
					}
					if err := parts[s].Insert(k); err != nil {
						t.Fatal(err)
					}
					if err := whole.Insert(k); err != nil {
						t.Fatal(err)
					}
				}
				merged := mustNew[uint64](t, cfg)
				for _, p := range parts {
					if err := merged.Merge(p); err != nil {
						t.Fatalf("Merge: %v", err)
					}
				}
				if merged.Len() != n {
					t.Fatalf("merged Len %d, want %d", merged.Len(), n)
				}
				for i := range uint64(n) {
					if !merged.Contains(i * 0x9e3779b97f4a7c15) {
						t.Fatalf("key %d lost in the merge", i)
					}
				}
				fpMerged, fpWhole := 0, 0
				for i := range uint64(200_000) {
					k := 1<<50 + i
					if merged.Contains(k) {
						fpMerged++
					}
					if whole.Contains(k) {
						fpWhole++
					}
				}
				if d := fpMerged - fpWhole; d*d > 25*(fpWhole+1)+100 { // within 5 sigma of each other
					t.Fatalf("false positives: merged %d, one filter %d", fpMerged, fpWhole)
				}
				if merged.c.t.k != whole.c.t.k {
					t.Fatalf("merged at stage %d, one filter at %d", merged.c.t.k, whole.c.t.k)
				}
			})
		}
	})
}

// TestMergeRefused checks that merges of incompatible filters, and merges
// whose fingerprints do not fit, return their errors and leave the receiver
// byte for byte as it was.
func TestMergeRefused(t *testing.T) {
	base := Config{Capacity: 1000, FingerprintBits: 10, Seed: 1}
	fill := func(cfg Config, from, n int) *Filter[uint64] {
		f := mustNew[uint64](t, cfg)
		for i := range n {
			if err := f.Insert(uint64(from + i)); err != nil {
				t.Fatal(err)
			}
		}
		return f
	}
	for _, c := range []struct {
		name  string
		other Config
		n     int
		want  error
	}{
		{"seed", Config{Capacity: 1000, FingerprintBits: 10, Seed: 2}, 10, ErrIncompatible},
		{"width", Config{Capacity: 1000, FingerprintBits: 11, Seed: 1}, 10, ErrIncompatible},
		{"layout", Config{Capacity: 1000, FingerprintBits: 10, Seed: 1, Layout: SemiSorted}, 10, ErrIncompatible},
		{"capacity", Config{Capacity: 2000, FingerprintBits: 10, Seed: 1}, 10, ErrIncompatible},
		{"growable", Config{Capacity: 1000, MaxCapacity: 4000, FingerprintBits: 10, Seed: 1}, 10, ErrIncompatible},
		{"too many", base, 900, ErrFull},
	} {
		f := fill(base, 0, 700)
		before, n := bytes.Clone(f.c.t.data), f.Len()
		err := f.Merge(fill(c.other, 1_000_000, c.n))
		if !errors.Is(err, c.want) {
			t.Errorf("%s: Merge: %v, want %v", c.name, err, c.want)
		}
		if !bytes.Equal(before, f.c.t.data) || f.Len() != n {
			t.Errorf("%s: a refused Merge changed the receiver", c.name)
		}
	}
	var zero Filter[uint64]
	if err := zero.Merge(fill(base, 0, 1)); !errors.Is(err, ErrIncompatible) {
		t.Errorf("Merge into a zero Filter: %v", err)
	}
}

// TestMergeMisuse: nil, the filter itself, and filters that differ in one
// parameter give errors that say which.
func TestMergeMisuse(t *testing.T) {
	a := mustNew[uint64](t, Config{Capacity: 1000, MaxCapacity: 100000})
	a.Insert(1)
	if err := a.Merge(nil); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("Merge(nil): %v", err)
	}
	if err := a.Merge(a); !errors.Is(err, ErrIncompatible) || a.Count(1) != 1 {
		t.Fatalf("Merge(self): %v, Count %d", err, a.Count(1))
	}
	for cfg, want := range map[Config]string{
		{Capacity: 2000, MaxCapacity: 100000}:                     "Capacity differs",
		{Capacity: 1000, MaxCapacity: 400000}:                     "MaxCapacity differs",
		{Capacity: 1000, MaxCapacity: 100000, FingerprintBits: 9}: "fingerprint widths (13 and 9 bits)",
		{Capacity: 1000, MaxCapacity: 100000, Layout: SemiSorted}: "layouts (Packed and SemiSorted)",
	} {
		err := a.Merge(mustNew[uint64](t, cfg))
		if !errors.Is(err, ErrIncompatible) || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: %v, want it to say %q", cfg, err, want)
		}
	}
}
