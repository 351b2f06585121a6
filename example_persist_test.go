package cuckoo_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log"

	"github.com/seed-a0724874/cuckoo"
)

// Several filters written back to back to one stream and read back in
// order: ReadFrom reads exactly one encoding and stops at its end, so the
// next call starts at the next filter. The stream (here a bytes.Buffer) can
// be a file or a network connection.
func ExampleFilter_WriteTo() {
	var buf bytes.Buffer
	for day := range 3 {
		f, err := cuckoo.New[string](cuckoo.Config{Capacity: 1000})
		if err != nil {
			log.Fatal(err)
		}
		for i := range 10 * (day + 1) {
			if err := f.Insert(fmt.Sprintf("day%d-user%d", day, i)); err != nil {
				log.Fatal(err)
			}
		}
		if _, err := f.WriteTo(&buf); err != nil {
			log.Fatal(err)
		}
	}

	filters := make([]cuckoo.Filter[string], 3) // zero Filters decode into full ones
	for i := range filters {
		if _, err := filters[i].ReadFrom(&buf); err != nil {
			log.Fatal(err)
		}
	}
	for i := range filters {
		f := &filters[i]
		fmt.Println(i, f.Len(), f.Contains(fmt.Sprintf("day%d-user9", i)), f.Contains("day9-user0"))
	}
	fmt.Println(buf.Len()) // every byte read
	// Output:
	// 0 10 true false
	// 1 20 true false
	// 2 30 true false
	// 0
}

// A struct holding a filter goes through encoding/json: MarshalText and
// UnmarshalText carry the filter as a base64 string of its binary encoding.
func ExampleFilter_MarshalText() {
	type Session struct {
		User string                 `json:"user"`
		Seen *cuckoo.Filter[uint64] `json:"seen"`
	}
	seen, err := cuckoo.New[uint64](cuckoo.Config{Capacity: 100})
	if err != nil {
		log.Fatal(err)
	}
	for _, id := range []uint64{7, 11, 42} {
		if err := seen.Insert(id); err != nil {
			log.Fatal(err)
		}
	}
	data, err := json.Marshal(Session{User: "alice", Seen: seen})
	if err != nil {
		log.Fatal(err)
	}

	var s Session // json allocates the Filter and UnmarshalText fills it
	if err := json.Unmarshal(data, &s); err != nil {
		log.Fatal(err)
	}
	fmt.Println(s.User, s.Seen.Len(), s.Seen.Contains(42), s.Seen.Contains(43))
	// Output: alice 3 true false
}
