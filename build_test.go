package cuckoo

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"
)

// buildKeys is n distinct random keys.
func buildKeys(n int, seed uint64) []uint64 {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = r.Uint64()
	}
	return keys
}

// TestBuildKeepsEveryKey: a built filter holds every key, for tiny to large
// key sets, every layout and a spread of widths (narrow ones, where keys
// share fingerprints, included); its Len is the slots it filled, its
// Capacity that of its table (TestBuiltCapacityPromise).
func TestBuildKeepsEveryKey(t *testing.T) {
	t.Parallel()
	sizes := []int{0, 1, 2, 3, 7, 8, 9, 10, 16, 33, 34, 35, 100, 255, 257, 1000, 10_000}
	if !testing.Short() {
		sizes = append(sizes, 200_000)
	}
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for _, f := range []int{4, 5, 8, 11, 13, 16, 17, 32} {
			for _, n := range sizes {
				keys := buildKeys(n, uint64(f))
				b, err := Build(Config{FingerprintBits: f, Layout: layout}, keys)
				if err != nil {
					t.Fatalf("f=%d n=%d: %v", f, n, err)
				}
				for _, k := range keys {
					if !b.Contains(k) {
						t.Fatalf("f=%d n=%d: key %d missing", f, n, k)
					}
				}
				occupied := 0
				for i := range b.c.t.m {
					for _, v := range b.c.t.bucketSlots(i) {
						if v != 0 {
							occupied++
						}
					}
				}
				if b.Len() != occupied || b.Len() > n || b.Capacity() != capacityFor(b.c.t.m, b.c.t.fbits) || b.MaxCapacity() != b.Capacity() {
					t.Fatalf("f=%d n=%d: Len %d, %d slots occupied, Capacity %d", f, n, b.Len(), occupied, b.Capacity())
				}
			}
		}
	})
}

// TestBuiltCapacityPromise: a built filter's Capacity is New's promise for
// its table, and so is that of a filter decoded from its compact encoding:
// emptied with Reset, each takes Capacity distinct keys with the default
// MaxKicks. Capacity is at most Slots, and a built table of 8-bit
// fingerprints or wider, fuller than New fills one, holds more keys than
// its Capacity. When the table is one New makes, New(Config()) makes it
// again, Merge-ready. Before, a built filter reported Capacity Len, and 29
// of 40 filters of 100,000 keys failed to take that many again after
// Reset.
func TestBuiltCapacityPromise(t *testing.T) {
	t.Parallel()
	sizes := []int{0, 1, 2, 5, 8, 9, 12, 20, 33, 64, 100, 257, 1000, 10_000, 100_000}
	seeds := 3
	if !testing.Short() {
		sizes, seeds = append(sizes, 400_000), 8
	}
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for _, f := range []int{4, 6, 8, 13, 16, 32} {
			for _, n := range sizes {
				for seed := range uint64(seeds) {
					if n >= 100_000 && f != 8 && f != 13 {
						continue
					}
					cfg := Config{FingerprintBits: f, Layout: layout, Seed: seed}
					b, err := Build(cfg, buildKeys(n, seed))
					if err != nil {
						t.Fatal(err)
					}
					what := fmt.Sprintf("f=%d n=%d seed %d, %d buckets", f, n, seed, b.c.t.m)
					if b.Capacity() < 1 || b.Capacity() > b.Slots() || b.MaxCapacity() != b.Capacity() {
						t.Fatalf("%s: Capacity %d, MaxCapacity %d, %d slots", what, b.Capacity(), b.MaxCapacity(), b.Slots())
					}
					// (Narrower fingerprints are tried at New's load plus
					// 0.025, and many keys share one slot: 814 of 1000 at
					// f = 4.)
					if n >= 1000 && f >= 8 && b.Len() <= b.Capacity() {
						t.Errorf("%s: Len %d, Capacity %d: the table is no fuller than New's", what, b.Len(), b.Capacity())
					}
					if i := b.Info(); i.Capacity != b.Capacity() || i.Len != b.Len() || i.LoadFactor != float64(b.Len())/float64(b.Slots()) {
						t.Fatalf("%s: Info %v", what, i)
					}
					checkConfigOfBuilt(t, what, b)
					var d Filter[uint64]
					if err := d.UnmarshalBinary(mustCompact(t, b)); err != nil {
						t.Fatal(err)
					}
					if d.Capacity() != b.Capacity() {
						t.Fatalf("%s: Capacity %d decoded, %d built", what, d.Capacity(), b.Capacity())
					}
					for name, g := range map[string]*Filter[uint64]{"built": b, "compact-decoded": &d} {
						g.Reset()
						for i := range uint64(g.Capacity()) {
							if err := g.Insert(1<<40 + seed<<32 + i); err != nil {
								t.Fatalf("%s, %s and Reset: insert %d of Capacity %d: %v", what, name, i+1, g.Capacity(), err)
							}
						}
					}
				}
			}
		}
	})
}

// checkConfigOfBuilt checks b.Config(): New accepts it and makes a filter
// that hashes alike, with b's table when New makes tables of that size
// (not 2 buckets, nor a count that splits the table), which b can Merge.
func checkConfigOfBuilt(t *testing.T, what string, b *Filter[uint64]) {
	t.Helper()
	cfg := b.Config()
	if cfg.Capacity != b.Capacity() || cfg.MaxCapacity != 0 {
		t.Fatalf("%s: Config %+v, Capacity %d", what, cfg, b.Capacity())
	}
	n, err := New[uint64](cfg)
	if err != nil {
		t.Fatalf("%s: New(Config()): %v", what, err)
	}
	if n.Seed() != b.Seed() || n.FingerprintBits() != b.FingerprintBits() || n.Layout() != b.Layout() {
		t.Fatalf("%s: New(Config()) is %v, the filter %v", what, n, b)
	}
	m := b.c.t.m
	if m == 2 || splitsTable(m, b.c.t.fbits) {
		return
	}
	if n.Slots() != b.Slots() {
		t.Fatalf("%s: New(Config()) has %d slots, the built filter %d", what, n.Slots(), b.Slots())
	}
	if err := b.Merge(n); err != nil {
		t.Fatalf("%s: Merge of New(Config()): %v", what, err)
	}
}

// TestBuildDuplicates: repeated keys take no slot: the filter built from
// every key three times, in any order, is sized for the keys once, and the
// keys' hashes build the same filter as the keys.
func TestBuildDuplicates(t *testing.T) {
	for _, n := range []int{30, 5000} {
		keys := buildKeys(n, 1)
		once, err := Build(Config{}, keys)
		if err != nil {
			t.Fatal(err)
		}
		thrice := append(append(append([]uint64{}, keys...), keys...), keys...)
		rand.New(rand.NewPCG(1, 2)).Shuffle(len(thrice), func(i, j int) { thrice[i], thrice[j] = thrice[j], thrice[i] })
		again, err := Build(Config{}, thrice)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if !again.Contains(k) {
				t.Fatalf("n=%d: key %d missing", n, k)
			}
		}
		// The tables differ in size by at most one step of the search: the
		// keys that share a fingerprint and buckets with another differ
		// with the size.
		if d := again.Len() - once.Len(); d < -2 || d > 2 || again.Slots() > once.Slots()+8 {
			t.Fatalf("n=%d: %d keys in %d slots thrice, %d in %d once", n, again.Len(), again.Slots(), once.Len(), once.Slots())
		}
		hs := make([]uint64, len(keys))
		for i, k := range keys {
			hs[i] = once.Hash(k)
		}
		hashed, err := BuildHashes[uint64](Config{}, hs)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(mustMarshal(t, once), mustMarshal(t, hashed)) {
			t.Fatalf("n=%d: BuildHashes built another filter", n)
		}
	}
}

// TestBuildConfig: Build takes New's Config without the sizes; its rate
// picks the width for a full table; keyed and seeded builds hash as New's.
func TestBuildConfig(t *testing.T) {
	for _, cfg := range []Config{{Capacity: 10}, {MaxCapacity: 10}, {FalsePositiveRate: 2}, {FingerprintBits: 3}, {FalsePositiveRate: 0.1, FingerprintBits: 8}} {
		if _, err := Build(cfg, []uint64{1, 2}); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
	for _, rate := range []float64{0.3, 0.05, 0.01, 0.005, 0.001, 1e-6} {
		b, err := Build(Config{FalsePositiveRate: rate}, buildKeys(100, 3))
		if err != nil {
			t.Fatal(err)
		}
		f := uint(b.FingerprintBits())
		if falsePositiveRate(f, 1) > rate || falsePositiveRate(f-1, 1) <= rate {
			t.Errorf("rate %v: %d bits, whose rate when full is %v", rate, f, falsePositiveRate(f, 1))
		}
	}
	key := [16]byte{1, 2, 3}
	for _, cfg := range []Config{{Key: key}, {Seed: 99}} {
		keys := buildKeys(300, 4)
		b, err := Build(cfg, keys)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Capacity = 10
		n := mustNew[uint64](t, cfg)
		for _, k := range keys {
			if b.Hash(k) != n.Hash(k) || !b.Contains(k) {
				t.Fatalf("%+v: built and new filters hash %d differently", cfg, k)
			}
		}
	}
}

// TestBuildFalsePositiveRate: at the load Build reaches, the measured rate
// is within the configured one (five standard deviations of the binomial
// count).
func TestBuildFalsePositiveRate(t *testing.T) {
	t.Parallel()
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for _, rate := range []float64{0.01, 0.001} {
			b, err := Build(Config{FalsePositiveRate: rate, Layout: layout}, buildKeys(100_000, 5))
			if err != nil {
				t.Fatal(err)
			}
			const queries = 1 << 20
			hits := 0
			for _, k := range buildKeys(queries, 6) {
				if b.Contains(k) {
					hits++
				}
			}
			if limit := rate*queries + 5*math.Sqrt(rate*queries); float64(hits) > limit {
				t.Errorf("rate %v: %d false positives in %d queries, over %.0f", rate, hits, queries, limit)
			}
		}
	})
}

// TestBuildAllocations: Build allocates the keys' hashes and the table (with
// the slack its attempts reuse), BuildHashes only the table, and neither
// anything in proportion to the attempts.
func TestBuildAllocations(t *testing.T) {
	const n = 100_000
	keys := buildKeys(n, 7)
	var b *Filter[uint64]
	got := minAlloc(func() { b, _ = Build(Config{FingerprintBits: 12}, keys) })
	table := uint64(len(b.c.t.data))
	if limit := 8*n + table + table/64 + 16<<10; got > limit {
		t.Errorf("Build allocated %d bytes for a %d-byte table and %d hashes (limit %d)", got, table, n, limit)
	}
	hs := make([]uint64, n)
	for i, k := range keys {
		hs[i] = b.Hash(k)
	}
	got = minAlloc(func() { b, _ = BuildHashes[uint64](Config{FingerprintBits: 12}, hs) })
	if limit := table + table/64 + 16<<10; got > limit {
		t.Errorf("BuildHashes allocated %d bytes for a %d-byte table (limit %d)", got, table, limit)
	}
}

// TestBuildSize compares the table Build makes for n keys with the one New
// makes for Capacity n, from 10 keys to a million: never larger, and much
// smaller for small sets, where New keeps slots free for inserts to come.
// With -v it prints the table of bits per key (the buckets alone, and the
// compact encoding).
func TestBuildSize(t *testing.T) {
	t.Parallel()
	sizes := []int{10, 20, 34, 50, 100, 200, 500, 1000, 10_000, 100_000, 1_000_000}
	if testing.Short() {
		sizes = sizes[:9]
	}
	forEachLayout(t, func(t *testing.T, layout Layout) {
		t.Logf("%v, f = 11: bits per key of the buckets (New / Build), and of Build's compact encoding", layout)
		for _, n := range sizes {
			keys := buildKeys(n, 8)
			b, err := Build(Config{FingerprintBits: 11, Layout: layout}, keys)
			if err != nil {
				t.Fatal(err)
			}
			nf := mustNew[uint64](t, Config{Capacity: n, FingerprintBits: 11, Layout: layout})
			bbits := float64(bucketBits(layout, 11))
			newBits := float64(nf.c.t.m) * bbits / float64(n)
			builtBits := float64(b.c.t.m) * bbits / float64(n)
			encBits := float64(len(mustCompact(t, b))*8) / float64(n)
			t.Logf("n=%9d  New %6.2f  Build %6.2f (%.3f)  compact encoding %6.2f", n, newBits, builtBits, builtBits/newBits, encBits)
			switch ratio := builtBits / newBits; {
			case ratio > 1:
				t.Errorf("n=%d: Build's table is larger than New's", n)
			case n <= 50 && ratio > 0.55, n >= 1000 && ratio > 0.99:
				t.Errorf("n=%d: Build's table is %.3f of New's", n, ratio)
			}
		}
	})
}

func ExampleBuild() {
	keys := []string{"alice", "bob", "carol", "dave"}
	f, err := Build(Config{FalsePositiveRate: 0.01}, keys)
	if err != nil {
		panic(err)
	}
	enc, _ := f.AppendCompact(nil) // 5 bytes more than the buckets
	ok, _ := ContainsEncoded(enc, "carol")
	fmt.Println(f.Len(), len(enc), ok)
	// Output: 4 15 true
}

// TestAppendCompactHashes: the bytes AppendCompactHashes appends are
// AppendCompact of BuildHashes's filter, whatever b holds before and
// whatever its capacity, for tiny to large key sets, both layouts and a
// seed of its own; Hash is the hash they take. With b and hashes reused it
// allocates nothing, and a keyed Config is refused with b unchanged.
func TestAppendCompactHashes(t *testing.T) {
	for _, n := range []int{0, 1, 7, 33, 300, 20_000} {
		for _, cfg := range []Config{
			{FalsePositiveRate: 0.01, Layout: SemiSorted},
			{FingerprintBits: 9},
			{FingerprintBits: 17, Seed: 99},
		} {
			keys := buildKeys(n, uint64(n))
			hs := make([]uint64, n)
			for i, k := range keys {
				hs[i] = Hash(k)
			}
			if cfg.Seed != 0 {
				f, err := New[uint64](Config{Capacity: 1, Seed: cfg.Seed})
				if err != nil {
					t.Fatal(err)
				}
				for i, k := range keys {
					hs[i] = f.Hash(k)
				}
			}
			f, err := BuildHashes[uint64](cfg, hs)
			if err != nil {
				t.Fatal(err)
			}
			want, err := f.AppendCompact([]byte("prefix"))
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range [][]byte{[]byte("prefix"), append(make([]byte, 0, 1<<20), "prefix"...)} {
				got, err := AppendCompactHashes[uint64](b, cfg, hs)
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("n=%d %+v: AppendCompactHashes = %d bytes, %v; want AppendCompact's %d bytes", n, cfg, len(got), err, len(want))
				}
			}
			v, err := NewView[uint64](want[len("prefix"):])
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range keys {
				if !v.Contains(k) {
					t.Fatalf("n=%d %+v: key %d lost", n, cfg, k)
				}
			}
		}
	}

	hs := make([]uint64, 50_000)
	for i := range hs {
		hs[i] = Hash(fmt.Sprint("key", i))
	}
	b := make([]byte, 0, 1<<20)
	cfg := Config{FalsePositiveRate: 0.001, Layout: SemiSorted}
	if a := testing.AllocsPerRun(5, func() { b, _ = AppendCompactHashes[string](b[:0], cfg, hs) }); a != 0 {
		t.Errorf("AppendCompactHashes into a large enough buffer: %v allocations, want 0", a)
	}
	if a := testing.AllocsPerRun(100, func() { _ = Hash("key") }); a != 0 {
		t.Errorf("Hash: %v allocations, want 0", a)
	}
	f, _ := New[string](Config{Capacity: 10})
	if Hash("key") != f.Hash("key") || Hash([]byte("key")) != f.Hash("key") {
		t.Error("Hash differs from a default filter's Hash")
	}

	in := []byte("unchanged")
	out, err := AppendCompactHashes[string](in, Config{Key: [16]byte{1}}, hs[:10])
	if !errors.Is(err, ErrIncompatible) || string(out) != "unchanged" {
		t.Errorf("keyed: %q, %v; want the input and ErrIncompatible", out, err)
	}
	if _, err := AppendCompactHashes[string](nil, Config{Capacity: 10}, hs[:10]); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("Capacity set: %v, want ErrInvalidConfig", err)
	}
}

// crowdedHashes are nine hashes of distinct f-bit fingerprints that share
// bucket 0 and its alternate m-1 in every table Build tries: each is below
// 2^32, so its first bucket is 0 at every size, and its fingerprint times
// alt's multiplier is below 10, so alt's offset is 1 for every m below
// about 2^33/9. Two buckets hold 8.
func crowdedHashes(f int) []uint64 {
	const invPhi = 0x0e8b2f51 // 0x9e3779b1 * invPhi == 1 mod 2^32
	fpRange := uint64(1)<<f - 1
	var hs []uint64
	for x := uint32(1); len(hs) < 9; x++ {
		fp := x * invPhi
		if fp == 0 || uint64(fp) > fpRange {
			continue
		}
		hs = append(hs, ((uint64(fp-1)<<32)+fpRange-1)/fpRange)
	}
	return hs
}

// TestBuildCrowdedKeys: nine keys that no table can hold make Build,
// BuildHashes and AppendCompactHashes give up with an error wrapping ErrFull
// that names the cause, at every width from 16 to 32 and both layouts, each
// within a second and 64 MB allocated, where the table used to grow until
// memory ran out. Build takes the integer keys whose hashes these are.
func TestBuildCrowdedKeys(t *testing.T) {
	const (
		timeLimit  = time.Second
		allocLimit = 64 << 20
	)
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for f := 16; f <= 32; f++ {
			cfg := Config{FingerprintBits: f, Layout: layout}
			hs := crowdedHashes(f)
			keys := make([]uint64, len(hs))
			for i, h := range hs {
				keys[i] = keyWithHash(0, h)
				if Hash(keys[i]) != h {
					t.Fatalf("f=%d: key %d hashes to %#x, not %#x", f, keys[i], Hash(keys[i]), h)
				}
			}
			// The count is of distinct fingerprints: repeats of a hash,
			// which Build stores once, add nothing, and 8 keys fit.
			tb := tableShape(4, uint(f), 0, 0, layout, 0)
			if k, _, _ := keysCrowded(&tb, append(hs, hs...), hs[0]); k != 9 {
				t.Fatalf("f=%d: keysCrowded counts %d keys, want 9", f, k)
			}
			if k, _, _ := keysCrowded(&tb, append(hs[:8:8], hs[:8]...), hs[0]); k != 8 {
				t.Fatalf("f=%d: keysCrowded counts %d of 8 keys", f, k)
			}
			prefix := []byte("prefix")
			for _, call := range []struct {
				name string
				run  func() error
			}{
				{"Build", func() error { _, err := Build(cfg, keys); return err }},
				{"BuildHashes", func() error { _, err := BuildHashes[uint64](cfg, hs); return err }},
				{"AppendCompactHashes", func() error {
					out, err := AppendCompactHashes[uint64](prefix, cfg, hs)
					if err != nil && string(out) != "prefix" {
						t.Errorf("f=%d: AppendCompactHashes changed b to %q", f, out)
					}
					return err
				}},
			} {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				start := time.Now()
				err := call.run()
				took := time.Since(start)
				runtime.ReadMemStats(&after)
				alloc := after.TotalAlloc - before.TotalAlloc
				if took > timeLimit || alloc > allocLimit {
					t.Fatalf("f=%d %s: %v and %d bytes allocated for 9 keys", f, call.name, took, alloc)
				}
				if !errors.Is(err, ErrFull) || !strings.Contains(err.Error(), "9 keys of distinct fingerprints share buckets 0 and ") {
					t.Fatalf("f=%d %s: %v; want ErrFull naming the 9 keys that share buckets 0 and m-1", f, call.name, err)
				}
			}
		}

		// Among 10,000 repeats of one more key, the first attempt is sized
		// for them all and holds the ten distinct keys (at f = 12 the nine
		// share buckets 0 and m-1 only up to a few hundred buckets); the
		// pass that starts over from the size for ten gives up after its
		// attempts and takes the size that held them, without an error.
		const f = 12
		hs := append(crowdedHashes(f), make([]uint64, 10_000)...)
		for i := 9; i < len(hs); i++ {
			hs[i] = 0x1234_5678_9abc_def0
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		b, err := BuildHashes[uint64](Config{FingerprintBits: f, Layout: layout}, hs)
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; err != nil || took > timeLimit || alloc > allocLimit {
			t.Fatalf("10 keys in 10,009 hashes: %v after %v and %d bytes allocated", err, took, alloc)
		}
		if b.Len() != 10 || b.c.t.m != buildStart(len(hs), f) {
			t.Errorf("10 keys in 10,009 hashes: Len %d in %d buckets, want 10 in the first attempt's %d", b.Len(), b.c.t.m, buildStart(len(hs), f))
		}
		for _, h := range hs[:10] {
			if !b.ContainsHash(h) {
				t.Fatalf("hash %#x missing", h)
			}
		}
	})
}
