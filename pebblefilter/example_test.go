package pebblefilter_test

import (
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/cockroachdb/pebble/v2"
	"github.com/seed-a0724874/cuckoo/pebblefilter"
)

// A Pebble database whose tables carry cuckoo filters: keys written,
// flushed to a table on disk, and read back. A Get of an absent key asks
// the table's filter, which skips the table without reading its data.
func ExamplePolicy() {
	dir, err := os.MkdirTemp("", "pebblefilter-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	opts := &pebble.Options{}
	for i := range opts.Levels {
		opts.Levels[i].FilterPolicy = pebblefilter.Policy(0.01)
		opts.Levels[i].FilterType = pebble.TableFilter
	}
	db, err := pebble.Open(dir, opts)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	for i := range 1000 {
		key := fmt.Appendf(nil, "user:%04d", i)
		if err := db.Set(key, []byte("v"), pebble.NoSync); err != nil {
			log.Fatal(err)
		}
	}
	if err := db.Flush(); err != nil { // the keys go to a table, with its filter
		log.Fatal(err)
	}

	get := func(key string) {
		value, closer, err := db.Get([]byte(key))
		switch {
		case errors.Is(err, pebble.ErrNotFound):
			fmt.Println(key, "not found")
		case err != nil:
			log.Fatal(err)
		default:
			fmt.Println(key, "=", string(value))
			closer.Close()
		}
	}
	before := db.Metrics().Filter
	get("user:0042")
	get("user:0999")
	get("user:0500a") // inside the table's key range, not in it
	// Hits counts the lookups a filter answered "absent".
	fmt.Println("filter skipped the table:", db.Metrics().Filter.Hits > before.Hits)
	// Output:
	// user:0042 = v
	// user:0999 = v
	// user:0500a not found
	// filter skipped the table: true
}
