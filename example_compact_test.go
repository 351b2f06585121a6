package cuckoo_test

import (
	"fmt"
	"log"

	"github.com/seed-a0724874/cuckoo"
)

// One small filter per data block, in the compact encoding: the buckets and
// a few bytes, for containers that record each block's length and checksum
// it themselves. ContainsEncoded probes the bytes where they lie, allocating
// nothing.
func ExampleFilter_AppendCompact() {
	blocks := [][]string{
		{"apple", "banana", "cherry"},
		{"damson", "elder", "fig", "grape"},
	}
	var file []byte
	var offsets []int // where each filter starts; the container keeps this
	for _, keys := range blocks {
		f, err := cuckoo.Build(cuckoo.Config{FalsePositiveRate: 0.001, Layout: cuckoo.SemiSorted}, keys)
		if err != nil {
			log.Fatal(err)
		}
		offsets = append(offsets, len(file))
		if file, err = f.AppendCompact(file); err != nil {
			log.Fatal(err)
		}
	}
	offsets = append(offsets, len(file))

	for _, key := range []string{"fig", "banana", "kiwi"} {
		for b := range blocks {
			hit, err := cuckoo.ContainsEncoded(file[offsets[b]:offsets[b+1]], key)
			if err != nil {
				log.Print(err) // unreadable bytes: hit is true, the block is read
			}
			fmt.Printf("%s in block %d: %v\n", key, b, hit)
		}
	}
	// Output:
	// fig in block 0: false
	// fig in block 1: true
	// banana in block 0: true
	// banana in block 1: false
	// kiwi in block 0: false
	// kiwi in block 1: false
}

// A writer that keeps only its keys' hashes (cuckoo.Hash, 8 bytes a key),
// such as a storage engine's filter writer, builds each compact filter
// straight into its output buffer. Reusing the buffer and the hashes, it
// allocates nothing once they are large enough. A reader hashes a key once
// and probes any number of filters with ContainsHashEncoded.
func ExampleAppendCompactHashes() {
	var hashes []uint64
	for i := range 1000 {
		hashes = append(hashes, cuckoo.Hash(fmt.Sprintf("row-%d", i)))
	}
	cfg := cuckoo.Config{FalsePositiveRate: 0.001} // Seed 0: the seed of cuckoo.Hash
	block, err := cuckoo.AppendCompactHashes[string](nil, cfg, hashes)
	if err != nil {
		log.Fatal(err)
	}

	h := cuckoo.Hash("row-500")
	hit, err := cuckoo.ContainsHashEncoded(block, h)
	fmt.Println(hit, err)
	hit, _ = cuckoo.ContainsEncoded(block, "row-500") // the same, from the key
	fmt.Println(hit)
	v, err := cuckoo.NewView[string](block) // or a View, for many lookups
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(v.Len(), v.Contains("row-999"), v.Contains("row-1000"))
	// Output:
	// true <nil>
	// true
	// 1000 true false
}
