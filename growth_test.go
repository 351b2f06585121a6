package cuckoo

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestLayeredOther checks the layered alternate map at every stage of
// growable tables of many shapes: other is an involution that never maps a
// bucket to itself, stays in range, keeps the fingerprint, and place's two
// buckets are each other's other.
func TestLayeredOther(t *testing.T) {
	r := newRand(11)
	for _, layout := range layouts {
		for _, c := range []struct {
			m0    uint64
			fbits uint
			g     uint
		}{{2, 4, 1}, {16, 4, 6}, {18, 8, 10}, {1000, 13, 19}, {1 << 20, 16, 16}, {3000, 24, 8}, {40, 31, 1}} {
			for k := uint(0); k <= c.g; k++ {
				tb := tableShape(c.m0, c.fbits, c.g, k, layout, 0)
				for range 2000 {
					b1, v1, b2, v2 := tb.place(r.Uint64())
					if b1 >= tb.m || b2 >= tb.m || b1 == b2 || v1 == 0 || v2 == 0 || uint64(v1) > tb.slotMax || uint64(v2) > tb.slotMax {
						t.Fatalf("%v m0=%d f=%d g=%d k=%d: place = (%d, %#x, %d, %#x)", layout, c.m0, c.fbits, c.g, k, b1, v1, b2, v2)
					}
					if v1&uint32(tb.fpMask) != v2&uint32(tb.fpMask) {
						t.Fatalf("%v m0=%d f=%d g=%d k=%d: the two places hold different fingerprints %#x %#x", layout, c.m0, c.fbits, c.g, k, v1, v2)
					}
					if ob, ov := tb.other(b1, v1); ob != b2 || ov != v2 {
						t.Fatalf("%v m0=%d f=%d g=%d k=%d: other(%d, %#x) = (%d, %#x), place says (%d, %#x)", layout, c.m0, c.fbits, c.g, k, b1, v1, ob, ov, b2, v2)
					}
					if ob, ov := tb.other(b2, v2); ob != b1 || ov != v1 {
						t.Fatalf("%v m0=%d f=%d g=%d k=%d: other is not an involution", layout, c.m0, c.fbits, c.g, k)
					}
				}
			}
		}
	}
}

// TestDoublingKeepsEverything fills stage 0 of growable tables, doubles them
// to their last stage, and checks after every doubling that every key is
// still found, the item count is unchanged, and keys never inserted are
// found no more often than the rate of the stage's slot width allows.
func TestDoublingKeepsEverything(t *testing.T) {
	t.Parallel()
	for _, layout := range layouts {
		for _, c := range []struct {
			m0    uint64
			fbits uint
			g     uint
		}{{16, 4, 3}, {16, 8, 6}, {50, 12, 8}, {20, 13, 5}, {30, 16, 10}, {24, 20, 12}, {16, 28, 4}} {
			t.Run(fmt.Sprintf("%v/f=%d/g=%d", layout, c.fbits, c.g), func(t *testing.T) {
				c0 := core{reader: reader{t: newStage(c.m0, c.fbits, c.g, 0, layout, 0), h: newHasher(7)}, maxKicks: DefaultMaxKicks, rng: 7}
				var in []uint64
				r := newRand(uint64(c.fbits))
				for c0.count < c0.t.stageCapacity() {
					h := r.Uint64()
					if c0.insertAt(c0.t.place(h)) == nil {
						in = append(in, h)
					}
				}
				for c0.t.canGrow() {
					c0.grow()
					for _, h := range in {
						if !c0.containsHash(h) {
							t.Fatalf("stage %d: hash %#x lost", c0.t.k, h)
						}
					}
					occupied := 0
					for b := range c0.t.m {
						for _, v := range c0.t.bucketSlots(b) {
							if v != 0 {
								occupied++
							}
						}
					}
					if occupied != len(in) {
						t.Fatalf("stage %d: %d slots occupied, %d inserted", c0.t.k, occupied, len(in))
					}
				}
				if c0.t.f != c.fbits || c0.t.m != c.m0<<c.g {
					t.Fatalf("last stage: %d-bit slots, %d buckets; want %d, %d", c0.t.f, c0.t.m, c.fbits, c.m0<<c.g)
				}
			})
		}
	}
}

// TestGrowableConfig checks MaxCapacity's validation and the geometry it
// gives: errors name the field; a growable filter's first table is
// Capacity's (at least minBaseBuckets), whatever MaxCapacity is, doubled
// the fewest times that reach a fixed filter's for MaxCapacity.
func TestGrowableConfig(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Capacity: 100, MaxCapacity: 99}, "MaxCapacity"},
		{Config{Capacity: 100, MaxCapacity: -1}, "MaxCapacity"},
		{Config{Capacity: 1000, MaxCapacity: 1000 << 20, FingerprintBits: 16}, "MaxCapacity"}, // 20 doublings, 16 allowed
		{Config{Capacity: 1, MaxCapacity: math.MaxInt}, "MaxCapacity"},
		// The widths that can grow that far are named.
		{Config{Capacity: 1000, MaxCapacity: 4000, FingerprintBits: 32}, "fingerprints of at most 30 bits, not 32"},
		{Config{Capacity: 1000, MaxCapacity: 1000 << 20, FalsePositiveRate: 1e-6}, "fingerprints of at most 12 bits, not 23"},
		{Config{Capacity: 1000, MaxCapacity: 1 << 20, FalsePositiveRate: 1e-6}, "fingerprints of at most 21 bits, not 23"}, // 2^10.03 times: 11 doublings
	} {
		_, err := New[uint64](c.cfg)
		if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want ErrInvalidConfig naming %s", c.cfg, err, c.want)
		}
	}
	for _, layout := range layouts {
		for _, f := range []int{4, 8, 13, 16, 20} {
			for _, c := range [][2]int{{1, 1000}, {1000, 2000}, {1000, 1 << 20}, {1 << 10, 1 << 20}, {3000, 3 << 12}, {100, 150}} {
				cfg := Config{Capacity: c[0], MaxCapacity: c[1], FingerprintBits: f, Layout: layout}
				g, err := New[uint64](cfg)
				if err != nil {
					t.Fatalf("%+v: %v", cfg, err)
				}
				fixed := mustNew[uint64](t, Config{Capacity: c[1], FingerprintBits: f, Layout: layout})
				first := mustNew[uint64](t, Config{Capacity: c[0], FingerprintBits: f, Layout: layout})
				m0, final := g.c.t.m0, g.c.t.m0<<g.c.t.g
				switch {
				case g.c.t.g == 0:
				case m0 != first.c.t.m && (m0 < minBaseBuckets || m0 > minBaseBuckets+4):
					t.Errorf("%+v: a first table of %d buckets, Capacity's has %d", cfg, m0, first.c.t.m)
				case final < fixed.c.t.m || final>>1 >= fixed.c.t.m:
					t.Errorf("%+v: %d buckets grown, not the fewest doublings to a fixed filter for MaxCapacity's %d", cfg, final, fixed.c.t.m)
				}
				if g.c.t.stageCapacity() < min(c[0], c[1]) && g.c.t.g > 0 {
					t.Errorf("%+v: the first table holds %d, Capacity is %d", cfg, g.c.t.stageCapacity(), c[0])
				}
				if g.MaxCapacity() != c[1] {
					t.Errorf("%+v: MaxCapacity() = %d", cfg, g.MaxCapacity())
				}
			}
		}
	}
	// No room to double (MaxCapacity below twice Capacity, or 72 or
	// fewer): the fixed filter for MaxCapacity, whose Capacity and Config
	// say so, and whose Config makes it again. From 73 it grows.
	for _, c := range []struct {
		cfg  Config
		grow bool
	}{
		{Config{Capacity: 1, MaxCapacity: 16, FingerprintBits: 28}, false},
		{Config{Capacity: 1, MaxCapacity: 16, FingerprintBits: 8}, false},
		{Config{Capacity: 100, MaxCapacity: 150}, false},
		{Config{Capacity: 1, MaxCapacity: 72, FingerprintBits: 4, Layout: SemiSorted}, false},
		{Config{Capacity: 1, MaxCapacity: 72, FingerprintBits: 32}, false},
		{Config{Capacity: 1, MaxCapacity: 73, FingerprintBits: 4}, true},
		{Config{Capacity: 1, MaxCapacity: 73, FingerprintBits: 28}, true},
	} {
		g := mustNew[uint64](t, c.cfg)
		if c.grow {
			if g.c.t.g == 0 || g.Capacity() != c.cfg.Capacity {
				t.Errorf("%+v: %d doublings, Capacity %d", c.cfg, g.c.t.g, g.Capacity())
			}
			continue
		}
		want := c.cfg
		want.Capacity, want.MaxCapacity, want.Seed, want.MaxKicks = c.cfg.MaxCapacity, 0, DefaultSeed, DefaultMaxKicks
		want.FingerprintBits, want.FalsePositiveRate = g.FingerprintBits(), 0
		fixed := mustNew[uint64](t, Config{Capacity: c.cfg.MaxCapacity, FingerprintBits: g.FingerprintBits(), Layout: c.cfg.Layout})
		switch {
		case g.c.t.g != 0 || g.Capacity() != c.cfg.MaxCapacity || g.MaxCapacity() != c.cfg.MaxCapacity || g.Info().Capacity != c.cfg.MaxCapacity:
			t.Errorf("%+v: %d doublings, Capacity %d, MaxCapacity %d", c.cfg, g.c.t.g, g.Capacity(), g.MaxCapacity())
		case g.Config() != want:
			t.Errorf("%+v: Config() %+v, want %+v", c.cfg, g.Config(), want)
		case g.Slots() != fixed.Slots():
			t.Errorf("%+v: %d slots, a fixed filter for MaxCapacity %d", c.cfg, g.Slots(), fixed.Slots())
		}
		if err := g.Merge(fixed); err != nil {
			t.Errorf("%+v: Merge of New(Config()): %v", c.cfg, err)
		}
	}
}

// TestModelGrowable runs the model test (random inserts with duplicates and
// overfill, deletes, counts, resets; no false negatives, failed inserts
// change nothing) on growable filters that start tiny.
func TestModelGrowable(t *testing.T) {
	t.Parallel()
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for _, c := range []struct{ bits, capacity, maxCap int }{{4, 10, 640}, {8, 16, 4096}, {13, 100, 3200}, {16, 20, 20 << 10}, {21, 50, 1600}} {
			for seed := range uint64(2) {
				runModel(t, Config{Capacity: c.capacity, MaxCapacity: c.maxCap, FingerprintBits: c.bits, Layout: layout, Seed: seed}, 40_000, seed)
			}
		}
	})
}

// TestFillGrowable inserts MaxCapacity distinct keys into new growable
// filters, which must all succeed and all be found at every stage; measures
// the false-positive rate at every stage against the configured rate;
// deletes half and checks the rest; and checks that Reset returns to a new
// filter's table.
func TestFillGrowable(t *testing.T) {
	t.Parallel()
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for _, c := range []struct {
			capacity, maxCap int
			rate             float64
		}{{1, 1000, 0.03}, {100, 100 << 10, 0.001}, {1000, 1 << 20, 0.01}, {5000, 5000 << 4, 0.0001}} {
			if testing.Short() && c.maxCap > 200_000 {
				continue
			}
			for seed := range uint64(2) {
				cfg := Config{Capacity: c.capacity, MaxCapacity: c.maxCap, FalsePositiveRate: c.rate, Layout: layout, Seed: seed + 1}
				f := mustNew[uint64](t, cfg)
				stage := f.c.t.k
				check := func(n int) {
					for i := range n {
						if !f.Contains(uint64(i)) {
							t.Fatalf("%+v: key %d of %d lost at stage %d", cfg, i, n, f.c.t.k)
						}
					}
					const probes = 200_000
					fp := 0
					for i := range probes {
						if f.Contains(1<<40 + uint64(i)) {
							fp++
						}
					}
					if bound := rateBound(c.rate, probes); float64(fp)/probes > bound {
						t.Fatalf("%+v: stage %d, %d items: rate %.5f above the configured %v (bound %.5f)", cfg, f.c.t.k, n, float64(fp)/probes, c.rate, bound)
					}
				}
				for i := range c.maxCap {
					if err := f.Insert(uint64(i)); err != nil {
						t.Fatalf("%+v: insert %d of %d: %v", cfg, i, c.maxCap, err)
					}
					if f.c.t.k != stage { // just doubled: check everything so far
						stage = f.c.t.k
						check(i + 1)
					}
				}
				check(c.maxCap)
				if f.c.t.k != f.c.t.g {
					t.Fatalf("%+v: at MaxCapacity at stage %d of %d", cfg, f.c.t.k, f.c.t.g)
				}
				for i := 0; i < c.maxCap; i += 2 {
					if !f.Delete(uint64(i)) {
						t.Fatalf("%+v: delete %d failed", cfg, i)
					}
				}
				for i := 1; i < c.maxCap; i += 2 {
					if !f.Contains(uint64(i)) {
						t.Fatalf("%+v: key %d lost after deletes", cfg, i)
					}
				}
				f.Reset()
				if fresh := mustNew[uint64](t, cfg); f.c.t.k != 0 || !bytes.Equal(f.c.t.data, fresh.c.t.data) || f.Len() != 0 {
					t.Fatalf("%+v: Reset did not give a new filter's table", cfg)
				}
			}
		}
	})
}

// rateBound is the most a measured false-positive rate over n probes may
// exceed rate by chance: rate plus five standard deviations of a binomial
// count, plus one probe.
func rateBound(rate float64, n int) float64 {
	return rate + 5*math.Sqrt(rate*(1-rate)/float64(n)) + 1/float64(n)
}

// TestGrowableBatches checks ContainsBatch, ContainsHashBatch, InsertBatch
// and the allocation promise on growable filters, under every
// implementation: batches answer like Contains at every stage.
func TestGrowableBatches(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		forEachImpl(t, func(t *testing.T) {
			f := mustNew[uint64](t, Config{Capacity: 100, MaxCapacity: 100 << 6, FingerprintBits: 10, Layout: layout})
			keys := make([]uint64, 100<<6)
			for i := range keys {
				keys[i] = uint64(i) * 0x9e3779b97f4a7c15
			}
			probe := append(keys[:len(keys):len(keys)], keys...)
			for i := len(keys); i < len(probe); i++ {
				probe[i] ^= 1 // not inserted
			}
			hs := make([]uint64, len(probe))
			for i, k := range probe {
				hs[i] = f.Hash(k)
			}
			found := make([]bool, len(probe))
			for done := 0; done < len(keys); done += 700 {
				chunk := keys[done:min(done+700, len(keys))]
				if n, err := f.InsertBatch(chunk); n != len(chunk) || err != nil {
					t.Fatalf("InsertBatch at %d: %d, %v", done, n, err)
				}
				for _, batch := range []func() int{
					func() int { return f.ContainsBatch(probe, found) },
					func() int { return f.ContainsHashBatch(hs, found) },
				} {
					want := 0
					n := batch()
					for i, k := range probe {
						if found[i] != f.Contains(k) {
							t.Fatalf("stage %d: batch says %v for key %d, Contains %v", f.c.t.k, found[i], i, !found[i])
						}
						if i < done+len(chunk) && !found[i] {
							t.Fatalf("stage %d: key %d lost", f.c.t.k, i)
						}
						if found[i] {
							want++
						}
					}
					if n != want {
						t.Fatalf("stage %d: batch counted %d, found %d", f.c.t.k, n, want)
					}
				}
			}
			if f.c.t.k != f.c.t.g {
				t.Fatalf("stage %d of %d after MaxCapacity keys", f.c.t.k, f.c.t.g)
			}
			if raceEnabled {
				return
			}
			for name, op := range map[string]func(){
				"Contains":      func() { f.Contains(keys[7]) },
				"ContainsBatch": func() { f.ContainsBatch(probe[:500], found) },
				"Count":         func() { f.Count(keys[9]) },
				"DeleteInsert":  func() { f.Delete(keys[3]); _ = f.Insert(keys[3]) },
			} {
				if a := testing.AllocsPerRun(100, op); a != 0 {
					t.Errorf("%s on a grown filter: %v allocations", name, a)
				}
			}
		})
	})
}

// TestGrowableAccessors checks what a growable filter reports as it grows:
// FingerprintBits is the configured width at every stage, SizeBytes is
// Config.SizeBytes at first and doubles (about) as it grows, and the
// estimated rate stays at most the configured one.
func TestGrowableAccessors(t *testing.T) {
	cfg := Config{Capacity: 500, MaxCapacity: 500 << 5, FalsePositiveRate: 0.001}
	f := mustNew[uint64](t, cfg)
	want, err := cfg.SizeBytes()
	if err != nil || f.SizeBytes() != want {
		t.Fatalf("SizeBytes %d, Config.SizeBytes %d (%v)", f.SizeBytes(), want, err)
	}
	fixed := mustNew[uint64](t, Config{Capacity: cfg.MaxCapacity, FalsePositiveRate: 0.001})
	for i := range cfg.MaxCapacity {
		if err := f.Insert(uint64(i)); err != nil {
			t.Fatal(err)
		}
		if f.FingerprintBits() != fixed.FingerprintBits() {
			t.Fatalf("stage %d: FingerprintBits %d, want %d", f.c.t.k, f.FingerprintBits(), fixed.FingerprintBits())
		}
		if r := f.EstimatedFalsePositiveRate(); r > 0.001 {
			t.Fatalf("stage %d, %d items: estimated rate %v above the configured 0.001", f.c.t.k, f.Len(), r)
		}
	}
	if f.SizeBytes() > fixed.SizeBytes()*5/4 {
		t.Fatalf("grown to MaxCapacity: %d bytes, a fixed filter %d", f.SizeBytes(), fixed.SizeBytes())
	}
	if s := f.String(); !strings.Contains(s, "13-bit") {
		t.Fatalf("String %q does not give the fingerprint width", s)
	}
}

// BenchmarkGrown puts a filter grown 1024x beside a fixed filter made for
// the same final size, both holding the same 1M keys: Contains of held keys
// (op=contains), and filling a new filter with the 1M keys, one ns/op per
// key (op=fill: the grown filter starts at 1M/1024 and doubles ten times).
//
//	go test -run '^$' -bench Grown -count 6 | benchstat -col /filter -
func BenchmarkGrown(b *testing.B) {
	const n = 1 << 20
	keys := benchKeys[uint64](n, 0)
	configs := []struct {
		name string
		cfg  Config
	}{
		{"fixed", Config{Capacity: n}},
		{"grown", Config{Capacity: n >> 10, MaxCapacity: n}},
	}
	for _, c := range configs {
		f := mustNew[uint64](b, c.cfg)
		for _, k := range keys {
			if err := f.Insert(k); err != nil {
				b.Fatal(err)
			}
		}
		b.Run("op=contains/filter="+c.name, func(b *testing.B) {
			found := 0
			for i := 0; b.Loop(); i++ {
				if f.Contains(keys[i&(n-1)]) {
					found++
				}
			}
			if found != b.N {
				b.Fatal("lost keys")
			}
		})
	}
	for _, c := range configs {
		b.Run("op=fill/filter="+c.name, func(b *testing.B) {
			// b.N keys in fills of n: each fill starts from a new filter.
			var f *Filter[uint64]
			for i := 0; b.Loop(); i++ {
				if i%n == 0 {
					b.StopTimer()
					f = mustNew[uint64](b, c.cfg)
					b.StartTimer()
				}
				if err := f.Insert(keys[i%n]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestGrowthScales backs the README's 1M -> 1B figures: a filter growing
// 1024-fold from 1M keys has, stage for stage, the bits per item and slot
// widths of one growing from 1,000 keys (measured by bench -growth), up to
// the rounding of bucket counts; and at its last stage about the space of
// a fixed filter made for 1B keys. Only table shapes are computed; nothing
// of that size is allocated.
func TestGrowthScales(t *testing.T) {
	bitsPerItem := func(c int) ([]float64, table) {
		p, err := Config{Capacity: c, MaxCapacity: c << 10}.resolve()
		if err != nil {
			t.Fatal(err)
		}
		if p.g != 10 {
			t.Fatalf("Capacity %d: %d doublings, want 10", c, p.g)
		}
		var out []float64
		var last table
		for k := uint(0); k <= p.g; k++ {
			last = tableShape(p.m, p.f, p.g, k, p.layout, 0)
			out = append(out, float64(last.m*uint64(last.bbits))/float64(last.stageCapacity()))
		}
		return out, last
	}
	small, _ := bitsPerItem(1000)
	large, last := bitsPerItem(1_000_000)
	for k := range small {
		if r := large[k] / small[k]; r < 0.98 || r > 1.02 {
			t.Errorf("stage %d: %.2f bits per item from 1M, %.2f from 1K", k, large[k], small[k])
		}
	}
	fixed, err := Config{Capacity: 1_000_000 << 10}.resolve()
	if err != nil {
		t.Fatal(err)
	}
	grown := float64(last.m * uint64(last.bbits))
	if r := grown / float64(fixed.m*uint64(bucketBits(fixed.layout, fixed.f))); r > 1.02 || last.f != fixed.f {
		t.Errorf("grown to 1B: %.3fx the fixed filter's bits, slots of %d bits against %d", r, last.f, fixed.f)
	}
	t.Logf("bits per item at each stage's fullest, from 1M: %.1f", large)
}

// TestFailedInsertAfterDoubling fills a key's two buckets with copies of
// it, then inserts another key that has the same two buckets at every
// stage: its insert doubles the filter (a doubling keeps both keys
// together), fails at every stage, and must leave the filter exactly as it
// was: the same stage, bytes and Len, and for a ConcurrentFilter the same
// published table.
func TestFailedInsertAfterDoubling(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for _, maxCap := range []int{200, 400, 800} {
			cfg := Config{Capacity: 100, MaxCapacity: maxCap, FingerprintBits: 8, Layout: layout, Seed: 3}
			f := mustNew[uint64](t, cfg)
			cf := mustNewConcurrent[uint64](t, cfg)
			const a = 1
			for range 2 * slotsPerBucket {
				if f.Insert(a) != nil || cf.Insert(a) != nil {
					t.Fatalf("%+v: the first 8 copies of a key must go in", cfg)
				}
			}
			// b: a key with a's buckets at every stage and another
			// fingerprint.
			t0 := f.c.t
			pairs := func(h uint64) (p []uint64) {
				for k := uint(0); k <= t0.g; k++ {
					s := tableShape(t0.m0, t0.fbits, t0.g, k, t0.layout, 0)
					b1, _, b2, _ := s.place(h)
					p = append(p, min(b1, b2), max(b1, b2))
				}
				return p
			}
			want, b := pairs(f.Hash(a)), uint64(2)
			for !slices.Equal(pairs(f.Hash(b)), want) || f.Count(b) != 0 {
				b++
			}
			if t0.g == 0 {
				t.Fatalf("%+v: no doublings: the test tests nothing", cfg)
			}
			// Twice: with room left in the first stage (the insert fails,
			// then doubles), and with the first stage at its capacity (it
			// doubles first).
			for _, full := range []bool{false, true} {
				for k := uint64(1 << 40); full && f.Len() < f.c.t.stageCapacity(); k++ {
					if f.Insert(k) != nil || cf.Insert(k) != nil {
						t.Fatalf("%+v: filling the first stage failed", cfg)
					}
				}
				before, n := bytes.Clone(f.c.t.data), f.Len()
				if err := f.Insert(b); !errors.Is(err, ErrFull) {
					t.Fatalf("%+v, full %v: Insert(%d) into a's full buckets: %v, want ErrFull", cfg, full, b, err)
				}
				if f.c.t.k != 0 || !bytes.Equal(before, f.c.t.data) || f.Len() != n {
					t.Fatalf("%+v, full %v: a failed insert changed the filter: stage %d, Len %d -> %d", cfg, full, f.c.t.k, n, f.Len())
				}
				s := cf.c.cur.Load()
				words := slices.Clone(s.words)
				if err := cf.Insert(b); !errors.Is(err, ErrFull) {
					t.Fatalf("%+v, full %v: concurrent Insert(%d) into a's full buckets: %v, want ErrFull", cfg, full, b, err)
				}
				if cf.c.cur.Load() != s || !slices.Equal(words, s.words) || cf.Len() != n {
					t.Fatalf("%+v, full %v: a failed concurrent insert changed the filter", cfg, full)
				}
			}
			if f.Count(a) != 2*slotsPerBucket || cf.Count(a) != 2*slotsPerBucket {
				t.Fatalf("%+v: copies of a lost", cfg)
			}
		}
	})
}

func TestAltInvolutionExhaustive(t *testing.T) {
	// Every even m up to 300, every bucket, every fingerprint of an 8-bit
	// width: alt is an involution onto [0, m) that never returns its input,
	// and altBySign, its other form, gives the same index.
	for m := uint64(2); m <= 300; m += 2 {
		tb := newTable(m, 8, Packed)
		for i := uint64(0); i < m; i++ {
			for fp := uint32(1); fp <= 255; fp++ {
				j := tb.alt(i, fp)
				if j >= m || j == i || tb.alt(j, fp) != i {
					t.Fatalf("m=%d i=%d fp=%d: alt=%d, alt(alt)=%d", m, i, fp, j, tb.alt(j, fp))
				}
				if k := altBySign(i, fp, m); k != j {
					t.Fatalf("m=%d i=%d fp=%d: altBySign=%d, alt=%d", m, i, fp, k, j)
				}
			}
		}
	}
}

func TestAltInvolutionLarge(t *testing.T) {
	r := newRand(1)
	for _, m := range []uint64{2, 1 << 20, 1<<32 - 2, 1 << 32, 123456790, 3_000_000_002} {
		tb := table{m: m, m0: m, shape: shape{f: 32}, fpRange: 1<<32 - 1}
		for range 100000 {
			i, fp := r.Uint64N(m), uint32(r.Uint64N(tb.fpRange))+1
			j := tb.alt(i, fp)
			if j >= m || j == i || tb.alt(j, fp) != i {
				t.Fatalf("m=%d i=%d fp=%d: alt=%d", m, i, fp, j)
			}
			if k := altBySign(i, fp, m); k != j {
				t.Fatalf("m=%d i=%d fp=%d: altBySign=%d, alt=%d", m, i, fp, k, j)
			}
		}
	}
}

func TestLocateRange(t *testing.T) {
	r := newRand(2)
	for f := uint(4); f <= 32; f++ {
		for _, m := range []uint64{2, 6, 1000, 1 << 32} {
			tb := table{m: m, m0: m, shape: shape{f: f}, fpRange: 1<<f - 1}
			hs := []uint64{0, ^uint64(0), 1 << 32, 1<<32 - 1}
			for range 1000 {
				hs = append(hs, r.Uint64())
			}
			for _, h := range hs {
				fp, i := tb.locate(h)
				if fp == 0 || uint64(fp) > tb.fpRange || i >= m {
					t.Fatalf("f=%d m=%d h=%#x: fp=%d i=%d", f, m, h, fp, i)
				}
			}
			// hashFor inverts locate.
			for range 100 {
				i, fp := r.Uint64N(m), uint32(r.Uint64N(tb.fpRange))+1
				if gfp, gi := tb.locate(hashFor(&tb, i, fp)); gfp != fp || gi != i {
					t.Fatalf("f=%d m=%d: hashFor(%d,%d) locates (%d,%d)", f, m, i, fp, gi, gfp)
				}
			}
		}
	}
}

func TestFingerprintUniform(t *testing.T) {
	// Every fingerprint of a 4-bit width is about equally likely; a scheme
	// that mapped 0 to 1 would make fingerprint 1 twice as common.
	tb := table{m: 2, m0: 2, shape: shape{f: 4}, fpRange: 15}
	var counts [16]int
	r := newRand(3)
	const n = 150000
	for range n {
		fp, _ := tb.locate(r.Uint64())
		counts[fp]++
	}
	for fp := 1; fp <= 15; fp++ {
		if c := counts[fp]; c < n/15*9/10 || c > n/15*11/10 {
			t.Fatalf("fingerprint %d drawn %d times of %d", fp, c, n)
		}
	}
}

// TestFirstTableIsCapacitys checks that a growable filter starts from the
// table Capacity needs whatever MaxCapacity is: a MaxCapacity between two
// powers of two of Capacity takes the doublings to the larger, so a window
// for 10 times its keys costs no more bytes than one for 16 times, and
// Info's TableCapacity doubles with each doubling.
func TestFirstTableIsCapacitys(t *testing.T) {
	for _, layout := range layouts {
		cfg, err := WindowConfig(1_000, time.Hour, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Layout = layout
		none := mustNew[uint64](t, cfg)
		size := map[int]int{}
		for _, x := range []int{2, 3, 10, 16} {
			c := cfg
			c.MaxCapacity = x * cfg.Capacity
			f := mustNew[uint64](t, c)
			if f.c.t.m0 != none.c.t.m {
				t.Errorf("%v, MaxCapacity %dx: a first table of %d buckets, Capacity's has %d", layout, x, f.c.t.m0, none.c.t.m)
			}
			if i := f.Info(); i.TableCapacity != cfg.Capacity {
				t.Errorf("%v, MaxCapacity %dx: TableCapacity %d, want Capacity %d", layout, x, i.TableCapacity, cfg.Capacity)
			}
			size[x] = f.SizeBytes()
			for i := 0; f.Len() < c.MaxCapacity; i++ {
				if err := f.Insert(uint64(i)); err != nil {
					t.Fatalf("%v, MaxCapacity %dx: %v at %d keys", layout, x, err, f.Len())
				}
				if i := f.Info(); i.TableCapacity != cfg.Capacity<<i.Doublings {
					t.Fatalf("%v, MaxCapacity %dx: TableCapacity %d after %d doublings", layout, x, i.TableCapacity, i.Doublings)
				}
			}
			if i := f.Info(); i.TableCapacity < c.MaxCapacity || i.Doublings != i.MaxDoublings {
				t.Errorf("%v, MaxCapacity %dx: TableCapacity %d after %d of %d doublings", layout, x, i.TableCapacity, i.Doublings, i.MaxDoublings)
			}
		}
		if size[10] > size[16] || size[3] > size[16] {
			t.Errorf("%v: SizeBytes %v by MaxCapacity / Capacity: 10x or 3x above 16x", layout, size)
		}
	}
}
