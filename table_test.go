package cuckoo

import (
	"bytes"
	"testing"
)

func TestAltInvolutionExhaustive(t *testing.T) {
	// Every even m up to 300, every bucket, every fingerprint of an 8-bit
	// width: alt is an involution onto [0, m) that never returns its input.
	for m := uint64(2); m <= 300; m += 2 {
		tb := newTable(m, 8, Packed)
		for i := uint64(0); i < m; i++ {
			for fp := uint32(1); fp <= 255; fp++ {
				j := tb.alt(i, fp)
				if j >= m || j == i || tb.alt(j, fp) != i {
					t.Fatalf("m=%d i=%d fp=%d: alt=%d, alt(alt)=%d", m, i, fp, j, tb.alt(j, fp))
				}
			}
		}
	}
}

func TestAltInvolutionLarge(t *testing.T) {
	r := newRand(1)
	for _, m := range []uint64{2, 1 << 20, 1<<32 - 2, 1 << 32, 123456790, 3_000_000_002} {
		tb := table{m: m, m0: m, shape: shape{f: 32}, fpRange: 1<<32 - 1}
		for range 100000 {
			i, fp := r.Uint64N(m), uint32(r.Uint64N(tb.fpRange))+1
			j := tb.alt(i, fp)
			if j >= m || j == i || tb.alt(j, fp) != i {
				t.Fatalf("m=%d i=%d fp=%d: alt=%d", m, i, fp, j)
			}
		}
	}
}

func TestLocateRange(t *testing.T) {
	r := newRand(2)
	for f := uint(4); f <= 32; f++ {
		for _, m := range []uint64{2, 6, 1000, 1 << 32} {
			tb := table{m: m, m0: m, shape: shape{f: f}, fpRange: 1<<f - 1}
			hs := []uint64{0, ^uint64(0), 1 << 32, 1<<32 - 1}
			for range 1000 {
				hs = append(hs, r.Uint64())
			}
			for _, h := range hs {
				fp, i := tb.locate(h)
				if fp == 0 || uint64(fp) > tb.fpRange || i >= m {
					t.Fatalf("f=%d m=%d h=%#x: fp=%d i=%d", f, m, h, fp, i)
				}
			}
			// hashFor inverts locate.
			for range 100 {
				i, fp := r.Uint64N(m), uint32(r.Uint64N(tb.fpRange))+1
				if gfp, gi := tb.locate(hashFor(&tb, i, fp)); gfp != fp || gi != i {
					t.Fatalf("f=%d m=%d: hashFor(%d,%d) locates (%d,%d)", f, m, i, fp, gi, gfp)
				}
			}
		}
	}
}

func TestFingerprintUniform(t *testing.T) {
	// Every fingerprint of a 4-bit width is about equally likely; a scheme
	// that mapped 0 to 1 would make fingerprint 1 twice as common.
	tb := table{m: 2, m0: 2, shape: shape{f: 4}, fpRange: 15}
	var counts [16]int
	r := newRand(3)
	const n = 150000
	for range n {
		fp, _ := tb.locate(r.Uint64())
		counts[fp]++
	}
	for fp := 1; fp <= 15; fp++ {
		if c := counts[fp]; c < n/15*9/10 || c > n/15*11/10 {
			t.Fatalf("fingerprint %d drawn %d times of %d", fp, c, n)
		}
	}
}

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
