package cuckoo

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// snapshotBytes is the concurrent filter's table as a Filter holds it.
func snapshotBytes[T Hashable](c *ConcurrentFilter[T]) []byte { return c.Snapshot().c.t.data }

// concurrentConfigs are the shapes the sequential tests run on: both
// layouts, narrow and wide widths, fixed and growable.
func concurrentConfigs() []Config {
	n := 3000
	if testing.Short() {
		n = 1000
	}
	var cs []Config
	widths := []int{4, 8, 13, 16, 17, 20, 32}
	if testing.Short() {
		widths = []int{4, 13, 20}
	}
	for _, layout := range layouts {
		for _, f := range widths {
			cs = append(cs, Config{Capacity: n, FingerprintBits: f, Layout: layout, Seed: uint64(f)})
			if f <= 24 {
				cs = append(cs, Config{Capacity: n / 10, MaxCapacity: 2 * n, FingerprintBits: f, Layout: layout})
			}
		}
	}
	return cs
}

func configName(c Config) string {
	name := fmt.Sprintf("%v/f=%d", c.Layout, c.FingerprintBits)
	if c.MaxCapacity != 0 {
		name += "/growable"
	}
	return name
}

// TestConcurrentSequential runs random inserts, duplicate inserts and
// deletes from one goroutine against an exact model: no false negatives,
// Len and Count as the model says, failed inserts that change nothing, and
// a Snapshot that decodes as a valid filter with the same answers.
func TestConcurrentSequential(t *testing.T) {
	t.Parallel()
	for _, cfg := range concurrentConfigs() {
		t.Run(configName(cfg), func(t *testing.T) {
			c := mustNewConcurrent[uint64](t, cfg)
			r := newRand(uint64(cfg.FingerprintBits))
			m := model{}
			var in []uint64
			full, drain := 0, 0
			var before []uint64
			for op := range 4 * cfg.Capacity * max(1, cfg.MaxCapacity/cfg.Capacity) {
				switch x := r.IntN(10); {
				case drain == 0 && x < 7 || len(in) == 0:
					h := r.Uint64()
					if x == 0 && len(in) > 0 {
						h = in[r.IntN(len(in))] // a duplicate
					}
					before = append(before[:0], c.c.cur.Load().words...)
					switch err := c.InsertHash(h); {
					case err == nil:
						m[h]++
						in = append(in, h)
					case errors.Is(err, ErrFull) || errors.Is(err, ErrTooManyDuplicates):
						full++
						drain = 3 // stay near full, without failing every time
						if !slices.Equal(before, c.c.cur.Load().words) {
							t.Fatalf("op %d: a failed insert (%v) changed the table", op, err)
						}
					default:
						t.Fatal(err)
					}
				default:
					drain = max(drain-1, 0)
					k := r.IntN(len(in))
					h := in[k]
					in[k] = in[len(in)-1]
					in = in[:len(in)-1]
					if !c.DeleteHash(h) {
						t.Fatalf("op %d: delete of a stored hash failed", op)
					}
					m[h]--
				}
				if op%500 == 0 {
					checkConcurrentModel(t, c, m)
				}
			}
			checkConcurrentModel(t, c, m)
			if full == 0 {
				t.Log("no insert failed")
			}
		})
	}
}

// checkConcurrentModel checks c against the exact model m, directly and
// through a Snapshot, its encoding and NewConcurrentFrom.
func checkConcurrentModel(t *testing.T, c *ConcurrentFilter[uint64], m model) {
	t.Helper()
	if c.Len() != m.total() {
		t.Fatalf("Len %d, model holds %d", c.Len(), m.total())
	}
	for h, n := range m {
		if n > 0 && (!c.ContainsHash(h) || c.CountHash(h) < n) {
			t.Fatalf("hash %#x stored %d times: Contains %v, Count %d", h, n, c.ContainsHash(h), c.CountHash(h))
		}
	}
	s := c.Snapshot()
	checkNoFalseNegatives(t, &s.c.reader, m)
	for i := range s.c.t.m {
		if !s.c.t.validBucket(i) {
			t.Fatalf("bucket %d is not validly encoded", i)
		}
	}
	if s.c.t.g == 0 {
		enc, err := c.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var d Filter[uint64]
		if err := d.UnmarshalBinary(enc); err != nil { // checks the structure and the count
			t.Fatal(err)
		}
		if !bytes.Equal(enc, mustMarshal(t, s)) {
			t.Fatal("MarshalBinary differs from the Snapshot's")
		}
	}
	if !bytes.Equal(snapshotBytes(NewConcurrentFrom(s)), s.c.t.data) {
		t.Fatal("NewConcurrentFrom(Snapshot()) holds another table")
	}
}

// TestConcurrentSameTableAsFilter checks that without displacements a
// ConcurrentFilter's table is, bit for bit, the Filter's after the same
// inserts and deletes.
func TestConcurrentSameTableAsFilter(t *testing.T) {
	for _, layout := range layouts {
		for f := 4; f <= 32; f++ {
			cfg := Config{Capacity: 20000, FingerprintBits: f, Layout: layout}
			c, fl := mustNewConcurrent[uint64](t, cfg), mustNew[uint64](t, cfg)
			for k := range uint64(2000) { // 10% full: no two buckets full
				if c.Insert(k) != nil || fl.Insert(k) != nil {
					t.Fatal("insert failed")
				}
				if k%3 == 0 && (!c.Delete(k/2) || !fl.Delete(k/2)) {
					t.Fatal("delete failed")
				}
			}
			if !sameBuckets(c.Snapshot(), fl) {
				t.Fatalf("%v f=%d: the tables differ", layout, f)
			}
		}
	}
}

// TestCtableOver checks that a ctable taking over a table built by a
// Filter's code (a growable ConcurrentFilter's doubled tables) reads it as
// it is, through the readers' atomic loads, for both layouts and several
// widths and stages: every bucket's bits, including the last bucket's.
func TestCtableOver(t *testing.T) {
	for _, layout := range layouts {
		for _, c := range []struct {
			m0    uint64
			fbits uint
			g     uint
		}{{16, 4, 3}, {18, 8, 5}, {20, 13, 6}, {24, 20, 10}, {16, 28, 4}} {
			r := newRand(uint64(c.fbits))
			fc := core{reader: reader{t: newStage(c.m0, c.fbits, c.g, 0, layout, 0), h: newHasher(3)}, maxKicks: DefaultMaxKicks, rng: 3}
			for fc.t.canGrow() {
				for fc.count < fc.t.stageCapacity() {
					_ = fc.insertAt(fc.t.place(r.Uint64()))
				}
				fc.grow()
				want := append([]byte(nil), fc.t.data...)
				s := ctableOver(fc.t)
				if uint64(len(s.words)) != ctableWords(s.t.m, s.t.bbits) {
					t.Fatalf("%v f=%d: %d words, want %d", layout, c.fbits, len(s.words), ctableWords(s.t.m, s.t.bbits))
				}
				n := s.t.bbits
				for b := range s.t.m {
					lo, hi := s.read(b)
					wlo, whi := bucket128(want, b*uint64(n))
					mlo, mhi := ^uint64(0), ^uint64(0)
					if n < 64 {
						mlo, mhi = 1<<n-1, 0
					} else if n < 128 {
						mhi = 1<<(n-64) - 1
					}
					if lo&mlo != wlo&mlo || hi&mhi != whi&mhi {
						t.Fatalf("%v f=%d g=%d stage %d: bucket %d reads %#x %#x, holds %#x %#x", layout, c.fbits, c.g, s.t.k, b, lo&mlo, hi&mhi, wlo&mlo, whi&mhi)
					}
				}
			}
		}
	}
}

// TestConcurrentFillsCapacity inserts Capacity distinct keys, and
// MaxCapacity into growable filters, for every width, both layouts, small
// and large filters and several seeds: every insert succeeds.
func TestConcurrentFillsCapacity(t *testing.T) {
	t.Parallel()
	sizes, seeds := []int{1, 3, 10, 30, 100, 1000, 30000}, uint64(10)
	if testing.Short() {
		sizes, seeds = sizes[:6], 4
	}
	for _, layout := range layouts {
		for f := 4; f <= 32; f++ {
			for _, n := range sizes {
				for seed := uint64(1); seed <= seeds && (n < 30000 || seed <= 2); seed++ {
					cfg := Config{Capacity: n, FingerprintBits: f, Layout: layout, Seed: seed}
					if seed%2 == 0 && f <= 26 && n >= 10 {
						cfg.Capacity, cfg.MaxCapacity = n/8+1, n
					}
					c := mustNewConcurrent[uint64](t, cfg)
					for k := range uint64(n) {
						if err := c.Insert(k); err != nil {
							t.Fatalf("%+v: insert %d of %d: %v", cfg, k, n, err)
						}
					}
					for k := range uint64(n) {
						if !c.Contains(k) {
							t.Fatalf("%+v: key %d lost", cfg, k)
						}
					}
				}
			}
		}
	}
}

// TestConcurrentMethods checks every method's answer against a Filter with
// the same contents, for several key types.
func TestConcurrentMethods(t *testing.T) {
	testConcurrentMethods(t, intKey)
	testConcurrentMethods(t, stringKey)
	testConcurrentMethods(t, func(i int) []byte { return []byte(stringKey(i)) })
	testConcurrentMethods(t, func(i int) int8 { return int8(i) })
	testConcurrentMethods(t, func(i int) float32 { return float32(i) / 3 })
}

func testConcurrentMethods[T Hashable](t *testing.T, key func(int) T) {
	for _, cfg := range []Config{
		{Capacity: 500, Seed: 5},
		{Capacity: 500, Layout: SemiSorted, FalsePositiveRate: 0.01},
		{Capacity: 100, MaxCapacity: 2000, FingerprintBits: 12},
	} {
		c := mustNewConcurrent[T](t, cfg)
		n := min(cfg.Capacity, 400)
		if cfg.MaxCapacity != 0 {
			n = 1500
		}
		if _, ok := any(key(0)).(int8); ok {
			n = 200 // 256 keys, a few of them twice
		}
		for i := range n {
			if err := c.Insert(key(i)); err != nil {
				if errors.Is(err, ErrTooManyDuplicates) { // int8 keys repeat
					continue
				}
				t.Fatalf("%T %+v: insert %d: %v", key(0), cfg, i, err)
			}
		}
		added, err := c.InsertUnique(key(0))
		if added || err != nil {
			t.Fatalf("InsertUnique of a stored key: %v, %v", added, err)
		}
		f := c.Snapshot()
		keys := make([]T, 2*n)
		hashes := make([]uint64, len(keys))
		for i := range keys {
			keys[i] = key(i)
			hashes[i] = c.Hash(keys[i])
			if hashes[i] != f.Hash(keys[i]) || c.Contains(keys[i]) != f.Contains(keys[i]) ||
				c.ContainsHash(hashes[i]) != f.ContainsHash(hashes[i]) || c.Count(keys[i]) != f.Count(keys[i]) ||
				c.CountHash(hashes[i]) != f.CountHash(hashes[i]) {
				t.Fatalf("%T key %v answers differently from its Snapshot", keys[i], keys[i])
			}
		}
		cf, ff := make([]bool, len(keys)), make([]bool, len(keys))
		if c.ContainsBatch(keys, cf) != f.ContainsBatch(keys, ff) || !slicesEqual(cf, ff) ||
			c.ContainsHashBatch(hashes, cf) != f.ContainsHashBatch(hashes, ff) || !slicesEqual(cf, ff) {
			t.Fatal("batches answer differently from the Snapshot")
		}
		if c.ContainsBatch(keys, nil) != f.ContainsBatch(keys, nil) {
			t.Fatal("batch count without found differs")
		}
		type stats struct {
			Len, Capacity, MaxCapacity, Slots, Bits int
			Layout                                  Layout
			Load, FPR                               float64
		}
		cs := stats{c.Len(), c.Capacity(), c.MaxCapacity(), c.Slots(), c.FingerprintBits(), c.Layout(), c.LoadFactor(), c.EstimatedFalsePositiveRate()}
		fs := stats{f.Len(), f.Capacity(), f.MaxCapacity(), f.Slots(), f.FingerprintBits(), f.Layout(), f.LoadFactor(), f.EstimatedFalsePositiveRate()}
		if cs != fs {
			t.Fatalf("%+v: got %+v, the Snapshot %+v", cfg, cs, fs)
		}
		want := DefaultSeed
		if cfg.Seed != 0 {
			want = cfg.Seed
		}
		if c.Seed() != want || c.SizeBytes() < f.SizeBytes() || c.SizeBytes() > f.SizeBytes()+8*(maxStripes+8) {
			t.Fatalf("Seed %#x, SizeBytes %d (Filter %d)", c.Seed(), c.SizeBytes(), f.SizeBytes())
		}
		c.Reset()
		fresh := mustNewConcurrent[T](t, cfg)
		if c.Len() != 0 || !bytes.Equal(snapshotBytes(c), snapshotBytes(fresh)) || c.Slots() != fresh.Slots() {
			t.Fatal("Reset does not give a new filter's table")
		}
		if added, err := c.InsertUnique(key(1)); !added || err != nil || c.Count(key(1)) != 1 {
			t.Fatalf("InsertUnique after Reset: %v, %v", added, err)
		}
	}
}

// TestConcurrentInsertBatch checks that InsertBatch and InsertHashBatch
// insert as a loop of Insert does, stopping at the first failure, which
// leaves the filter as that Insert would.
func TestConcurrentInsertBatch(t *testing.T) {
	for _, layout := range layouts {
		cfg := Config{Capacity: 3000, FingerprintBits: 10, Layout: layout}
		a, b := mustNewConcurrent[uint64](t, cfg), mustNewConcurrent[uint64](t, cfg)
		keys := make([]uint64, 5000)
		for i := range keys {
			keys[i] = intKey(i)
		}
		want := 0
		var wantErr error
		for _, k := range keys {
			if wantErr = a.Insert(k); wantErr != nil {
				break
			}
			want++
		}
		n, err := b.InsertBatch(keys)
		if n != want || err != wantErr || !bytes.Equal(snapshotBytes(a), snapshotBytes(b)) || b.Len() != a.Len() {
			t.Fatalf("%v: InsertBatch = %d, %v; a loop of Insert: %d, %v", layout, n, err, want, wantErr)
		}
		c := mustNewConcurrent[uint64](t, cfg)
		hs := make([]uint64, len(keys))
		for i, k := range keys {
			hs[i] = c.Hash(k)
		}
		if n, err := c.InsertHashBatch(hs); n != want || err != wantErr || !bytes.Equal(snapshotBytes(a), snapshotBytes(c)) {
			t.Fatalf("%v: InsertHashBatch = %d, %v", layout, n, err)
		}
	}
}

// TestConcurrentInsertUnique has many goroutines insert the same keys with
// InsertUnique at once: each key goes in once.
func TestConcurrentInsertUnique(t *testing.T) {
	c := mustNewConcurrent[string](t, Config{Capacity: 10000, FingerprintBits: 20})
	const goroutines, keys = 8, 2000
	var wg sync.WaitGroup
	added := make([]int, goroutines)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range keys {
				ok, err := c.InsertUnique("k" + strconv.Itoa((k+g*37)%keys))
				if err != nil {
					t.Error(err)
					return
				}
				if ok {
					added[g]++
				}
			}
		}()
	}
	wg.Wait()
	total := 0
	for _, n := range added {
		total += n
	}
	// A false positive (about 8 * 0.2 / 2^20 per key) may skip a key; none
	// is expected here.
	if total != keys || c.Len() != keys {
		t.Fatalf("%d keys added, Len %d, want %d", total, c.Len(), keys)
	}
	for k := range keys {
		if n := c.Count("k" + strconv.Itoa(k)); n != 1 {
			t.Fatalf("key %d stored %d times", k, n)
		}
	}
}

// concurrentGolden decodes a golden file into a Filter (made with the case's
// Config for a keyed file), starts a ConcurrentFilter from it, checks that
// it holds the file's keys and returns its encodings.
func concurrentGolden[T Hashable](t *testing.T, gc goldenCase, golden []byte, key func(int) T) []byte {
	t.Helper()
	f := new(Filter[T])
	if gc.cfg.Key != ([16]byte{}) {
		f = mustNew[T](t, gc.cfg)
	}
	if err := f.UnmarshalBinary(golden); err != nil {
		t.Fatal(err)
	}
	c := NewConcurrentFrom(f)
	n := gc.keys
	if n == 0 {
		n = gc.cfg.Capacity
	}
	for i := range n {
		if i%5 != 0 && !c.Contains(key(i)) {
			t.Fatalf("%s: key %d lost", gc.file, i)
		}
	}
	return concurrentEncodings(t, c)
}

// TestConcurrentEncoding checks that the encodings of a ConcurrentFilter are
// a Filter's, byte for byte, and that the golden files survive a round
// trip through NewConcurrentFrom: the words hold the little-endian bit
// stream on every host (CI runs this on big-endian s390x).
func TestConcurrentEncoding(t *testing.T) {
	for _, gc := range goldenCases {
		golden, err := os.ReadFile(filepath.Join("testdata", gc.file))
		if err != nil {
			t.Fatal(err)
		}
		var enc []byte
		if gc.strings {
			enc = concurrentGolden(t, gc, golden, stringKey)
		} else {
			enc = concurrentGolden(t, gc, golden, intKey)
		}
		if !bytes.Equal(enc, golden) {
			t.Fatalf("%s: re-encoding through a ConcurrentFilter differs", gc.file)
		}
	}
	// Built on this host: the same inserts without displacements give the
	// Filter's bytes.
	for _, layout := range layouts {
		for _, f := range []int{5, 8, 13, 19, 32} {
			cfg := Config{Capacity: 2000, FingerprintBits: f, Layout: layout}
			c, fl := mustNewConcurrent[uint64](t, cfg), mustNew[uint64](t, cfg)
			for i := range 200 {
				_, _ = c.Insert(intKey(i)), fl.Insert(intKey(i))
			}
			enc := concurrentEncodings(t, c)
			var d Filter[uint64]
			if err := d.UnmarshalBinary(enc); err != nil || !sameBuckets(&d, fl) || d.Len() != fl.Len() {
				t.Fatalf("%v f=%d: the encoding holds other buckets than the Filter's (%v)", layout, f, err)
			}
		}
	}
	// Grown and keyed: the encoding decodes into a Filter made with the key,
	// holds every key, and encodes back to the same bytes.
	for _, layout := range layouts {
		cfg := Config{Capacity: 100, MaxCapacity: 1600, FingerprintBits: 10, Layout: layout, Key: [16]byte{1: 7}}
		c := mustNewConcurrent[uint64](t, cfg)
		for i := range 700 {
			if err := c.Insert(intKey(i)); err != nil {
				t.Fatal(err)
			}
		}
		enc := concurrentEncodings(t, c)
		if enc[offVersion] != formatVersion || c.Slots() < 700 {
			t.Fatalf("%v: version %d, %d slots after 700 inserts", layout, enc[offVersion], c.Slots())
		}
		f := mustNew[uint64](t, cfg)
		if err := f.UnmarshalBinary(enc); err != nil {
			t.Fatal(err)
		}
		for i := range 700 {
			if !f.Contains(intKey(i)) {
				t.Fatalf("%v: key %d lost in the decoded filter", layout, i)
			}
		}
		if !bytes.Equal(mustMarshal(t, f), enc) || !bytes.Equal(concurrentEncodings(t, NewConcurrentFrom(f)), enc) {
			t.Fatalf("%v: a grown keyed encoding does not round-trip", layout)
		}
		if err := new(Filter[uint64]).UnmarshalBinary(enc); !errors.Is(err, ErrIncompatible) {
			t.Fatalf("%v: a keyed encoding decoded without the key: %v", layout, err)
		}
	}
}

// concurrentEncodings returns c's encoding after checking that
// MarshalBinary, AppendBinary and WriteTo agree.
func concurrentEncodings[T Hashable](t *testing.T, c *ConcurrentFilter[T]) []byte {
	t.Helper()
	enc, err := c.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	app, err := c.AppendBinary([]byte("prefix"))
	if err != nil || !bytes.Equal(app[6:], enc) {
		t.Fatalf("AppendBinary differs from MarshalBinary (%v)", err)
	}
	var buf bytes.Buffer
	if n, err := c.WriteTo(&buf); err != nil || n != int64(len(enc)) || !bytes.Equal(buf.Bytes(), enc) {
		t.Fatalf("WriteTo differs from MarshalBinary (%d, %v)", n, err)
	}
	return enc
}

// TestConcurrentZeroAllocations proves the per-key operations allocate
// nothing, for each key type and layout, on a filter near full.
func TestConcurrentZeroAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("under -race, allocation counts include the race detector's")
	}
	forEachLayout(t, func(t *testing.T, layout Layout) {
		testConcurrentAllocs(t, layout, func(i int) uint64 { return uint64(i) })
		testConcurrentAllocs(t, layout, func(i int) string { return "key-" + strconv.Itoa(i) })
		testConcurrentAllocs(t, layout, func(i int) []byte { return []byte("key-" + strconv.Itoa(i)) })
		testConcurrentAllocs(t, layout, func(i int) int8 { return int8(i) })
		testConcurrentAllocs(t, layout, func(i int) float64 { return float64(i) / 3 })
		testConcurrentAllocs(t, layout, func(i int) userID { return userID(i) })
	})
}

func testConcurrentAllocs[T Hashable](t *testing.T, layout Layout, key func(int) T) {
	const n = 2000
	cfgs := []Config{{Capacity: n, Layout: layout, FingerprintBits: 9}}
	if _, ok := any(key(0)).(uint64); ok { // and a wide table, once
		cfgs = append(cfgs, Config{Capacity: n, Layout: layout, FingerprintBits: 20})
	}
	// Keyed, and growable (grown by the inserts below before the count).
	cfgs = append(cfgs, Config{Capacity: n, Layout: layout, FingerprintBits: 12, Key: [16]byte{3: 3}},
		Config{Capacity: n / 8, MaxCapacity: 4 * n, Layout: layout, FingerprintBits: 12},
		Config{Capacity: n, Layout: layout, FingerprintBits: 12, Generations: 4}, // keys that expire
		Config{Capacity: n, Layout: layout, FingerprintBits: 12, Generations: 1})
	if _, ok := any(key(0)).(uint64); ok {
		cfgs = append(cfgs, Config{Capacity: n, Layout: layout, FingerprintBits: 20, Generations: 16})
	}
	for _, cfg := range cfgs {
		f := mustNewConcurrent[T](t, cfg)
		enc := make([]byte, 0, 1<<20)
		ops := perKeyOps(f, key, n)
		for name, op := range map[string]func(){
			"AppendBinary": func() { enc, _ = f.AppendBinary(enc[:0]) },
			"Accessors": func() {
				_ = f.Len() + f.Slots() + f.SizeBytes() + f.FingerprintBits() + f.Capacity() + f.MaxCapacity()
				_ = f.LoadFactor() + f.EstimatedFalsePositiveRate()
			},
		} {
			ops[name] = op
		}
		runs := allocRuns()
		if longTests() {
			runs = 500
		}
		for name, op := range ops {
			runs := runs
			if batchOps[name] && !longTests() {
				runs = batchAllocRuns() // TestZeroAllocations' reason
			}
			if a := testing.AllocsPerRun(runs, op); a != 0 {
				t.Errorf("%T %+v %s: %v allocations per call", key(0), cfg, name, a)
			}
		}
	}
}

// TestNewConcurrentErrors checks NewConcurrent's Config error, and that
// NewConcurrentFrom of a zero Filter or nil gives a zero ConcurrentFilter,
// which answers as empty, refuses inserts with ErrIncompatible and takes a
// decoded filter, rather than a panic.
func TestNewConcurrentErrors(t *testing.T) {
	if _, err := NewConcurrent[uint64](Config{}); !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("NewConcurrent(Config{}): %v", err)
	}
	src := builtFilter(t, Config{Capacity: 100}, 10, intKey)
	enc := mustMarshal(t, src)
	for name, f := range map[string]*Filter[uint64]{"zero Filter": new(Filter[uint64]), "nil": nil} {
		var c *ConcurrentFilter[uint64]
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("NewConcurrentFrom of a %s: panic: %v", name, p)
				}
			}()
			c = NewConcurrentFrom(f)
		}()
		if c == nil || c.c.cur.Load() != nil {
			t.Fatalf("NewConcurrentFrom of a %s = %v, want a zero ConcurrentFilter", name, c)
		}
		if c.Contains(1) || c.Len() != 0 || c.Capacity() != 0 {
			t.Fatalf("NewConcurrentFrom of a %s: Contains %v, Len %d, Capacity %d", name, c.Contains(1), c.Len(), c.Capacity())
		}
		if err := c.Insert(1); !errors.Is(err, ErrIncompatible) {
			t.Fatalf("NewConcurrentFrom of a %s: Insert: %v", name, err)
		}
		if err := c.UnmarshalBinary(enc); err != nil || c.Len() != src.Len() || !c.Contains(intKey(3)) {
			t.Fatalf("NewConcurrentFrom of a %s, decoded into: %v, Len %d, want %d", name, err, c.Len(), src.Len())
		}
	}
}

// TestConcurrentString checks that printing a ConcurrentFilter, with any
// verb, describes it and never shows its seed, key or table.
func TestConcurrentString(t *testing.T) {
	const seed = 0x5eed5eed5eed5eed
	key := [16]byte{0: 0xab, 15: 0xcd}
	c := mustNewConcurrent[string](t, Config{Capacity: 1000, MaxCapacity: 4000, Seed: seed, Key: key})
	for i := range 3 {
		if err := c.Insert(strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
	}
	want := "cuckoo.ConcurrentFilter(keyed string/[]byte/[N]byte keys, 13-bit Packed, 3 items, capacity 1000, growable to 4000, load "
	if s := c.String(); !strings.HasPrefix(s, want) {
		t.Fatalf("String() = %q, want prefix %q", s, want)
	}
	if s := fmt.Sprintf("%#v", c); !strings.HasPrefix(s, "cuckoo.ConcurrentFilter[string](keyed") {
		t.Fatalf("%%#v = %q", s)
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%d", "%x", "%q"} {
		s := fmt.Sprintf(verb, c)
		for _, secret := range []string{"5eed", strconv.FormatUint(seed, 10), "ab0000", "0000cd"} {
			if strings.Contains(strings.ToLower(s), secret) {
				t.Fatalf("%s prints %q, which contains %q", verb, s, secret)
			}
		}
	}
	var zero ConcurrentFilter[int]
	if s := zero.String(); !strings.Contains(s, "zero") {
		t.Fatalf("zero: %q", s)
	}
}

// TestConcurrentFailedGrowthUnchanged checks that an insert that fails
// after doubling (its buckets, at every stage, full of keys that share
// them) leaves the filter exactly as it was, its encoding included, which
// holds the displacement PRNG's state.
func TestConcurrentFailedGrowthUnchanged(t *testing.T) {
	for _, layout := range layouts {
		c := mustNewConcurrent[uint64](t, Config{Capacity: 100, MaxCapacity: 200, FingerprintBits: 12, Layout: layout})
		s := c.c.cur.Load()
		next := s.t.double() // the stage the failing insert doubles to
		b1, _, b2, _ := s.t.place(0)
		n1, _, n2, _ := next.place(0)
		var same []uint64 // hashes with the buckets of hash 0 at both stages
		seen := map[uint32]bool{}
		hi := (b1<<32 + s.t.m0 - 1) / s.t.m0 // the high half that locates bucket b1
		for i := uint64(0); len(same) < 2*slotsPerBucket+1; i++ {
			h := hi<<32 | i*0x9e3779b9&(1<<32-1) // low halves spread over the fingerprints
			x1, v, x2, _ := s.t.place(h)
			y1, _, y2, _ := next.place(h)
			if x1 == b1 && x2 == b2 && y1 == n1 && y2 == n2 && !seen[v] {
				seen[v] = true // another fingerprint: not a copy
				same = append(same, h)
			}
		}
		for _, h := range same[:2*slotsPerBucket] {
			if err := c.InsertHash(h); err != nil {
				t.Fatal(err)
			}
		}
		before, _ := c.MarshalBinary()
		if err := c.InsertHash(same[2*slotsPerBucket]); !errors.Is(err, ErrFull) {
			t.Fatalf("%v: the ninth key sharing two buckets: %v", layout, err)
		}
		if after, _ := c.MarshalBinary(); !bytes.Equal(before, after) {
			t.Fatalf("%v: a failed insert changed the encoding", layout)
		}
	}
}

// sameBuckets reports whether a and b, of one shape, hold the same
// values: byte for byte, but where a is a ConcurrentFilter's Snapshot or
// encoding of a free table, whose claims may take another empty slot than
// the lowest, or the key's other bucket, when the lowest slot lies across
// two words (which only a stripe's holder fills): then the same values in
// all, as many of each.
func sameBuckets(a, b *Filter[uint64]) bool {
	if a.c.t.m != b.c.t.m || a.c.t.bbits != b.c.t.bbits {
		return false
	}
	if bytes.Equal(a.c.t.data, b.c.t.data) {
		return true
	}
	if !a.c.t.class.packedNarrow() {
		return false
	}
	var x, y []uint32
	for i := range a.c.t.m {
		u, v := a.c.t.bucketSlots(i), b.c.t.bucketSlots(i)
		x, y = append(x, u[:]...), append(y, v[:]...)
	}
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}
