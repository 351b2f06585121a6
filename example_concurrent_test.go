package cuckoo_test

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/seed-a0724874/cuckoo"
)

// A guard on a hot path: many goroutines ask whether a token was revoked
// while another goroutine keeps revoking tokens. Contains takes no lock and
// never waits for the writer, and a token revoked before a check began is
// always caught, whatever the writer is doing meanwhile.
func ExampleConcurrentFilter() {
	revoked, err := cuckoo.NewConcurrent[string](cuckoo.Config{Capacity: 100_000, FalsePositiveRate: 0.0001})
	if err != nil {
		panic(err)
	}
	if err := revoked.Insert("token-0"); err != nil {
		panic(err)
	}

	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the writer
		defer wg.Done()
		for i := 1; i < 50_000; i++ {
			if err := revoked.Insert("token-" + strconv.Itoa(i)); err != nil {
				panic(err)
			}
		}
	}()
	var denied atomic.Int64
	for range 8 { // the readers: request handlers
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10_000 {
				if revoked.Contains("token-0") {
					denied.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	fmt.Println(denied.Load(), revoked.Len())

	// A consistent copy, for example to persist: a Filter, taken between
	// two writes.
	snap := revoked.Snapshot()
	fmt.Println(snap.Len(), snap.Contains("token-49999"))
	// Output:
	// 80000 50000
	// 50000 true
}
