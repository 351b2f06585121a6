package cuckoo

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"
	"unsafe"

	"github.com/zeebo/xxh3"
)

func TestHashIsXXH3(t *testing.T) {
	// The integer short cut computes xxh3 of the key's 8 little-endian bytes.
	r := newRand(10)
	for _, seed := range []uint64{0, 1, DefaultSeed, ^uint64(0), 0x8000_0000, r.Uint64()} {
		h := newHasher(seed)
		for _, v := range []uint64{0, 1, ^uint64(0), 1 << 63, r.Uint64(), r.Uint64()} {
			var b [8]byte
			binary.LittleEndian.PutUint64(b[:], v)
			if got, want := h.u64(v), xxh3.HashSeed(b[:], h.seed); got != want {
				t.Fatalf("seed %#x v %#x: %#x, xxh3 says %#x", seed, v, got, want)
			}
		}
		for _, str := range []string{"", "hello", "a longer string, past xxh3's short cases of at most 16 bytes"} {
			if got, want := h.key(kindString, unsafe.Pointer(&str)), xxh3.HashStringSeed(str, h.seed); got != want {
				t.Fatalf("seed %#x: string %q hashes as %#x, xxh3 says %#x", seed, str, got, want)
			}
		}
	}
}

// TestHashAnchorValues holds the two hashes that bench/anchorhash/hash.cc,
// a C++ copy of the integer hash, checks its copy against before it times
// anything: if Hash changes, this test fails, and the copy must change with
// it.
func TestHashAnchorValues(t *testing.T) {
	f := mustNew[uint64](t, Config{Capacity: 10})
	for _, c := range []struct{ key, want uint64 }{{1, 0x132f69201eccd0d}, {0xdeadbeef, 0x11197fd12775ffa4}} {
		if got := f.Hash(c.key); got != c.want {
			t.Errorf("Hash(%#x) = %#x, bench/anchorhash/hash.cc expects %#x", c.key, got, c.want)
		}
	}
}

func hashOf[T Hashable](tb testing.TB, key T) uint64 {
	return mustNew[T](tb, Config{Capacity: 10, Seed: 5}).Hash(key)
}

func TestHashAcrossTypes(t *testing.T) {
	eq := func(name string, a, b uint64) {
		t.Helper()
		if a != b {
			t.Errorf("%s: %#x != %#x", name, a, b)
		}
	}
	ne := func(name string, a, b uint64) {
		t.Helper()
		if a == b {
			t.Errorf("%s: both %#x", name, a)
		}
	}
	eq("named uint64", hashOf(t, userID(77)), hashOf(t, uint64(77)))
	eq("int widths", hashOf(t, int8(-3)), hashOf(t, int64(-3)))
	eq("int16/int", hashOf(t, int16(-300)), hashOf(t, -300))
	eq("int32/int64", hashOf(t, int32(math.MinInt32)), hashOf(t, int64(math.MinInt32)))
	eq("uint widths", hashOf(t, uint8(200)), hashOf(t, uint(200)))
	eq("uint16/uint32", hashOf(t, uint16(65535)), hashOf(t, uint32(65535)))
	eq("uintptr", hashOf(t, uintptr(12345)), hashOf(t, uint64(12345)))
	eq("named int8", hashOf(t, smallInt(-1)), hashOf(t, int8(-1)))
	ne("sign", hashOf(t, int8(-1)), hashOf(t, uint8(255)))
	eq("string/bytes", hashOf(t, "abc"), hashOf(t, []byte("abc")))
	eq("named string", hashOf(t, label("abc")), hashOf(t, "abc"))
	eq("named bytes", hashOf(t, blob("abc")), hashOf(t, []byte("abc")))
	eq("empty", hashOf(t, ""), hashOf(t, []byte(nil)))
	ne("strings", hashOf(t, "abc"), hashOf(t, "abd"))
	eq("float widths", hashOf(t, float32(1.5)), hashOf(t, 1.5))
	eq("named float", hashOf(t, temp(2.25)), hashOf(t, float32(2.25)))
	eq("-0", hashOf(t, math.Copysign(0, -1)), hashOf(t, 0.0))
	eq("NaN", hashOf(t, math.Float64frombits(0x7ff8_dead_beef_0001)), hashOf(t, math.NaN()))
	eq("NaN32", hashOf(t, float32(math.NaN())), hashOf(t, math.NaN()))
	ne("floats", hashOf(t, 1.0), hashOf(t, math.Nextafter(1, 2)))
	long := make([]byte, 1000)
	eq("long", hashOf(t, string(long)), xxh3.HashSeed(long, 5))

	// Byte arrays hash as their bytes: like the equal slice and string.
	u, d := uuidKey(7), digestKey(7)
	eq("[16]byte/[]byte", hashOf(t, [16]byte(u)), hashOf(t, u[:]))
	eq("[16]byte/string", hashOf(t, [16]byte(u)), hashOf(t, string(u[:])))
	eq("named [16]byte", hashOf(t, u), hashOf(t, [16]byte(u)))
	eq("[16]byte/xxh3", hashOf(t, u), xxh3.HashSeed(u[:], 5))
	eq("[32]byte/[]byte", hashOf(t, [32]byte(d)), hashOf(t, d[:]))
	eq("named [32]byte", hashOf(t, d), hashOf(t, [32]byte(d)))
	eq("[32]byte/label", hashOf(t, d), hashOf(t, label(d[:])))
	eq("zero [16]byte", hashOf(t, [16]byte{}), hashOf(t, make([]byte, 16)))
	ne("zero [16]byte/empty", hashOf(t, [16]byte{}), hashOf(t, ""))
	ne("uuids", hashOf(t, uuidKey(1)), hashOf(t, uuidKey(2)))
	ne("[16]byte/[32]byte", hashOf(t, [16]byte{}), hashOf(t, [32]byte{}))
}

func TestHashSharedBySeed(t *testing.T) {
	// Filters of different sizes and widths with one seed hash alike, so
	// one Hash probes them all; another seed hashes differently.
	a := mustNew[string](t, Config{Capacity: 10, Seed: 9})
	b := mustNew[string](t, Config{Capacity: 1_000_000, FingerprintBits: 20, Seed: 9})
	c := mustNew[string](t, Config{Capacity: 10, Seed: 10})
	d := mustNew[string](t, Config{Capacity: 10})
	e := mustNew[string](t, Config{Capacity: 10, Seed: DefaultSeed})
	if a.Hash("k") != b.Hash("k") || a.Hash("k") == c.Hash("k") || d.Hash("k") != e.Hash("k") {
		t.Fatal("hash does not follow the seed alone")
	}
	if err := b.Insert("k"); err != nil {
		t.Fatal(err)
	}
	if !b.ContainsHash(a.Hash("k")) {
		t.Fatal("a hash from another filter with the same seed does not probe")
	}
}

func TestEveryKeyType(t *testing.T) {
	roundTrip(t, []int{-1, 0, math.MaxInt, math.MinInt})
	roundTrip(t, []int8{-128, 0, 127})
	roundTrip(t, []int16{-1, 2})
	roundTrip(t, []int32{-1, 2})
	roundTrip(t, []int64{-1, 2})
	roundTrip(t, []uint{1, 2})
	roundTrip(t, []uint8{0, 255})
	roundTrip(t, []uint16{1, 2})
	roundTrip(t, []uint32{1, 2})
	roundTrip(t, []uint64{1, 2})
	roundTrip(t, []uintptr{1, 2})
	roundTrip(t, []float32{1.5, -2})
	roundTrip(t, []float64{1.5, math.Inf(-1)})
	roundTrip(t, []string{"", "a", "long string of bytes"})
	roundTrip(t, [][]byte{nil, {0}, []byte("x")})
	roundTrip(t, []userID{1, 2})
	roundTrip(t, []label{"a", "b"})
	roundTrip(t, []blob{blob("a")})
	roundTrip(t, [][16]byte{{}, {1}, [16]byte(uuidKey(9))})
	roundTrip(t, [][32]byte{{}, {31: 1}, [32]byte(digestKey(9))})
	roundTrip(t, []uuid{uuidKey(1), uuidKey(2), {}})
	roundTrip(t, []digest{digestKey(1), digestKey(2)})
}

// TestByteArrayKeys fills filters of UUID-like and digest-like keys and
// looks them up through every query, on a filter and on views read with
// every type of the family.
func TestByteArrayKeys(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		const n = 5000
		cfg := Config{Capacity: n, Layout: layout, FingerprintBits: 16}
		u := builtFilter(t, cfg, n, uuidKey)
		d := builtFilter(t, cfg, n, digestKey)
		for i := range n {
			if i%5 == 0 {
				continue
			}
			uk, dk := uuidKey(i), digestKey(i)
			if !u.Contains(uk) || u.Count(uk) == 0 || !u.ContainsHash(u.Hash(uk)) || !d.Contains(dk) || d.Count(dk) == 0 {
				t.Fatalf("key %d lost", i)
			}
		}
		misses := 0
		for i := n; i < 3*n; i++ {
			if u.Contains(uuidKey(i)) {
				misses++
			}
		}
		// A sanity bound, far above the expected count (about 1): keys
		// that hashed alike would all be found.
		if expected := float64(2*n) * u.EstimatedFalsePositiveRate(); float64(misses) > 3*expected+10 {
			t.Fatalf("%d false positives in %d lookups, %.1f expected", misses, 2*n, expected)
		}
		keys := make([]uuid, 2*n)
		for i := range keys {
			keys[i] = uuidKey(i)
		}
		found := make([]bool, len(keys))
		if got := u.ContainsBatch(keys, found); got < n*4/5 {
			t.Fatalf("ContainsBatch found %d", got)
		}
		for i := range n {
			if i%5 != 0 && !found[i] {
				t.Fatalf("ContainsBatch lost key %d", i)
			}
		}
	})
}

func roundTrip[T Hashable](t *testing.T, keys []T) {
	t.Helper()
	f := mustNew[T](t, Config{Capacity: 100})
	for _, k := range keys {
		if err := f.Insert(k); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range keys {
		if !f.Contains(k) || f.Count(k) < 1 {
			t.Fatalf("%T %v not found", k, k)
		}
	}
	for _, k := range keys {
		if !f.Delete(k) {
			t.Fatalf("%T %v not deleted", k, k)
		}
	}
	if f.Len() != 0 {
		t.Fatal(f.Len())
	}
}

// TestStructuredKeys checks the false-positive rate where keys are not
// random: consecutive integers (row ids), multiples of 8 (aligned
// offsets) and of 4096 (page addresses), stored and then queried with the
// next n keys of the same pattern. The count of false positives must be
// within five standard deviations of the binomial count the rate predicts,
// as TestFalsePositiveRate asks of random queries.
//
// The same check applied to mulHash, a hash with one multiply, must fail:
// that shows the check can fail, and it is why the filter pays for xxh3's
// second multiply (BenchmarkLookupCost measures what it costs).
func TestStructuredKeys(t *testing.T) {
	t.Parallel()
	n := 100_000
	if testing.Short() {
		n = 30_000
	}
	type count struct {
		hits int
		p    float64
	}
	check := func(f, stride int, hashed bool) count {
		flt := mustNew[uint64](t, Config{Capacity: n, FingerprintBits: f})
		for i := range n {
			k := uint64(i * stride)
			var err error
			if hashed {
				err = flt.InsertHash(mulHash(k))
			} else {
				err = flt.Insert(k)
			}
			if err != nil {
				t.Fatalf("f=%d stride %d: insert %d: %v", f, stride, i, err)
			}
		}
		hits := 0
		for i := n; i < 2*n; i++ {
			k := uint64(i * stride)
			if !hashed && flt.Contains(k) || hashed && flt.ContainsHash(mulHash(k)) {
				hits++
			}
		}
		return count{hits, falsePositiveRate(uint(f), flt.LoadFactor())}
	}
	within := func(c count) (bool, string) {
		mean := c.p * float64(n)
		slack := 5*math.Sqrt(mean*(1-c.p)) + 1
		return math.Abs(float64(c.hits)-mean) <= slack,
			fmt.Sprintf("%d false positives in %d queries, expected %.1f ± %.1f (ratio %.2f)", c.hits, n, mean, slack, float64(c.hits)/mean)
	}
	controlFailed := 0
	for _, f := range []int{8, 12, 16} {
		for _, stride := range []int{1, 8, 4096} {
			ok, msg := within(check(f, stride, false))
			if !ok {
				t.Errorf("f=%d stride %d: %s", f, stride, msg)
			}
			if ok, msg := within(check(f, stride, true)); !ok {
				controlFailed++
				t.Logf("control, one-multiply hash: f=%d stride %d: %s", f, stride, msg)
			}
		}
	}
	if controlFailed == 0 {
		t.Error("the one-multiply hash passed every check: the check cannot tell a weak hash")
	}
}

// TestStrHash pins hasher.str to xxh3 at every length around its written-out
// 9..16-byte path, for several seeds: a filter's keys hash as before.
func TestStrHash(t *testing.T) {
	buf := make([]byte, 40)
	for i := range buf {
		buf[i] = byte(i*167 + 13)
	}
	for _, seed := range []uint64{1, DefaultSeed, 1 << 63, ^uint64(0), 0x9e3779b97f4a7c15} {
		h := newHasher(seed)
		for n := 0; n <= len(buf); n++ {
			for off := 0; off+n <= len(buf); off += 7 {
				b := buf[off : off+n]
				if got, want := h.str(string(b)), xxh3.HashSeed(b, seed); got != want {
					t.Fatalf("seed %#x, %d bytes at %d: str %#x, xxh3 %#x", seed, n, off, got, want)
				}
			}
		}
	}
}
