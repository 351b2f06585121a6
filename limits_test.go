package cuckoo

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestCountsFitInt32 checks, on any host, what New accepts on a 32-bit
// platform: for every width and layout, the largest accepted Capacity has a
// table and a slot count that an int32 holds, and one more item than that is
// rejected with an error naming Capacity. A 1.2 GB table of 4-bit
// fingerprints, whose 2.4 billion slots made Slots and LoadFactor negative
// on 386, is rejected.
func TestCountsFitInt32(t *testing.T) {
	resolve32 := func(c Config) (params, error) {
		p, err := c.resolve()
		if err != nil && !strings.Contains(err.Error(), "platform") {
			return p, err
		}
		// resolve checked against math.MaxInt; check again as a 32-bit int would.
		m, ok := bucketsFor(c.Capacity, p.f)
		if !ok {
			return p, invalidField("Capacity", "too large")
		}
		return p, checkCounts(c.Capacity, m, bucketBits(c.Layout, p.f), math.MaxInt32)
	}
	for f := minFingerprintBits; f <= maxFingerprintBits; f++ {
		for _, layout := range layouts {
			ok := func(n int) bool {
				_, err := resolve32(Config{Capacity: n, FingerprintBits: f, Layout: layout})
				return err == nil
			}
			lo, hi := 1, math.MaxInt32 // ok(lo); find the largest
			if ok(hi) {
				t.Fatalf("f=%d %v: capacity MaxInt32 accepted", f, layout)
			}
			for hi-lo > 1 {
				if mid := lo + (hi-lo)/2; ok(mid) {
					lo = mid
				} else {
					hi = mid
				}
			}
			m, _ := bucketsFor(lo, uint(f))
			if m*slotsPerBucket > math.MaxInt32 || tableBytes(m, bucketBits(layout, uint(f))) > math.MaxInt32 {
				t.Fatalf("f=%d %v: capacity %d accepted with %d buckets", f, layout, lo, m)
			}
			if slots := int32(m * slotsPerBucket); slots <= 0 || float64(lo)/float64(slots) > 1 {
				t.Fatalf("f=%d %v: %d slots as an int32", f, layout, slots)
			}
			_, err := resolve32(Config{Capacity: lo + 1, FingerprintBits: f, Layout: layout})
			if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), "Capacity") {
				t.Fatalf("f=%d %v: capacity %d: %v", f, layout, lo+1, err)
			}
		}
	}
	// The case of issue 14: 1.4 billion 4-bit items, 1.1 GB of table.
	if _, err := resolve32(Config{Capacity: 1_400_000_000, FingerprintBits: 4}); !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("1.4e9 4-bit items on 32 bits: %v", err)
	}
}

// TestCountsFitInt is TestCountsFitInt32 on the real platform (386 under
// qemu in CI): New rejects what an int cannot count, before allocating.
func TestCountsFitInt(t *testing.T) {
	if strconv.IntSize != 32 {
		t.Skip("a 32-bit platform's test")
	}
	for _, cfg := range []Config{
		{Capacity: 1_400_000_000, FingerprintBits: 4},
		{Capacity: 2_100_000_000, FingerprintBits: 8, Layout: SemiSorted},
		{Capacity: math.MaxInt32},
	} {
		if f, err := New[uint64](cfg); f != nil || !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("New(%+v): %v", cfg, err)
		}
	}
	// Just below the bound, resolve accepts and every count is positive.
	p, err := Config{Capacity: 1_300_000_000, FingerprintBits: 4}.resolve()
	if err != nil {
		t.Fatal(err)
	}
	r := reader{t: tableShape(p.m, p.f, 0, 0, p.layout, 0), count: p.capacity, capacity: p.capacity}
	if r.slots() <= 0 || r.loadFactor() <= 0 || r.loadFactor() > 1 || r.estimatedFPR() <= 0 {
		t.Fatalf("%d buckets: Slots %d, LoadFactor %v, rate %v", p.m, r.slots(), r.loadFactor(), r.estimatedFPR())
	}
}
