package cuckoo_test

import (
	"fmt"
	"log"

	"github.com/seed-a0724874/cuckoo"
)

// Deduplicating a stream: InsertUnique adds a key only if the filter does
// not already report it, and says whether it did. A false positive makes it
// drop a key seen for the first time (about one in a thousand here), never
// let a repeat through. An error means the key was not stored, never that it
// was a repeat.
func ExampleFilter_InsertUnique() {
	seen, err := cuckoo.New[string](cuckoo.Config{Capacity: 10_000, FalsePositiveRate: 0.001})
	if err != nil {
		log.Fatal(err)
	}
	for _, event := range []string{"a", "b", "a", "c", "b", "a"} {
		added, err := seen.InsertUnique(event)
		if err != nil {
			log.Fatal(err) // ErrFull: not stored; raise Capacity or set MaxCapacity
		}
		if added {
			fmt.Println("new:", event)
		}
	}
	fmt.Println(seen.Len())
	// Output:
	// new: a
	// new: b
	// new: c
	// 3
}

// Info describes a filter in one value, for logs and metrics (its String is
// one line): size, load, growth, estimated false-positive rate. The key of a
// keyed filter is never in it.
func ExampleFilter_Info() {
	f, err := cuckoo.New[uint64](cuckoo.Config{Capacity: 1000, MaxCapacity: 8000, FingerprintBits: 12})
	if err != nil {
		log.Fatal(err)
	}
	for k := range uint64(3000) {
		if err := f.Insert(k); err != nil {
			log.Fatal(err)
		}
	}
	info := f.Info()
	fmt.Println(info.Len, info.Capacity, info.MaxCapacity, info.FingerprintBits, info.Layout)
	fmt.Println(info.Doublings, info.MaxDoublings, info.Slots == f.Slots(), info.Keyed)
	// Output:
	// 3000 1000 8000 12 Packed
	// 2 3 true false
}
