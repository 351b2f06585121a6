package cuckoo_test

import (
	"fmt"
	"log"

	"github.com/seed-a0724874/cuckoo"
)

// Choosing a rate: FalsePositiveRate picks the smallest fingerprint width
// that reaches it with Capacity items stored; FingerprintBits sets the width
// directly. Set one or the other. Config.SizeBytes tells what New would
// allocate, without allocating it.
func ExampleConfig_falsePositiveRate() {
	for _, cfg := range []cuckoo.Config{
		{Capacity: 1_000_000, FalsePositiveRate: 0.01},
		{Capacity: 1_000_000, FalsePositiveRate: 0.001}, // the default rate
		{Capacity: 1_000_000, FingerprintBits: 16},
		{Capacity: 1_000_000, FingerprintBits: 16, Layout: cuckoo.SemiSorted},
	} {
		size, err := cfg.SizeBytes()
		if err != nil {
			log.Fatal(err)
		}
		f, err := cuckoo.New[uint64](cfg)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%2d-bit fingerprints, %-10v %d bytes (SizeBytes %d)\n",
			f.FingerprintBits(), f.Layout(), f.SizeBytes(), size)
	}
	// Output:
	// 10-bit fingerprints, Packed     1315816 bytes (SizeBytes 1315816)
	// 13-bit fingerprints, Packed     1710556 bytes (SizeBytes 1710556)
	// 16-bit fingerprints, Packed     2105296 bytes (SizeBytes 2105296)
	// 16-bit fingerprints, SemiSorted 1973716 bytes (SizeBytes 1973716)
}

// Growth: with MaxCapacity above Capacity the filter starts with the table
// for Capacity and doubles it, without the keys, whenever an insert needs
// room, up to MaxCapacity. Inserting MaxCapacity distinct keys always
// succeeds. Capacity stays what the Config asked for; Slots and Info show
// the growth.
func ExampleConfig_maxCapacity() {
	f, err := cuckoo.New[int](cuckoo.Config{Capacity: 1000, MaxCapacity: 64_000})
	if err != nil {
		log.Fatal(err)
	}
	slots := f.Slots()
	for i := range 50_000 { // 50 times Capacity
		if err := f.Insert(i); err != nil {
			log.Fatal(err)
		}
	}
	info := f.Info()
	fmt.Println(f.Len(), f.Capacity(), info.MaxCapacity)
	fmt.Printf("%dx the slots, %d of %d doublings\n", f.Slots()/slots, info.Doublings, info.MaxDoublings)
	fmt.Println(f.Contains(0), f.Contains(49_999))
	// Output:
	// 50000 1000 64000
	// 64x the slots, 6 of 6 doublings
	// true true
}
