package cuckoo

import (
	"bytes"
	"errors"
	"os/exec"
	"regexp"
	"sync"
	"testing"
	"unsafe"
)

func TestTinyFilters(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for n := 1; n <= 64; n++ {
			for seed := uint64(0); seed < 20; seed++ {
				f := mustNew[int](t, Config{Capacity: n, Layout: layout, Seed: seed})
				for k := range n {
					if err := f.Insert(k); err != nil {
						t.Fatalf("capacity %d seed %d: insert %d: %v", n, seed, k, err)
					}
				}
				for k := range n {
					if !f.Contains(k) {
						t.Fatalf("capacity %d seed %d: lost %d", n, seed, k)
					}
				}
				if f.Len() != n || f.Capacity() != n || f.Slots() < n {
					t.Fatalf("capacity %d: Len %d Capacity %d Slots %d", n, f.Len(), f.Capacity(), f.Slots())
				}
			}
		}
	})
}

// fillToCapacity inserts Capacity distinct keys and fails on any error or
// lost key.
func fillToCapacity(t *testing.T, cfg Config, salt uint64) {
	f := mustNew[uint64](t, cfg)
	key := func(i int) uint64 { return uint64(i)*0x9e3779b97f4a7c15 ^ salt }
	for i := range cfg.Capacity {
		if err := f.Insert(key(i)); err != nil {
			t.Fatalf("%+v: insert %d of %d: %v (load %.4f)", cfg, i, cfg.Capacity, err, f.LoadFactor())
		}
	}
	for i := range cfg.Capacity {
		if !f.Contains(key(i)) {
			t.Fatalf("%+v: key %d lost", cfg, i)
		}
	}
}

func TestFillToCapacity(t *testing.T) {
	t.Parallel()
	sizes := []int{100, 1000, 10_000, 100_000}
	seeds := 10
	if testing.Short() {
		seeds = 3
	} else {
		sizes = append(sizes, 1_000_000)
	}
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for _, n := range sizes {
			for _, bits := range []int{0, 4, 6, 8, 12, 16, 17, 32} {
				for seed := range uint64(seeds) {
					cfg := Config{Capacity: n, FingerprintBits: bits, Layout: layout, Seed: seed}
					if n > 100_000 && seed > 1 {
						continue
					}
					fillToCapacity(t, cfg, seed*7919)
				}
			}
		}
	})
}

// TestFillToCapacityLarge fills tables of 10 and 32 million keys, with
// longTests() only; TestFillToCapacity fills up to a million.
func TestFillToCapacityLarge(t *testing.T) {
	if !longTests() {
		t.Skip("fills of 10 and 32 million keys: set CUCKOO_LONG=1")
	}
	forEachLayout(t, func(t *testing.T, layout Layout) {
		fillToCapacity(t, Config{Capacity: 10_000_000, Layout: layout, Seed: 1}, 3)
		fillToCapacity(t, Config{Capacity: 10_000_000, Layout: layout, FingerprintBits: 8, Seed: 2}, 5)
	})
	// 32M keys at 3%: an earlier insertion walk (without look-ahead) failed
	// twice here before capacity.
	fillToCapacity(t, Config{Capacity: 32_000_000, FalsePositiveRate: 0.03}, 7)
}

// TestModel runs random operations against an exact multiset of hashes:
// Len is exact, and nothing stored is ever reported absent. One op in 100
// is a Reset, so a run is hundreds of fills from empty of
// up to a few hundred keys; -short's 20,000 ops still make 200 of them per
// configuration.
func TestModel(t *testing.T) {
	t.Parallel()
	ops := 60_000
	if testing.Short() {
		ops = 20_000
	}
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for _, bits := range []int{4, 7, 12, 16, 19, 32} {
			for seed := range uint64(3) {
				runModel(t, Config{Capacity: 2000, FingerprintBits: bits, Layout: layout, Seed: seed}, ops, seed)
			}
		}
	})
}

func runModel(t *testing.T, cfg Config, ops int, seed uint64) {
	f := mustNew[uint64](t, cfg)
	m := model{}
	r := newRand(seed)
	var stored []uint64 // hashes in m, with repeats, for picking deletes
	keySpace := uint64(max(cfg.Capacity, cfg.MaxCapacity)) * 2
	for op := range ops {
		switch x := r.IntN(100); {
		case x < 55: // insert; the key space makes duplicates and overfill common
			h := f.Hash(r.Uint64N(keySpace))
			before := bytes.Clone(f.c.t.data)
			switch err := f.InsertHash(h); {
			case err == nil:
				m[h]++
				stored = append(stored, h)
			case errors.Is(err, ErrFull), errors.Is(err, ErrTooManyDuplicates):
				if !bytes.Equal(before, f.c.t.data) {
					t.Fatalf("op %d: failed insert (%v) changed the table", op, err)
				}
			default:
				t.Fatalf("op %d: %v", op, err)
			}
		case x < 85 && len(stored) > 0: // delete something stored
			i := r.IntN(len(stored))
			h := stored[i]
			stored[i] = stored[len(stored)-1]
			stored = stored[:len(stored)-1]
			if !f.DeleteHash(h) {
				t.Fatalf("op %d: delete of a stored hash failed", op)
			}
			m[h]--
		case x < 99: // count
			h := f.Hash(r.Uint64N(keySpace))
			if got := f.CountHash(h); got < m[h] || got > 2*slotsPerBucket {
				t.Fatalf("op %d: Count %d, model %d", op, got, m[h])
			}
		default:
			f.Reset()
			clear(m)
			stored = stored[:0]
		}
		if op%997 == 0 {
			checkNoFalseNegatives(t, &f.c.reader, m)
		}
	}
	checkNoFalseNegatives(t, &f.c.reader, m)
}

func TestFailedInsertsLoseNothing(t *testing.T) {
	t.Parallel()
	// Fill to the first ErrFull, then keep inserting: every failure leaves
	// the table byte for byte as it was, and nothing stored goes missing.
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for _, bits := range []int{4, 8, 13, 16, 24, 32} {
			f := mustNew[uint64](t, Config{Capacity: 5000, FingerprintBits: bits, Layout: layout, Seed: 9})
			m := model{}
			failures := 0
			for k := uint64(0); failures < 300; k++ {
				h := f.Hash(k)
				before := bytes.Clone(f.c.t.data)
				switch err := f.InsertHash(h); {
				case err == nil:
					m[h]++
				case errors.Is(err, ErrFull):
					failures++
					if !bytes.Equal(before, f.c.t.data) {
						t.Fatalf("f=%d: failed insert %d changed the table", bits, failures)
					}
				default:
					t.Fatalf("f=%d: %v", bits, err)
				}
			}
			checkNoFalseNegatives(t, &f.c.reader, m)
			if bits >= 8 && f.LoadFactor() < 0.93 {
				t.Fatalf("f=%d: full at load %.4f", bits, f.LoadFactor())
			}
		}
	})
}

func TestLoadAtFirstFailure(t *testing.T) {
	t.Parallel()
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for bits := 8; bits <= 32; bits++ {
			for seed := range uint64(3) {
				f := mustNew[uint64](t, Config{Capacity: 50_000, FingerprintBits: bits, Layout: layout, Seed: seed})
				for k := uint64(0); ; k++ {
					if err := f.Insert(k ^ seed<<40); err != nil {
						if !errors.Is(err, ErrFull) {
							t.Fatal(err)
						}
						break
					}
				}
				if f.LoadFactor() < 0.93 {
					t.Fatalf("f=%d seed=%d: first ErrFull at load %.4f", bits, seed, f.LoadFactor())
				}
			}
		}
	})
}

func TestFullFilterRecovers(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		f := mustNew[uint64](t, Config{Capacity: 1000, Layout: layout})
		var keys []uint64
		for k := uint64(0); ; k++ {
			if f.Insert(k) != nil {
				break
			}
			keys = append(keys, k)
		}
		for _, k := range keys[:100] {
			if !f.Delete(k) {
				t.Fatalf("delete %d failed", k)
			}
		}
		for k := uint64(1 << 40); k < 1<<40+90; k++ {
			if err := f.Insert(k); err != nil {
				t.Fatalf("after deletes, insert: %v (load %.3f)", err, f.LoadFactor())
			}
		}
	})
}

func TestDuplicates(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for _, bits := range []int{4, 13, 32} {
			f := mustNew[string](t, Config{Capacity: 100, FingerprintBits: bits, Layout: layout})
			for i := 1; i <= 2*slotsPerBucket; i++ {
				if err := f.Insert("dup"); err != nil {
					t.Fatalf("copy %d: %v", i, err)
				}
				if got := f.Count("dup"); got != i {
					t.Fatalf("after %d copies Count = %d", i, got)
				}
			}
			rng := f.c.rng
			before := bytes.Clone(f.c.t.data)
			for range 3 {
				if err := f.Insert("dup"); !errors.Is(err, ErrTooManyDuplicates) {
					t.Fatalf("copy 9: %v, want ErrTooManyDuplicates", err)
				}
			}
			if f.c.rng != rng || !bytes.Equal(before, f.c.t.data) {
				t.Fatal("the ninth copy displaced fingerprints")
			}
			if ok, err := f.InsertUnique("dup"); ok || err != nil {
				t.Fatalf("InsertUnique of a present key: %v %v", ok, err)
			}
			for i := 2 * slotsPerBucket; i > 0; i-- {
				if !f.Delete("dup") {
					t.Fatalf("delete copy %d", i)
				}
				if got := f.Count("dup"); got != i-1 {
					t.Fatalf("Count %d after delete, want %d", got, i-1)
				}
			}
			if f.Delete("dup") || f.Contains("dup") || f.Len() != 0 {
				t.Fatal("deleted key still there")
			}
		}
	})
}

func TestInsertUnique(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		f := mustNew[uint32](t, Config{Capacity: 10_000, Layout: layout})
		added := 0
		for k := range uint32(10_000) {
			for range 3 {
				ok, err := f.InsertUnique(k)
				if err != nil {
					t.Fatal(err)
				}
				if ok {
					added++
				}
			}
			if !f.Contains(k) || f.Count(k) < 1 {
				t.Fatalf("key %d missing", k)
			}
		}
		// Only false positives may skip a key, and there are few of them.
		if added > 10_000 || added < 9_950 || f.Len() != added {
			t.Fatalf("added %d, Len %d", added, f.Len())
		}
	})
}

func TestDeterminism(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		build := func(seed uint64) *Filter[uint64] {
			f := mustNew[uint64](t, Config{Capacity: 3000, FingerprintBits: 11, Layout: layout, Seed: seed})
			for k := uint64(0); k < 3500; k++ { // past capacity: kicks and failures
				_ = f.Insert(k)
				if k%5 == 0 {
					f.Delete(k / 2)
				}
			}
			return f
		}
		a, b, c := build(42), build(42), build(43)
		if !bytes.Equal(a.c.t.data, b.c.t.data) || a.Len() != b.Len() {
			t.Fatal("same seed and operations gave different tables")
		}
		if bytes.Equal(a.c.t.data, c.c.t.data) {
			t.Fatal("different seeds gave the same table")
		}
		a.Reset()
		if a.Len() != 0 || !bytes.Equal(a.c.t.data, make([]byte, len(a.c.t.data))) {
			t.Fatal("Reset left data")
		}
		for k := uint64(0); k < 3500; k++ {
			_ = a.Insert(k)
			if k%5 == 0 {
				a.Delete(k / 2)
			}
		}
		if !bytes.Equal(a.c.t.data, b.c.t.data) {
			t.Fatal("after Reset the same operations gave a different table")
		}
	})
}

func TestLongKickWalks(t *testing.T) {
	// MaxKicks above the stack-kept path uses the filter's buffer; failed
	// long walks still restore the table.
	f := mustNew[uint64](t, Config{Capacity: 2000, MaxKicks: 5000, FingerprintBits: 10})
	m := model{}
	fails := 0
	for k := uint64(0); fails < 20; k++ {
		h := f.Hash(k)
		before := bytes.Clone(f.c.t.data)
		if err := f.InsertHash(h); err != nil {
			fails++
			if !bytes.Equal(before, f.c.t.data) {
				t.Fatal("failed long walk changed the table")
			}
			continue
		}
		m[h]++
	}
	checkNoFalseNegatives(t, &f.c.reader, m)
}

func TestAccessors(t *testing.T) {
	f := mustNew[uint64](t, Config{Capacity: 1000, FingerprintBits: 10})
	if f.Slots() != int(f.c.t.m)*4 || f.SizeBytes() != len(f.c.t.data) || f.LoadFactor() != 0 || f.EstimatedFalsePositiveRate() != 0 {
		t.Fatal(f.Slots(), f.SizeBytes(), f.LoadFactor())
	}
	for k := range uint64(500) {
		_ = f.Insert(k)
	}
	want := falsePositiveRate(10, 500/float64(f.Slots()))
	if got := f.EstimatedFalsePositiveRate(); got != want || got <= 0 {
		t.Fatalf("EstimatedFalsePositiveRate %v want %v", got, want)
	}
	if got, want := f.LoadFactor(), float64(f.Len())/float64(f.Slots()); got != want || f.Len() != 500 {
		t.Fatalf("LoadFactor %v, Len %d; want %v, 500", got, f.Len(), want)
	}
}

// TestVetReportsCopies runs go vet's copylocks check on a program that
// copies a Filter, a ConcurrentFilter and a View: it must report the first
// two, whose copies share a table but not its count, and not the View,
// which is read-only and may be copied. The field that makes vet report a
// Filter (noCopy) must cost nothing: no bytes, and no move of the state.
func TestVetReportsCopies(t *testing.T) {
	t.Parallel()
	var f Filter[string]
	if unsafe.Sizeof(f) != unsafe.Sizeof(f.c) || unsafe.Offsetof(f.c) != 0 {
		t.Fatalf("Filter is %d bytes, its core %d at offset %d", unsafe.Sizeof(f), unsafe.Sizeof(f.c), unsafe.Offsetof(f.c))
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command:", err)
	}
	const main = `package main

import "github.com/seed-a0724874/cuckoo"

func main() {
	a, _ := cuckoo.New[string](cuckoo.Config{Capacity: 10})
	b := *a // line 7
	_ = b.Insert("y")
	c, _ := cuckoo.NewConcurrent[string](cuckoo.Config{Capacity: 10})
	d := *c // line 10
	_ = d.Insert("y")
	data, _ := a.MarshalBinary()
	v, _ := cuckoo.NewView[string](data)
	w := *v // line 14
	_ = w.Contains("y")
}
`
	out, err := goCommand(t, "vetcopy", main, "vet", "-copylocks", ".").CombinedOutput()
	if err == nil {
		t.Fatalf("go vet reported no copy:\n%s", out)
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("go vet: %v\n%s", err, out)
	}
	for _, want := range []string{
		`main.go:7:\d+: assignment copies lock value to b: github.com/seed-a0724874/cuckoo.Filter\[string\] contains`,
		`main.go:10:\d+: assignment copies lock value to d: github.com/seed-a0724874/cuckoo.ConcurrentFilter\[string\] contains`,
	} {
		if !regexp.MustCompile(want).Match(out) {
			t.Errorf("go vet did not report %s:\n%s", want, out)
		}
	}
	if regexp.MustCompile(`main.go:14:`).Match(out) {
		t.Errorf("go vet reported the copy of a View:\n%s", out)
	}
}

func TestSeed(t *testing.T) {
	for _, seed := range []uint64{0, 1, 42, DefaultSeed, ^uint64(0)} {
		f := builtFilter(t, Config{Capacity: 100, Seed: seed}, 100, stringKey)
		want := seed
		if seed == 0 {
			want = DefaultSeed
		}
		if f.Seed() != want {
			t.Fatalf("Config.Seed %#x: Seed() = %#x, want %#x", seed, f.Seed(), want)
		}
		enc := mustMarshal(t, f)
		v, err := NewView[string](enc)
		if err != nil {
			t.Fatal(err)
		}
		var dec Filter[[]byte]
		if err := dec.UnmarshalBinary(enc); err != nil {
			t.Fatal(err)
		}
		if v.Seed() != want || dec.Seed() != want || f.Clone().Seed() != want {
			t.Fatalf("seed %#x: view %#x, decoded %#x", want, v.Seed(), dec.Seed())
		}
	}
	// Equal seeds are what makes hashes portable between filters.
	a := mustNew[string](t, Config{Capacity: 10, Seed: 8})
	b := mustNew[string](t, Config{Capacity: 5000, FingerprintBits: 20, Seed: 8})
	c := mustNew[string](t, Config{Capacity: 10})
	if a.Seed() != b.Seed() || a.Hash("x") != b.Hash("x") || a.Seed() == c.Seed() || a.Hash("x") == c.Hash("x") {
		t.Fatal("Seed does not tell which filters share hashes")
	}
	if new(Filter[string]).Seed() != 0 {
		t.Fatal("the zero Filter has a seed")
	}
}

// TestFilterConcurrentReads reads one Filter from several goroutines; run under
// -race it proves the read paths write nothing shared.
func TestFilterConcurrentReads(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		f := mustNew[uint64](t, Config{Capacity: 50_000, Layout: layout})
		for k := range uint64(50_000) {
			if err := f.Insert(k); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		errs := make(chan uint64, 8)
		for g := range uint64(8) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				keys := make([]uint64, 1000)
				found := make([]bool, len(keys))
				for k := g; k < 50_000; k += 8 {
					if !f.Contains(k) || f.Count(k) == 0 || !f.ContainsHash(f.Hash(k)) {
						errs <- k
						return
					}
					keys[k%1000] = k
				}
				if f.ContainsBatch(keys, found) != len(keys) {
					errs <- g
				}
				_ = f.Len() + f.Slots() + f.SizeBytes()
				_ = f.LoadFactor() + f.EstimatedFalsePositiveRate()
			}()
		}
		wg.Wait()
		close(errs)
		for k := range errs {
			t.Fatalf("key %d not found concurrently", k)
		}
	})
}
