package cuckoo

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
)

// TestHalvePackedMatchesSlots checks halveInto's packed merges, halveNarrow
// for one-word buckets and halveWide for two-word ones, against
// halveSlots, the halving through the codec, on tables of random values:
// the same bytes and the same values left over, in the same order, for
// every fingerprint width and several generation counts, and bucket pairs
// of every fill, more than four values included.
func TestHalvePackedMatchesSlots(t *testing.T) {
	r, cases := newRand(48), map[probeClass]int{}
	for fbits := uint(minFingerprintBits); fbits <= maxFingerprintBits; fbits++ {
		for _, gens := range []uint{0, 2, 3, 4, 8} {
			const g, k = 2, 1
			if fbits+g+genBits(gens) > maxFingerprintBits {
				continue
			}
			for _, fill := range []float64{0.1, 0.25, 0.5, 0.9, 1} {
				old := newStage(6, fbits, g, k, Packed, gens)
				name := fmt.Sprintf("fbits=%d/G=%d/fill=%v", fbits, gens, fill)
				for range 50 {
					for b := range old.m {
						var vs [slotsPerBucket]uint32
						for s := range vs {
							if r.Float64() < fill {
								vs[s] = uint32(1 + r.Uint64N(old.slotMax))
							}
						}
						lo, hi := old.encode(vs)
						old.setBucket(b, lo, hi)
					}
					want, got := newStage(6, fbits, g, k-1, Packed, gens), newStage(6, fbits, g, k-1, Packed, gens)
					wantOver, gotOver := old.halveSlots(&want), old.halveInto(&got)
					if !bytes.Equal(got.data, want.data) || !slices.Equal(gotOver, wantOver) {
						t.Fatalf("%s: halveInto gave %x, over %v; halveSlots %x, over %v", name, got.data, gotOver, want.data, wantOver)
					}
				}
				cases[newStage(6, fbits, g, k-1, Packed, gens).class]++
			}
		}
	}
	if cases[classGrownNarrow] < 100 || cases[classGrown] < 100 {
		t.Fatalf("cases by the halved table's class: %v, want one- and two-word buckets", cases)
	}
}
