package cuckoo

import (
	"bytes"
	"fmt"
	"testing"
	"unsafe"

	"github.com/zeebo/xxh3"
)

// probeConfigs are tables of every probe a lookup switches on.
var probeConfigs = []Config{
	{Capacity: 3000, FingerprintBits: 8},                                      // probe8
	{Capacity: 3000, FingerprintBits: 12},                                     // probeBytes
	{Capacity: 3000, FingerprintBits: 13},                                     // probeNibbles
	{Capacity: 3000, FingerprintBits: 16},                                     // probe16
	{Capacity: 3000, FingerprintBits: 13, Layout: SemiSorted},                 // probeSemi
	{Capacity: 3000, FingerprintBits: 12, Layout: SemiSorted},                 // probeSemiNibbles
	{Capacity: 3000, FingerprintBits: 13, Layout: SemiSorted, Generations: 4}, // probeExpSemi
	{Capacity: 3000, FingerprintBits: 13, Generations: 4},                     // probeNibbles, generation bits
	{Capacity: 100, MaxCapacity: 3000, FingerprintBits: 13},                   // probeGrown, then probeGrownNarrow
	{Capacity: 100, MaxCapacity: 3000, FingerprintBits: 20},                   // probeGrown, grown
	{Capacity: 3000, FingerprintBits: 20},                                     // probeGeneric
	{Capacity: 3000, FingerprintBits: 4, Layout: SemiSorted},                  // probeGeneric, semi-sorted
}

// TestProbeKinds pins that every way of making a filter, a view or a
// concurrent filter gives its reader the key class and its table the probe
// New gives the same Config (a grown table: that of its stage), and that
// lookups and counts through them answer as the codec does: a concurrent
// filter's through its own lookup and copies too.
func TestProbeKinds(t *testing.T) {
	t.Parallel()
	seen := map[probeKind]bool{}
	for _, cfg := range probeConfigs {
		t.Run(fmt.Sprintf("f=%d/%v/G=%d/max=%d", cfg.FingerprintBits, cfg.Layout, cfg.Generations, cfg.MaxCapacity), func(t *testing.T) {
			for _, keyed := range []bool{false, true} {
				c := cfg
				if keyed {
					c.Key = [16]byte{1, 2, 3}
				}
				seen[mustNew[uint64](t, c).c.t.probe] = true // a growable one's first stage
				rs, cs := probeReaders(t, c)
				for name, r := range rs {
					checkProbe(t, name, r, c)
					seen[r.t.probe] = true
				}
				for name, cc := range cs {
					checkConcurrentProbe(t, name, cc, c)
				}
			}
		})
	}
	for p := probe8; p <= probeGeneric; p++ {
		if !seen[p] {
			t.Errorf("no filter has probe %d", p)
		}
	}
}

// probeReaders makes a filter of cfg in every way there is, fills it to
// half its capacity (or grows it), and returns each one's reader, and the
// state of each concurrent one.
func probeReaders(t *testing.T, cfg Config) (map[string]reader, map[string]*concurrent) {
	t.Helper()
	keys := make([]uint64, cfg.Capacity/2)
	if cfg.MaxCapacity > 0 {
		keys = make([]uint64, cfg.MaxCapacity/2) // past Capacity: the table doubles
	}
	for i := range keys {
		keys[i] = intKey(i)
	}
	f := mustNew[uint64](t, cfg)
	for _, k := range keys {
		if err := f.Insert(k); err != nil {
			t.Fatal(err)
		}
	}
	if cfg.MaxCapacity > 0 && f.c.t.k == 0 {
		t.Fatal("the growable filter did not grow")
	}
	rs := map[string]reader{"New": f.c.reader, "Clone": f.Clone().c.reader}
	data := mustMarshal(t, f)
	var g Filter[uint64]
	if cfg.Key != ([16]byte{}) {
		d, err := DecodeKeyed[uint64](data, cfg.Key)
		if err != nil {
			t.Fatal(err)
		}
		rs["DecodeKeyed"] = d.c.reader
		v, err := NewKeyedView[uint64](data, cfg.Key)
		if err != nil {
			t.Fatal(err)
		}
		rs["NewKeyedView"] = v.r
	} else {
		if err := g.UnmarshalBinary(data); err != nil {
			t.Fatal(err)
		}
		rs["UnmarshalBinary"] = g.c.reader
		var h Filter[uint64]
		if _, err := h.ReadFrom(bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		rs["ReadFrom"] = h.c.reader
		text, err := f.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var x Filter[uint64]
		if err := x.UnmarshalText(text); err != nil {
			t.Fatal(err)
		}
		rs["UnmarshalText"] = x.c.reader
		v, err := NewView[uint64](data)
		if err != nil {
			t.Fatal(err)
		}
		rs["NewView"] = v.r
		if cfg.MaxCapacity == 0 && cfg.Generations == 0 {
			var y Filter[uint64]
			if err := y.UnmarshalBinary(mustCompact(t, f)); err != nil {
				t.Fatal(err)
			}
			rs["compact"] = y.c.reader
		}
	}
	if cfg.MaxCapacity == 0 && cfg.Generations == 0 {
		bc := cfg
		bc.Capacity = 0
		b, err := Build(bc, keys)
		if err != nil {
			t.Fatal(err)
		}
		rs["Build"] = b.c.reader
	}
	c := NewConcurrentFrom(f)
	rs["NewConcurrentFrom"] = c.c.view()
	rs["Snapshot"] = c.Snapshot().c.reader
	nc := mustNewConcurrent[uint64](t, cfg)
	for _, k := range keys {
		if err := nc.Insert(k); err != nil {
			t.Fatal(err)
		}
	}
	rs["NewConcurrent"] = nc.c.view()
	cc := c.Clone()
	rs["ConcurrentFilter.Clone"] = cc.c.view()
	return rs, map[string]*concurrent{"NewConcurrentFrom": &c.c, "ConcurrentFilter.Clone": &cc.c, "NewConcurrent": &nc.c}
}

// checkConcurrentProbe checks c's key class, and its lookups and counts
// through its own switch (concurrent.lookup and concurrent.copies, which
// Contains, Count and their Hash forms take) against the codec.
func checkConcurrentProbe(t *testing.T, name string, c *concurrent, cfg Config) {
	t.Helper()
	if want := mustNew[uint64](t, cfg).c.keys; c.keys != want {
		t.Errorf("concurrent %s: key class %#x, want %#x", name, c.keys, want)
	}
	r := c.view()
	for i := range 2 * cfg.Capacity {
		k := intKey(i)
		h := r.hash(unsafe.Pointer(&k))
		n := r.t.countMatches(r.t.place(h))
		if got := c.lookup(c.keys, 0, unsafe.Pointer(&k)); got != (n > 0) {
			t.Fatalf("concurrent %s: lookup of key %d: %v, the codec counts %d", name, i, got, n)
		}
		if got := c.lookup(probeHashed, h, nil); got != (n > 0) {
			t.Fatalf("concurrent %s: lookup of hash of key %d: %v, the codec counts %d", name, i, got, n)
		}
		if got := c.copies(c.keys, 0, unsafe.Pointer(&k)); got != n {
			t.Fatalf("concurrent %s: count of key %d: %d, the codec says %d", name, i, got, n)
		}
		if got := c.copies(probeHashed, h, nil); got != n {
			t.Fatalf("concurrent %s: count of hash of key %d: %d, the codec says %d", name, i, got, n)
		}
	}
}

// checkProbe checks r's key class and probe, and its lookups: of keys
// inserted and not, through the probe and by the codec, which does not
// take it.
func checkProbe(t *testing.T, name string, r reader, cfg Config) {
	t.Helper()
	want := mustNew[uint64](t, cfg).c.reader
	wantKeys := probeInts
	if cfg.Key != ([16]byte{}) {
		wantKeys = probeKeys
	}
	if r.keys != wantKeys || want.keys != wantKeys {
		t.Errorf("%s: key class %#x, New's %#x, want %#x", name, r.keys, want.keys, wantKeys)
	}
	stage := tableShape(r.t.m0, r.t.fbits, r.t.g, r.t.k, r.t.layout, r.t.gens)
	if r.t.k == 0 && r.t.probe != want.t.probe || r.t.probe != stage.probe || r.t.probe != r.t.probeOf() {
		t.Errorf("%s: probe %d, New's %d, its stage's %d", name, r.t.probe, want.t.probe, stage.probe)
	}
	if r.t.probe == probeNone || r.t.probe > probeGeneric {
		t.Errorf("%s: probe %d", name, r.t.probe)
	}
	for i := range 2 * cfg.Capacity {
		k := intKey(i)
		h := r.hash(unsafe.Pointer(&k))
		ref := r.t.countMatches(r.t.place(h)) > 0
		if got := r.lookup(r.keys, 0, unsafe.Pointer(&k)); got != ref {
			t.Fatalf("%s: lookup of key %d: %v, the codec says %v", name, i, got, ref)
		}
		if got := r.containsHash(h); got != ref {
			t.Fatalf("%s: lookup of hash of key %d: %v, the codec says %v", name, i, got, ref)
		}
		n := r.t.countMatches(r.t.place(h))
		if got := r.copies(r.keys, 0, unsafe.Pointer(&k)); got != n {
			t.Fatalf("%s: count of key %d: %d, the codec says %d", name, i, got, n)
		}
		if got := r.copies(probeHashed, h, nil); got != n {
			t.Fatalf("%s: count of hash of key %d: %d, the codec says %d", name, i, got, n)
		}
		if i < cfg.Capacity/2 && !ref {
			t.Fatalf("%s: key %d not found", name, i)
		}
	}
}

// TestProbeKeyClasses pins the key class of each key type, and that of a
// zero reader and a zero concurrent filter, which find nothing.
func TestProbeKeyClasses(t *testing.T) {
	t.Parallel()
	cfg, keyed := Config{Capacity: 100}, Config{Capacity: 100, Key: [16]byte{1}}
	for _, c := range []struct {
		name      string
		got, want probeKind
	}{
		{"uint64", mustNew[uint64](t, cfg).c.keys, probeInts},
		{"int", mustNew[int](t, cfg).c.keys, probeInts},
		{"string", mustNew[string](t, cfg).c.keys, probeString},
		{"[]byte", mustNew[[]byte](t, cfg).c.keys, probeString},
		{"float64", mustNew[float64](t, cfg).c.keys, probeKeys},
		{"int32", mustNew[int32](t, cfg).c.keys, probeKeys},
		{"[16]byte", mustNew[[16]byte](t, cfg).c.keys, probeKeys},
		{"keyed uint64", mustNew[uint64](t, keyed).c.keys, probeKeys},
		{"keyed string", mustNew[string](t, keyed).c.keys, probeKeys},
		{"keyed []byte", mustNew[[]byte](t, keyed).c.keys, probeKeys},
	} {
		if c.got != c.want {
			t.Errorf("%s: key class %#x, want %#x", c.name, c.got, c.want)
		}
	}
	var r reader
	k := uint64(1)
	if r.t.probe != probeNone || r.lookup(r.keys, 0, unsafe.Pointer(&k)) || r.containsHash(1) ||
		r.copies(r.keys, 0, unsafe.Pointer(&k)) != 0 || r.copies(probeHashed, 1, nil) != 0 {
		t.Error("a zero reader found a key")
	}
	var c concurrent
	if c.lookup(c.keys, 0, unsafe.Pointer(&k)) || c.lookup(probeHashed, 1, nil) ||
		c.copies(c.keys, 0, unsafe.Pointer(&k)) != 0 || c.copies(probeHashed, 1, nil) != 0 {
		t.Error("a zero concurrent filter found a key")
	}
	var zs Filter[string]
	var zc ConcurrentFilter[[]byte]
	if zs.c.keys = probeString; zs.Contains("0123456789") || zs.Count("0123456789") != 0 ||
		zc.c.lookup(probeString, 0, unsafe.Pointer(&[]byte{1})) || zc.c.copies(probeString, 0, unsafe.Pointer(&[]byte{1})) != 0 {
		t.Error("a zero filter of string keys found a key")
	}
}

// TestProbeStrings checks lookups and counts of string and []byte keys
// (probeString, and probeKeys when keyed), of lengths on both sides of
// str16's 9 to 16 bytes, through every probe, in a Filter and a
// ConcurrentFilter, against the codec, and their hash against xxh3.
func TestProbeStrings(t *testing.T) {
	t.Parallel()
	for _, cfg := range probeConfigs {
		for _, keyed := range []bool{false, true} {
			if keyed {
				cfg.Key = [16]byte{1, 2, 3}
			}
			for _, n := range []int{5, 9, 12, 16, 17, 40} {
				name := fmt.Sprintf("f=%d/%v/G=%d/max=%d/keyed=%v/%d bytes", cfg.FingerprintBits, cfg.Layout, cfg.Generations, cfg.MaxCapacity, keyed, n)
				checkStringProbe[string](t, name+"/string", cfg, n)
				checkStringProbe[[]byte](t, name+"/[]byte", cfg, n)
			}
		}
	}
}

func checkStringProbe[T string | []byte](t *testing.T, name string, cfg Config, n int) {
	t.Helper()
	f, c := mustNew[T](t, cfg), mustNewConcurrent[T](t, cfg)
	key := func(i int) T {
		b, x := make([]byte, n), intKey(i)
		for j := range b {
			b[j] = byte(x>>(8*(j%8))) + byte(j/8)
		}
		return T(b)
	}
	inserted := max(cfg.Capacity, cfg.MaxCapacity) / 2
	for i := range inserted {
		if err := f.Insert(key(i)); err != nil {
			t.Fatal(name, err)
		}
		if err := c.Insert(key(i)); err != nil {
			t.Fatal(name, err)
		}
	}
	for i := range 2 * inserted {
		k := key(i)
		h := f.Hash(k)
		if cfg.Key == ([16]byte{}) && h != xxh3.HashSeed([]byte(k), f.Seed()) {
			t.Fatalf("%s: key %d hashes to %#x, not xxh3's", name, i, h)
		}
		want := f.c.t.countMatches(f.c.t.place(h))
		if got := f.Count(k); got != want || f.Contains(k) != (want > 0) || f.ContainsHash(h) != (want > 0) {
			t.Fatalf("%s: key %d: Count %d, Contains %v, the codec counts %d", name, i, got, f.Contains(k), want)
		}
		if i < inserted && want == 0 {
			t.Fatalf("%s: key %d not found", name, i)
		}
		r := c.c.view()
		want = r.t.countMatches(r.t.place(h))
		if got := c.Count(k); got != want || c.Contains(k) != (want > 0) || c.ContainsHash(h) != (want > 0) {
			t.Fatalf("%s: concurrent, key %d: Count %d, Contains %v, the codec counts %d", name, i, got, c.Contains(k), want)
		}
	}
}
