package cuckoo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestHalvingKeepsEverything fills growable filters, fixed-width and
// expiring, in both layouts and many widths, deletes keys until they fit
// smaller tables, and halves with Shrink: every key left is found, Len is
// exact, each halving is the stage below (its size that of a filter grown
// that far), Shrink stops at the first table, and the estimated rate stays
// within the configured one. A halved filter encodes, decodes to the same
// bytes, and opens as a View, and its Clone answers alike; a
// ConcurrentFilter's Shrink gives the same bytes.
func TestHalvingKeepsEverything(t *testing.T) {
	for _, layout := range layouts {
		for _, f := range []int{4, 7, 8, 12, 13, 16, 17, 24} {
			for _, gens := range []int{0, 3} {
				cfg := Config{Capacity: 300, MaxCapacity: 300 << 3, FingerprintBits: f, Layout: layout, Generations: gens}
				if f+3+int(genBits(uint(gens))) > maxFingerprintBits {
					continue
				}
				t.Run(fmt.Sprintf("%v/f=%d/G=%d", layout, f, gens), func(t *testing.T) {
					testHalving(t, cfg)
				})
			}
		}
	}
}

func testHalving(t *testing.T, cfg Config) {
	g := mustNew[uint64](t, cfg)
	sizes := []int{g.SizeBytes()} // by stage
	n := 0
	for ; g.Info().Doublings < g.Info().MaxDoublings || n < cfg.MaxCapacity; n++ {
		mustInsert(t, g.Insert(intKey(n)))
		if d := g.Info().Doublings; d == len(sizes) {
			sizes = append(sizes, g.SizeBytes())
		}
	}
	rate := g.EstimatedFalsePositiveRate() // the configured rate's bound at MaxCapacity
	live := n
	for k := g.Info().Doublings; k > 0; k-- {
		keep := cfg.Capacity << (k - 1)
		if g.Shrink() {
			t.Fatalf("stage %d, %d keys: halved, more than the stage below promises (%d)", k, g.Len(), keep)
		}
		for ; live > keep; live-- {
			if !g.Delete(intKey(live - 1)) {
				t.Fatalf("Delete of key %d found none", live-1)
			}
		}
		before := mustMarshal(t, g)
		cg := NewConcurrentFrom(g)
		if !g.Shrink() || !cg.Shrink() {
			t.Fatalf("stage %d, %d keys: no halving", k, g.Len())
		}
		if enc, err := cg.MarshalBinary(); err != nil || !bytes.Equal(enc, mustMarshal(t, g)) || cg.Len() != g.Len() {
			t.Fatalf("stage %d: a ConcurrentFilter halved to other bytes (%v), Len %d", k, err, cg.Len())
		}
		i := g.Info()
		if i.Doublings != k-1 || g.SizeBytes() != sizes[k-1] || i.TableCapacity != cfg.Capacity<<(k-1) || g.Len() != live {
			t.Fatalf("halved from stage %d: %v, SizeBytes %d, want %d", k, i, g.SizeBytes(), sizes[k-1])
		}
		if r := g.EstimatedFalsePositiveRate(); r > rate*1.0001 && r > falsePositiveRate(uint(cfg.FingerprintBits), targetLoad(uint(cfg.FingerprintBits))) {
			t.Fatalf("stage %d: estimated rate %g above the configured bound", k-1, r)
		}
		for j := range live {
			if !g.Contains(intKey(j)) {
				t.Fatalf("halved from stage %d: key %d of %d missing", k, j, live)
			}
		}
		checkHalvedCopies(t, g, live)
		if bytes.Equal(before, mustMarshal(t, g)) {
			t.Fatal("a halving left the same bytes")
		}
	}
	if g.Shrink() {
		t.Fatal("Shrink halved the first table")
	}
}

// checkHalvedCopies checks that f's encoding decodes to the same bytes and
// opens as a View, and that its Clone holds the first live keys.
func checkHalvedCopies(t *testing.T, f *Filter[uint64], live int) {
	t.Helper()
	enc := mustMarshal(t, f)
	var d Filter[uint64]
	if err := d.UnmarshalBinary(enc); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(mustMarshal(t, &d), enc) || d.Info() != f.Info() {
		t.Fatalf("a halved filter decodes to another: %v, want %v", d.Info(), f.Info())
	}
	v, err := NewView[uint64](enc)
	if err != nil {
		t.Fatal(err)
	}
	c := f.Clone()
	for j := range live {
		if !v.Contains(intKey(j)) || !c.Contains(intKey(j)) {
			t.Fatalf("key %d of a halved filter: View %v, Clone %v", j, v.Contains(intKey(j)), c.Contains(intKey(j)))
		}
	}
}

// TestHalvingFailsWhole gives halvings too few displacements (MaxKicks 1)
// to place every value: a halving that fails leaves the filter byte for
// byte as it was, PRNG included, and the next calls of Advance wait G
// before they try again.
func TestHalvingFailsWhole(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		cfg := Config{Capacity: 1000, MaxCapacity: 8000, Layout: layout, MaxKicks: 1, Generations: 4}
		failed := 0
		for seed := uint64(1); seed <= 20; seed++ {
			cfg.Seed = seed
			f := mustNew[uint64](t, cfg)
			for i := 0; f.Info().Doublings < 1; i++ {
				if f.Insert(intKey(i)) != nil {
					break
				}
			}
			for f.Len() > cfg.Capacity {
				for b := range f.c.t.m {
					if f.Len() <= cfg.Capacity {
						break
					}
					if vs := f.c.t.bucketSlots(b); vs[0] != 0 {
						f.c.t.replace(b, vs, 0, 0)
						f.c.count--
					}
				}
			}
			before := mustMarshal(t, f)
			if f.Shrink() {
				continue
			}
			failed++
			if !bytes.Equal(before, mustMarshal(t, f)) {
				t.Fatal("a failed halving changed the filter")
			}
			f.c.wait = 0
			f.Advance() // tries, fails, waits
			if f.Info().Doublings != 1 || f.c.wait != cfg.Generations {
				t.Fatalf("after a failed halving in Advance: %v, wait %d", f.Info(), f.c.wait)
			}
		}
		if failed == 0 {
			t.Skip("no halving failed: the case tests nothing")
		}
	})
}

// TestHalvingWaits checks that an expiring filter does not halve within G
// calls of Advance of a doubling, then halves as many times as its live
// keys fit, at once, and never below its first table.
func TestHalvingWaits(t *testing.T) {
	const gens = 5
	forEachLayout(t, func(t *testing.T, layout Layout) {
		cfg := Config{Capacity: 500, MaxCapacity: 500 << 3, Layout: layout, Generations: gens}
		for _, conc := range []bool{false, true} {
			var f lifeFilter = mustNew[uint64](t, cfg)
			if conc {
				f = mustNewConcurrent[uint64](t, cfg)
			}
			info := f.(interface{ Info() Info })
			for i := range 3500 { // three doublings, in this tick
				mustInsert(t, f.InsertFor(intKey(i), 1))
			}
			mustInsert(t, f.Insert(intKey(-1)))
			if d := info.Info().Doublings; d != 3 {
				t.Fatalf("conc %v: %d doublings", conc, d)
			}
			for a := 1; a < gens; a++ { // the first expires every key but one
				f.Advance()
				if d := info.Info().Doublings; d != 3 || f.Len() != 1 {
					t.Fatalf("conc %v: %d calls of Advance after a doubling: %d doublings, Len %d", conc, a, d, f.Len())
				}
			}
			f.Advance() // the G-th: halves three times
			if i := info.Info(); i.Doublings != 0 || f.Contains(intKey(-1)) != (i.Len == 1) {
				t.Fatalf("conc %v: after G+1 calls of Advance: %v", conc, i)
			}
		}
	})
}

// TestSteadyWindow runs a window of an hour ticking every minute at 1,000
// keys a tick, 30% of them repeats of live keys, for 300 ticks, growable to
// 16 times its Capacity: it keeps one size throughout, reports no live key
// unseen, and finds keys never inserted within the configured rate.
func TestSteadyWindow(t *testing.T) {
	if testing.Short() {
		t.Skip("300 ticks of 1,000 keys")
	}
	forEachWindow(t, func(t *testing.T, w *windowRun) {
		size := w.f.Info().SizeBytes
		for tick := range 300 {
			w.tick(1_000, tick)
			if s := w.f.Info().SizeBytes; s != size {
				t.Fatalf("tick %d: SizeBytes %d, at first %d (%v)", tick, s, size, w.f.Info())
			}
		}
	})
}

// forEachWindow runs fn, in parallel with other tests, on a windowRun of
// an hour's window ticking every minute at 1,000 keys a tick, growable to
// 16 times its Capacity, for a Filter and a ConcurrentFilter of each
// layout, and checks the rate of keys never inserted after it.
func forEachWindow(t *testing.T, fn func(t *testing.T, w *windowRun)) {
	t.Parallel()
	cfg, err := WindowConfig(1_000, time.Hour, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxCapacity = 16 * cfg.Capacity
	forEachLayout(t, func(t *testing.T, layout Layout) {
		cfg.Layout = layout
		t.Run("Filter", func(t *testing.T) {
			w := newWindowRun(t, mustNew[uint64](t, cfg), cfg)
			fn(t, w)
			w.checkRate()
		})
		t.Run("ConcurrentFilter", func(t *testing.T) {
			w := newWindowRun(t, mustNewConcurrent[uint64](t, cfg), cfg)
			fn(t, w)
			w.checkRate()
		})
	})
}

// TestBurstJourney runs the same window, growable to 16 times its
// Capacity, through a 5-tick burst of 10,000 keys a tick: within G+2 ticks
// of the burst's keys expiring the filter is back to at most 1.1 times its
// size before the burst, no live key is reported unseen, and keys never
// inserted are found within the configured rate.
func TestBurstJourney(t *testing.T) {
	if testing.Short() {
		t.Skip("240 ticks, a burst of 50,000 keys")
	}
	const ticks, burst, burstTicks = 240, 60, 5
	forEachWindow(t, func(t *testing.T, w *windowRun) {
		before, grew := 0, false
		expired := burst + burstTicks - 1 + w.cfg.Generations // the Advance that expires the burst's last keys
		for tick := range ticks {
			n := 1_000
			if tick >= burst && tick < burst+burstTicks {
				n = 10_000
			}
			w.tick(n, tick)
			i := w.f.Info()
			switch {
			case tick == burst-1:
				before = i.SizeBytes
			case tick >= burst && tick < expired:
				grew = grew || i.Doublings > 0
			case tick >= expired+w.cfg.Generations+2 && float64(i.SizeBytes) > 1.1*float64(before):
				t.Fatalf("tick %d: SizeBytes %d, before the burst %d (%v)", tick, i.SizeBytes, before, i)
			}
		}
		if !grew {
			t.Fatal("the burst made no doubling")
		}
	})
}

// windowRun drives a window: each tick an Advance, then keys of which 30%
// are repeats of live keys (InsertUnique must report them seen) and the
// rest new (reported new but for false positives), and as many keys never
// inserted probed.
type windowRun struct {
	t                *testing.T
	f                burstFilter
	cfg              Config
	rng              interface{ IntN(int) int }
	window           [][]uint64 // the keys of the live ticks, newest last
	next, probe      uint64
	probes, positive int
}

func newWindowRun(t *testing.T, f burstFilter, cfg Config) *windowRun {
	return &windowRun{t: t, f: f, cfg: cfg, rng: newRand(uint64(cfg.Layout) + 1), probe: 1 << 62}
}

func (w *windowRun) tick(n, tick int) {
	t := w.t
	if tick > 0 {
		w.f.Advance()
	}
	if len(w.window) == w.cfg.Generations { // the keys of G ticks ago expired with this Advance
		w.window = w.window[1:]
	}
	var keys []uint64
	live := 0
	for _, k := range w.window {
		live += len(k)
	}
	for i := range n {
		if live > 0 && i%10 < 3 {
			j := w.rng.IntN(live)
			var k uint64
			for _, ks := range w.window {
				if j < len(ks) {
					k = ks[j]
					break
				}
				j -= len(ks)
			}
			if added, err := w.f.InsertUnique(k); added || err != nil {
				t.Fatalf("tick %d: a live key reported unseen: %v, %v (%v)", tick, added, err, w.f.Info())
			}
			keys = append(keys, k) // refreshed: it lives on
			continue
		}
		k := intKey(int(w.next))
		w.next++
		added, err := w.f.InsertUnique(k)
		if err != nil {
			t.Fatalf("tick %d: %v (%v)", tick, err, w.f.Info())
		}
		if added { // else a false positive: another key's copy stood for it, which may expire first
			keys = append(keys, k)
		}
	}
	w.window = append(w.window, keys)
	for range n / 4 {
		w.probes++
		if w.f.Contains(intKey(int(w.probe))) {
			w.positive++
		}
		w.probe++
	}
}

// checkRate checks the rate of keys never inserted against the configured
// one, within four binomial standard deviations.
func (w *windowRun) checkRate() {
	rate := cmpOr(w.cfg.FalsePositiveRate, DefaultFalsePositiveRate)
	bound := rate*float64(w.probes) + 4*math.Sqrt(rate*float64(w.probes))
	if float64(w.positive) > bound {
		w.t.Fatalf("%d of %d keys never inserted found, above %g at the configured rate %g", w.positive, w.probes, bound, rate)
	}
}

func cmpOr(x, y float64) float64 {
	if x != 0 {
		return x
	}
	return y
}

// TestModelHalvings runs the lifetimes' model (InsertFor, InsertUniqueFor,
// Insert, Delete, Advance against an exact model) on growable expiring
// filters with bursts, so that they double and halve again: no false
// negative, Len exact, and halvings happen.
func TestModelHalvings(t *testing.T) {
	for _, cfg := range []Config{
		{Capacity: 300, MaxCapacity: 300 << 4, Generations: 4},
		{Capacity: 300, MaxCapacity: 300 << 3, Generations: 6, FingerprintBits: 9},
		{Capacity: 300, MaxCapacity: 300 << 3, Generations: 3, FingerprintBits: 20},
	} {
		t.Run(fmt.Sprintf("f=%d/G=%d", cfg.FingerprintBits, cfg.Generations), func(t *testing.T) {
			forEachLifeFilter(t, cfg, func(t *testing.T, f lifeFilter) {
				halvings := 0
				testModelLifetimes(t, &halvingWatch{lifeFilter: f, info: f.(interface{ Info() Info }), halvings: &halvings}, cfg.Generations, 16_000)
				if halvings == 0 {
					t.Fatal("no halving")
				}
			})
		})
	}
}

// halvingWatch counts the halvings of the filter it wraps, at each Advance.
type halvingWatch struct {
	lifeFilter
	info     interface{ Info() Info }
	halvings *int
}

func (h *halvingWatch) Advance() int {
	d := h.info.Info().Doublings
	n := h.lifeFilter.Advance()
	if h.info.Info().Doublings < d {
		*h.halvings++
	}
	return n
}

// halvedGolden are halved filters whose encodings testdata/ keeps: an
// expiring one halved by Advance from its third stage to its first, with
// keys live, and a growable one halved by Shrink. Running `go test -run
// GoldenHalved -update` writes them.
var halvedGolden = []struct {
	file string
	cfg  Config
}{
	{"v5-halved-expiring-packed-f13-g4.bin", Config{Capacity: 60, MaxCapacity: 60 << 3, FingerprintBits: 13, Generations: 4, Seed: 0xfeed}},
	{"v5-halved-expiring-semisorted-f12-g3.bin", Config{Capacity: 60, MaxCapacity: 60 << 3, FingerprintBits: 12, Layout: SemiSorted, Generations: 3}},
	{"v5-halved-growable-packed-f8.bin", Config{Capacity: 60, MaxCapacity: 60 << 3, FingerprintBits: 8, Seed: 3}},
}

// builtHalved is a halvedGolden case's filter: 460 keys of the first tick
// (intKey), then 90 of the next, and G more calls of Advance to expire the
// first's, which halve it; with keys that never expire, the first tick's
// deleted and Shrink.
func builtHalved(tb testing.TB, cfg Config) (*Filter[uint64], []int) {
	f := mustNew[uint64](tb, cfg)
	for i := range 460 { // to the third stage
		mustInsert(tb, f.Insert(intKey(i)))
	}
	f.Advance()
	live := []int{}
	for i := 460; i < 550; i++ {
		mustInsert(tb, f.Insert(intKey(i)))
		live = append(live, i)
	}
	if cfg.Generations == 0 {
		for i := range 460 {
			f.Delete(intKey(i))
		}
		f.Shrink()
		return f, live
	}
	for range cfg.Generations - 1 {
		f.Advance()
	}
	return f, live
}

// TestGoldenHalved checks the halved golden files: each is the filter built
// here, halved, decodes and opens as a View holding its live keys, and
// re-encodes to the same bytes.
func TestGoldenHalved(t *testing.T) {
	for _, c := range halvedGolden {
		t.Run(c.file, func(t *testing.T) {
			f, live := builtHalved(t, c.cfg)
			if i := f.Info(); i.Doublings != 1 || i.MaxDoublings != 3 {
				t.Fatalf("built: %v, want a filter halved to stage 1 of 3", i)
			}
			golden := goldenBytes(t, c.file, mustMarshal(t, f))
			var d Filter[uint64]
			if err := d.UnmarshalBinary(golden); err != nil {
				t.Fatal(err)
			}
			v, err := NewView[uint64](golden)
			if err != nil {
				t.Fatal(err)
			}
			for _, i := range live {
				if !d.Contains(intKey(i)) || !v.Contains(intKey(i)) {
					t.Fatalf("key %d missing from the decoded filter or its View", i)
				}
			}
			if !bytes.Equal(mustMarshal(t, &d), golden) || v.Len() != f.Len() {
				t.Fatal("the decoded filter re-encodes differently")
			}
		})
	}
}

// TestHalvingWaitEncoded checks the header's halving wait: a decoded
// filter waits as the encoded one did (its Advance halves at the same
// call), and a wait above G, or in a filter that cannot halve, is corrupt.
func TestHalvingWaitEncoded(t *testing.T) {
	cfg := Config{Capacity: 100, MaxCapacity: 800, Generations: 3}
	f := mustNew[uint64](t, cfg)
	for i := range 600 {
		mustInsert(t, f.InsertFor(intKey(i), 1))
	}
	if f.c.wait != 3 {
		t.Fatalf("wait %d after a doubling, want G", f.c.wait)
	}
	enc := mustMarshal(t, f)
	var d Filter[uint64]
	if err := d.UnmarshalBinary(enc); err != nil {
		t.Fatal(err)
	}
	for a := 1; a <= cfg.Generations; a++ {
		f.Advance()
		d.Advance()
		if !bytes.Equal(mustMarshal(t, f), mustMarshal(t, &d)) {
			t.Fatalf("after %d calls of Advance the decoded filter differs", a)
		}
	}
	if f.Info().Doublings != 0 {
		t.Fatalf("G calls of Advance after the doubling: %v", f.Info())
	}
	for _, c := range []struct {
		enc  []byte
		wait uint16
	}{{enc, 4}, {enc, 0xffff}, {mustMarshal(t, mustNew[uint64](t, Config{Capacity: 100, Generations: 3})), 1}} {
		b := bytes.Clone(c.enc)
		binary.LittleEndian.PutUint16(b[offWait:], c.wait)
		if _, err := NewView[uint64](reseal(b)); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("halving wait %d: %v, want ErrCorrupt", c.wait, err)
		}
	}
}

// TestConcurrentHalvingBesideReaders has a writer insert bursts and quiet
// ticks into an expiring ConcurrentFilter that grows and halves, a second
// writer insert beside it, and readers look up what they stored while
// Advance halves the table: a key inserted after an Advance returned is
// found until G more have begun.
func TestConcurrentHalvingBesideReaders(t *testing.T) {
	const gens = 3
	ticks, quiet, loud := 60, 100, 1500
	if raceEnabled || testing.Short() {
		ticks, loud = 24, 600
	}
	forEachLayout(t, func(t *testing.T, layout Layout) {
		f := mustNewConcurrent[uint64](t, Config{Capacity: 500, MaxCapacity: 500 << 3, Generations: gens, Layout: layout})
		type stored struct {
			key   uint64
			after int64 // Advance calls returned before its insert began
		}
		var (
			mu               sync.Mutex
			log              []stored
			begun, advances  atomic.Int64
			stop             atomic.Bool
			lost, halvings   atomic.Int64
			readers, writers sync.WaitGroup
		)
		record := func(k uint64, a int64) {
			mu.Lock()
			log = append(log, stored{k, a})
			mu.Unlock()
		}
		for r := range 2 {
			readers.Add(1)
			go func() {
				defer readers.Done()
				rng := newRand(uint64(r) + 7)
				for !stop.Load() {
					mu.Lock()
					if len(log) == 0 {
						mu.Unlock()
						continue
					}
					s := log[len(log)-1-rng.IntN(min(len(log), 4000))]
					mu.Unlock()
					if !f.Contains(s.key) && begun.Load() < s.after+gens {
						lost.Add(1)
					}
				}
			}()
		}
		writers.Add(1)
		go func() { // beside the ticks: a few keys at a time
			defer writers.Done()
			for i := 0; !stop.Load(); i++ {
				k, a := intKey(1<<30+i), advances.Load()
				for int64(i/20) > a && !stop.Load() { // 20 keys a tick
					runtime.Gosched()
					a = advances.Load()
				}
				if _, err := f.InsertUnique(k); err != nil {
					t.Errorf("InsertUnique: %v", err)
					return
				}
				record(k, a)
			}
		}()
		key := 0
		for tick := range ticks {
			n := quiet
			if tick%(3*gens) == 0 {
				n = loud // a burst, then quiet ticks long enough to halve
			}
			for range n {
				k, a := intKey(key), advances.Load()
				key++
				if err := f.Insert(k); err != nil {
					t.Fatalf("tick %d: %v (%v)", tick, err, f.Info())
				}
				record(k, a)
			}
			d := f.Info().Doublings
			begun.Add(1)
			f.Advance()
			advances.Add(1)
			if f.Info().Doublings < d {
				halvings.Add(1)
			}
		}
		stop.Store(true)
		writers.Wait()
		readers.Wait()
		if lost.Load() != 0 {
			t.Fatalf("%d lookups missed a live key", lost.Load())
		}
		if halvings.Load() == 0 {
			t.Fatal("no halving")
		}
	})
}
