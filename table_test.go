package cuckoo

import (
	"bytes"
	"testing"
)

func TestSlotsRoundTrip(t *testing.T) {
	// Writing random slots of random buckets never disturbs other bits.
	r := newRand(4)
	for f := uint(4); f <= 32; f++ {
		tb := newTable(10, f, Packed)
		want := make([][4]uint32, tb.m)
		for range 2000 {
			i, k := r.Uint64N(tb.m), uint(r.IntN(4))
			v := uint32(r.Uint64N(tb.fpRange + 1))
			tb.setSlot(i, k, v)
			want[i][k] = v
		}
		for i := range tb.m {
			for k := uint(0); k < 4; k++ {
				if got, ref := tb.slot(i, k), refSlot(&tb, i, k); got != want[i][k] || ref != got {
					t.Fatalf("f=%d bucket %d slot %d: slot=%d ref=%d want=%d", f, i, k, got, ref, want[i][k])
				}
			}
		}
		if !bytes.Equal(tb.data[len(tb.data)-tablePad:], make([]byte, tablePad)) {
			t.Fatalf("f=%d: writes reached the padding", f)
		}
	}
}

func TestRoomIn(t *testing.T) {
	// roomIn agrees with the decoded values for every layout and width,
	// whatever bits follow the bucket in the word or pair it is read as.
	r := newRand(5)
	for _, layout := range layouts {
		for f := uint(minFingerprintBits); f <= maxFingerprintBits; f++ {
			s := shapeOf(layout, f)
			for range 4000 {
				var v [4]uint32
				for k := range v {
					if r.IntN(3) > 0 { // a third of the slots empty
						v[k] = uint32(r.Uint64N(uint64(s.slotMax))) + 1
					}
				}
				lo, hi := s.encode(v)
				junkLo, junkHi := bucketMask(s.bbits)
				lo |= r.Uint64() &^ junkLo
				hi |= r.Uint64() &^ junkHi
				if f <= 16 {
					hi = 0 // one-word buckets are read into lo alone
				}
				want := v[0] == 0 || v[1] == 0 || v[2] == 0 || v[3] == 0
				if got := s.roomIn(lo, hi); got != want {
					t.Fatalf("%v f=%d values %v (bucket %#x %#x): roomIn %v, want %v", layout, f, v, hi, lo, got, want)
				}
			}
		}
	}
}
