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
