package cuckoo_test

import (
	"fmt"
	"log"
	"time"

	"github.com/seed-a0724874/cuckoo"
)

// A revocation list for tokens that are valid for an hour: a revoked token
// must be remembered until it would have expired anyway, and no longer.
// With one Advance every 15 minutes, a key lives through 4 more calls and
// is forgotten at the 5th: between 60 and 75 minutes, so 5 generations.
func Example_revocationList() {
	revoked, err := cuckoo.New[string](cuckoo.Config{Capacity: 100_000, Generations: 5})
	if err != nil {
		log.Fatal(err)
	}
	if err := revoked.Insert("token-7f3a"); err != nil {
		log.Fatal(err) // ErrFull: not revoked; a larger Capacity or MaxCapacity is needed
	}
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
// in the last 20 minutes is always found. An error means the event was
// not recorded, not that it was seen.
func Example_slidingWindowDedup() {
	seen, err := cuckoo.New[string](cuckoo.Config{Capacity: 1_000_000, Generations: 3})
	if err != nil {
		log.Fatal(err)
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
			fresh, err := seen.InsertUnique(e)
			if err != nil {
				log.Fatal(err) // ErrFull: e was not recorded
			}
			if fresh {
				fmt.Printf("minute %d: %s\n", 10*i, e)
			}
		}
	}
	// Output:
	// minute 0: login:ann
	// minute 0: login:bob
	// minute 30: login:ann
}

// Events seen in the last hour, ticking every 15 minutes, about 1,000
// events a tick: WindowConfig gives 5 generations, so an event lives 60 to
// 75 minutes, and a Capacity for 5 ticks of events; MaxCapacity lets the
// filter double for bursts of up to 50,000 live events. The clock is
// simulated: a service would read time.Now, and after downtime call
// Advance once for every tick missed, at most Generations times.
func Example_timeWindow() {
	const tick = 15 * time.Minute
	cfg, err := cuckoo.WindowConfig(1_000, time.Hour, tick)
	if err != nil {
		log.Fatal(err)
	}
	cfg.MaxCapacity = 10 * cfg.Capacity
	seen, err := cuckoo.New[string](cfg)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d generations, capacity %d growing to %d\n", cfg.Generations, cfg.Capacity, cfg.MaxCapacity)

	last := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC) // the last tick
	catchUp := func(now time.Time) {
		for n := 0; now.Sub(last) >= tick; n++ {
			last = last.Add(tick)
			if n < cfg.Generations { // more calls would find nothing left
				seen.Advance()
			}
		}
	}
	observe := func(now time.Time, event string) {
		catchUp(now)
		fresh, err := seen.InsertUnique(event)
		if err != nil { // ErrFull: not recorded; a repeat of it would look new
			log.Printf("%s not recorded: %v", event, err)
			return
		}
		fmt.Printf("%s %s: new %v\n", now.Format("15:04"), event, fresh)
	}
	start := last
	observe(start, "login:ann")
	observe(start.Add(50*time.Minute), "login:ann")  // within the hour
	observe(start.Add(170*time.Minute), "login:ann") // 2 hours later, the process down meanwhile
	observe(start.Add(4*time.Hour), "login:ann")     // 70 minutes later: more than an hour

	// 40 ticks' worth of events within one tick: none fails, and all are
	// new but the few InsertUnique takes for false positives (0.1%).
	fresh, failed := 0, 0
	for i := range 40_000 {
		switch added, err := seen.InsertUnique(fmt.Sprintf("scan:%d", i)); {
		case err != nil:
			failed++
		case added:
			fresh++
		}
	}
	fmt.Printf("burst: %d new, %d failed, the filter doubled %d times\n", fresh, failed, seen.Info().Doublings)
	// Output:
	// 5 generations, capacity 5000 growing to 50000
	// 09:00 login:ann: new true
	// 09:50 login:ann: new false
	// 11:50 login:ann: new true
	// 13:00 login:ann: new true
	// burst: 39996 new, 0 failed, the filter doubled 3 times
}
