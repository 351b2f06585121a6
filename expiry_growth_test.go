package cuckoo

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// Expiring filters that grow (Config.Generations with MaxCapacity).

// TestExpiringGrowableConfig checks what New makes of Generations with
// MaxCapacity: a growable expiring filter whose Config, Info, String and
// SizeBytes tell both, and, where the fingerprint, the generation bits and
// the doublings do not fit a slot, an error wrapping ErrInvalidConfig that
// names what to change, the same from New, NewConcurrent and SizeBytes.
func TestExpiringGrowableConfig(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		says []string // "" for a valid Config
	}{
		{Config{Capacity: 1000, MaxCapacity: 64000, Generations: 4}, nil},
		{Config{Capacity: 1000, MaxCapacity: 64000, Generations: 4, Layout: SemiSorted}, nil},
		{Config{Capacity: 1000, MaxCapacity: 1 << 20, Generations: 4, FingerprintBits: 19}, nil},
		{Config{Capacity: 1000, MaxCapacity: 1 << 20, Generations: 4, FingerprintBits: 20},
			[]string{"FingerprintBits 20, Generations 4 (2 bits) and MaxCapacity 1048576 (11 doublings from Capacity 1000)", "11 doublings and 2 generation bits", "at most 19 bits, not 20", "FingerprintBits 19", "MaxCapacity 1024000"}},
		{Config{Capacity: 1000, MaxCapacity: 1 << 20, Generations: 256, FalsePositiveRate: 1e-6},
			[]string{"MaxCapacity", "Generations 256 (8 bits)", "at most 13 bits", "FalsePositiveRate 0.00"}},
		{Config{Capacity: 1000, MaxCapacity: 1 << 20, FingerprintBits: 24},
			[]string{"with 11 doublings, a slot holds fingerprints of at most 21 bits, not 24", "FingerprintBits 21; or MaxCapacity 256000"}},
	} {
		for _, layout := range layouts {
			cfg := c.cfg
			cfg.Layout = layout
			f, err := New[uint64](cfg)
			_, cerr := NewConcurrent[uint64](cfg)
			size, serr := cfg.SizeBytes()
			if c.says != nil {
				for _, e := range []error{err, cerr, serr} {
					if !errors.Is(e, ErrInvalidConfig) || e.Error() != err.Error() {
						t.Fatalf("%+v: %v; NewConcurrent %v, SizeBytes %v", cfg, err, cerr, serr)
					}
				}
				for _, s := range c.says {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("%+v: %v: does not say %q", cfg, err, s)
					}
				}
				continue
			}
			if err != nil || cerr != nil || serr != nil {
				t.Fatalf("%+v: New %v, NewConcurrent %v, SizeBytes %v", cfg, err, cerr, serr)
			}
			info := f.Info()
			if got := f.Config(); got.MaxCapacity != cfg.MaxCapacity || got.Generations != cfg.Generations || got.Capacity != cfg.Capacity {
				t.Errorf("%+v: Config() = %+v", cfg, got)
			}
			if info.MaxDoublings == 0 || info.Doublings != 0 || info.Generations != cfg.Generations || size != f.SizeBytes() {
				t.Errorf("%+v: Info %v, SizeBytes %d, Config.SizeBytes %d", cfg, info, f.SizeBytes(), size)
			}
			if s := f.String(); !strings.Contains(s, fmt.Sprintf("growable to %d, %d generations", cfg.MaxCapacity, cfg.Generations)) {
				t.Errorf("%+v: String %s", cfg, s)
			}
		}
	}
}

// burstFilter is what TestExpiringBurst drives: a Filter or a
// ConcurrentFilter.
type burstFilter interface {
	Insert(uint64) error
	InsertUnique(uint64) (bool, error)
	Contains(uint64) bool
	Advance() int
	Len() int
	MaxCapacity() int
	Info() Info
}

// TestExpiringBurst runs a window of G = 4 ticks whose steady traffic
// keeps a quarter of Capacity a tick, then, within one tick, a burst of 7
// times Capacity, then the steady traffic again while the burst expires:
// no insert fails while the live keys are within MaxCapacity, every key
// inserted within the window is found after every tick, Len is exact, and
// keys never inserted are found at the rate of a growable filter of the
// same Config without Generations holding the same keys.
func TestExpiringBurst(t *testing.T) {
	const capacity, gens, ticks, burstTick = 10_000, 4, 14, 6
	forEachLayout(t, func(t *testing.T, layout Layout) {
		cfg := Config{Capacity: capacity, MaxCapacity: 10 * capacity, Generations: gens, Layout: layout}
		for _, conc := range []bool{false, true} {
			var f burstFilter = mustNew[uint64](t, cfg)
			if conc {
				f = mustNewConcurrent[uint64](t, cfg)
			}
			plain := cfg
			plain.Generations = 0
			g := mustNew[uint64](t, plain) // the growable filter of the burst's keys
			var window [][]uint64          // the keys of the last ticks, newest last
			key := uint64(0)
			for tick := range ticks {
				if tick > 0 {
					f.Advance()
				}
				if len(window) == gens {
					window = window[1:] // the G-th Advance after their insert: gone
				}
				n := capacity / gens
				if tick == burstTick {
					n = 7 * capacity
				}
				keys := make([]uint64, n)
				for i := range keys {
					keys[i] = key
					key++
					if i%2 == 0 {
						if err := f.Insert(keys[i]); err != nil {
							t.Fatalf("conc %v, tick %d: Insert %d of %d: %v at Len %d of MaxCapacity %d", conc, tick, i, n, err, f.Len(), f.MaxCapacity())
						}
					} else if added, err := f.InsertUnique(keys[i]); err != nil {
						t.Fatalf("conc %v, tick %d: InsertUnique %d of %d: %v at Len %d of MaxCapacity %d", conc, tick, i, n, err, f.Len(), f.MaxCapacity())
					} else if !added && !f.Contains(keys[i]) {
						t.Fatalf("conc %v, tick %d: InsertUnique of an absent key added nothing", conc, tick)
					}
					if tick == burstTick {
						if err := g.Insert(keys[i]); err != nil {
							t.Fatalf("growable filter: %v", err)
						}
					}
				}
				window = append(window, keys)
				live := 0
				for _, w := range window {
					live += len(w)
					for _, k := range w {
						if !f.Contains(k) {
							t.Fatalf("conc %v, tick %d: a key of the window is missing", conc, tick)
						}
					}
				}
				// Keys InsertUnique skipped as false positives are not stored.
				if l := f.Len(); l > live || l < live-live/100 {
					t.Fatalf("conc %v, tick %d: Len %d with %d keys in the window", conc, tick, l, live)
				}
				if tick == burstTick {
					if i := f.Info(); i.Doublings == 0 || i.Doublings != g.Info().Doublings {
						t.Fatalf("conc %v: %d doublings for the burst, the growable filter %d", conc, i.Doublings, g.Info().Doublings)
					}
					checkBurstRate(t, f, g, key)
				}
			}
		}
	})
}

// checkBurstRate compares the false-positive rates of f and of the
// growable filter g, which hold alike many keys (below never): both within
// the configured rate, and within their binomial spread of each other.
func checkBurstRate(t *testing.T, f burstFilter, g *Filter[uint64], never uint64) {
	const probes = 400_000
	hf, hg := 0, 0
	for i := range uint64(probes) {
		k := never + 1<<32 + i
		if f.Contains(k) {
			hf++
		}
		if g.Contains(k) {
			hg++
		}
	}
	pf, pg := float64(hf)/probes, float64(hg)/probes
	pool := float64(hf+hg) / (2 * probes)
	bound := 5 * math.Sqrt(pool*(1-pool)*2/probes)
	t.Logf("false positives at the burst: expiring %.5f, growable %.5f (±%.5f), load %.3f", pf, pg, bound, g.LoadFactor())
	if math.Abs(pf-pg) > bound || pf > rateBound(DefaultFalsePositiveRate, probes) {
		t.Errorf("false-positive rate %.5f, the growable filter's %.5f: more apart than %.5f, or above %v", pf, pg, bound, DefaultFalsePositiveRate)
	}
}

// TestExpiringGrowableCopies checks that Clone, Snapshot and the encodings
// of an expiring filter part-way through its doublings continue as it does,
// and that Reset returns it to its first table and generation 0.
func TestExpiringGrowableCopies(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		cfg := Config{Capacity: 500, MaxCapacity: 8000, Generations: 3, Layout: layout}
		f := mustNew[uint64](t, cfg)
		for i := range uint64(3000) {
			if i%700 == 699 {
				f.Advance()
			}
			if err := f.Insert(i); err != nil {
				t.Fatal(err)
			}
		}
		if k := f.Info().Doublings; k == 0 || k == f.Info().MaxDoublings {
			t.Fatalf("%d doublings of %d: the test wants a filter part-way", k, f.Info().MaxDoublings)
		}
		c := NewConcurrentFrom(f)
		copies := []expiringFilter{f.Clone(), c, c.Snapshot(), c.Clone()}
		var d Filter[uint64]
		if err := d.UnmarshalBinary(mustMarshal(t, f)); err != nil {
			t.Fatal(err)
		}
		copies = append(copies, &d)
		ops := func(x expiringFilter) string {
			var b strings.Builder
			for i := range uint64(6000) {
				if i%900 == 0 {
					fmt.Fprint(&b, x.Advance(), " ")
				}
				err := x.Insert(3000 + i)
				fmt.Fprint(&b, err, x.Contains(i), " ")
			}
			return b.String()
		}
		want := ops(f)
		for i, x := range copies {
			if got := ops(x); got != want {
				t.Fatalf("copy %d (%T) answers differently", i, x)
			}
		}
		if !bytes.Equal(mustMarshal(t, &d), mustMarshal(t, f)) {
			t.Fatal("the decoded copy encodes differently")
		}
		f.Reset()
		if i := f.Info(); i.Doublings != 0 || i.Generation != 0 || i.Len != 0 || f.SizeBytes() != mustNew[uint64](t, cfg).SizeBytes() {
			t.Fatalf("Reset: %v", i)
		}
	})
}

// TestWindowConfig checks WindowConfig's Generations and Capacity, its
// errors, and the lifetime it promises: with Advance called once a tick, a
// key inserted at any moment of a tick is found for at least the window,
// and gone less than two ticks (one, for a whole number of ticks) after it.
func TestWindowConfig(t *testing.T) {
	for _, c := range []struct {
		window, tick time.Duration
		gens         int
	}{
		{time.Hour, 15 * time.Minute, 5}, {time.Hour, 7 * time.Minute, 10}, {time.Hour, time.Hour, 2},
		{time.Minute, time.Hour, 2}, {1, 1, 2}, {255 * time.Second, time.Second, 256}, {time.Hour, 59 * time.Minute, 3},
	} {
		cfg, err := WindowConfig(100, c.window, c.tick)
		if err != nil || cfg != (Config{Capacity: 100 * c.gens, Generations: c.gens}) {
			t.Fatalf("WindowConfig(100, %v, %v) = %+v, %v; want %d generations", c.window, c.tick, cfg, err, c.gens)
		}
		f := mustNew[int](t, cfg)
		// Ticks of 1000 steps; a key inserted at step s of tick 0 must be
		// found until the window has passed, and gone at tick G.
		const steps = 1000
		window := float64(c.window) / float64(c.tick) * steps
		for _, s := range []int{0, steps / 2, steps - 1} {
			f.Reset()
			if err := f.Insert(s); err != nil {
				t.Fatal(err)
			}
			for tick := 1; tick <= c.gens; tick++ {
				f.Advance()
				found, lived := f.Contains(s), float64(tick*steps-s)
				if !found && lived <= window || found && tick == c.gens {
					t.Fatalf("%+v, key of step %d: after %d ticks (%.0f steps of a %.0f-step window) found %v", c, s, tick, lived, window, found)
				}
			}
		}
	}
	for _, c := range []struct {
		keys         int
		window, tick time.Duration
		says         string
	}{
		{0, time.Hour, time.Minute, "0 keys a tick"},
		{10, 0, time.Minute, "both must be positive"},
		{10, time.Hour, -time.Minute, "both must be positive"},
		{10, 256 * time.Second, time.Second, "more than 255 ticks"},
		{math.MaxInt / 2, time.Hour, 30 * time.Minute, "overflow Capacity"},
	} {
		cfg, err := WindowConfig(c.keys, c.window, c.tick)
		if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), c.says) || cfg != (Config{}) {
			t.Errorf("WindowConfig(%d, %v, %v) = %+v, %v; want an error saying %q", c.keys, c.window, c.tick, cfg, err, c.says)
		}
	}
}
