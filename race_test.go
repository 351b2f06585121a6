//go:build race

package cuckoo

// raceEnabled reports a -race build, under which allocation counts include
// the race detector's own and timing-heavy tests are cut down.
const raceEnabled = true
