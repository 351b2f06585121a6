package cuckoo_test

import (
	"errors"
	"fmt"
	"log"
	"sync"

	"github.com/seed-a0724874/cuckoo"
)

func Example() {
	f, err := cuckoo.New[string](cuckoo.Config{Capacity: 1000, FalsePositiveRate: 0.001})
	if err != nil {
		panic(err)
	}
	for _, name := range []string{"alice", "bob", "carol"} {
		if err := f.Insert(name); err != nil {
			panic(err)
		}
	}
	fmt.Println(f.Contains("alice"), f.Contains("mallory"), f.Len())
	// Output: true false 3
}

func Example_delete() {
	f, err := cuckoo.New[uint64](cuckoo.Config{Capacity: 100})
	if err != nil {
		log.Fatal(err)
	}
	for range 2 {
		if err := f.Insert(42); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println(f.Count(42))
	f.Delete(42)
	fmt.Println(f.Count(42), f.Contains(42))
	f.Delete(42)
	fmt.Println(f.Count(42), f.Contains(42))
	// Output:
	// 2
	// 1 true
	// 0 false
}

func Example_duplicates() {
	f, err := cuckoo.New[string](cuckoo.Config{Capacity: 100})
	if err != nil {
		log.Fatal(err)
	}
	for i := 0; i < 9 && err == nil; i++ {
		err = f.Insert("same")
	}
	fmt.Println(errors.Is(err, cuckoo.ErrTooManyDuplicates), f.Count("same"))
	// Output: true 8
}

// Hash a key once and probe many filters built with the same seed, such as
// one filter per data block.
func Example_hashOnce() {
	cfg := cuckoo.Config{Capacity: 1000, Seed: 7}
	blocks := make([]*cuckoo.Filter[string], 4)
	for i := range blocks {
		f, err := cuckoo.New[string](cfg)
		if err != nil {
			log.Fatal(err)
		}
		if err := f.Insert(fmt.Sprintf("key-%d", i)); err != nil {
			log.Fatal(err)
		}
		blocks[i] = f
	}
	h := blocks[0].Hash("key-2")
	for i, b := range blocks {
		if b.ContainsHash(h) {
			fmt.Println("maybe in block", i)
		}
	}
	// Output: maybe in block 2
}

func ExampleFilter_ContainsBatch() {
	f, err := cuckoo.New[uint64](cuckoo.Config{Capacity: 1000})
	if err != nil {
		log.Fatal(err)
	}
	for k := uint64(0); k < 500; k++ {
		if err := f.Insert(k); err != nil {
			log.Fatal(err)
		}
	}
	keys := []uint64{1, 2, 3, 1000, 2000}
	found := make([]bool, len(keys))
	n := f.ContainsBatch(keys, found)
	fmt.Println(n, found)
	// Output: 3 [true true true false false]
}

// Filters built in parallel, one per worker, become one with Merge: they
// must share the Config (Seed, width, layout, sizes). A worker whose insert
// fails stops and reports its error, so no part is merged with keys missing.
func ExampleFilter_Merge() {
	cfg := cuckoo.Config{Capacity: 1000, MaxCapacity: 100_000}
	parts := make([]*cuckoo.Filter[int], 4)
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for w := range parts {
		f, err := cuckoo.New[int](cfg)
		if err != nil {
			log.Fatal(err)
		}
		parts[w] = f
		wg.Add(1)
		go func() { // each worker fills its own filter
			defer wg.Done()
			for i := w; i < 40_000; i += len(parts) {
				if err := f.Insert(i); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		log.Fatal(err)
	}
	all, err := cuckoo.New[int](cfg)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range parts {
		if err := all.Merge(p); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println(all.Len(), all.Contains(12345), all.Contains(39999))
	// Output: 40000 true true
}
