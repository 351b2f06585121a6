package cuckoo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// expiringConfigs are the widths and generation counts the expiring tests
// run on, for both layouts: the narrowest fingerprints, the common widths,
// slots that cross 16 bits, the most generations, and the widest slots.
var expiringConfigs = []struct{ f, gens int }{
	{4, 2}, {5, 3}, {8, 4}, {13, 4}, {13, 3}, {14, 4}, {13, 16}, {16, 16}, {16, 4},
	{12, 256}, {24, 256}, {30, 4}, {31, 2}, {13, 1}, {8, 1},
}

// expiringModel is the exact state of an expiring filter: for each class of
// keys the filter cannot tell apart (one fingerprint in one bucket pair),
// the generations of its stored copies, as absolute generation numbers.
// Next to it, each key's own copies: what the caller inserted.
type expiringModel struct {
	f       expiringFilter
	t       func() *table // the filter's table, for its geometry
	gens    int
	now     int                 // Advance calls so far
	classes map[[2]uint64][]int // class -> generations of its slots
	keys    map[uint64][]int    // key -> generations of its copies
	len     int
	full    bool // ErrFull is allowed (the fuzz target's duplicates); it must change nothing
}

// expiringFilter is what the model drives: a Filter or a ConcurrentFilter.
type expiringFilter interface {
	Insert(uint64) error
	InsertUnique(uint64) (bool, error)
	Delete(uint64) bool
	Contains(uint64) bool
	ContainsBatch([]uint64, []bool) int
	Count(uint64) int
	Hash(uint64) uint64
	Advance() int
	Len() int
	Generations() int
}

func newExpiringModel(f expiringFilter, t func() *table) *expiringModel {
	return &expiringModel{f: f, t: t, gens: f.Generations(), classes: map[[2]uint64][]int{}, keys: map[uint64][]int{}}
}

// class is the class of key k: its fingerprint and the lower of its base
// buckets, each with its layer bits in a growable table.
func (m *expiringModel) class(k uint64) [2]uint64 {
	t := m.t()
	h := m.f.Hash(k)
	fp, i1 := t.locate(h)
	i2 := t.alt(i1, fp)
	var l1, l2 uint32
	if t.g > 0 {
		l1, l2 = t.layers(h, fp)
	}
	return [2]uint64{uint64(fp), min(i1<<t.g|uint64(l1), i2<<t.g|uint64(l2))}
}

// oldestOf is the index of the oldest generation in g, youngestOf of the
// youngest.
func oldestOf(g []int) int   { return slices.Index(g, slices.Min(g)) }
func youngestOf(g []int) int { return slices.Index(g, slices.Max(g)) }

func (m *expiringModel) insert(t *testing.T, k uint64) {
	var before []byte
	if m.full {
		before = bytes.Clone(m.t().data)
	}
	err := m.f.Insert(k)
	c := m.class(k)
	switch {
	case m.full && errors.Is(err, ErrFull):
		if !bytes.Equal(before, m.t().data) {
			t.Fatalf("Insert(%d) failed (%v) and changed the table", k, err)
		}
	case err == nil:
		m.classes[c] = append(m.classes[c], m.now)
		m.keys[k] = append(m.keys[k], m.now)
		m.len++
	case errors.Is(err, ErrTooManyDuplicates):
		if len(m.classes[c]) != 2*slotsPerBucket {
			t.Fatalf("Insert(%d): %v with %d copies in its class", k, err, len(m.classes[c]))
		}
	default:
		t.Fatalf("Insert(%d) with %d live keys: %v", k, m.len, err)
	}
}

func (m *expiringModel) insertUnique(t *testing.T, k uint64) {
	var before []byte
	if m.full {
		before = bytes.Clone(m.t().data)
	}
	added, err := m.f.InsertUnique(k)
	if m.full && errors.Is(err, ErrFull) {
		if added || !bytes.Equal(before, m.t().data) {
			t.Fatalf("InsertUnique(%d) failed (%v) and changed the table", k, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("InsertUnique(%d): %v", k, err)
	}
	c := m.class(k)
	if g := m.classes[c]; len(g) > 0 {
		if added {
			t.Fatalf("InsertUnique(%d) added a key whose class holds %v", k, g)
		}
		g[youngestOf(g)] = m.now // the filter refreshes the class's youngest slot
		if kg := m.keys[k]; len(kg) > 0 {
			kg[youngestOf(kg)] = m.now
		}
		return
	}
	if !added {
		t.Fatalf("InsertUnique(%d) of an absent key added nothing", k)
	}
	m.classes[c] = []int{m.now}
	m.keys[k] = []int{m.now}
	m.len++
}

func (m *expiringModel) delete(t *testing.T, k uint64) {
	if !m.f.Delete(k) {
		t.Fatalf("Delete(%d) of a key with copies %v found none", k, m.keys[k])
	}
	c := m.class(k)
	g := m.classes[c]
	m.classes[c] = slices.Delete(g, oldestOf(g), oldestOf(g)+1)
	kg := m.keys[k]
	m.keys[k] = slices.Delete(kg, oldestOf(kg), oldestOf(kg)+1)
	m.len--
}

func (m *expiringModel) advance(t *testing.T) {
	n := m.f.Advance()
	m.now++
	expired := 0
	keep := func(g int) bool { return m.now-g < m.gens }
	for c, g := range m.classes {
		live := slices.DeleteFunc(g, func(x int) bool { return !keep(x) })
		expired += len(g) - len(live)
		m.classes[c] = live
	}
	for k, g := range m.keys {
		m.keys[k] = slices.DeleteFunc(g, func(x int) bool { return !keep(x) })
	}
	m.len -= expired
	if n != expired {
		t.Fatalf("Advance %d expired %d copies, want %d", m.now, n, expired)
	}
}

// check compares every answer of the filter with the model: Len, and for
// the keys in probe, Contains and Count, which are exact for a class (the
// matching slots of the key's buckets) and never below a key's live copies.
func (m *expiringModel) check(t *testing.T, probe []uint64) {
	if o := occupied(m.t()); o != m.len {
		t.Fatalf("generation %d: %d slots occupied, want %d", m.now, o, m.len)
	}
	if m.f.Len() != m.len {
		t.Fatalf("generation %d: Len %d, want %d", m.now, m.f.Len(), m.len)
	}
	found := make([]bool, len(probe))
	m.f.ContainsBatch(probe, found)
	for i, k := range probe {
		if found[i] != m.f.Contains(k) {
			t.Fatalf("generation %d: ContainsBatch says %v for key %d, Contains %v", m.now, found[i], k, !found[i])
		}
		want := len(m.classes[m.class(k)])
		if n := m.f.Count(k); n != want || n < len(m.keys[k]) {
			t.Fatalf("generation %d: Count(%d) = %d, want %d (its own live copies %d)", m.now, k, n, want, len(m.keys[k]))
		}
		if got := m.f.Contains(k); got != (want > 0) {
			t.Fatalf("generation %d: Contains(%d) = %v with %d live copies in its class (its own %d)", m.now, k, got, want, len(m.keys[k]))
		}
	}
}

// TestExpiringModel runs random sequences of Insert, InsertUnique, Delete
// and Advance on expiring filters and checks every answer against the
// exact model: no live key is ever absent, Len is exact, expired keys are
// found only where another live key shares their fingerprint and buckets.
func TestExpiringModel(t *testing.T) {
	t.Parallel()
	// Each run of a few thousand steps fills its 300-key filter, advances
	// through every generation many times and meets every operation on
	// full, expired and refreshed slots; CI's long run makes longer ones.
	steps := 6000
	switch {
	case longTests():
		steps = 20000
	case testing.Short():
		steps = 2500
	}
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for _, c := range expiringConfigs {
			for _, grow := range []bool{false, true} {
				cfg := Config{Capacity: 300, FingerprintBits: c.f, Layout: layout, Generations: c.gens}
				name := fmt.Sprintf("f=%d/G=%d", c.f, c.gens)
				if grow { // two doublings, where the slots have room
					if c.f+2+int(genBits(uint(c.gens))) > maxFingerprintBits {
						continue
					}
					cfg.Capacity, cfg.MaxCapacity, name = 40, 300, name+"/growable"
				}
				t.Run(name, func(t *testing.T) {
					f := mustNew[uint64](t, cfg)
					testExpiringModel(t, cfg, newExpiringModel(f, func() *table { return &f.c.t }), steps)
				})
				t.Run("Concurrent/"+name, func(t *testing.T) {
					f, err := NewConcurrent[uint64](cfg)
					if err != nil {
						t.Fatal(err)
					}
					testExpiringModel(t, cfg, newExpiringModel(f, func() *table { return &f.c.cur.Load().t }), steps/2)
				})
			}
		}
	})
}

func testExpiringModel(t *testing.T, cfg Config, m *expiringModel, steps int) {
	rng := newRand(uint64(cfg.FingerprintBits*1000 + cfg.Generations))
	var seen []uint64 // keys inserted at some time
	probe := make([]uint64, 0, 64)
	grew := false // a halving (shrink.go) may undo the doublings by the end
	for step := range steps {
		grew = grew || m.t().k > 0
		var k uint64
		if len(seen) > 0 && rng.IntN(3) == 0 { // a key seen before: live or expired
			k = seen[rng.IntN(len(seen))]
		} else {
			k = rng.Uint64()
		}
		// Keep live keys within Capacity (narrow fingerprints: within the
		// fill their tables promise), advancing when full.
		full := m.len >= max(cfg.Capacity, cfg.MaxCapacity)-1
		switch r := rng.IntN(100); {
		case r < 3 && (cfg.MaxCapacity == 0 || r == 0) || full: // growable: live keys to double for
			m.advance(t)
		case r < 40:
			if len(m.classes[m.class(k)]) >= 2 { // Capacity counts distinct keys: few copies
				k = rng.Uint64()
			}
			m.insert(t, k)
			seen = append(seen, k)
		case r < 75:
			m.insertUnique(t, k)
			seen = append(seen, k)
		default:
			if len(m.keys[k]) > 0 {
				m.delete(t, k)
			}
		}
		probe = append(probe[:0], k, rng.Uint64())
		if len(seen) > 0 {
			probe = append(probe, seen[rng.IntN(len(seen))])
		}
		if step%500 == 0 { // every key ever inserted
			probe = append(probe, seen...)
		}
		m.check(t, probe)
	}
	if tb := m.t(); tb.g > 0 && !grew {
		t.Fatalf("a table of %d doublings made none", tb.g)
	}
}

// TestExpiringDuplicates checks ErrTooManyDuplicates in an expiring table:
// eight copies of a key, stored in generations 1 to 3, fill its two
// buckets, and a ninth insert fails at once, the table and the PRNG
// untouched: slot 0 holds a generation's bits, which the test ignores.
func TestExpiringDuplicates(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for _, c := range []struct{ f, gens int }{{4, 4}, {13, 4}, {13, 16}, {8, 256}, {28, 4}} {
			f := mustNew[string](t, Config{Capacity: 100, FingerprintBits: c.f, Layout: layout, Generations: c.gens})
			for i := range 2 * slotsPerBucket {
				if i%3 == 0 {
					f.Advance() // copies in generations 1, 2 and 3, all live
				}
				if err := f.Insert("dup"); err != nil {
					t.Fatalf("f=%d G=%d: copy %d: %v", c.f, c.gens, i+1, err)
				}
			}
			rng, before := f.c.rng, bytes.Clone(f.c.t.data)
			if err := f.Insert("dup"); !errors.Is(err, ErrTooManyDuplicates) {
				t.Fatalf("f=%d G=%d: copy 9: %v, want ErrTooManyDuplicates", c.f, c.gens, err)
			}
			if f.c.rng != rng || !bytes.Equal(before, f.c.t.data) {
				t.Fatalf("f=%d G=%d: the ninth copy displaced fingerprints", c.f, c.gens)
			}
			if got := f.Count("dup"); got != 2*slotsPerBucket {
				t.Fatalf("f=%d G=%d: Count = %d", c.f, c.gens, got)
			}
			// The ConcurrentFilter, whose search fails before the same check.
			cf := mustNewConcurrent[string](t, Config{Capacity: 100, FingerprintBits: c.f, Layout: layout, Generations: c.gens})
			for i := range 2 * slotsPerBucket {
				if i%3 == 0 {
					cf.Advance()
				}
				if err := cf.Insert("dup"); err != nil {
					t.Fatalf("concurrent f=%d G=%d: copy %d: %v", c.f, c.gens, i+1, err)
				}
			}
			words := bytes.Clone(cf.c.cur.Load().t.data)
			if err := cf.Insert("dup"); !errors.Is(err, ErrTooManyDuplicates) {
				t.Fatalf("concurrent f=%d G=%d: copy 9: %v, want ErrTooManyDuplicates", c.f, c.gens, err)
			}
			if !bytes.Equal(words, cf.c.cur.Load().t.data) || cf.Count("dup") != 2*slotsPerBucket || cf.Len() != 2*slotsPerBucket {
				t.Fatalf("concurrent f=%d G=%d: the ninth copy changed the table (Count %d, Len %d)", c.f, c.gens, cf.Count("dup"), cf.Len())
			}
		}
	})
}

// TestExpiredKeysRate measures the rate of "present" answers for keys that
// have expired against that for keys never inserted, at the same load: an
// expired key's slot is cleared, so the two must agree within their
// binomial spread.
func TestExpiredKeysRate(t *testing.T) {
	const n, gens = 40000, 4
	forEachLayout(t, func(t *testing.T, layout Layout) {
		f := mustNew[uint64](t, Config{Capacity: n, FingerprintBits: 8, Layout: layout, Generations: gens})
		// Steady state: each generation inserts a quarter of Capacity, so
		// that the live keys fill it at the end.
		key := uint64(0)
		var expired []uint64
		for g := range 3 * gens {
			if g > 0 {
				f.Advance()
			}
			first := key
			for range n / gens {
				if err := f.Insert(key); err != nil {
					t.Fatalf("generation %d: Insert: %v at Len %d", g, err, f.Len())
				}
				key++
			}
			if g >= gens && g < 2*gens {
				for k := first; k < key; k++ {
					expired = append(expired, k)
				}
			}
		}
		// Generations 2G..3G-1 are live; G..2G-1 expired.
		if live := f.Len(); live != n {
			t.Fatalf("Len %d with the last %d generations live, want %d", live, gens, n)
		}
		hitsExpired := 0
		for _, k := range expired {
			if f.Contains(k) {
				hitsExpired++
			}
		}
		hitsNever := 0
		never := 200000
		for i := range never {
			if f.Contains(1<<40 + uint64(i)) {
				hitsNever++
			}
		}
		p1, p2 := float64(hitsExpired)/float64(len(expired)), float64(hitsNever)/float64(never)
		pool := float64(hitsExpired+hitsNever) / float64(len(expired)+never)
		bound := 4 * math.Sqrt(pool*(1-pool)*(1/float64(len(expired))+1/float64(never)))
		est := f.EstimatedFalsePositiveRate()
		t.Logf("%v: expired keys found %.4f, never inserted %.4f (bound ±%.4f), estimated %.4f, load %.3f", layout, p1, p2, bound, est, f.LoadFactor())
		if math.Abs(p1-p2) > bound {
			t.Errorf("expired keys found at %.4f, never-inserted ones at %.4f: more apart than %.4f", p1, p2, bound)
		}
		if p2 > est+4*math.Sqrt(est/float64(never)) {
			t.Errorf("false-positive rate %.4f above the estimate %.4f", p2, est)
		}
	})
}

// occupied counts the non-empty slots of table t.
func occupied(t *table) int {
	n := 0
	for i := range t.m {
		for _, v := range t.bucketSlots(i) {
			if v != 0 {
				n++
			}
		}
	}
	return n
}

// TestGenerationsConfig checks Config.Generations' range and the widths it
// takes: G in 0..MaxGenerations, f + ceil(log2 G) <= 32, both layouts; and
// the features an expiring filter refuses, each with its error.
func TestGenerationsConfig(t *testing.T) {
	for _, c := range []struct {
		f, gens int
		ok      bool
	}{
		{13, 0, true}, {13, 1, true}, {13, 2, true}, {13, 4, true}, {13, 5, true}, {13, MaxGenerations, true},
		{24, 256, true}, {25, 256, false}, {30, 4, true}, {31, 4, false}, {31, 2, true}, {32, 2, false}, {32, 1, true},
		{13, -1, false}, {13, MaxGenerations + 1, false}, {4, 256, true},
	} {
		for _, layout := range layouts {
			cfg := Config{Capacity: 1000, FingerprintBits: c.f, Layout: layout, Generations: c.gens}
			f, err := New[uint64](cfg)
			if c.ok != (err == nil) || err != nil && !errors.Is(err, ErrInvalidConfig) {
				t.Fatalf("%+v: New: %v", cfg, err)
			}
			_, cerr := NewConcurrent[uint64](cfg)
			size, serr := cfg.SizeBytes()
			if (cerr == nil) != c.ok || (serr == nil) != c.ok {
				t.Fatalf("%+v: NewConcurrent: %v, SizeBytes: %v", cfg, cerr, serr)
			}
			if err != nil {
				continue
			}
			if got := f.Config(); got.Generations != c.gens || got.FingerprintBits != c.f {
				t.Fatalf("%+v: Config() = %+v", cfg, got)
			}
			if size != f.SizeBytes() {
				t.Fatalf("%+v: Config.SizeBytes %d, filter %d", cfg, size, f.SizeBytes())
			}
			// Bytes: (f+g)/f of a plain filter's, the same buckets.
			plain := mustNew[uint64](t, Config{Capacity: 1000, FingerprintBits: c.f, Layout: layout})
			g := genBits(uint(max(c.gens, 0)))
			if f.Slots() != plain.Slots() || f.FingerprintBits() != c.f {
				t.Fatalf("%+v: %d slots of %d-bit fingerprints, plain %d", cfg, f.Slots(), f.FingerprintBits(), plain.Slots())
			}
			want := tableBytes(uint64(plain.Slots()/4), bucketBits(layout, uint(c.f)+g))
			if uint64(f.SizeBytes()) != want {
				t.Fatalf("%+v: %d bytes, want %d", cfg, f.SizeBytes(), want)
			}
		}
	}
	// What an expiring filter refuses.
	if _, err := Build[uint64](Config{Generations: 4}, []uint64{1, 2, 3}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("Build with Generations: %v", err)
	}
	if _, err := BuildHashes[uint64](Config{Generations: 4}, []uint64{1, 2, 3}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("BuildHashes with Generations: %v", err)
	}
	if _, err := AppendCompactHashes[uint64](nil, Config{Generations: 2}, []uint64{1, 2, 3}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("AppendCompactHashes with Generations: %v", err)
	}
	a := mustNew[uint64](t, Config{Capacity: 100, Generations: 4})
	b := mustNew[uint64](t, Config{Capacity: 100, Generations: 4})
	p := mustNew[uint64](t, Config{Capacity: 100})
	for _, err := range []error{a.Merge(b), a.Merge(p), p.Merge(a)} {
		if !errors.Is(err, ErrIncompatible) {
			t.Errorf("Merge with an expiring filter: %v", err)
		}
	}
	ca, _ := NewConcurrent[uint64](Config{Capacity: 100, Generations: 4})
	if err := ca.Merge(b); !errors.Is(err, ErrIncompatible) {
		t.Errorf("ConcurrentFilter.Merge of expiring filters: %v", err)
	}
}

// TestExpiringEncodings checks that every encoding of an expiring filter,
// Filter's and ConcurrentFilter's, decodes into a filter that encodes to
// the same bytes, and that the compact encoding, which has no room for the
// generations, is refused with an error wrapping ErrIncompatible and
// appends nothing (expiry_encoding_test.go tests the round trips in full).
func TestExpiringEncodings(t *testing.T) {
	for _, gens := range []int{1, 4, 256} {
		f := mustNew[uint64](t, Config{Capacity: 100, Generations: gens, FingerprintBits: 12})
		_ = f.Insert(1)
		f.Advance()
		_ = f.Insert(2)
		c := NewConcurrentFrom(f)
		encodings := map[string]func() ([]byte, error){
			"MarshalBinary":            f.MarshalBinary,
			"AppendBinary":             func() ([]byte, error) { return f.AppendBinary(nil) },
			"MarshalText":              f.MarshalText,
			"AppendText":               func() ([]byte, error) { return f.AppendText(nil) },
			"WriteTo":                  func() ([]byte, error) { var buf bytes.Buffer; _, err := f.WriteTo(&buf); return buf.Bytes(), err },
			"Concurrent.MarshalBinary": c.MarshalBinary,
			"Concurrent.AppendBinary":  func() ([]byte, error) { return c.AppendBinary(nil) },
			"Concurrent.MarshalText":   c.MarshalText,
			"Concurrent.AppendText":    func() ([]byte, error) { return c.AppendText(nil) },
			"Concurrent.WriteTo":       func() ([]byte, error) { var buf bytes.Buffer; _, err := c.WriteTo(&buf); return buf.Bytes(), err },
		}
		for name, enc := range encodings {
			b, err := enc()
			if err != nil {
				t.Fatalf("G=%d %s: %v", gens, name, err)
			}
			var d Filter[uint64]
			if strings.Contains(name, "Text") {
				err = d.UnmarshalText(b)
			} else {
				err = d.UnmarshalBinary(b)
			}
			if err != nil || d.Generations() != gens || d.Info() != f.Info() || !bytes.Equal(mustMarshal(t, &d), mustMarshal(t, f)) {
				t.Errorf("G=%d %s: decoded (%v) to %v, want %v", gens, name, err, d.Info(), f.Info())
			}
		}
		b, err := f.AppendCompact([]byte("prefix"))
		if !errors.Is(err, ErrIncompatible) || string(b) != "prefix" || !strings.Contains(fmt.Sprint(err), "expiring") {
			t.Errorf("G=%d AppendCompact: %q, %v", gens, b, err)
		}
	}
}

// TestExpiringLifecycle follows keys through generations on both filter
// types: found until the G-th Advance, gone at it; InsertUnique keeps a key
// alive; Reset, Clone, Snapshot and NewConcurrentFrom keep or restart the
// generation as documented; G = 1 empties at each Advance; Advance on a
// plain filter does nothing.
func TestExpiringLifecycle(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		const gens = 3
		f := mustNew[uint64](t, Config{Capacity: 1000, Layout: layout, Generations: gens})
		c, _ := NewConcurrent[uint64](Config{Capacity: 1000, Layout: layout, Generations: gens})
		for _, x := range []expiringFilter{f, c} {
			_ = x.Insert(1)          // expires at the 3rd Advance
			_, _ = x.InsertUnique(2) // kept alive by InsertUnique each generation
			for a := 1; a <= 2*gens; a++ {
				if added, _ := x.InsertUnique(2); added {
					t.Fatalf("%T: InsertUnique of a live key added it", x)
				}
				n := x.Advance()
				if x.Contains(1) != (a < gens) || (n == 1) != (a == gens) {
					t.Fatalf("%T: after %d Advance: Contains(1) = %v, expired %d", x, a, x.Contains(1), n)
				}
				if !x.Contains(2) || x.Count(2) != 1 {
					t.Fatalf("%T: after %d Advance: key 2 refreshed each generation: Contains %v Count %d", x, a, x.Contains(2), x.Count(2))
				}
			}
			if x.Len() != 1 {
				t.Fatalf("%T: Len %d", x, x.Len())
			}
		}
		if i := f.Info(); i.Generations != gens || i.Generation != 2*gens%gens || !strings.Contains(i.String(), "generation=0/3") {
			t.Fatalf("Info %+v: %s", i, i)
		}
		if !strings.Contains(f.String(), "3 generations") || !strings.Contains(c.String(), "3 generations") {
			t.Fatalf("String: %s; %s", f, c)
		}
		f.Advance() // generation 1
		_ = f.Insert(3)
		g, s, n := f.Clone(), c.Snapshot(), NewConcurrentFrom(f)
		for _, x := range []expiringFilter{f, g, n} {
			x.Advance()
			x.Advance()
			if !x.Contains(3) {
				t.Fatalf("%T: a copy lost its generation", x)
			}
			if x.Advance(); x.Contains(3) {
				t.Fatalf("%T: a copy's key outlived G generations", x)
			}
		}
		if s.c.t.gen() != uint(c.c.gen.Load()) {
			t.Fatalf("Snapshot generation %d, filter %d", s.c.t.gen(), c.c.gen.Load())
		}
		f.Reset()
		c.Reset()
		if f.c.t.gen() != 0 || c.c.gen.Load() != 0 || f.Len() != 0 || c.Len() != 0 {
			t.Fatalf("Reset: generations %d %d", f.c.t.gen(), c.c.gen.Load())
		}
	})
	// G = 1: every Advance empties the filter.
	for _, x := range []expiringFilter{
		mustNew[uint64](t, Config{Capacity: 100, Generations: 1}),
		func() expiringFilter { c, _ := NewConcurrent[uint64](Config{Capacity: 100, Generations: 1}); return c }(),
	} {
		for k := range uint64(50) {
			_ = x.Insert(k)
		}
		if n := x.Advance(); n != 50 || x.Len() != 0 || x.Contains(7) {
			t.Fatalf("%T G=1: Advance expired %d, Len %d", x, n, x.Len())
		}
		_ = x.Insert(7)
		if !x.Contains(7) {
			t.Fatalf("%T G=1: insert after Advance", x)
		}
	}
	// No generations: Advance does nothing.
	p := mustNew[uint64](t, Config{Capacity: 100})
	_ = p.Insert(1)
	if n := p.Advance(); n != 0 || !p.Contains(1) || p.Len() != 1 {
		t.Fatalf("Advance of a plain filter: %d", n)
	}
	var z Filter[uint64]
	if z.Advance() != 0 || z.Generations() != 0 {
		t.Fatal("Advance of the zero Filter")
	}
}

// FuzzExpiring runs an arbitrary sequence of Insert, InsertUnique, Delete
// and Advance on an expiring Filter and ConcurrentFilter against the exact
// model (expiringModel): no live key absent, Len and Count exact, failed
// inserts change nothing. Each 3-byte group of the input is one operation:
// op, key (2 bytes, so that keys repeat and collide).
func FuzzExpiring(f *testing.F) {
	f.Add(uint8(9), uint8(0), uint8(4), []byte{0, 1, 2, 1, 1, 2, 3, 0, 0, 2, 1, 2, 0, 5, 5})
	f.Add(uint8(0), uint8(1), uint8(2), bytes.Repeat([]byte{0, 7, 7, 1, 7, 7, 3, 0, 0}, 10))
	f.Add(uint8(20), uint8(3), uint8(255), []byte{0, 1, 1, 0, 2, 2, 4, 0, 0, 3, 3, 3})
	f.Add(uint8(28), uint8(2), uint8(1), []byte{0, 1, 1, 3, 0, 0, 0, 1, 1})
	f.Add(uint8(9), uint8(0x81), uint8(3), bytes.Repeat([]byte{0, 1, 2, 2, 3, 4, 0, 5, 6, 3, 0, 0}, 40)) // growable
	f.Fuzz(func(t *testing.T, bits, layout, gens uint8, ops []byte) {
		g := 1 + int(gens)%MaxGenerations
		fbits := 4 + int(bits)%(maxFingerprintBits-3-int(genBits(uint(g))))
		cfg := Config{
			Capacity:        1 + int(bits)%40,
			FingerprintBits: fbits,
			Layout:          layouts[int(layout)%len(layouts)],
			Seed:            uint64(bits),
			MaxKicks:        1 + int(layout)%64,
			Generations:     g,
		}
		if layout&0x80 != 0 { // growable, where the slots have room for the doublings
			cfg.MaxCapacity = 80 + 8*cfg.Capacity
			if _, err := New[uint64](cfg); err != nil {
				cfg.MaxCapacity = 0
			}
		}
		fl := mustNew[uint64](t, cfg)
		cf := mustNewConcurrent[uint64](t, cfg)
		for _, m := range []*expiringModel{
			newExpiringModel(fl, func() *table { return &fl.c.t }),
			newExpiringModel(cf, func() *table { return &cf.c.cur.Load().t }),
		} {
			m.full = true
			for p := ops; len(p) >= 3; p = p[3:] {
				k := uint64(binary.LittleEndian.Uint16(p[1:3]))
				switch p[0] % 6 {
				case 0, 1:
					m.insert(t, k)
				case 2:
					m.insertUnique(t, k)
				case 3:
					m.advance(t)
				default:
					if len(m.keys[k]) > 0 {
						m.delete(t, k)
					}
				}
				m.check(t, []uint64{k, k ^ 1})
			}
			seen := make([]uint64, 0, len(m.keys))
			for k := range m.keys {
				seen = append(seen, k)
			}
			m.check(t, seen)
		}
	})
}

// expiringLog sets BenchmarkExpiring's key count, 2^expiringLog: 1M by
// default, the size; 16 (a table in L2) and 24 (far past the L3)
// tell the cost of the table's bytes from that of its code.
var expiringLog = flag.Int("expiring.log", 20, "BenchmarkExpiring's filters hold 2^expiring.log keys")

// BenchmarkExpiring compares an expiring filter (G = 4) with a plain one of
// the same width, f = 13, at 1M keys, side by side:
//
//	go test -run '^$' -bench Expiring -count 6 . | benchstat -col /gens -
//
// Contains looks up live keys of a full filter (an expiring one filled a
// quarter a generation), ContainsBatch the same in batches of 256 hashes
// (ns per key); Insert fills an emptied filter (ns per key);
// gens=0,f=15 is a plain filter of the expiring one's bytes (15-bit slots);
// gens=0,grow and gens=4,grow are growable filters from 1/16 of the keys,
// Insert filling them from their first table; Advance clears a generation
// of a full filter (a quarter of its keys, refilled between calls,
// untimed), reported per call and per bucket.
func BenchmarkExpiring(b *testing.B) {
	n := 1 << *expiringLog
	keys := benchKeys[uint64](n, 0)
	for _, layout := range layouts {
		for _, c := range []struct {
			name string
			cfg  Config
		}{
			{"gens=0", Config{Capacity: n, FingerprintBits: 13}},
			{"gens=4", Config{Capacity: n, FingerprintBits: 13, Generations: 4}},
			{"gens=0,f=15", Config{Capacity: n, FingerprintBits: 15}},
			{"gens=0,grow", Config{Capacity: n / 16, MaxCapacity: n, FingerprintBits: 13}},
			{"gens=4,grow", Config{Capacity: n / 16, MaxCapacity: n, FingerprintBits: 13, Generations: 4}},
		} {
			cfg, gens := c.cfg, c.cfg.Generations
			cfg.Layout = layout
			f := mustNew[uint64](b, cfg)
			fill := func() {
				f.Reset()
				for q := range 4 {
					if q > 0 {
						f.Advance()
					}
					for _, k := range keys[q*n/4 : (q+1)*n/4] {
						if err := f.Insert(k); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
			name := fmt.Sprintf("%v/%s", layout, c.name)
			b.Run(name+"/op=Contains", func(b *testing.B) {
				fill()
				found := 0
				for i := 0; b.Loop(); i++ {
					if f.Contains(keys[i&(n-1)]) {
						found++
					}
				}
				if found != b.N {
					b.Fatalf("%d of %d live keys found", found, b.N)
				}
			})
			b.Run(name+"/op=ContainsBatch", func(b *testing.B) {
				fill()
				hs := make([]uint64, n)
				for i, k := range keys {
					hs[i] = f.Hash(k)
				}
				found := make([]bool, hashBlock)
				for i := 0; b.Loop(); i++ {
					off := i * hashBlock & (n - 1)
					if f.ContainsHashBatch(hs[off:off+hashBlock], found) != hashBlock {
						b.Fatal("a live key not found")
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*hashBlock), "ns/key")
			})
			b.Run(name+"/op=Insert", func(b *testing.B) {
				for b.Loop() {
					f.Reset()
					for _, k := range keys {
						if err := f.Insert(k); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/key")
				b.ReportMetric(float64(f.SizeBytes()), "bytes")
			})
			if gens == 0 || cfg.MaxCapacity != 0 {
				continue
			}
			b.Run(name+"/op=Advance", func(b *testing.B) {
				fill()
				q := 0
				for b.Loop() {
					if e := f.Advance(); e != n/4 { // quarter q, the oldest
						b.Fatalf("Advance expired %d keys", e)
					}
					b.StopTimer()
					for _, k := range keys[q*n/4 : (q+1)*n/4] { // refilled
						if err := f.Insert(k); err != nil {
							b.Fatal(err)
						}
					}
					q = (q + 1) % 4
					b.StartTimer()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(f.Slots()/4), "ns/bucket")
			})
		}
	}
}

// TestExpireWords compares Advance's passes over one-word buckets, which
// clear a generation without decoding them (the packed four lanes at once,
// semiExpiry's runs), with each bucket decoded, cleared slot by slot,
// sorted and encoded again (expireByDecoding), for both layouts, every
// fingerprint width of at most 16-bit slots, every G of at most 4
// generation bits and every generation: random buckets, empty ones, full
// ones and ones of one generation.
func TestExpireWords(t *testing.T) {
	t.Parallel()
	r := newRand(7)
	const m = 64
	for gens, layout := uint(2), Layout(0); gens <= 16; gens, layout = gens+1, layout^1 {
		for fbits := uint(minFingerprintBits); fbits+genBits(gens) <= 16; fbits++ {
			tb := tableShape(m, fbits, 0, 0, layout, gens)
			if tb.codec != classNarrow && tb.codec != classExpSemi {
				t.Fatalf("%v f=%d G=%d: codec %d, not a one-word class", layout, fbits, gens, tb.codec)
			}
			tb.data = newTableData(tableBytes(tb.m, tb.bbits))
			for round := range 8 {
				want := make([]int, gens) // non-empty slots of each generation
				for i := range tb.m {
					var s [4]uint32
					g0 := uint(r.Uint64() % uint64(gens))
					for k := range s {
						g := uint(r.Uint64() % uint64(gens))
						switch {
						case i%8 == 0 || round == 0 && r.Uint64()%2 == 0: // empty
							continue
						case i%8 == 2: // one generation
							g = g0
						case i%8 != 1 && r.Uint64()%4 == 0: // empty, but in a full bucket
							continue
						}
						fp := uint32(1 + r.Uint64()%uint64(tb.fpRange))
						if r.Uint64()%8 == 0 {
							fp = uint32(1 + r.Uint64()%15) // small: prefix bits 0
						}
						s[k] = genValue(&tb, fp, g)
						want[g]++
					}
					lo, _ := tb.encode(s)
					tb.setNarrow(i, lo)
				}
				for id := range uint32(gens) {
					ref := tb
					ref.data = slices.Clone(tb.data)
					before := slices.Clone(tb.data)
					n, nref := tb.expire(uint(id)), expireByDecoding(&ref, uint(id))
					if n != nref || n != want[id] || !slices.Equal(tb.data, ref.data) {
						t.Fatalf("G=%d f=%d id=%d: %d cleared, %d by the reference, %d of the generation; tables equal: %v",
							gens, fbits, id, n, nref, want[id], slices.Equal(tb.data, ref.data))
					}
					for i := range tb.m {
						if !tb.validBucket(i) {
							t.Fatalf("G=%d f=%d id=%d: bucket %d not canonical", gens, fbits, id, i)
						}
					}
					copy(tb.data, before) // each generation from the same buckets
				}
			}
		}
	}
}

// TestInsertUniqueColliding: B collides with A (the same fingerprint and
// buckets), so the filter cannot tell their slots apart. InsertUnique(A) in
// the generation B was inserted in finds B's current copy and, as a false
// positive skips a plain InsertUnique, stores nothing: A's own slot then
// expires, B's copy stands for both (Len 1), and both are found until it
// expires. (Refreshing the oldest copy instead would keep A's slot too, but
// leaks slots: generations.go.) So a Delete of A takes B's copy, which is
// why InsertUnique's doc says not to Delete keys it refreshed.
func TestInsertUniqueColliding(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		cfg := Config{Capacity: 100, FingerprintBits: 8, Layout: layout, Generations: 2}
		shape := mustNew[uint64](t, cfg)
		h := hashFor(&shape.c.t, 0, 1) // a, b: fingerprint 1, first bucket 0
		a, b := keyWithHash(0, h), keyWithHash(0, h+1)
		for _, f := range []expiringFilter{mustNew[uint64](t, cfg), mustNewConcurrent[uint64](t, cfg)} {
			if err := f.Insert(a); err != nil { // generation 0
				t.Fatal(err)
			}
			f.Advance()
			if err := f.Insert(b); err != nil { // generation 1
				t.Fatal(err)
			}
			if added, err := f.InsertUnique(a); added || err != nil { // A seen in generation 1
				t.Fatalf("InsertUnique of a present key: %v, %v", added, err)
			}
			if n := f.Advance(); n != 1 { // generation 2: A's slot of generation 0 expires
				t.Fatalf("%T: Advance cleared %d slots, want A's one", f, n)
			}
			if !f.Contains(a) || !f.Contains(b) || f.Len() != 1 {
				t.Errorf("%T: Contains(A) %v, Contains(B) %v, Len %d; want true, true, 1", f, f.Contains(a), f.Contains(b), f.Len())
			}
			if !f.Delete(a) || f.Len() != 0 || f.Count(b) != 0 {
				t.Errorf("%T: Delete(A) left Len %d, Count(B) %d; want B's copy taken", f, f.Len(), f.Count(b))
			}
		}
	})
}
