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

func TestProbeEveryWidth(t *testing.T) {
	// Bucket contents chosen to hit the edges: empty slots, the largest
	// fingerprint, neighbours that differ from fp in one bit.
	r := newRand(5)
	for f := uint(4); f <= 32; f++ {
		tb := newTable(6, f, Packed)
		for range 3000 {
			fp := uint32(r.Uint64N(tb.fpRange)) + 1
			if r.IntN(4) == 0 {
				fp = uint32(tb.fpRange)
			}
			clear(tb.data)
			for i := range tb.m {
				for k := uint(0); k < 4; k++ {
					var v uint32
					switch r.IntN(4) {
					case 0:
						v = fp
					case 1:
						v = fp ^ 1<<r.IntN(int(f))
					case 2:
						v = uint32(r.Uint64N(tb.fpRange + 1))
					}
					tb.setSlot(i, k, v)
				}
			}
			i1 := r.Uint64N(tb.m)
			i2 := tb.alt(i1, fp)
			want, count := false, 0
			for k := uint(0); k < 4; k++ {
				for _, b := range []uint64{i1, i2} {
					if refSlot(&tb, b, k) == fp {
						want = true
						count++
					}
				}
			}
			h := hashFor(&tb, i1, fp)
			if got := containsGeneric(&tb, h); got != want {
				t.Fatalf("f=%d: containsGeneric=%v want %v", f, got, want)
			}
			if got := tb.countMatches(i1, fp, i2, fp); got != count {
				t.Fatalf("f=%d: countMatches=%d want %d", f, got, count)
			}
		}
	}
}
