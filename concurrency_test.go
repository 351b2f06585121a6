package cuckoo

import (
	"sync"
	"testing"
)

// TestConcurrentReads reads one filter from several goroutines; run under
// -race it proves the read paths write nothing shared.
func TestConcurrentReads(t *testing.T) {
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
