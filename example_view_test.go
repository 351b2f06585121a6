package cuckoo_test

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/seed-a0724874/cuckoo"
)

// A block-skip index: a sorted key/value file is cut into blocks, and each
// block is followed by a filter of its keys. A lookup finds the one block
// whose key range covers the key, then asks that block's filter, straight
// from the file's bytes (here a slice; in practice an mmap), whether reading
// the block can help.
func ExampleNewView() {
	// Write the file: blocks of 100 sorted records, each followed by its
	// filter, padded so each filter starts 64-byte aligned in the file (the
	// format aligns the table to the start of the encoding).
	type block struct {
		first, last     string // key range
		records         int
		filterOff, size int // where the block's filter is in the file
	}
	var file bytes.Buffer
	var index []block
	for b := 0; b < 10; b++ {
		var blk block
		f, err := cuckoo.New[string](cuckoo.Config{Capacity: 100, FalsePositiveRate: 0.001})
		if err != nil {
			panic(err)
		}
		for i := b * 100; i < b*100+100; i += 1 + b%2 { // odd blocks hold every other key
			key := fmt.Sprintf("user:%04d", i)
			fmt.Fprintf(&file, "%s=%d\n", key, i*i)
			if err := f.Insert(key); err != nil {
				panic(err)
			}
			if blk.first == "" {
				blk.first = key
			}
			blk.last = key
			blk.records++
		}
		for file.Len()%64 != 0 {
			file.WriteByte(0)
		}
		blk.filterOff = file.Len()
		n, err := f.WriteTo(&file)
		if err != nil {
			panic(err)
		}
		blk.size = int(n)
		index = append(index, blk)
	}

	// Open the file: one view per block over the file's bytes, no copies.
	data := file.Bytes()
	views := make([]*cuckoo.View[string], len(index))
	for i, blk := range index {
		v, err := cuckoo.NewView[string](data[blk.filterOff : blk.filterOff+blk.size])
		if err != nil {
			panic(err) // a corrupt or truncated filter: ErrCorrupt, ErrChecksum, ...
		}
		views[i] = v
	}

	lookup := func(key string) {
		i := sort.Search(len(index), func(i int) bool { return index[i].last >= key })
		if i == len(index) || key < index[i].first {
			fmt.Printf("%s: outside every block\n", key)
			return
		}
		if !views[i].Contains(key) {
			fmt.Printf("%s: block %d skipped\n", key, i)
			return
		}
		fmt.Printf("%s: read block %d (%d records)\n", key, i, index[i].records)
	}
	lookup("user:0042") // present
	lookup("user:0143") // in block 1's range, but block 1 holds even keys only
	lookup("user:0142")
	lookup("user:5000")
	fmt.Println(views[1].Len(), views[1].FingerprintBits(), views[1].SizeBytes())
	// Output:
	// user:0042: read block 0 (100 records)
	// user:0143: block 1 skipped
	// user:0142: read block 1 (50 records)
	// user:5000: outside every block
	// 50 13 263
}

// Filters stored back to back in one file, each opened in place: EncodedLen
// reads a filter's length from its header, so the file needs no index of
// where each filter starts.
func ExampleEncodedLen() {
	// Write one filter per block of keys, back to back.
	var file []byte
	for b := range 4 {
		f, err := cuckoo.New[string](cuckoo.Config{Capacity: 100 * (b + 1)})
		if err != nil {
			panic(err)
		}
		for i := range 50 * (b + 1) {
			if err := f.Insert(fmt.Sprintf("block%d-key%d", b, i)); err != nil {
				panic(err)
			}
		}
		if file, err = f.AppendBinary(file); err != nil {
			panic(err)
		}
	}

	// Open the file (here a slice; in practice an mmap): one View at each
	// offset, answering from the file's bytes.
	var views []*cuckoo.View[string]
	for off := 0; off < len(file); {
		n, err := cuckoo.EncodedLen(file[off:])
		if err != nil {
			panic(err) // not a filter here: ErrCorrupt, ErrUnsupportedVersion
		}
		v, err := cuckoo.NewView[string](file[off : off+n])
		if err != nil {
			panic(err)
		}
		fmt.Printf("offset %4d: %3d bytes, %3d keys\n", off, n, v.Len())
		views = append(views, v)
		off += n
	}

	// The filters share the default seed: hash once, probe them all.
	h := views[0].Hash("block2-key7")
	for i, v := range views {
		if v.ContainsHash(h) {
			fmt.Println("block2-key7 may be in block", i)
		}
	}
	// Output:
	// offset    0: 395 bytes,  50 keys
	// offset  395: 551 bytes, 100 keys
	// offset  946: 720 bytes, 150 keys
	// offset 1666: 876 bytes, 200 keys
	// block2-key7 may be in block 2
}
