package cuckoo_test

import (
	"fmt"

	"github.com/seed-a0724874/cuckoo"
)

// A revocation list for tokens that are valid for an hour: a revoked token
// must be remembered until it would have expired anyway, and no longer.
// With one Advance every 15 minutes, a key lives through 4 more calls and
// is forgotten at the 5th: between 60 and 75 minutes, so 5 generations.
func Example_revocationList() {
	revoked, err := cuckoo.New[string](cuckoo.Config{Capacity: 100_000, Generations: 5})
	if err != nil {
		panic(err)
	}
	_ = revoked.Insert("token-7f3a")
	for minutes := 15; minutes <= 75; minutes += 15 {
		revoked.Advance() // every 15 minutes, from a ticker
		fmt.Printf("Advance %d: revoked %v, %d on the list\n", minutes/15, revoked.Contains("token-7f3a"), revoked.Len())
	}
	// Output:
	// Advance 1: revoked true, 1 on the list
	// Advance 2: revoked true, 1 on the list
	// Advance 3: revoked true, 1 on the list
	// Advance 4: revoked true, 1 on the list
	// Advance 5: revoked false, 0 on the list
}

// A deduplicator that asks "seen in the last 20 minutes?": InsertUnique
// reports a new event true and a repeat false, and a repeat moves the
// event to the current generation, so an event seen at least once every
// window never expires. One Advance every 10 minutes, 3 generations: an
// event is forgotten 20 to 30 minutes after it was last seen, so one seen
// in the last 20 minutes is always found.
func Example_slidingWindowDedup() {
	seen, err := cuckoo.New[string](cuckoo.Config{Capacity: 1_000_000, Generations: 3})
	if err != nil {
		panic(err)
	}
	stream := [][]string{ // the events of each 10 minutes
		{"login:ann", "login:bob", "login:ann"},
		{"login:bob"},
		{},
		{"login:ann", "login:bob"},
	}
	for i, events := range stream {
		if i > 0 {
			seen.Advance()
		}
		for _, e := range events {
			if fresh, _ := seen.InsertUnique(e); fresh {
				fmt.Printf("minute %d: %s\n", 10*i, e)
			}
		}
	}
	// Output:
	// minute 0: login:ann
	// minute 0: login:bob
	// minute 30: login:ann
}
