package cuckoo

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
)

// TestHalveNarrowMatchesSlots checks halveNarrow, the Packed halving of
// one-word buckets, against halveSlots, the halving through the codec, on
// tables of random values: the same bytes and the same values left over,
// in the same order, for every fingerprint width and generation count a
// narrow halved table takes, and every pair of bucket fills, more than
// four values included.
func TestHalveNarrowMatchesSlots(t *testing.T) {
	r, cases := newRand(48), 0
	for fbits := uint(minFingerprintBits); fbits <= 15; fbits++ {
		for _, gens := range []uint{0, 2, 3, 4, 8} {
			for _, fill := range []float64{0.1, 0.25, 0.5, 0.9, 1} {
				const g, k = 2, 1
				old := newStage(6, fbits, g, k, Packed, gens)
				n := newStage(6, fbits, g, k-1, Packed, gens)
				if n.class != classGrownNarrow {
					continue
				}
				cases++
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
					wantOver, gotOver := old.halveSlots(&want), old.halveNarrow(&got)
					if !bytes.Equal(got.data, want.data) || !slices.Equal(gotOver, wantOver) {
						t.Fatalf("%s: halveNarrow gave %x, over %v; halveSlots %x, over %v", name, got.data, gotOver, want.data, wantOver)
					}
				}
			}
		}
	}
	if cases < 100 {
		t.Fatalf("only %d cases of narrow halved tables", cases)
	}
}
