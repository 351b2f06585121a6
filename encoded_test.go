package cuckoo

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"unsafe"
)

// encodings returns a filter of n keys and its encodings in every version
// that can hold it: with a header, and compact for a fixed Config.
func encodings[T Hashable](tb testing.TB, cfg Config, n int, key func(int) T) (*Filter[T], map[string][]byte) {
	f := builtFilter(tb, cfg, n, key)
	encs := map[string][]byte{"headed": mustMarshal(tb, f)}
	if cfg.MaxCapacity == 0 {
		encs["compact"] = mustCompact(tb, f)
	}
	return f, encs
}

// TestContainsEncoded: ContainsEncoded and ContainsHashEncoded answer like a
// view of the same bytes, for every layout, a spread of widths, fixed and
// growable filters, and integer and string keys, under every probe
// implementation.
func TestContainsEncoded(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		forEachImpl(t, func(t *testing.T) {
			for _, f := range []int{4, 5, 8, 11, 12, 13, 16, 17, 24, 32} {
				for _, grow := range []int{0, 8} {
					cfg := Config{Capacity: 200, FingerprintBits: f, Layout: layout, MaxCapacity: 200 * grow, Seed: uint64(f & 1)} // odd widths another seed
					if f+3 > 32 && grow > 0 {
						continue
					}
					testContainsEncoded(t, cfg, intKey)
					testContainsEncoded(t, cfg, stringKey)
				}
			}
		})
	})
}

func testContainsEncoded[T Hashable](t *testing.T, cfg Config, key func(int) T) {
	n := cfg.Capacity
	if cfg.MaxCapacity > 0 {
		n = cfg.MaxCapacity / 3 // grown, but not to the last stage
	}
	f, encs := encodings(t, cfg, n, key)
	for name, enc := range encs {
		v, err := NewView[T](enc)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 * n {
			k := key(i)
			got, err := ContainsEncoded(enc, k)
			if err != nil || got != v.Contains(k) || got != f.Contains(k) {
				t.Fatalf("%+v %s: ContainsEncoded(%v) = %v, %v; the view says %v", cfg, name, k, got, err, v.Contains(k))
			}
			if got, err := ContainsHashEncoded(enc, f.Hash(k)); err != nil || got != v.Contains(k) {
				t.Fatalf("%+v %s: ContainsHashEncoded = %v, %v", cfg, name, got, err)
			}
		}
	}
}

// TestContainsEncodedErrors: bytes it cannot read answer true, with an
// error wrapping the sentinel NewView's would.
func TestContainsEncodedErrors(t *testing.T) {
	_, encs := encodings(t, Config{Capacity: 50}, 50, intKey)
	keyed := mustMarshal(t, builtFilter(t, Config{Capacity: 50, Key: [16]byte{1}}, 50, intKey))
	for name, c := range map[string]struct {
		data []byte
		want error
	}{
		"nil":                 {nil, ErrCorrupt},
		"garbage":             {[]byte("not a filter at all"), ErrCorrupt},
		"keyed":               {keyed, ErrIncompatible},
		"headed, cut":         {encs["headed"][:len(encs["headed"])-1], ErrCorrupt},
		"compact, cut":        {encs["compact"][:len(encs["compact"])-1], ErrCorrupt},
		"another version":     {append([]byte{'C', 'K', 'O', 'O', 9, 0}, make([]byte, 100)...), ErrUnsupportedVersion},
		"compact as a string": {encs["compact"], ErrIncompatible},
	} {
		var ok bool
		var err error
		if name == "compact as a string" {
			ok, err = ContainsEncoded(c.data, "key")
		} else {
			ok, err = ContainsEncoded(c.data, uint64(1))
		}
		if !ok || !errors.Is(err, c.want) {
			t.Errorf("%s: %v, %v; want true, %v", name, ok, err, c.want)
		}
	}
	// A hash answers for a filter of any family.
	f := builtFilter(t, Config{Capacity: 50}, 50, stringKey)
	if ok, err := ContainsHashEncoded(mustCompact(t, f), f.Hash("key-1")); !ok || err != nil {
		t.Errorf("ContainsHashEncoded of a string filter: %v, %v", ok, err)
	}
	// but not for a trailer that names no family.
	bad := slices.Clone(mustCompact(t, f))
	bad[len(bad)-1] &^= 0xc0 // the shape byte's family bits
	if ok, err := ContainsHashEncoded(bad, f.Hash("key-1")); !ok || !errors.Is(err, ErrCorrupt) {
		t.Errorf("ContainsHashEncoded of family 0: %v, %v; want true, ErrCorrupt", ok, err)
	}
}

// TestContainsEncodedAllocs: no allocation, for every key type and both
// kinds of encoding, hits and misses.
func TestContainsEncodedAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("under -race, allocation counts include the race detector's")
	}
	forEachLayout(t, func(t *testing.T, layout Layout) {
		cfg := Config{Capacity: 120, FingerprintBits: 11, Layout: layout} // int8 keys: 120 distinct
		testEncodedAllocs(t, cfg, func(i int) uint64 { return uint64(i) })
		testEncodedAllocs(t, cfg, func(i int) string { return "key-" + strconv.Itoa(i) })
		testEncodedAllocs(t, cfg, func(i int) []byte { return []byte("key-" + strconv.Itoa(i)) })
		testEncodedAllocs(t, cfg, func(i int) int8 { return int8(i) })
		testEncodedAllocs(t, cfg, func(i int) float32 { return float32(i) / 3 })
		testEncodedAllocs(t, cfg, func(i int) userID { return userID(i) })
		testEncodedAllocs(t, cfg, uuidKey)
		testEncodedAllocs(t, cfg, digestKey)
	})
}

func testEncodedAllocs[T Hashable](t *testing.T, cfg Config, key func(int) T) {
	f, encs := encodings(t, cfg, cfg.Capacity, key)
	for name, enc := range encs {
		hit, miss := key(1), key(cfg.Capacity+1)
		h := f.Hash(hit)
		for what, op := range map[string]func(){
			"hit":  func() { _, _ = ContainsEncoded(enc, hit) },
			"miss": func() { _, _ = ContainsEncoded(enc, miss) },
			"hash": func() { _, _ = ContainsHashEncoded(enc, h) },
		} {
			if a := testing.AllocsPerRun(100, op); a != 0 {
				t.Errorf("%T %s %s: %v allocations", hit, name, what, a)
			}
		}
	}
}

// FuzzContainsEncoded probes arbitrary bytes: never a panic; an answer like
// NewViewUnverified's view where it accepts them, and true with a format
// error where it does not.
func FuzzContainsEncoded(f *testing.F) {
	addFormatSeeds(f)
	for _, layout := range layouts {
		for _, bits := range []int{4, 8, 9, 16, 17, 32} {
			keys := []string{"a", "b", "c", "d", "e", "f", "g"}
			b, err := Build(Config{FingerprintBits: bits, Layout: layout}, keys)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(mustCompact(f, b))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for i := range 16 {
			checkEncodedLikeView(t, data, uint64(i))
			checkEncodedLikeView(t, data, strconv.Itoa(i))
		}
		checkHashEncodedReads(t, data)
	})
}

// checkHashEncodedReads checks that ContainsHashEncoded, which answers for
// every key family, reads what a view of some family reads, and nothing
// else.
func checkHashEncodedReads(t *testing.T, data []byte) {
	_, err := ContainsHashEncoded(data, 1)
	_, e1 := NewViewUnverified[uint64](data)
	_, e2 := NewViewUnverified[string](data)
	_, e3 := NewViewUnverified[float64](data)
	if readable := e1 == nil || e2 == nil || e3 == nil; (err == nil) != readable {
		t.Fatalf("ContainsHashEncoded: %v; views: %v, %v, %v", err, e1, e2, e3)
	}
	if err != nil {
		checkFormatErr(t, err, "ContainsHashEncoded")
	}
}

func checkEncodedLikeView[T Hashable](t *testing.T, data []byte, key T) {
	got, err := ContainsEncoded(data, key)
	v, verr := NewViewUnverified[T](data)
	if fmt.Sprint(err) != fmt.Sprint(verr) {
		t.Fatalf("ContainsEncoded: %v; NewViewUnverified: %v", err, verr)
	}
	if err != nil {
		checkFormatErr(t, err, "ContainsEncoded")
		if !got {
			t.Fatal("false with an error")
		}
		return
	}
	if want := v.Contains(key); got != want {
		t.Fatalf("ContainsEncoded(%v) = %v, the view says %v", key, got, want)
	}
	if got, _ := ContainsHashEncoded(data, v.Hash(key)); got != v.Contains(key) {
		t.Fatalf("ContainsHashEncoded(%v) = %v", key, got)
	}
}

// TestContainsEncodedFastPath: containsEncoded's fast path answers as
// containsOther, the general reader, for every shape byte, flags of every
// count length without a seed, and a few count bytes, at every length up
// to 80: the same answer and the same error.
func TestContainsEncodedFastPath(t *testing.T) {
	t.Parallel()
	h := uint64(0x0123456789abcdef)
	p := unsafe.Pointer(&h)
	data := make([]byte, 80)
	for n := 4; n <= len(data); n++ {
		for shape := range 256 {
			for c := range 8 {
				for _, count := range []byte{0, 1, 0x5a} {
					d := data[:n]
					for i := range d {
						d[i] = 0x5a
					}
					d[0], d[n-1], d[n-2], d[n-3], d[n-4] = compactVersion, byte(shape), compactMark|byte(c), byte(n), count
					ok, err := containsEncoded(d, kindHash, p)
					wok, werr := containsOther(d, kindHash, p)
					if ok != wok || fmt.Sprint(err) != fmt.Sprint(werr) {
						t.Fatalf("% x: fast path %v, %v; containsOther %v, %v", d, ok, err, wok, werr)
					}
				}
			}
		}
	}
}
