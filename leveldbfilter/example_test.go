package leveldbfilter_test

import (
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/seed-a0724874/cuckoo/leveldbfilter"
	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// A goleveldb database whose tables carry cuckoo filters: keys written,
// compacted into tables on disk, and read back after reopening, when the
// filters come from the files. A Get of an absent key asks the filter of the
// block that could hold it, which skips reading the block.
func ExampleNew() {
	dir, err := os.MkdirTemp("", "leveldbfilter-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	o := &opt.Options{Filter: leveldbfilter.New(0.001)}
	db, err := leveldb.OpenFile(dir, o)
	if err != nil {
		log.Fatal(err)
	}
	for i := range 1000 {
		key := fmt.Appendf(nil, "user:%04d", i)
		if err := db.Put(key, []byte("v"), nil); err != nil {
			log.Fatal(err)
		}
	}
	// Write the keys into tables, one filter per block of each table.
	if err := db.CompactRange(util.Range{}); err != nil {
		log.Fatal(err)
	}
	if err := db.Close(); err != nil {
		log.Fatal(err)
	}

	db, err = leveldb.OpenFile(dir, o) // the same policy reads the filters
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	for _, key := range []string{"user:0042", "user:0999", "user:0500a"} {
		value, err := db.Get([]byte(key), nil)
		switch {
		case errors.Is(err, leveldb.ErrNotFound):
			fmt.Println(key, "not found")
		case err != nil:
			log.Fatal(err)
		default:
			fmt.Println(key, "=", string(value))
		}
	}
	// Output:
	// user:0042 = v
	// user:0999 = v
	// user:0500a not found
}
