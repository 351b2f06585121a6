package cuckoo_test

import (
	"errors"
	"fmt"

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
	f, _ := cuckoo.New[uint64](cuckoo.Config{Capacity: 100})
	_ = f.Insert(42)
	_ = f.Insert(42)
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
	f, _ := cuckoo.New[string](cuckoo.Config{Capacity: 100})
	var err error
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
		blocks[i], _ = cuckoo.New[string](cfg)
		_ = blocks[i].Insert(fmt.Sprintf("key-%d", i))
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
	f, _ := cuckoo.New[uint64](cuckoo.Config{Capacity: 1000})
	for k := uint64(0); k < 500; k++ {
		_ = f.Insert(k)
	}
	keys := []uint64{1, 2, 3, 1000, 2000}
	found := make([]bool, len(keys))
	n := f.ContainsBatch(keys, found)
	fmt.Println(n, found)
	// Output: 3 [true true true false false]
}
