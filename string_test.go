package cuckoo

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestStringHidesSeed prints filters and views with every common verb, alone
// and inside structs: the output describes them and never contains the seed,
// the PRNG state or the table.
func TestStringHidesSeed(t *testing.T) {
	const seed = 0x5eed_c0de_1234_abcd
	f := mustNew[string](t, Config{Capacity: 1000, Seed: seed})
	for i := range 1000 { // to capacity: the PRNG state moves on from the seed
		if err := f.Insert(stringKey(i)); err != nil {
			t.Fatal(err)
		}
	}
	_ = f.Insert("one too many")
	enc := mustMarshal(t, f)
	v, err := NewView[[]byte](enc)
	if err != nil {
		t.Fatal(err)
	}
	type holder struct { // holding a *Filter: go vet reports a Filter held by value and copied
		F    *Filter[string]
		Name string
	}
	h := holder{F: new(Filter[string])}
	if err := h.F.UnmarshalBinary(enc); err != nil {
		t.Fatal(err)
	}
	var forbidden []string
	for _, x := range []uint64{seed, f.c.rng} {
		forbidden = append(forbidden, strconv.FormatUint(x, 10), fmt.Sprintf("%x", x), fmt.Sprintf("%X", x))
	}
	if f.c.rng == seed {
		t.Fatal("the PRNG state did not move")
	}
	values := []struct {
		name string
		v    any
		want string // a part of the description
	}{
		{"*Filter", f, "(string/[]byte/[N]byte keys, 13-bit Packed, 1001 items, capacity 1000, load 94.1%)"},
		{"*View", v, "(string/[]byte/[N]byte keys, 13-bit Packed, 1001 items, capacity 1000, load 94.1%)"},
		{"View", *v, "1001 items"},
		{"struct holding a Filter", h, "capacity 1000"},
		{"*struct holding a Filter", &h, "13-bit Packed"},
		{"[]*Filter", []*Filter[string]{f}, "1001 items"},
	}
	for _, c := range values {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%d", "%x", "%X", "%q", "%40s", "%T %v"} {
			out := fmt.Sprintf(verb, c.v)
			if strings.HasPrefix(verb, "%T") {
				out = fmt.Sprintf(verb, c.v, c.v)
			}
			for _, s := range forbidden {
				if strings.Contains(strings.ToLower(out), strings.ToLower(s)) {
					t.Fatalf("%s with %s shows the seed or PRNG state %s: %s", c.name, verb, s, out)
				}
			}
			if len(out) > 500 {
				t.Fatalf("%s with %s prints %d bytes: %.200s...", c.name, verb, len(out), out)
			}
			if (verb == "%v" || verb == "%+v" || verb == "%s" || verb == "%#v") && !strings.Contains(out, c.want) {
				t.Fatalf("%s with %s: %s, want it to contain %q", c.name, verb, out, c.want)
			}
		}
	}

	// The exact descriptions, and the key type in %#v.
	g := builtFilter(t, Config{Capacity: 100, FingerprintBits: 9, Layout: SemiSorted}, 50, intKey)
	gv, err := NewView[int32](mustMarshal(t, g))
	if err != nil {
		t.Fatal(err)
	}
	u := builtFilter(t, Config{Capacity: 10, FingerprintBits: 32}, 10, uuidKey)
	for _, c := range []struct{ got, want string }{
		{g.String(), "cuckoo.Filter(integer keys, 9-bit SemiSorted, 40 items, capacity 100, load 26.3%)"},
		{fmt.Sprint(g), g.String()},
		{fmt.Sprintf("%#v", g), "cuckoo.Filter[uint64](integer keys, 9-bit SemiSorted, 40 items, capacity 100, load 26.3%)"},
		{gv.String(), "cuckoo.View(integer keys, 9-bit SemiSorted, 40 items, capacity 100, load 26.3%)"},
		{fmt.Sprintf("%#v", gv), "cuckoo.View[int32](integer keys, 9-bit SemiSorted, 40 items, capacity 100, load 26.3%)"},
		{fmt.Sprintf("%#v", u), "cuckoo.Filter[cuckoo.uuid](string/[]byte/[N]byte keys, 32-bit Packed, 8 items, capacity 10, load 25%)"},
		{fmt.Sprint(new(Filter[float32])), "cuckoo.Filter(zero: made neither by New nor by decoding)"},
		{fmt.Sprint((*Filter[int])(nil), (*View[int])(nil)), "<nil> <nil>"},
	} {
		if c.got != c.want {
			t.Errorf("got  %s\nwant %s", c.got, c.want)
		}
	}
}

// TestZeroPrints checks what the zero Filter, View and ConcurrentFilter
// print: that each is zero, with the ways of making one of its own type.
func TestZeroPrints(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{fmt.Sprint(new(Filter[float32])), "cuckoo.Filter(zero: made neither by New nor by decoding)"},
		{fmt.Sprintf("%#v", new(Filter[float32])), "cuckoo.Filter[float32](zero: made neither by New nor by decoding)"},
		{fmt.Sprint(new(View[string])), "cuckoo.View(zero: made by no NewView function)"},
		{fmt.Sprintf("%#v", new(View[string])), "cuckoo.View[string](zero: made by no NewView function)"},
		{fmt.Sprint(new(ConcurrentFilter[int])), "cuckoo.ConcurrentFilter(zero: made neither by NewConcurrent nor by decoding)"},
		{fmt.Sprintf("%#v", new(ConcurrentFilter[int])), "cuckoo.ConcurrentFilter[int](zero: made neither by NewConcurrent nor by decoding)"},
	} {
		if c.got != c.want {
			t.Errorf("got  %s\nwant %s", c.got, c.want)
		}
	}
}
