package cuckoo

import (
	"bytes"
	"errors"
	"sync"
	"testing"
	"unsafe"
)

// TestViewZeroCopy checks that a View answers from the caller's bytes: its
// table is the table region of the encoding, wherever the encoding sits in
// memory, and a change to those bytes shows in its answers.
func TestViewZeroCopy(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		f := builtFilter(t, Config{Capacity: 500, FingerprintBits: 14, Layout: layout}, 500, intKey)
		enc := mustMarshal(t, f)
		for _, off := range []int{0, 1, 3, 8, 63} { // any alignment works
			buf := make([]byte, off+len(enc))
			data := buf[off:]
			copy(data, enc)
			v, err := NewView[uint64](data)
			if err != nil {
				t.Fatal(err)
			}
			if unsafe.SliceData(v.r.t.data) != &data[headerSize] || len(v.r.t.data) != len(f.c.t.data) {
				t.Fatalf("offset %d: the view's table is not the encoding's table region", off)
			}
			keys := make([]uint64, 1500)
			for i := range keys {
				keys[i] = intKey(i)
			}
			checkSameAnswers(t, f, v, keys)
			clear(data[headerSize : len(data)-checksumSize])
			if v.Contains(intKey(1)) {
				t.Fatal("the view does not read the caller's bytes")
			}
		}
	})
}

// TestViewConcurrent queries one View from several goroutines; under -race
// it proves the queries write nothing shared.
func TestViewConcurrent(t *testing.T) {
	const n = 20_000
	v, err := NewView[string](mustMarshal(t, builtFilter(t, Config{Capacity: n}, n, stringKey)))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	lost := make(chan int, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			keys := make([]string, 0, n/4)
			for i := g; i < n; i += 4 {
				if i%5 != 0 {
					keys = append(keys, stringKey(i))
					if !v.Contains(stringKey(i)) || v.Count(stringKey(i)) == 0 || !v.ContainsHash(v.Hash(stringKey(i))) {
						lost <- i
						return
					}
				}
			}
			if v.ContainsBatch(keys, nil) != len(keys) {
				lost <- -1
			}
			_ = v.Len() + v.Slots() + v.SizeBytes() + v.Capacity() + v.FingerprintBits()
			_ = v.LoadFactor()
		}()
	}
	wg.Wait()
	close(lost)
	for i := range lost {
		t.Fatalf("key %d not found concurrently", i)
	}
}

// TestViewZeroAllocations proves that every View query allocates nothing,
// for each key type, and that AppendBinary into a large enough buffer does
// not either.
func TestViewZeroAllocations(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		testViewAllocs(t, layout, intKey)
		testViewAllocs(t, layout, stringKey)
		testViewAllocs(t, layout, func(i int) []byte { return []byte(stringKey(i)) })
		testViewAllocs(t, layout, func(i int) int16 { return int16(i) })
		testViewAllocs(t, layout, func(i int) float32 { return float32(i) / 3 })
		testViewAllocs(t, layout, func(i int) userID { return userID(i) })
		testViewAllocs(t, layout, uuidKey)
		testViewAllocs(t, layout, func(i int) [32]byte { return digestKey(i) })
	})
}

func testViewAllocs[T Hashable](t *testing.T, layout Layout, key func(int) T) {
	const n = 1000
	f := builtFilter(t, Config{Capacity: n, Layout: layout, FingerprintBits: 21}, n, key)
	buf := make([]byte, 0, f.EncodedSize())
	if a := testing.AllocsPerRun(100, func() { buf, _ = f.AppendBinary(buf[:0]) }); a != 0 {
		t.Errorf("%T AppendBinary: %v allocations", *new(T), a)
	}
	v, err := NewView[T](buf)
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]T, 2*n)
	hashes := make([]uint64, len(keys))
	for i := range keys {
		keys[i] = key(i)
		hashes[i] = v.Hash(keys[i])
	}
	found := make([]bool, len(keys))
	i := 0
	next := func() int { i++; return i % len(keys) }
	sink := 0
	ops := map[string]func(){
		"Contains":          func() { _ = v.Contains(keys[next()]) },
		"ContainsHash":      func() { _ = v.ContainsHash(hashes[next()]) },
		"ContainsBatch":     func() { sink += v.ContainsBatch(keys, found) },
		"ContainsHashBatch": func() { sink += v.ContainsHashBatch(hashes, found) },
		"Count":             func() { sink += v.Count(keys[next()]) },
		"CountHash":         func() { sink += v.CountHash(hashes[next()]) },
		"Hash":              func() { sink += int(v.Hash(keys[next()]) & 1) },
		"Len":               func() { sink += v.Len() },
		"Capacity":          func() { sink += v.Capacity() },
		"Slots":             func() { sink += v.Slots() },
		"LoadFactor":        func() { sink += int(v.LoadFactor()) },
		"FingerprintBits":   func() { sink += v.FingerprintBits() },
		"Layout":            func() { sink += int(v.Layout()) },
		"SizeBytes":         func() { sink += v.SizeBytes() },
		"EstimatedFPR":      func() { sink += int(v.EstimatedFalsePositiveRate()) },
		"Seed":              func() { sink += int(v.Seed() & 1) },
	}
	for name, op := range ops {
		if a := testing.AllocsPerRun(200, op); a != 0 {
			t.Errorf("%T View.%s: %v allocations per call", *new(T), name, a)
		}
	}
	if a := testing.AllocsPerRun(20, func() { v, _ = NewView[T](buf) }); a != 1 {
		t.Errorf("%T NewView: %v allocations, want 1 (the View)", *new(T), a)
	}
}

func BenchmarkNewView(b *testing.B) {
	for _, n := range benchSizes {
		f, _, _ := benchFilter[uint64](b, n, Packed)
		enc := mustMarshal(b, f)
		for _, c := range []struct {
			name string
			fn   func([]byte) (*View[uint64], error)
		}{{"checked", NewView[uint64]}, {"unverified", NewViewUnverified[uint64]}} {
			b.Run(sizeName(n)+"/"+c.name, func(b *testing.B) {
				b.SetBytes(int64(len(enc)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := c.fn(enc); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkViewContains is BenchmarkContains on a View of the same filter.
func BenchmarkViewContains(b *testing.B) {
	for _, n := range benchSizes {
		f, hits, miss := benchFilter[uint64](b, n, Packed)
		v, err := NewView[uint64](mustMarshal(b, f))
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range []struct {
			name string
			keys []uint64
		}{{"hit", hits}, {"miss", miss}} {
			b.Run(sizeName(n)+"/"+c.name, func(b *testing.B) {
				found := 0
				mask := len(c.keys) - 1
				for i := 0; b.Loop(); i++ {
					if v.Contains(c.keys[i&mask]) {
						found++
					}
				}
				b.ReportMetric(float64(found)/float64(b.N), "found/op")
			})
		}
	}
}

// TestViewUnverifiedMisses shows what NewViewUnverified cannot see: a flipped
// seed bit or table byte leaves the header in range, so it accepts the bytes
// and answers wrongly, false negatives included, where NewView reports
// ErrChecksum. Whatever the table holds, every query of its View returns
// without a panic (TestGuardPage shows the probes' reads stay inside the
// table whatever its bytes).
func TestViewUnverifiedMisses(t *testing.T) {
	t.Parallel()
	const n = 1000
	enc := mustMarshal(t, builtFilter(t, Config{Capacity: n, Seed: 77}, n, stringKey))
	stored := func(v *View[string]) (found int) {
		for i := range n {
			if i%5 != 0 && v.Contains(stringKey(i)) {
				found++
			}
		}
		return found
	}
	bad := bytes.Clone(enc)
	bad[offSeed] ^= 1
	if _, err := NewView[string](bad); !errors.Is(err, ErrChecksum) {
		t.Fatalf("NewView of a flipped seed bit: %v, want ErrChecksum", err)
	}
	v, err := NewViewUnverified[string](bad)
	if err != nil {
		t.Fatalf("NewViewUnverified noticed the flipped seed bit: %v", err)
	}
	if found := stored(v); found > n/10 {
		t.Fatalf("with a flipped seed bit, %d of %d stored keys are still found", found, n*4/5)
	}

	forEachLayout(t, func(t *testing.T, layout Layout) {
		for _, f := range []int{4, 9, 13, 17, 32} {
			enc := mustMarshal(t, builtFilter(t, Config{Capacity: 60, FingerprintBits: f, Layout: layout}, 60, intKey))
			keys := make([]uint64, 200)
			for i := range keys {
				keys[i] = intKey(i)
			}
			found := make([]bool, len(keys))
			lossy := 0
			for i := headerSize; i < len(enc)-checksumSize; i++ {
				bad := bytes.Clone(enc)
				bad[i] ^= 0xff
				if _, err := NewView[uint64](bad); !errors.Is(err, ErrChecksum) {
					t.Fatalf("f=%d, table byte %d flipped: NewView says %v", f, i, err)
				}
				v, err := NewViewUnverified[uint64](bad)
				if err != nil {
					t.Fatalf("f=%d, table byte %d flipped: NewViewUnverified says %v", f, i, err)
				}
				_ = v.ContainsBatch(keys, found) + v.ContainsHashBatch(keys, found)
				for j := range keys {
					_ = v.Count(keys[j]) + v.CountHash(keys[j])
					if j%5 != 0 && j < 60 && !v.Contains(keys[j]) {
						lossy++
						break
					}
				}
			}
			if lossy == 0 {
				t.Fatalf("f=%d: no flipped table byte lost a stored key", f)
			}
		}
	})
}
