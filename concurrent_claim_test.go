package cuckoo

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// Writes that take no lock (concurrent.insert's claims, concurrent.present)
// and writers that sleep while they wait (stripeLock.park).

// blocked reports whether op is still running after a while, waiting for
// it to end if not.
func blocked(op func()) bool {
	done := make(chan struct{})
	go func() { op(); close(done) }()
	select {
	case <-done:
		return false
	case <-time.After(200 * time.Millisecond):
		return true
	}
}

// TestConcurrentNoLockWhereNoneNeeded holds every stripe, as a writer that
// stops the others does, and checks what goes on meanwhile: InsertUnique
// of a key already there (a lookup), an Insert into a free slot of a fixed
// packed filter (a claim), and nothing that needs a stripe: InsertUnique of
// a key not there, and, in an expiring filter, of a key of an older
// generation, which it must refresh.
func TestConcurrentNoLockWhereNoneNeeded(t *testing.T) {
	for _, cfg := range []Config{
		{Capacity: 1000},
		{Capacity: 1000, FingerprintBits: 8},
		{Capacity: 1000, Layout: SemiSorted},
		{Capacity: 1000, Generations: 4},
		{Capacity: 1000, Generations: 4, Layout: SemiSorted},
		{Capacity: 100, MaxCapacity: 1000},
	} {
		t.Run(configName(cfg), func(t *testing.T) {
			f := mustNewConcurrent[uint64](t, cfg)
			for k := range uint64(100) {
				if err := f.Insert(k); err != nil {
					t.Fatal(err)
				}
			}
			if cfg.Generations > 0 {
				f.Advance()
				if added, _ := f.InsertUnique(1); added {
					t.Fatal("InsertUnique added a stored key")
				}
			}
			f.c.stop()
			var added bool
			switch {
			case blocked(func() { added, _ = f.InsertUnique(1) }):
				t.Error("InsertUnique of a stored key waited for the stripes")
			case added:
				t.Error("InsertUnique added a stored key")
			}
			free := f.c.cur.Load().free
			if got := blocked(func() { _ = f.Insert(1000) }); got == free {
				t.Errorf("Insert into a free slot waited: %v; a claim (free table): %v", got, free)
			}
			late := blocked(func() { _, _ = f.InsertUnique(1001) })
			stale := cfg.Generations > 0 && blocked(func() { _, _ = f.InsertUnique(2) })
			f.c.start()
			time.Sleep(10 * time.Millisecond) // the blocked calls end
			if !late {
				t.Error("InsertUnique of a new key ran beside the writer holding every stripe")
			}
			if cfg.Generations > 0 && !stale {
				t.Error("InsertUnique of a key of an older generation refreshed it beside the writer holding every stripe")
			}
			for _, k := range []uint64{1, 2, 1000, 1001} {
				if !f.Contains(k) {
					t.Fatalf("key %d lost", k)
				}
			}
		})
	}
}

// TestConcurrentWaiterSleeps checks that a writer waiting for a stripe
// sleeps (the lock word's parked bit) rather than spin or yield for ever,
// and that the release wakes it.
func TestConcurrentWaiterSleeps(t *testing.T) {
	f := mustNewConcurrent[uint64](t, Config{Capacity: 1000})
	l := &f.c.locks[3]
	l.lock()
	done := make(chan struct{})
	go func() {
		f.c.lock(3)
		f.c.unlock(3)
		close(done)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for l.state.Load()&lockParked == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the waiter never slept")
		}
		time.Sleep(time.Millisecond)
	}
	l.release(0)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the release did not wake the waiter")
	}
	if x := l.state.Load(); x != 0 {
		t.Fatalf("lock word %#x after both released", x)
	}
}

// TestConcurrentBatchBesideInsert runs InsertBatch beside Insert, with
// readers, on growable and expiring filters of both layouts: under -race,
// InsertBatch's prefetch once read words other writers change atomically
// with plain loads. Every key is found afterwards.
func TestConcurrentBatchBesideInsert(t *testing.T) {
	n := 4000
	if raceEnabled {
		n = 1000
	}
	for _, layout := range layouts {
		for _, cfg := range []Config{
			{Capacity: n / 8, MaxCapacity: 2 * n, Layout: layout},
			{Capacity: 2 * n, Generations: 4, Layout: layout},
			{Capacity: n / 8, MaxCapacity: 2 * n, Generations: 3, Layout: layout},
			{Capacity: 2 * n, Layout: layout},
		} {
			t.Run(configName(cfg), func(t *testing.T) {
				f := mustNewConcurrent[uint64](t, cfg)
				batch := make([]uint64, n)
				for i := range batch {
					batch[i] = writerKey(1, i)
				}
				var wg sync.WaitGroup
				errs := make(chan error, 3)
				wg.Add(3)
				go func() {
					defer wg.Done()
					for off := 0; off < n; off += 100 {
						if _, err := f.InsertBatch(batch[off : off+100]); err != nil {
							errs <- err
							return
						}
					}
				}()
				go func() {
					defer wg.Done()
					for i := range n {
						if err := f.Insert(writerKey(2, i)); err != nil {
							errs <- err
							return
						}
					}
				}()
				go func() {
					defer wg.Done()
					for i := range n {
						f.Contains(writerKey(1, i))
					}
				}()
				wg.Wait()
				close(errs)
				for err := range errs {
					t.Fatal(err)
				}
				for w := 1; w <= 2; w++ {
					for i := range n {
						if !f.Contains(writerKey(w, i)) {
							t.Fatalf("writer %d's key %d lost", w, i)
						}
					}
				}
				if f.Len() != 2*n {
					t.Fatalf("Len %d, want %d", f.Len(), 2*n)
				}
			})
		}
	}
}

// TestConcurrentClaimsBesideMerge has writers claim slots while Merge
// replaces the table again and again: a claim that Merge's copy may have
// missed is inserted again, so no key whose Insert returned is lost (a key
// may be stored twice). Merge's own keys are found too.
func TestConcurrentClaimsBesideMerge(t *testing.T) {
	n := 20000
	if raceEnabled || testing.Short() {
		n = 4000
	}
	for _, bits := range []int{8, 13, 16} {
		t.Run(fmt.Sprintf("f=%d", bits), func(t *testing.T) {
			cfg := Config{Capacity: 4 * n, FingerprintBits: bits}
			f := mustNewConcurrent[uint64](t, cfg)
			const writers, merges = 2, 20
			var wg sync.WaitGroup
			errs := make(chan error, writers+1)
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range n {
						if err := f.Insert(writerKey(w, i)); err != nil {
							errs <- err
							return
						}
					}
				}()
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for m := range merges {
					o := mustNew[uint64](t, cfg)
					for i := range n / merges {
						if err := o.Insert(writerKey(10+m, i)); err != nil {
							errs <- err
							return
						}
					}
					if err := f.Merge(o); err != nil {
						errs <- err
						return
					}
				}
			}()
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			for w := range writers {
				for i := range n {
					if !f.Contains(writerKey(w, i)) {
						t.Fatalf("writer %d's key %d lost", w, i)
					}
				}
			}
			for m := range merges {
				for i := range n / merges {
					if !f.Contains(writerKey(10+m, i)) {
						t.Fatalf("merge %d's key %d lost", m, i)
					}
				}
			}
			if want := writers*n + n; f.Len() < want || f.Len() > want+writers*merges {
				t.Fatalf("Len %d, want %d and at most a copy more a writer a Merge", f.Len(), want)
			}
		})
	}
}

// TestClaimable checks the slots a claim may take, for every width of a
// free table and every offset of a bucket in its word: the empty ones
// within one aligned word, none across two.
func TestClaimable(t *testing.T) {
	for f := 4; f <= 16; f++ {
		c, err := NewConcurrent[uint64](Config{Capacity: 4096, FingerprintBits: f})
		if err != nil {
			t.Fatal(err)
		}
		s := c.c.cur.Load()
		if !s.free {
			t.Fatalf("f = %d: not a free table", f)
		}
		for b := range uint64(64) {
			p := b * uint64(s.t.bbits)
			for full := range uint64(16) { // which slots hold a value
				var w uint64
				for k := range uint64(4) {
					if full>>k&1 != 0 {
						w |= 1 << (k * uint64(f))
					}
				}
				got := s.claimable(p, w)
				for k := range uint64(4) {
					lo, hi := p+k*uint64(f), p+(k+1)*uint64(f)-1
					want := full>>k&1 == 0 && lo>>6 == hi>>6
					if mark := got>>((k+1)*uint64(f)-1)&1 != 0; mark != want {
						t.Fatalf("f = %d, bucket at bit %d, full slots %04b: slot %d claimable %v, want %v", f, p, full, k, mark, want)
					}
				}
				if rest := got &^ s.t.lanes.topsLo; rest != 0 {
					t.Fatalf("f = %d, bucket at bit %d: marks %#x outside the slots' top bits", f, p, rest)
				}
			}
		}
	}
}
