package cuckoo

import (
	"errors"
	"flag"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var stressFor = flag.Duration("stress", 0, "how long TestConcurrentStress runs each configuration (default: 60ms with -short, 150ms without, 1s with CUCKOO_LONG set)")

// stressDuration is how long a stress test runs each configuration: -stress
// if given, else 1 s with longTests() and 150 ms without, 60 ms with
// -short. Every round fills its filter at least once, taking each writer
// path (long displacements, both failures, deletes, doublings) under the
// readers, so a short run still meets each race the protocol guards
// against; a longer one meets more interleavings of it, so CI runs long.
// (The model check, concurrent_model_test.go, covers the interleavings of
// small cases exhaustively.)
func stressDuration() time.Duration {
	switch {
	case *stressFor != 0:
		return *stressFor
	case longTests():
		return time.Second
	case testing.Short():
		return 60 * time.Millisecond
	}
	return 150 * time.Millisecond
}

// TestConcurrentStress has readers check, as fast as they can, keys that
// stay in a filter while a writer keeps it full: inserts that displace
// along long paths, inserts that fail after a whole search (ErrFull) or at
// once (ErrTooManyDuplicates), deletes, InsertUnique and, for growable
// filters, every doubling. A reader that finds a resident key absent is a
// false negative; there must be none. Both layouts, widths 8, 13, 16, 20.
//
// It runs in rounds: each round makes a filter, inserts its resident keys,
// hands the round to the readers and churns other keys through it.
func TestConcurrentStress(t *testing.T) {
	per := stressDuration()
	for _, layout := range layouts {
		for _, f := range []int{8, 13, 16, 20} {
			for _, growable := range []bool{false, true} {
				cfg := Config{Capacity: 6000, FingerprintBits: f, Layout: layout, Seed: uint64(f)}
				name := fmt.Sprintf("%v/f=%d", layout, f)
				if growable {
					cfg.Capacity, cfg.MaxCapacity = 400, 6000
					name += "/growable"
				}
				t.Run(name, func(t *testing.T) { stress(t, cfg, per) })
			}
		}
	}
}

// stressRound is one filter and the keys that stay in it.
type stressRound struct {
	f        *ConcurrentFilter[uint64]
	resident []uint64
}

func stress(t *testing.T, cfg Config, d time.Duration) {
	readers := max(2, runtime.GOMAXPROCS(0)-1)
	var (
		cur            atomic.Pointer[stressRound]
		done           atomic.Bool
		reads, lost    atomic.Int64
		lostKey        atomic.Uint64
		wg             sync.WaitGroup
		rounds, moves  int
		full, dup, grw int
	)
	r := newRand(uint64(cfg.FingerprintBits))
	newRound := func() *stressRound {
		s := &stressRound{f: mustNewConcurrent[uint64](t, cfg)}
		for range (cfg.Capacity + cfg.MaxCapacity) / 8 {
			k := r.Uint64() | 1<<63 // residents have the top bit set, churn keys not
			if s.f.Insert(k) == nil {
				s.resident = append(s.resident, k)
			}
		}
		return s
	}
	cur.Store(newRound())
	for g := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			found := make([]bool, 16)
			n := int64(0)
			for i := g; !done.Load(); i++ {
				s := cur.Load()
				ks := s.resident
				for j := range 256 {
					k := ks[(i*7919+j)%len(ks)]
					ok := s.f.Contains(k)
					switch j % 64 {
					case 1:
						ok = s.f.ContainsHash(s.f.Hash(k))
					case 2:
						ok = s.f.Count(k) > 0
					case 3:
						lo := (i + j) % (len(ks) - len(found))
						ok = s.f.ContainsBatch(ks[lo:lo+len(found)], found) == len(found)
						n += int64(len(found)) - 1
					}
					if !ok {
						lost.Add(1)
						lostKey.Store(k)
					}
				}
				n += 256
			}
			reads.Add(n)
		}()
	}
	start := time.Now()
	for time.Since(start) < d {
		s := cur.Load()
		f := s.f
		var churn []uint64
		fails := 0
		// Fill until inserts fail, then keep it full: delete a few keys,
		// insert until the next failure. A growable filter doubles on the way.
		for fails < 20 && (time.Since(start) < d || fails == 0) { // each round fills the filter at least once
			k := r.Uint64() &^ (1 << 63)
			slots := f.Slots()
			switch x := r.IntN(100); {
			case x < 1 && len(churn) > 0: // a key already stored, many times
				k = churn[r.IntN(len(churn))]
				for range 9 {
					if err := f.Insert(k); err != nil {
						if !errors.Is(err, ErrTooManyDuplicates) && !errors.Is(err, ErrFull) {
							t.Fatal(err)
						}
						dup++
						break
					}
					churn = append(churn, k)
				}
			case x < 3: // a few keys at once
				ks := []uint64{k, k ^ 1<<62, k ^ 1<<61}
				n, err := f.InsertBatch(ks)
				churn = append(churn, ks[:n]...)
				if err != nil {
					fails++
					full++
				}
			case x < 4:
				if ok, err := f.InsertUnique(k); ok {
					churn = append(churn, k)
				} else if err != nil {
					fails++
					full++
				}
			default:
				switch err := f.Insert(k); {
				case err == nil:
					churn = append(churn, k)
				case errors.Is(err, ErrFull) || errors.Is(err, ErrTooManyDuplicates):
					fails++
					full++
					for range 1 + len(churn)/500 {
						i := r.IntN(len(churn))
						if !f.Delete(churn[i]) {
							t.Fatal("a stored churn key could not be deleted")
						}
						churn[i] = churn[len(churn)-1]
						churn = churn[:len(churn)-1]
					}
				default:
					t.Fatal(err)
				}
			}
			if f.Slots() != slots {
				grw++
			}
		}
		moves += len(churn)
		rounds++
		cur.Store(newRound())
	}
	done.Store(true)
	wg.Wait()
	t.Logf("%d reads by %d readers in %v, %d rounds, %d churn keys, %d full, %d duplicate failures, %d doublings",
		reads.Load(), readers, time.Since(start).Round(time.Millisecond), rounds, moves, full, dup, grw)
	if n := lost.Load(); n > 0 {
		t.Fatalf("%d false negatives, among them key %#x", n, lostKey.Load())
	}
	if full == 0 || (cfg.MaxCapacity > 0 && grw == 0) {
		t.Fatalf("the writer never filled the filter (%d failures, %d doublings)", full, grw)
	}
}

// TestConcurrentExpiringStress has readers check, as fast as they can,
// resident keys of an expiring filter while a writer keeps it full of
// other keys, deletes some, refreshes the residents with InsertUnique once
// a generation (so they never expire) and calls Advance, which expires a
// generation of the others at each call. A resident reported absent is a
// false negative; there must be none. Both layouts, slots of 10 to 24
// bits, and growable filters, which double beside the readers.
func TestConcurrentExpiringStress(t *testing.T) {
	per := stressDuration()
	for _, layout := range layouts {
		for _, c := range []struct {
			f, gens int
			grow    bool
		}{{8, 4, false}, {13, 4, false}, {20, 4, false}, {13, 16, false}, {12, 2, false}, {13, 4, true}, {8, 2, true}} {
			cfg := Config{Capacity: 6000, FingerprintBits: c.f, Layout: layout, Seed: uint64(c.f), Generations: c.gens}
			name := fmt.Sprintf("%v/f=%d/G=%d", layout, c.f, c.gens)
			if c.grow {
				cfg.Capacity, cfg.MaxCapacity, name = 750, 6000, name+"/growable"
			}
			t.Run(name, func(t *testing.T) { stressExpiring(t, cfg, per) })
		}
	}
}

func stressExpiring(t *testing.T, cfg Config, d time.Duration) {
	readers := max(2, runtime.GOMAXPROCS(0)-1)
	f := mustNewConcurrent[uint64](t, cfg)
	r := newRand(uint64(cfg.FingerprintBits))
	capacity := max(cfg.Capacity, cfg.MaxCapacity)
	resident := make([]uint64, capacity/8)
	for i := range resident {
		resident[i] = r.Uint64() | 1<<63 // residents have the top bit set, churn keys not
		if err := f.Insert(resident[i]); err != nil {
			t.Fatal(err)
		}
	}
	var (
		done        atomic.Bool
		reads, lost atomic.Int64
		lostKey     atomic.Uint64
		wg          sync.WaitGroup
	)
	for g := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			found := make([]bool, 16)
			n := int64(0)
			for i := g; !done.Load(); i++ {
				for j := range 256 {
					k := resident[(i*7919+j)%len(resident)]
					ok := f.Contains(k)
					switch j % 64 {
					case 1:
						ok = f.ContainsHash(f.Hash(k))
					case 2:
						ok = f.Count(k) > 0
					case 3:
						lo := (i + j) % (len(resident) - len(found))
						ok = f.ContainsBatch(resident[lo:lo+len(found)], found) == len(found)
					case 4: // the methods that read the table's fields without a lock
						ok = f.Info().Generation < cfg.Generations && f.String() != "" && f.LoadFactor() >= 0
					}
					if !ok {
						lost.Add(1)
						lostKey.Store(k)
					}
				}
				n += 256
			}
			reads.Add(n)
		}()
	}
	start := time.Now()
	perGen := (capacity - len(resident)) / cfg.Generations
	advances, expired, deleted := 0, 0, 0
	for time.Since(start) < d || advances < 2*cfg.Generations {
		for _, k := range resident { // seen once a generation: never expires
			if added, err := f.InsertUnique(k); added || err != nil {
				t.Fatalf("InsertUnique of a resident: added %v, %v", added, err)
			}
		}
		var churn []uint64
		for range perGen {
			k := r.Uint64() &^ (1 << 63)
			if err := f.Insert(k); err != nil {
				t.Fatalf("Insert with %d live keys of capacity %d: %v", f.Len(), capacity, err)
			}
			churn = append(churn, k)
			if r.IntN(8) == 0 { // a key of this generation deleted again
				i := r.IntN(len(churn))
				if !f.Delete(churn[i]) {
					t.Fatal("a stored churn key could not be deleted")
				}
				churn[i] = churn[len(churn)-1]
				churn = churn[:len(churn)-1]
				deleted++
			}
		}
		expired += f.Advance()
		advances++
	}
	done.Store(true)
	wg.Wait()
	t.Logf("%d reads by %d readers in %v, %d Advance calls expired %d keys, %d deleted, Len %d",
		reads.Load(), readers, time.Since(start).Round(time.Millisecond), advances, expired, deleted, f.Len())
	if n := lost.Load(); n > 0 {
		t.Fatalf("%d false negatives, among them key %#x", n, lostKey.Load())
	}
	if expired == 0 {
		t.Fatal("no key expired")
	}
	if i := f.Info(); i.Doublings != i.MaxDoublings {
		t.Fatalf("%d doublings of %d", i.Doublings, i.MaxDoublings)
	}
}
