package cuckoo

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestKickSameWalk checks kickNarrow and kickSemi against kickWalk,
// the walk for any table: from the same table and PRNG state, every
// displacement must give the same result, the same bytes and the same PRNG
// state, for every width and layout they serve, for walks that succeed and
// walks that fail and are undone (MaxKicks 3). kickGrownNarrow serves
// growable packed tables, as does kickGrownWide for their slots of 17 to
// 32 bits: they are checked at their first two stages (at the second a
// value moves between layers). kickNarrow, kickSemi and kickGrownNarrow
// serve expiring tables of slots of at most 16 bits, whose values carry
// random generations.
func TestKickSameWalk(t *testing.T) {
	if raceEnabled {
		// One goroutine, nothing for the race detector to see, and six
		// minutes under it: the tests without -race run it whole.
		t.Skip("single-goroutine comparison; run without -race")
	}
	// Each subtest has its own filters and reads no variable that another
	// test sets: they run in parallel, with each other and other tests.
	t.Parallel()
	forEachLayout(t, func(t *testing.T, layout Layout) { t.Parallel(); testKickSameWalk(t, layout, false, 0, 0) })
	for stage := range uint(2) {
		t.Run(fmt.Sprintf("Packed/growable/stage=%d", stage), func(t *testing.T) { t.Parallel(); testKickSameWalk(t, Packed, true, stage, 0) })
		t.Run(fmt.Sprintf("Packed/growable/gens=4/stage=%d", stage), func(t *testing.T) { t.Parallel(); testKickSameWalk(t, Packed, true, stage, 4) })
	}
	for _, gens := range []uint{2, 4, 16, 256} { // 1 to 8 generation bits: with 8, the prefix holds none of the fingerprint
		t.Run(fmt.Sprintf("gens=%d", gens), func(t *testing.T) {
			t.Parallel()
			forEachLayout(t, func(t *testing.T, layout Layout) { t.Parallel(); testKickSameWalk(t, layout, false, 0, gens) })
		})
	}
}

// shortWidths are the fingerprint widths a growable table's walks are
// checked at unless longTests(): the smallest, those whose slots are 16 or
// 17 bits at stage 0 or 1 (the edge between kickGrownNarrow and
// kickGrownWide), a middle one and the widest, whose slots are 32 bits at
// stage 0.
var shortWidths = map[int]bool{4: true, 14: true, 15: true, 16: true, 22: true, 30: true}

func testKickSameWalk(t *testing.T, layout Layout, growable bool, stage, gens uint) {
	// A specialised walk that strays from kickWalk does so on the first
	// walks that take the wrong step, succeeding or failing. With -short a
	// table of 1000 keys is full after about 200 walks, so its 400 walks
	// are successes and failures undone in about equal numbers, as the
	// 2000 walks on a table of 4000 keys are.
	capacity, maxWalks := 4000, 2000
	if testing.Short() {
		capacity, maxWalks = 1000, 400
	}
	widths := 16 - int(genBits(gens)) // the specialised walks' slots: at most 16 bits
	if growable {
		widths = 30 - int(genBits(gens)) // and two layer bits
	}
	for fb := 4; fb <= widths; fb++ {
		if growable && !longTests() && !shortWidths[fb] {
			continue
		}
		for _, kicks := range []int{3, 500} {
			cfg := Config{Capacity: capacity, FingerprintBits: fb, Layout: layout, MaxKicks: kicks, Seed: uint64(fb), Generations: int(gens)}
			if growable {
				cfg.MaxCapacity = 4 * cfg.Capacity // two layer bits: slots of fb+2-stage bits
			}
			f := mustNew[uint64](t, cfg)
			if growable {
				for range stage {
					f.c.grow()
				}
				if want := classGrownNarrow; f.c.t.f > 16 && f.c.t.class != classGrown || f.c.t.f <= 16 && f.c.t.class != want || f.c.t.k != stage {
					t.Fatalf("f=%d: growable table of class %d at stage %d", fb, f.c.t.class, f.c.t.k)
				}
			}
			if growable && gens != 0 && f.c.t.f > 16 {
				continue // kickWalk's
			}
			if gens != 0 && !growable {
				want := [2]probeClass{classNarrow, classExpSemi}[layout&1]
				if layout == SemiSorted && genBits(gens) > 4 {
					want = classGeneric // generation bits in the low parts: kickWalk's
				}
				if f.c.t.class != want {
					t.Fatalf("f=%d: expiring table of class %d, want %d", fb, f.c.t.class, want)
				}
				if want == classGeneric {
					continue
				}
			}
			g := f.Clone()
			rng := rand.New(rand.NewPCG(uint64(fb), uint64(kicks)))
			var path, gpath [kickStackSteps / 4]byte
			walks, fails := 0, 0
			for f.LoadFactor() < 0.97 && walks < maxWalks {
				h := rng.Uint64()
				b1, v1, b2, v2 := f.c.t.place(h)
				if gens != 0 { // the key stored in a random generation
					g := uint(rng.IntN(int(gens)))
					v1, v2 = genValue(&f.c.t, v1, g), genValue(&f.c.t, v2, g)
				}
				if f.c.t.add2(b1, v1, b2, v2) {
					g.c.t.add2(b1, v1, b2, v2)
					f.c.count++
					g.c.count++
					continue
				}
				before := bytes.Clone(f.c.t.data)
				walks++
				var ok bool // the specialised walk, called directly
				switch {
				case growable && f.c.t.f > 16:
					ok = f.c.kickGrownWide(path[:], b1, v1, b2, v2)
				case growable:
					ok = f.c.kickGrownNarrow(path[:], b1, v1, b2, v2)
				case layout == Packed:
					ok = f.c.kickNarrow(path[:], b1, b2, v1)
				default:
					ok = f.c.kickSemi(path[:], b1, b2, v1)
				}
				gok := g.c.kickWalk(gpath[:], b1, v1, b2, v2)
				if ok != gok || !bytes.Equal(f.c.t.data, g.c.t.data) || f.c.rng != g.c.rng {
					t.Fatalf("f=%d MaxKicks %d, walk %d: specialised walk %v, kickWalk %v, tables equal %v",
						fb, kicks, walks, ok, gok, bytes.Equal(f.c.t.data, g.c.t.data))
				}
				if !ok {
					fails++
					if !bytes.Equal(before, f.c.t.data) {
						t.Fatalf("f=%d: a failed walk was not undone", fb)
					}
				}
			}
			if walks < 100 || kicks == 3 && fails == 0 {
				t.Fatalf("f=%d MaxKicks %d: %d walks, %d failed: too few to compare", fb, kicks, walks, fails)
			}
		}
	}
}

// TestFirstFree checks firstFree's promise for every set of free slots and
// every start: a free slot if there is one, and no free slot between start
// and it, going up and wrapping; start if none is free.
func TestFirstFree(t *testing.T) {
	for m := range 16 {
		var free [slotsPerBucket]bool
		for k := range free {
			free[k] = m>>k&1 != 0
		}
		for start := range uint(slotsPerBucket) {
			got := firstFree(free, start)
			if m == 0 {
				if got != start {
					t.Errorf("firstFree(%v, %d) = %d, want %d", free, start, got, start)
				}
				continue
			}
			if got >= slotsPerBucket || !free[got] {
				t.Errorf("firstFree(%v, %d) = %d, not a free slot", free, start, got)
				continue
			}
			for k := start; k%slotsPerBucket != got; k++ {
				if free[k%slotsPerBucket] {
					t.Errorf("firstFree(%v, %d) = %d, passing free slot %d", free, start, got, k%slotsPerBucket)
				}
			}
		}
	}
}
