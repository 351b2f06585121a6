package cuckoo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strconv"
	"testing"
)

// TestKeyedHash checks that a keyed filter hashes every key kind with
// SipHash-2-4 under its key, as its bytes or its widened word, and that
// integer keys still hash alike across their types.
func TestKeyedHash(t *testing.T) {
	s := newSipHasher(testKey)
	ints := mustNew[uint64](t, Config{Capacity: 10, Key: testKey})
	small := mustNew[int8](t, Config{Capacity: 10, Key: testKey})
	strs := mustNew[string](t, Config{Capacity: 10, Key: testKey})
	ids := mustNew[uuid](t, Config{Capacity: 10, Key: testKey})
	floats := mustNew[float32](t, Config{Capacity: 10, Key: testKey})
	var le [8]byte
	binary.LittleEndian.PutUint64(le[:], 42)
	for _, c := range []struct {
		name      string
		got, want uint64
	}{
		{"uint64", ints.Hash(42), s.bytes(le[:])},
		{"int8", small.Hash(-3), s.u64(uint64(^uint64(2)))},
		{"string", strs.Hash("hello"), s.bytes([]byte("hello"))},
		{"uuid", ids.Hash(uuidKey(7)), func() uint64 { u := uuidKey(7); return s.bytes(u[:]) }()},
		{"float32 -0", floats.Hash(float32(negZero())), s.u64(0)},
	} {
		if c.got != c.want {
			t.Errorf("%s: Hash %#x, SipHash %#x", c.name, c.got, c.want)
		}
	}
	if unkeyed := mustNew[uint64](t, Config{Capacity: 10}); unkeyed.Hash(42) == ints.Hash(42) {
		t.Error("a keyed filter hashes like an unkeyed one")
	}
}

func negZero() float64 { z := 0.0; return -z }

// TestKeyedEncoding checks that a keyed filter's encoding decodes, reads and
// opens as a view only with its key: a zero Filter, an unkeyed Filter, a
// Filter with another key, NewView and NewKeyedView with another key all
// refuse it with ErrIncompatible and leave the receiver as it was; with the
// key they answer like the original and continue like it.
func TestKeyedEncoding(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for _, cfg := range []Config{
			{Capacity: 500, FingerprintBits: 12, Layout: layout, Key: testKey, Seed: 5},
			{Capacity: 50, MaxCapacity: 50 << 4, FingerprintBits: 9, Layout: layout, Key: testKey}, // growable too
		} {
			orig := builtFilter(t, cfg, max(cfg.Capacity, cfg.MaxCapacity/3), intKey)
			enc := mustMarshal(t, orig)
			if enc[offVersion] != formatVersion || enc[offFlags] != flagKeyed {
				t.Fatalf("version %d, flags %d: want a keyed encoding of version %d", enc[offVersion], enc[offFlags], formatVersion)
			}
			keys := make([]uint64, 3000)
			for i := range keys {
				keys[i] = intKey(i)
			}
			unkeyedCfg, otherCfg := cfg, cfg
			unkeyedCfg.Key, otherCfg.Key = [16]byte{}, otherKey
			for _, c := range []struct {
				name string
				f    *Filter[uint64]
			}{{"zero", new(Filter[uint64])}, {"unkeyed", mustNew[uint64](t, unkeyedCfg)}, {"other key", mustNew[uint64](t, otherCfg)}} {
				before := bytes.Clone(c.f.c.t.data)
				if err := c.f.UnmarshalBinary(enc); !errors.Is(err, ErrIncompatible) {
					t.Errorf("%s: UnmarshalBinary: %v, want ErrIncompatible", c.name, err)
				}
				if _, err := c.f.ReadFrom(bytes.NewReader(enc)); !errors.Is(err, ErrIncompatible) {
					t.Errorf("%s: ReadFrom: %v, want ErrIncompatible", c.name, err)
				}
				text, _ := orig.MarshalText()
				if err := c.f.UnmarshalText(text); !errors.Is(err, ErrIncompatible) {
					t.Errorf("%s: UnmarshalText: %v, want ErrIncompatible", c.name, err)
				}
				if !bytes.Equal(before, c.f.c.t.data) {
					t.Errorf("%s: a refused decode changed the receiver", c.name)
				}
			}
			if _, err := NewView[uint64](enc); !errors.Is(err, ErrIncompatible) {
				t.Errorf("NewView of a keyed encoding: %v", err)
			}
			if _, err := NewViewUnverified[uint64](enc); !errors.Is(err, ErrIncompatible) {
				t.Errorf("NewViewUnverified of a keyed encoding: %v", err)
			}
			if _, err := NewKeyedView[uint64](enc, otherKey); !errors.Is(err, ErrIncompatible) {
				t.Errorf("NewKeyedView with another key: %v", err)
			}
			if _, err := NewKeyedView[uint64](mustMarshal(t, builtFilter(t, unkeyedCfg, 10, intKey)), testKey); !errors.Is(err, ErrIncompatible) {
				t.Errorf("NewKeyedView of an unkeyed encoding: %v", err)
			}
			dec, read := mustNew[uint64](t, cfg), mustNew[uint64](t, cfg)
			if err := dec.UnmarshalBinary(enc); err != nil {
				t.Fatal(err)
			}
			if _, err := read.ReadFrom(bytes.NewReader(enc)); err != nil {
				t.Fatal(err)
			}
			view, err := NewKeyedView[uint64](enc, testKey)
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range []querier[uint64]{dec, read, view} {
				checkSameAnswers(t, orig, q, keys)
			}
			if view.Hash(12345) != orig.Hash(12345) {
				t.Fatal("the keyed view hashes differently from the filter")
			}
			for _, f := range []*Filter[uint64]{orig, dec} {
				for i := 5000; i < 5300; i++ {
					_ = f.Insert(intKey(i))
				}
			}
			if !bytes.Equal(mustMarshal(t, orig), mustMarshal(t, dec)) {
				t.Fatal("a decoded keyed filter continues differently")
			}
		}
	})
}

// TestKeyedMerge: filters with the same key merge; another key, or none,
// is refused.
func TestKeyedMerge(t *testing.T) {
	a := builtFilter(t, Config{Capacity: 1000, Key: testKey}, 300, intKey)
	b := builtFilter(t, Config{Capacity: 1000, Key: testKey}, 300, func(i int) uint64 { return intKey(i + 1000) })
	if err := a.Merge(b); err != nil || a.Len() != 480 {
		t.Fatalf("Merge: %v, Len %d", err, a.Len())
	}
	for _, cfg := range []Config{{Capacity: 1000}, {Capacity: 1000, Key: otherKey}} {
		if err := a.Merge(builtFilter(t, cfg, 10, intKey)); !errors.Is(err, ErrIncompatible) {
			t.Errorf("Merge with key %x: %v", cfg.Key, err)
		}
	}
}

// TestKeyedAllocations: the keyed hash allocates nothing either.
func TestKeyedAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("under -race, allocation counts include the race detector's")
	}
	f := mustNew[string](t, Config{Capacity: 1000, Key: testKey})
	g := mustNew[uint64](t, Config{Capacity: 1000, Key: testKey, MaxCapacity: 8000})
	keys := []string{"a", "bb", "a somewhat longer key of more than sixteen bytes"}
	for name, op := range map[string]func(){
		"string Insert":   func() { _ = f.Insert(keys[1]) },
		"string Contains": func() { f.Contains(keys[2]) },
		"string Delete":   func() { f.Delete(keys[1]) },
		"uint64 Insert":   func() { _ = g.Insert(77) },
		"uint64 Contains": func() { g.Contains(78) },
		"batch":           func() { g.ContainsBatch([]uint64{1, 2, 3}, nil) },
	} {
		if a := testing.AllocsPerRun(200, op); a != 0 {
			t.Errorf("keyed %s: %v allocations", name, a)
		}
	}
}

// BenchmarkKeyed puts a keyed filter (Config.Key) beside an unkeyed one:
// Contains of uint64 keys in 1M filters at capacity, and inserts filling
// them (op=insert: per key, filters refilled as they fill).
//
//	go test -run '^$' -bench Keyed -count 10 | benchstat -col /hash -
func BenchmarkKeyed(b *testing.B) {
	const n = 1 << 20
	keys := benchKeys[uint64](n, 0)
	for _, hash := range []string{"xxh3", "sip24"} {
		cfg := Config{Capacity: n}
		if hash == "sip24" {
			cfg.Key = testKey
		}
		f := mustNew[uint64](b, cfg)
		for _, k := range keys {
			if err := f.Insert(k); err != nil {
				b.Fatal(err)
			}
		}
		b.Run("op=contains/hash="+hash, func(b *testing.B) {
			found := 0
			for i := 0; b.Loop(); i++ {
				if f.Contains(keys[i&(n-1)]) {
					found++
				}
			}
			if found != b.N {
				b.Fatal("lost keys")
			}
		})
		b.Run("op=insert/hash="+hash, func(b *testing.B) {
			f.Reset()
			for i := 0; b.Loop(); i++ {
				if i%n == 0 {
					f.Reset()
				}
				if err := f.Insert(keys[i%n]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestDecodeKeyed reopens a keyed encoding directly, and refuses the wrong
// key, the zero key and an unkeyed encoding.
func TestDecodeKeyed(t *testing.T) {
	key := [16]byte{9, 8, 7}
	f := mustNew[string](t, Config{Capacity: 1000, Key: key, Layout: SemiSorted})
	for i := range 500 {
		f.Insert(strconv.Itoa(i))
	}
	data, _ := f.MarshalBinary()
	g, err := DecodeKeyed[string](data, key)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := g.MarshalBinary(); !bytes.Equal(again, data) || g.Len() != 500 || !g.Contains("7") {
		t.Fatal("DecodeKeyed gave another filter")
	}
	for _, k := range [][16]byte{{1}, {}} {
		if _, err := DecodeKeyed[string](data, k); !errors.Is(err, ErrIncompatible) {
			t.Fatalf("key %v: %v", k, err)
		}
	}
	plain, _ := mustNew[string](t, Config{Capacity: 10}).MarshalBinary()
	if _, err := DecodeKeyed[string](plain, key); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("unkeyed encoding: %v", err)
	}
}
