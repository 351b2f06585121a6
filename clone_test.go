package cuckoo

import (
	"bytes"
	"io"
	"reflect"
	"testing"
	"unsafe"
)

func TestClone(t *testing.T) {
	t.Parallel()
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for _, cfg := range []Config{
			{Capacity: 500, FingerprintBits: 10, Layout: layout, Seed: 4},
			{Capacity: 300, FingerprintBits: 23, Layout: layout, MaxKicks: 2000}, // a kick buffer of its own
		} {
			testClone(t, cfg)
		}
	})
}

func testClone(t *testing.T, cfg Config) {
	orig := builtFilter(t, cfg, cfg.Capacity, intKey)
	enc := mustMarshal(t, orig)
	c := orig.Clone()
	if !bytes.Equal(mustMarshal(t, c), enc) {
		t.Fatal("the clone encodes differently")
	}
	if unsafe.SliceData(c.c.t.data) == unsafe.SliceData(orig.c.t.data) ||
		(orig.c.kickBuf != nil) != (c.c.kickBuf != nil) ||
		(c.c.kickBuf != nil && unsafe.SliceData(c.c.kickBuf) == unsafe.SliceData(orig.c.kickBuf)) {
		t.Fatal("the clone shares memory with the original")
	}
	keys := make([]uint64, 3*cfg.Capacity)
	for i := range keys {
		keys[i] = intKey(i)
	}
	checkSameAnswers(t, orig, c, keys)

	// Changes to the clone leave the original alone, and the other way round.
	for i := cfg.Capacity; i < cfg.Capacity+200; i++ {
		_ = c.Insert(intKey(i))
	}
	c.Delete(intKey(1))
	if !bytes.Equal(mustMarshal(t, orig), enc) || !orig.Contains(intKey(1)) {
		t.Fatal("changing the clone changed the original")
	}
	cloneEnc := mustMarshal(t, c)
	orig.Reset()
	if !bytes.Equal(mustMarshal(t, c), cloneEnc) || !c.Contains(intKey(2)) {
		t.Fatal("changing the original changed the clone")
	}

	// Same operations, same bytes: the clone took the PRNG state along.
	a := builtFilter(t, cfg, cfg.Capacity, intKey)
	b := a.Clone()
	run := func(f *Filter[uint64]) []byte {
		for i := cfg.Capacity; i < cfg.Capacity*5/4; i++ { // displacements, failures
			_ = f.Insert(intKey(i))
		}
		for i := 0; i < cfg.Capacity; i += 3 {
			f.Delete(intKey(i))
		}
		for i := 3 * cfg.Capacity; i < 4*cfg.Capacity; i++ {
			_ = f.Insert(intKey(i))
		}
		return mustMarshal(t, f)
	}
	if !bytes.Equal(run(a), run(b)) {
		t.Fatal("the clone continues differently from the original")
	}
}

func TestCloneDecodedAndZero(t *testing.T) {
	orig := builtFilter(t, Config{Capacity: 200}, 200, stringKey)
	enc := mustMarshal(t, orig)
	var read Filter[string]
	if _, err := read.ReadFrom(bytes.NewReader(enc)); err != nil {
		t.Fatal(err)
	}
	c := read.Clone()
	read.Reset()
	if !bytes.Equal(mustMarshal(t, c), enc) {
		t.Fatal("the clone of a read filter shares its table")
	}

	var zero Filter[string]
	z := zero.Clone()
	if z == nil || z == &zero || z.EncodedSize() != 0 || z.Seed() != 0 {
		t.Fatal("the clone of a zero Filter is not a new zero Filter")
	}
	if _, err := z.WriteTo(io.Discard); err == nil {
		t.Fatal("the clone of a zero Filter has a table")
	}
	if err := z.UnmarshalBinary(enc); err != nil || zero.c.t.data != nil {
		t.Fatalf("decoding into the clone of a zero Filter: %v", err)
	}
}

// TestCopySharesTable shows what Filter's doc warns of: a copied Filter
// value shares the table. It copies through reflect, since go vet reports
// g := *f (TestVetReportsCopies).
func TestCopySharesTable(t *testing.T) {
	f := mustNew[uint64](t, Config{Capacity: 100})
	g := new(Filter[uint64])
	reflect.ValueOf(g).Elem().Set(reflect.ValueOf(f).Elem())
	if err := g.Insert(7); err != nil {
		t.Fatal(err)
	}
	if !f.Contains(7) || f.Len() != 0 || g.Len() != 1 {
		t.Fatalf("copy: f.Contains %v, Len %d and %d", f.Contains(7), f.Len(), g.Len())
	}
}
