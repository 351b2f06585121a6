package cuckoo

import (
	"bytes"
	"errors"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestConfigErrors(t *testing.T) {
	cases := []struct {
		cfg   Config
		field string
	}{
		{Config{}, "Capacity"},
		{Config{Capacity: -1}, "Capacity"},
		{Config{Capacity: math.MinInt}, "Capacity"},
		{Config{Capacity: int(min(uint64(1)<<62, math.MaxInt))}, "Capacity"},
		{Config{Capacity: math.MaxInt}, "Capacity"},
		{Config{Capacity: 10, FingerprintBits: 3}, "FingerprintBits"},
		{Config{Capacity: 10, FingerprintBits: 33}, "FingerprintBits"},
		{Config{Capacity: 10, FingerprintBits: -8}, "FingerprintBits"},
		{Config{Capacity: 10, FingerprintBits: 8, FalsePositiveRate: 0.01}, "FingerprintBits"},
		{Config{Capacity: 10, FalsePositiveRate: -0.1}, "FalsePositiveRate"},
		{Config{Capacity: 10, FalsePositiveRate: 1}, "FalsePositiveRate"},
		{Config{Capacity: 10, FalsePositiveRate: 2}, "FalsePositiveRate"},
		{Config{Capacity: 10, FalsePositiveRate: math.NaN()}, "FalsePositiveRate"},
		{Config{Capacity: 10, FalsePositiveRate: math.Inf(1)}, "FalsePositiveRate"},
		{Config{Capacity: 10, FalsePositiveRate: 1e-12}, "FalsePositiveRate"},
		{Config{Capacity: 10, FalsePositiveRate: math.SmallestNonzeroFloat64}, "FalsePositiveRate"},
		{Config{Capacity: 10, Layout: 2}, "Layout"},
		{Config{Capacity: 10, Layout: 255}, "Layout"},
		{Config{Capacity: 10, MaxKicks: -1}, "MaxKicks"},
		{Config{Capacity: 10, MaxKicks: MaxMaxKicks + 1}, "MaxKicks"},
	}
	for _, c := range cases {
		f, err := New[uint64](c.cfg)
		if f != nil || !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("New(%+v) = %v, %v; want nil, ErrInvalidConfig", c.cfg, f, err)
			continue
		}
		if size, serr := c.cfg.SizeBytes(); size != 0 || serr == nil || serr.Error() != err.Error() || !errors.Is(serr, ErrInvalidConfig) {
			t.Errorf("Config%+v.SizeBytes() = %d, %v; New says %v", c.cfg, size, serr, err)
		}
		if !strings.Contains(err.Error(), c.field) || !strings.HasPrefix(err.Error(), "cuckoo: ") {
			t.Errorf("New(%+v): error %q does not name %s", c.cfg, err, c.field)
		}
	}
}

func TestConfigDefaults(t *testing.T) {
	f := mustNew[uint64](t, Config{Capacity: 1000})
	if f.FingerprintBits() != 13 || f.Layout() != Packed || f.c.maxKicks != DefaultMaxKicks || f.c.h.seed != DefaultSeed {
		t.Fatalf("defaults: f=%d layout=%v kicks=%d seed=%#x", f.FingerprintBits(), f.Layout(), f.c.maxKicks, f.c.h.seed)
	}
	if r := falsePositiveRate(13, targetLoad(13)); r > DefaultFalsePositiveRate {
		t.Fatalf("13 bits give %v at target load", r)
	}
	if r := falsePositiveRate(12, targetLoad(12)); r <= DefaultFalsePositiveRate {
		t.Fatalf("12 bits would do (%v): the width is not the smallest", r)
	}
}

func TestRateToBits(t *testing.T) {
	// The chosen width is the smallest whose rate at the target load meets
	// the request, for rates across the whole range.
	for rate := 0.9; rate > 1e-9; rate /= 3 {
		f, ok := bitsForRate(rate, false)
		if !ok {
			t.Fatalf("rate %v: no width", rate)
		}
		if falsePositiveRate(f, targetLoad(f)) > rate || (f > minFingerprintBits && falsePositiveRate(f-1, targetLoad(f-1)) <= rate) {
			t.Fatalf("rate %v: width %d is not the smallest that meets it", rate, f)
		}
	}
}

func TestExactSizing(t *testing.T) {
	// The bucket count follows the capacity, with no rounding to a power of
	// two: bits per item at capacity stay within f/0.92 for every width of
	// 8 bits or more (narrower ones fill less; see targetLoad).
	for _, n := range []int{1000, 100_000, 1 << 20, 1<<20 + 1, 3_000_000} {
		for f := 8; f <= 32; f++ {
			p, err := Config{Capacity: n, FingerprintBits: f}.resolve()
			if err != nil {
				t.Fatal(err)
			}
			bitsPerItem := float64(tableBytes(p.m, uint(f))*8) / float64(n)
			if bitsPerItem > float64(f)/0.92 {
				t.Fatalf("n=%d f=%d: %.3f bits per item > f/0.92", n, f, bitsPerItem)
			}
			if p.m%2 != 0 || float64(p.m*4)*targetLoad(uint(f)) < float64(n) {
				t.Fatalf("n=%d f=%d: %d buckets", n, f, p.m)
			}
		}
	}
}

func TestLayoutString(t *testing.T) {
	if Packed.String() != "Packed" || SemiSorted.String() != "SemiSorted" || Layout(9).String() != "Layout(9)" {
		t.Fatal(Packed, SemiSorted, Layout(9))
	}
}

// TestConfigSizeBytes checks that Config.SizeBytes is the table size New
// allocates, for every width and layout and capacities from 1 to millions,
// and that it allocates nothing itself.
func TestConfigSizeBytes(t *testing.T) {
	capacities := []int{100, 999, 1000, 4093, 12_345, 65_536, 1 << 20, 3_000_001}
	for c := 1; c <= 64; c++ {
		capacities = append(capacities, c)
	}
	var cfgs []Config
	for _, layout := range layouts {
		for f := minFingerprintBits; f <= maxFingerprintBits; f++ {
			for _, n := range capacities {
				cfgs = append(cfgs, Config{Capacity: n, FingerprintBits: f, Layout: layout})
			}
		}
		for _, rate := range []float64{0.3, 0.01, 0.001, 1e-6} {
			cfgs = append(cfgs, Config{Capacity: 777, FalsePositiveRate: rate, Layout: layout})
		}
		cfgs = append(cfgs, Config{Capacity: 50, Layout: layout, Seed: 9, MaxKicks: 5000})
	}
	for _, cfg := range cfgs {
		want, err := cfg.SizeBytes()
		if err != nil {
			t.Fatalf("%+v: %v", cfg, err)
		}
		f := mustNew[string](t, cfg)
		if got := f.SizeBytes(); got != want || len(f.c.t.data) != want {
			t.Fatalf("%+v: Config.SizeBytes %d, New made %d bytes", cfg, want, got)
		}
		if cfg.Capacity == 1000 && f.EncodedSize() != want+headerSize+checksumSize {
			t.Fatalf("%+v: encoding of %d bytes, table %d", cfg, f.EncodedSize(), want)
		}
	}
	cfg := Config{Capacity: 1_000_000_000, FingerprintBits: 16}
	if a := testing.AllocsPerRun(10, func() { _, _ = cfg.SizeBytes() }); a != 0 {
		t.Fatalf("Config.SizeBytes allocates %v times", a)
	}
	// A billion 16-bit items: about 2.1 GB, computed without allocating it.
	if size, err := cfg.SizeBytes(); math.MaxInt > 1<<32 && (err != nil || size < 2_100_000_000 || size > 2_110_000_000) {
		t.Fatalf("%+v: %d bytes, %v", cfg, size, err)
	}
}

// TestConfigErrorsSay checks what two errors of New say: the singular
// where a count is one, and the field the user set when the fingerprint
// width came from FalsePositiveRate, with a rate that fits, which New then
// takes.
func TestConfigErrorsSay(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		says []string
	}{
		{Config{Capacity: 100, FingerprintBits: 32, Generations: 2},
			[]string{"FingerprintBits 32 and Generations 2 (1 bit) need 33 bits a slot", "with 1 generation bit, a slot holds fingerprints of at most 31 bits, not 32", "values that fit: FingerprintBits 31"}},
		{Config{Capacity: 100, FingerprintBits: 30, Generations: 16},
			[]string{"FingerprintBits 30 and Generations 16 (4 bits) need 34 bits", "FingerprintBits 28; or Generations 4 (the same fingerprints)"}},
		{Config{Capacity: 1000, FalsePositiveRate: 1e-7, Generations: 256},
			[]string{"FalsePositiveRate 1e-07 (27-bit fingerprints) and Generations 256 (8 bits) need 35 bits",
				"FalsePositiveRate 4.53e-07 (24-bit fingerprints); or Generations 32"}},
		{Config{Capacity: 1000, FalsePositiveRate: 3e-09, Generations: 2, Layout: SemiSorted},
			[]string{"FalsePositiveRate 3e-09 (32-bit fingerprints) and Generations 2 (1 bit)", "(31-bit fingerprints)"}},
		{Config{Capacity: 1000, MaxCapacity: 2000, FingerprintBits: 32},
			[]string{"FingerprintBits 32 and MaxCapacity 2000 (1 doubling from Capacity 1000) need 33 bits", "with 1 doubling, a slot holds fingerprints of at most 31 bits, not 32", "FingerprintBits 31; or MaxCapacity 0"}},
		{Config{Capacity: 1000, MaxCapacity: 4000, FingerprintBits: 31},
			[]string{"with 2 doublings, a slot holds fingerprints of at most 30 bits, not 31"}},
		// Three fields at once: one error names them all.
		{Config{Capacity: 1000, MaxCapacity: 1000 << 10, FalsePositiveRate: 1e-7, Generations: 256},
			[]string{"FalsePositiveRate 1e-07 (27-bit fingerprints), Generations 256 (8 bits) and MaxCapacity 1024000 (10 doublings from Capacity 1000) need 45 bits",
				"with 10 doublings and 8 generation bits, a slot holds fingerprints of at most 14 bits, not 27",
				"Generations 32 and MaxCapacity 0 (the same fingerprints)"}},
	} {
		_, err := New[uint64](c.cfg)
		if !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("New(%+v): %v, want ErrInvalidConfig", c.cfg, err)
			continue
		}
		for _, s := range c.says {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("New(%+v): %q does not say %q", c.cfg, err, s)
			}
		}
	}

	// The rate the message advises is the least that fits, to its 3 digits.
	for _, layout := range layouts {
		f, err := New[uint64](Config{Capacity: 1000, FalsePositiveRate: 4.53e-7, Generations: 256, Layout: layout})
		if err != nil || f.FingerprintBits() != 24 {
			t.Fatalf("FalsePositiveRate 4.53e-07, Generations 256, %v: %v", layout, err)
		}
		if _, err := New[uint64](Config{Capacity: 1000, FalsePositiveRate: 4.52e-7, Generations: 256, Layout: layout}); err == nil {
			t.Fatalf("FalsePositiveRate 4.52e-07, Generations 256, %v: accepted: 4.53e-07 is not the least rate that fits", layout)
		}
	}
	for f := uint(minFingerprintBits); f <= maxFingerprintBits; f++ {
		for _, full := range []bool{false, true} {
			r := rateForBits(f, full)
			if got, ok := bitsForRate(r, full); !ok || got > f {
				t.Fatalf("rateForBits(%d, %v) = %v, which takes %d bits", f, full, r, got)
			}
			if s := strconv.FormatFloat(r, 'g', -1, 64); len(strings.TrimLeft(strings.Split(s, "e")[0], "0.")) > 4 {
				t.Fatalf("rateForBits(%d, %v) = %s, not 3 significant digits", f, full, s)
			}
		}
	}
}

// TestMessagesSingular checks that messages with a count of one say so in
// the singular: String of a filter with one item and one generation, and
// the encoding errors whose counts can be one.
func TestMessagesSingular(t *testing.T) {
	if got := plural(0, "bit") + ", " + plural(uint8(1), "bit") + ", " + plural(uint64(2), "bit"); got != "0 bits, 1 bit, 2 bits" {
		t.Fatalf("plural: %q", got)
	}
	f := mustNew[uint64](t, Config{Capacity: 100, Generations: 1})
	if err := f.Insert(1); err != nil {
		t.Fatal(err)
	}
	enc := mustMarshal(t, f)
	v, err := NewView[uint64](enc)
	if err != nil {
		t.Fatal(err)
	}
	c := mustNewConcurrent[uint64](t, Config{Capacity: 100, Generations: 1})
	for _, s := range []string{f.String(), v.String()} {
		if !strings.Contains(s, ", 1 item, capacity 100, 1 generation, load") {
			t.Errorf("%q: want 1 item and 1 generation", s)
		}
	}
	if s := c.String(); !strings.Contains(s, ", 0 items, capacity 100, 1 generation, load") {
		t.Errorf("%q: want 0 items and 1 generation", s)
	}

	oneSlot := bytes.Clone(enc)
	oneSlot[offSlots] = 1
	genOne := bytes.Clone(enc)
	genOne[offGeneration] = 1
	for _, c := range []struct {
		data []byte
		says string
	}{
		{enc[:1], "truncated: 1 byte, the header has 128"},
		{oneSlot, "1 slot per bucket, want 4"},
		{genOne, "current generation 1 of 1 generation"},
		{[]byte{compactVersion}, "truncated: 1 byte, a compact encoding has at least"},
	} {
		_, err := NewView[uint64](c.data)
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("NewView: %v, want it to say %q", err, c.says)
		}
	}
	if _, err := EncodedLen(enc[:1]); err == nil || !strings.Contains(err.Error(), "truncated: 1 byte of a 128-byte header") {
		t.Errorf("EncodedLen of 1 byte: %v", err)
	}
}

// TestSlotOverflow checks the one error of a Config whose fingerprint,
// doublings and generation bits overflow a slot: it names each field that
// takes bits, and every set of values it proposes, applied, makes New
// succeed.
func TestSlotOverflow(t *testing.T) {
	value := regexp.MustCompile(`(FalsePositiveRate|FingerprintBits|Generations|MaxCapacity) ([0-9.e+-]+)`)
	for _, cfg := range []Config{
		{Capacity: 1000, MaxCapacity: 1000 << 10, FalsePositiveRate: 1e-7, Generations: 256},
		{Capacity: 1000, MaxCapacity: 1000 << 10, FalsePositiveRate: 1e-7, Generations: 256, Layout: SemiSorted},
		{Capacity: 1000, MaxCapacity: 1000 << 20, FingerprintBits: 16, Generations: 200},
		{Capacity: 100, MaxCapacity: 100 << 23, FingerprintBits: 4, Generations: 256},
		{Capacity: 16, MaxCapacity: 16 << 26, FingerprintBits: 30, Generations: 3},
		{Capacity: 500, MaxCapacity: 5000, FingerprintBits: 32, Generations: 2},
		{Capacity: 500, MaxCapacity: 5000, FalsePositiveRate: 1e-8},
		{Capacity: 500, FingerprintBits: 32, Generations: 256},
		{Capacity: 500, FalsePositiveRate: 1e-8, Generations: 5},
	} {
		_, err := New[uint64](cfg)
		if !errors.Is(err, ErrInvalidConfig) {
			t.Fatalf("%+v: %v, want ErrInvalidConfig", cfg, err)
		}
		msg := err.Error()
		named := map[string]bool{"Generations": cfg.Generations > 1, "MaxCapacity": cfg.MaxCapacity != 0,
			"FingerprintBits": cfg.FingerprintBits != 0, "FalsePositiveRate": cfg.FalsePositiveRate != 0}
		head, fixes, ok := strings.Cut(msg, "values that fit: ")
		if !ok {
			t.Fatalf("%+v: %q proposes no values", cfg, msg)
		}
		for field, set := range named {
			if set && !strings.Contains(head, field) {
				t.Errorf("%+v: %q does not name %s", cfg, msg, field)
			}
		}
		for _, fix := range strings.Split(fixes, "; or ") {
			try := cfg
			for _, m := range value.FindAllStringSubmatch(fix, -1) {
				switch m[1] {
				case "FalsePositiveRate":
					try.FalsePositiveRate, _ = strconv.ParseFloat(m[2], 64)
				case "FingerprintBits":
					try.FingerprintBits, _ = strconv.Atoi(m[2])
				case "Generations":
					try.Generations, _ = strconv.Atoi(m[2])
				case "MaxCapacity":
					try.MaxCapacity, _ = strconv.Atoi(m[2])
				}
			}
			if try == cfg {
				t.Fatalf("%+v: %q: the values %q change nothing", cfg, msg, fix)
			}
			if _, err := New[uint64](try); err != nil {
				t.Errorf("%+v: %q proposes %q; New(%+v): %v", cfg, msg, fix, try, err)
			}
		}
	}
}
