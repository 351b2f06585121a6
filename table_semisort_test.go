package cuckoo

import (
	"bytes"
	"slices"
	"testing"
)

func TestSemiCodesExhaustive(t *testing.T) {
	// Every sorted multiset of four nibbles has its own code below 3876,
	// and decodes back.
	seen := map[uint16]bool{}
	for a := range uint32(16) {
		for b := a; b < 16; b++ {
			for c := b; c < 16; c++ {
				for d := c; d < 16; d++ {
					code := semiEncode(a, b, c, d)
					if code >= semiCodes || seen[code] {
						t.Fatalf("(%d,%d,%d,%d): code %d out of range or repeated", a, b, c, d, code)
					}
					seen[code] = true
					if got := semiDecode[code]; got != uint16(a|b<<4|c<<8|d<<12) {
						t.Fatalf("code %d decodes to %#x", code, got)
					}
				}
			}
		}
	}
	if len(seen) != semiCodes {
		t.Fatalf("%d codes", len(seen))
	}
	for code := semiCodes; code < len(semiDecode); code++ {
		if semiDecode[code] != 0 {
			t.Fatalf("invalid code %d decodes to %#x", code, semiDecode[code])
		}
	}
}

func TestSemiBucketsEveryWidth(t *testing.T) {
	t.Parallel()
	// For every width, every prefix multiset with random low bits round
	// trips through a bucket, in a table whose other buckets are random and
	// stay untouched, and the probe agrees with a slot-by-slot comparison.
	r := newRand(20)
	for f := uint(4); f <= 32; f++ {
		tb := newTable(6, f, SemiSorted)
		for i := range tb.m {
			tb.writeSlots(i, randomSlots(r, &tb))
		}
		for a := range uint32(16) {
			for b := a; b < 16; b++ {
				for c := b; c < 16; c++ {
					for d := c; d < 16; d++ {
						i := r.Uint64N(tb.m)
						var want [4]uint32
						for k, p := range [4]uint32{a, b, c, d} {
							want[k] = p<<tb.w | uint32(r.Uint64())&tb.lowMask
						}
						slices.Sort(want[:])
						before := bytes.Clone(tb.data)
						tb.writeSlots(i, [4]uint32{want[2], want[0], want[3], want[1]})
						if got := tb.bucketSlots(i); got != want {
							t.Fatalf("f=%d: wrote %v, read %v", f, want, got)
						}
						if !tb.validBucket(i) {
							t.Fatalf("f=%d: bucket %v reported invalid", f, want)
						}
						checkOtherBuckets(t, &tb, i, before)
						checkSemiProbe(t, &tb, i, want, r)
					}
				}
			}
		}
	}
}

func randomSlots(r interface{ Uint64() uint64 }, tb *table) (s [4]uint32) {
	for k := range s {
		s[k] = uint32(r.Uint64() & tb.fpRange)
	}
	return s
}

// checkOtherBuckets fails if any bit outside bucket i differs from before.
func checkOtherBuckets(t *testing.T, tb *table, i uint64, before []byte) {
	t.Helper()
	start, end := i*uint64(tb.bbits), (i+1)*uint64(tb.bbits)
	for bit := uint64(0); bit < uint64(len(before))*8; bit++ {
		if bit >= start && bit < end {
			continue
		}
		if (before[bit>>3]^tb.data[bit>>3])>>(bit&7)&1 != 0 {
			t.Fatalf("f=%d: writing bucket %d changed bit %d", tb.f, i, bit)
		}
	}
}

// checkSemiProbe compares the probes for bucket i, holding s, with direct
// comparison, for fingerprints in s, near them, and random ones.
func checkSemiProbe(t *testing.T, tb *table, i uint64, s [4]uint32, r interface{ Uint64() uint64 }) {
	t.Helper()
	for _, fp := range []uint32{s[0], s[3], s[1] ^ 1, s[2] ^ 1<<tb.w, uint32(r.Uint64())} {
		fp &= uint32(tb.fpRange)
		if fp == 0 {
			continue
		}
		want := 0
		for _, v := range s {
			if v == fp {
				want++
			}
		}
		lo, hi := tb.bucketAt(i)
		lo, hi = tb.match(lo, hi, fp)
		if got := popcount128(lo, hi); got != want {
			t.Fatalf("f=%d bucket %v fp %d: %d matches, want %d", tb.f, s, fp, got, want)
		}
		if tb.f <= 16 {
			p := i * uint64(tb.bbits)
			b := load64(tb.data, p>>3) >> (p & 7)
			m := tb.semiMatch64(b, uint64(fp>>tb.w)*0x1111, uint64(fp&tb.lowMask)*tb.semiLanes.onesLo)
			if (m != 0) != (want > 0) {
				t.Fatalf("f=%d bucket %v fp %d: semiMatch64 %#x", tb.f, s, fp, m)
			}
		}
	}
}

func popcount128(lo, hi uint64) int {
	n := 0
	for ; lo != 0; lo &= lo - 1 {
		n++
	}
	for ; hi != 0; hi &= hi - 1 {
		n++
	}
	return n
}

func TestSemiInvalidBuckets(t *testing.T) {
	for _, f := range []uint{4, 13, 32} {
		tb := newTable(4, f, SemiSorted)
		store64(tb.data, 0, load64(tb.data, 0)|semiCodes) // code 3876
		if tb.validBucket(0) {
			t.Fatalf("f=%d: code 3876 accepted", f)
		}
		if f > 4 {
			// Equal prefixes with descending low parts: not the sorted form.
			clear(tb.data)
			tb.setBucket(0, uint64(semiEncode(0, 0, 0, 1))|2<<semiCodeBits|1<<(semiCodeBits+tb.w), 0)
			if s := tb.bucketSlots(0); tb.validBucket(0) {
				t.Fatalf("f=%d: unsorted bucket %v accepted", f, s)
			}
		}
	}
}

func TestMinMax(t *testing.T) {
	edge := []uint32{0, 1, 2, 1<<31 - 1, 1 << 31, 1<<31 + 1, 1<<32 - 2, 1<<32 - 1}
	r := newRand(1)
	for range 10000 {
		edge = append(edge, uint32(r.Uint64()))
	}
	for _, a := range edge[:64] {
		for _, b := range edge {
			if lo, hi := minMax(a, b); lo != min(a, b) || hi != max(a, b) {
				t.Fatalf("minMax(%d, %d) = %d, %d", a, b, lo, hi)
			}
		}
	}
}
