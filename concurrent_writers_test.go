package cuckoo

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// Many writers at once (ConcurrentFilter's stripe locks, concurrent_locks.go).

// writerConfigs are the filters the many-writer tests run on: both
// layouts, narrow and wide slots, growable and expiring ones.
func writerConfigs(n int) map[string]Config {
	return map[string]Config{
		"Packed/f=13":             {Capacity: n},
		"SemiSorted/f=13":         {Capacity: n, Layout: SemiSorted},
		"Packed/f=20":             {Capacity: n, FingerprintBits: 20},
		"SemiSorted/f=24":         {Capacity: n, FingerprintBits: 24, Layout: SemiSorted},
		"Packed/f=8":              {Capacity: n, FingerprintBits: 8},
		"Packed/growable":         {Capacity: n / 16, MaxCapacity: n},
		"SemiSorted/growable":     {Capacity: n / 16, MaxCapacity: n, Layout: SemiSorted},
		"Packed/G=4":              {Capacity: n, Generations: 4},
		"SemiSorted/G=4":          {Capacity: n, Generations: 4, Layout: SemiSorted},
		"Packed/growable/G=4":     {Capacity: n / 8, MaxCapacity: n, Generations: 4},
		"SemiSorted/growable/G=3": {Capacity: n / 8, MaxCapacity: n, Generations: 3, Layout: SemiSorted},
	}
}

// TestConcurrentWriters has 2, 4 and 8 goroutines insert their own keys
// into one filter at once, up to its (max) capacity, and delete some of
// them again, while readers check the keys each writer has published as
// stored: none is ever missing. Afterwards every stored key is found and
// Len is exact.
func TestConcurrentWriters(t *testing.T) {
	n := 20000
	switch {
	case raceEnabled: // interleavings, not keys, find races: 10x slower a key
		n = 1500
	case testing.Short():
		n = 6000
	}
	for name, cfg := range writerConfigs(n) {
		for _, writers := range []int{2, 4, 8} {
			t.Run(fmt.Sprintf("%s/writers=%d", name, writers), func(t *testing.T) {
				testWriters(t, cfg, writers)
			})
		}
	}
}

func testWriters(t *testing.T, cfg Config, writers int) {
	f := mustNewConcurrent[uint64](t, cfg)
	total := max(cfg.Capacity, cfg.MaxCapacity) * 9 / 10
	per := total / writers
	// done[w] is how many of writer w's keys are in: reader goroutines check
	// keys below it (less the deleted ones, every tenth).
	done := make([]atomic.Int64, writers)
	var stop atomic.Bool
	var lost atomic.Int64
	var rg sync.WaitGroup
	for r := range 2 {
		rg.Add(1)
		go func() {
			defer rg.Done()
			rng := rand.New(rand.NewPCG(uint64(r), 9))
			for !stop.Load() {
				w := rng.IntN(writers)
				if d := done[w].Load(); d > 0 {
					i := rng.Int64N(d)
					if i%10 != 9 && !f.Contains(writerKey(w, int(i))) {
						lost.Add(1)
					}
				}
			}
		}()
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				if err := f.Insert(writerKey(w, i)); err != nil {
					errs <- fmt.Errorf("writer %d, key %d of %d, Len %d: %w", w, i, per, f.Len(), err)
					return
				}
				if i%10 == 9 && !f.Delete(writerKey(w, i)) {
					errs <- fmt.Errorf("writer %d: a key it inserted could not be deleted", w)
					return
				}
				done[w].Store(int64(i + 1))
			}
		}()
	}
	wg.Wait()
	stop.Store(true)
	rg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := lost.Load(); n > 0 {
		t.Fatalf("%d false negatives", n)
	}
	want := writers * (per - per/10)
	if f.Len() != want {
		t.Fatalf("Len %d, want %d", f.Len(), want)
	}
	if o := occupied(&f.c.cur.Load().t); o != want {
		t.Fatalf("%d slots occupied, want %d", o, want)
	}
	for w := range writers {
		for i := range per {
			if i%10 != 9 && !f.Contains(writerKey(w, i)) {
				t.Fatalf("writer %d's key %d lost", w, i)
			}
		}
	}
}

// writerKey is writer w's i-th key.
func writerKey(w, i int) uint64 { return uint64(w)<<40 | uint64(i) }

// TestConcurrentInsertUniqueOnce has 8 goroutines InsertUnique the same
// keys, each in its own order: each key is fresh to exactly one of them,
// but for a key a false positive hides from all (found, fresh to none), and
// Len counts each key once.
func TestConcurrentInsertUniqueOnce(t *testing.T) {
	n := 20000
	switch {
	case raceEnabled:
		n = 1500
	case testing.Short():
		n = 5000
	}
	for name, cfg := range writerConfigs(n) {
		t.Run(name, func(t *testing.T) {
			f := mustNewConcurrent[uint64](t, cfg)
			keys := max(cfg.Capacity, cfg.MaxCapacity) * 9 / 10
			const goroutines = 8
			fresh := make([]atomic.Int32, keys)
			var wg sync.WaitGroup
			var failed atomic.Value
			for g := range goroutines {
				wg.Add(1)
				go func() {
					defer wg.Done()
					order := rand.New(rand.NewPCG(uint64(g), 3)).Perm(keys)
					for _, k := range order {
						added, err := f.InsertUnique(uint64(k))
						if err != nil {
							failed.Store(err)
							return
						}
						if added {
							fresh[k].Add(1)
						}
					}
				}()
			}
			wg.Wait()
			if err, _ := failed.Load().(error); err != nil {
				t.Fatal(err)
			}
			none := 0
			for k := range fresh {
				switch fresh[k].Load() {
				case 0:
					none++
					if !f.Contains(uint64(k)) {
						t.Fatalf("key %d fresh to none and absent", k)
					}
				case 1:
				default:
					t.Fatalf("key %d fresh to %d goroutines", k, fresh[k].Load())
				}
			}
			if f.Len() != keys-none {
				t.Fatalf("Len %d: %d keys, %d hidden by false positives", f.Len(), keys, none)
			}
			// A false positive hides a key at about the filter's rate.
			if bound := rateBound(f.EstimatedFalsePositiveRate(), keys) * float64(keys); float64(none) > bound {
				t.Fatalf("%d of %d keys fresh to none, above %.0f", none, keys, bound)
			}
		})
	}
}

// TestConcurrentWritersFull has 4 goroutines insert their own keys past the
// capacity of a fixed filter, until each has seen ErrFull: every key whose
// Insert returned nil is found, Len counts exactly those, and no slot holds
// anything else (a failed insert leaves no key half-moved).
func TestConcurrentWritersFull(t *testing.T) {
	for _, layout := range layouts {
		for _, bits := range []int{8, 13} {
			cfg := Config{Capacity: 4000, Layout: layout, FingerprintBits: bits}
			t.Run(fmt.Sprintf("%v/f=%d", layout, bits), func(t *testing.T) {
				f := mustNewConcurrent[uint64](t, cfg)
				const writers = 4
				stored := make([][]uint64, writers)
				var wg sync.WaitGroup
				for w := range writers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i, full := 0, 0; ; i++ {
							err := f.Insert(writerKey(w, i))
							if errors.Is(err, ErrFull) {
								// Each sees it often once the filter is full; a
								// failing insert searches MaxKicks steps.
								if full++; full == 50 {
									return
								}
								continue
							}
							if err != nil {
								t.Error(err)
								return
							}
							stored[w] = append(stored[w], writerKey(w, i))
						}
					}()
				}
				wg.Wait()
				total := 0
				for w := range stored {
					total += len(stored[w])
					for _, k := range stored[w] {
						if !f.Contains(k) {
							t.Fatalf("key %#x inserted but not found", k)
						}
					}
				}
				if f.Len() != total || occupied(&f.c.cur.Load().t) != total {
					t.Fatalf("Len %d, %d slots occupied, %d keys stored", f.Len(), occupied(&f.c.cur.Load().t), total)
				}
				if total < cfg.Capacity {
					t.Fatalf("full at %d keys, below Capacity %d", total, cfg.Capacity)
				}
			})
		}
	}
}

// TestConcurrentWritersAdvance has 4 writers insert keys into an expiring
// filter, fixed or growable, while another goroutine calls Advance and
// readers look up what the writers stored: a key inserted after an Advance
// returned is found until G more have begun.
func TestConcurrentWritersAdvance(t *testing.T) {
	const gens, writers = 4, 4
	n := 8000
	switch {
	case raceEnabled:
		n = 1600
	case testing.Short():
		n = 3000
	}
	for name, cfg := range map[string]Config{
		"Packed":              {Capacity: n, Generations: gens},
		"SemiSorted":          {Capacity: n, Generations: gens, Layout: SemiSorted},
		"Packed/growable":     {Capacity: n / 8, MaxCapacity: n, Generations: gens},
		"SemiSorted/growable": {Capacity: n / 8, MaxCapacity: n, Generations: gens, Layout: SemiSorted},
	} {
		t.Run(name, func(t *testing.T) {
			f := mustNewConcurrent[uint64](t, cfg)
			var begun, advances atomic.Int64 // Advance calls begun and returned
			type stored struct {
				key   uint64
				after int64 // Advance calls returned before its insert began
			}
			logs := make([][]stored, writers)
			var mu sync.Mutex // guards logs for the readers
			var stop, failed atomic.Bool
			var lost atomic.Int64
			var wg sync.WaitGroup
			// A tick is n/(gens*writers) keys a writer: G ticks stay within Capacity.
			perTick := n / (2 * gens * writers)
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; !stop.Load(); i++ {
						a := advances.Load()
						if int64(i)/int64(perTick) < a { // a writer that fell behind skips ahead:
							i = int(a) * perTick // a tick holds perTick keys a writer at most
						}
						k := writerKey(w, i)
						for a == advances.Load() && int64(i)/int64(perTick) > a { // wait for the tick
							if stop.Load() {
								return
							}
							runtime.Gosched()
						}
						if err := f.Insert(k); err != nil {
							t.Errorf("writer %d: %v at Len %d", w, err, f.Len())
							failed.Store(true)
							return
						}
						mu.Lock()
						logs[w] = append(logs[w], stored{k, a})
						mu.Unlock()
					}
				}()
			}
			var rg sync.WaitGroup
			for r := range 2 {
				rg.Add(1)
				go func() {
					defer rg.Done()
					rng := rand.New(rand.NewPCG(uint64(r), 5))
					for !stop.Load() {
						w := rng.IntN(writers)
						mu.Lock()
						if len(logs[w]) == 0 {
							mu.Unlock()
							continue
						}
						s := logs[w][rng.IntN(len(logs[w]))]
						mu.Unlock()
						// The G-th Advance after its insert expires it: not
						// begun by the end of the lookup, the key is found.
						if !f.Contains(s.key) && begun.Load() < s.after+gens {
							lost.Add(1)
						}
					}
				}()
			}
			for range 6 * gens {
				for int64(f.Len()) < int64(perTick*writers/2) && !failed.Load() {
					runtime.Gosched()
				}
				begun.Add(1)
				f.Advance()
				advances.Add(1)
			}
			stop.Store(true)
			wg.Wait()
			rg.Wait()
			if n := lost.Load(); n > 0 {
				t.Fatalf("%d lookups missed a live key", n)
			}
		})
	}
}

// TestConcurrentResetGrown checks Len, the Snapshot and the encoding of a
// grown filter after Reset: a Reset's first table has fewer stripes than
// the grown one, and the keys counted in the others are gone too.
func TestConcurrentResetGrown(t *testing.T) {
	for _, layout := range layouts {
		c := mustNewConcurrent[uint64](t, Config{Capacity: 1000, MaxCapacity: 64000, Layout: layout})
		for round := range uint64(2) {
			for i := range uint64(20_000) {
				if err := c.Insert(round<<32 | i); err != nil {
					t.Fatalf("%v: insert %d: %v", layout, i, err)
				}
			}
			c.Reset()
		}
		for i := range uint64(500) {
			if err := c.Insert(3<<32 | i); err != nil {
				t.Fatal(err)
			}
		}
		data, err := c.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var d Filter[uint64]
		if err := d.UnmarshalBinary(data); err != nil {
			t.Fatalf("%v: decoding after Reset: %v", layout, err)
		}
		if c.Len() != 500 || c.Snapshot().Len() != 500 || d.Len() != 500 {
			t.Fatalf("%v: Len %d, Snapshot's %d, decoded %d; want 500", layout, c.Len(), c.Snapshot().Len(), d.Len())
		}
	}
}

// TestConcurrentResetBesideWriters runs Reset beside writers of a growable
// filter, which doubles and is reset again and again: once they are done,
// Len is the count of the table's fingerprints, as the encoding's decoder
// checks.
func TestConcurrentResetBesideWriters(t *testing.T) {
	for _, layout := range layouts {
		c := mustNewConcurrent[uint64](t, Config{Capacity: 1000, MaxCapacity: 64000, Layout: layout})
		const writers, per = 4, 10_000
		var wg sync.WaitGroup
		var done atomic.Int32
		for w := range uint64(writers) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer done.Add(1)
				for i := range uint64(per) {
					if err := c.Insert(w<<32 | i); err != nil {
						t.Errorf("%v: writer %d: %v", layout, w, err)
						return
					}
				}
			}()
		}
		resets := 0
		for done.Load() < writers {
			if c.Len() > 3000 { // grown past its first table
				c.Reset()
				resets++
			}
			runtime.Gosched()
		}
		wg.Wait()
		data, err := c.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var d Filter[uint64]
		if err := d.UnmarshalBinary(data); err != nil {
			t.Fatalf("%v: after %d resets: %v", layout, resets, err)
		}
		if c.Len() != d.Len() {
			t.Fatalf("%v: Len %d, the table holds %d", layout, c.Len(), d.Len())
		}
	}
}

// TestConcurrentInsertUniqueAtOnce has one goroutine a core InsertUnique
// the same key at the same moment, a new key each round: exactly one of
// them adds it (none only where a false positive hides it, and then it is
// found). Spread over a whole key set, as in
// TestConcurrentInsertUniqueOnce, calls for one key rarely overlap; here
// most do, as the goroutines spin until the round starts.
func TestConcurrentInsertUniqueAtOnce(t *testing.T) {
	goroutines := min(runtime.GOMAXPROCS(0), 4)
	if goroutines < 2 {
		t.Skip("needs two cores")
	}
	rounds := 20000
	if raceEnabled || testing.Short() {
		rounds = 3000
	}
	for name, cfg := range writerConfigs(rounds) {
		t.Run(name, func(t *testing.T) {
			f := mustNewConcurrent[uint64](t, cfg)
			var ready atomic.Int64            // round r starts once it is (r+1)*goroutines
			var inside, overlaps atomic.Int64 // calls under way; calls that began beside another
			defer func() { t.Logf("%d of %d calls began beside another", overlaps.Load(), rounds*goroutines) }()
			fresh := make([]atomic.Int32, rounds)
			var failed atomic.Value
			var wg sync.WaitGroup
			for g := range goroutines {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rng := rand.New(rand.NewPCG(uint64(g), 5))
					for r := range int64(rounds) {
						ready.Add(1)
						for n := 0; ready.Load() < (r+1)*int64(goroutines); n++ {
							if n%1024 == 1023 {
								runtime.Gosched() // the machine may be busy
							}
						}
						// The last to arrive starts first: a short wait of
						// its own lets either start first.
						for range rng.IntN(100) {
							_ = ready.Load()
						}
						if inside.Add(1) > 1 {
							overlaps.Add(1) // a busy machine makes them rare
						}
						added, err := f.InsertUnique(uint64(r))
						inside.Add(-1)
						if err != nil {
							failed.Store(err)
						}
						if added {
							fresh[r].Add(1)
						}
					}
				}()
			}
			wg.Wait()
			if err, _ := failed.Load().(error); err != nil {
				t.Fatal(err)
			}
			for r := range fresh {
				switch n := fresh[r].Load(); {
				case n > 1:
					t.Fatalf("round %d: the key was fresh to %d goroutines", r, n)
				case n == 0 && !f.Contains(uint64(r)):
					t.Fatalf("round %d: the key was fresh to none and is absent", r)
				}
			}
		})
	}
}
