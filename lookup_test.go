package cuckoo

import (
	"testing"
)

func TestImplementations(t *testing.T) {
	names := []string{}
	for _, p := range implementations() {
		names = append(names, p.name)
	}
	t.Logf("active %q; this CPU runs %q", ProbeImplementation(), names)
	if !haveAsm && ProbeImplementation() != "generic" {
		t.Fatal("no assembly, yet not generic")
	}
}

// TestBatchAllImplementations compares every implementation's batch, over
// every width and table sizes from 1 bucket pair up, with the generic single
// probe, for hashes of stored and absent keys, with found slices of every
// length around the chunk sizes.
func TestBatchAllImplementations(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, layout := range layouts {
			testBatchImplementation(t, layout)
		}
	})
}

func testBatchImplementation(t *testing.T, layout Layout) {
	r := newRand(3)
	for f := uint(4); f <= 32; f++ {
		for _, m := range []uint64{2, 4, 6, 130, 1002} {
			tb := newTable(m, f, layout)
			hs := make([]uint64, 300)
			// Fill most slots with the fingerprints of hs[:150], so
			// the batch sees hits, misses and full buckets.
			for i := range hs {
				hs[i] = r.Uint64()
				if i < 150 {
					fp, i1 := tb.locate(hs[i])
					_ = tb.add(i1, fp) || tb.add(tb.alt(i1, fp), fp)
				}
			}
			for i := range tb.data[:len(tb.data)-tablePad] {
				if r.IntN(4) == 0 {
					tb.data[i] = byte(r.Uint32())
				}
			}
			c := &reader{t: tb}
			for _, n := range []int{0, 1, 3, 4, 7, 8, 9, 63, 64, 65, 128, 129, 300} {
				for _, nf := range []int{n, n / 2, 0} {
					found := make([]bool, nf)
					got := containsBatch(&c.t, hs[:n], found)
					want := 0
					for i, h := range hs[:n] {
						ok := containsGeneric(&tb, h)
						if ok {
							want++
						}
						if i < nf && found[i] != ok {
							t.Fatalf("%v f=%d m=%d n=%d: found[%d]=%v, generic %v", layout, f, m, n, i, found[i], ok)
						}
					}
					if got != want {
						t.Fatalf("%v f=%d m=%d n=%d nf=%d: batch found %d, generic %d", layout, f, m, n, nf, got, want)
					}
				}
			}
		}
	}
}

// TestHashBatchAllImplementations compares the vector hashing of integer
// keys with the scalar hash, and ContainsBatch with Contains.
func TestHashBatchAllImplementations(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := newRand(4)
		for _, seed := range []uint64{0, 1, r.Uint64()} {
			h := newHasher(seed)
			for _, n := range []int{0, 1, 7, 8, 9, 16, 255, 256, 257, 1000} {
				keys := make([]uint64, n)
				for i := range keys {
					keys[i] = r.Uint64()
				}
				keys = append(keys, 0, ^uint64(0))[:n]
				out := make([]uint64, n)
				hashBatch(&h, keys, out)
				for i, k := range keys {
					if out[i] != h.u64(k) {
						t.Fatalf("seed %#x n %d key %#x: %#x, want %#x", seed, n, k, out[i], h.u64(k))
					}
				}
			}
		}
		f := mustNew[int64](t, Config{Capacity: 5000, FingerprintBits: 12})
		keys := make([]int64, 10000)
		for i := range keys {
			keys[i] = int64(r.Uint64())
			if i%2 == 0 {
				if err := f.Insert(keys[i]); err != nil {
					t.Fatal(err)
				}
			}
		}
		found := make([]bool, len(keys))
		n := f.ContainsBatch(keys, found)
		want := 0
		for i, k := range keys {
			if found[i] != f.Contains(k) {
				t.Fatalf("key %d: batch %v, Contains %v", i, found[i], f.Contains(k))
			}
			if found[i] {
				want++
			}
		}
		if n != want || want < len(keys)/2 {
			t.Fatalf("batch counted %d, found %d", n, want)
		}
	})
}

func TestProbeEveryWidth(t *testing.T) {
	t.Parallel()
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
