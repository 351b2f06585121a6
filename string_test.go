package cuckoo

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestNothingSecretShown looks for a filter's secrets in everything it
// shows. The secrets: the Key of a keyed filter, as bytes, as its two
// little-endian words in bases 2, 8, 10 and 16 and as hex of its halves;
// the Seed of a filter filled to capacity, and its PRNG state, in decimal
// and hex. What is shown: keyed and seeded Filters, Views and
// ConcurrentFilters printed with every verb, by pointer and by value (a
// ConcurrentFilter by value through reflect, since go vet flags the copy
// of its lock), alone and inside structs and slices; and a keyed filter's
// encodings, its text form and decoding errors. Printing a seeded filter
// describes it in under 500 bytes, never showing the table.
func TestNothingSecretShown(t *testing.T) {
	// A keyed filter, view and concurrent filter.
	cfg := Config{Capacity: 100, Key: testKey}
	kf := builtFilter(t, cfg, 100, intKey)
	kenc := mustMarshal(t, kf)
	kv, err := NewKeyedView[uint64](kenc, testKey)
	if err != nil {
		t.Fatal(err)
	}
	kc := mustNewConcurrent[string](t, cfg)
	_ = kc.Insert("x")
	ktext, _ := kf.MarshalText()
	_, e1 := NewKeyedView[uint64](kenc, otherKey)
	e2 := new(Filter[uint64]).UnmarshalBinary(kenc)

	// A seeded filter filled to capacity, so that its PRNG state has moved
	// on from the seed, and its view.
	const seed = 0x5eed_c0de_1234_abcd
	f := mustNew[string](t, Config{Capacity: 1000, Seed: seed})
	for i := range 1000 {
		if err := f.Insert(stringKey(i)); err != nil {
			t.Fatal(err)
		}
	}
	_ = f.Insert("one too many")
	if f.c.rng == seed {
		t.Fatal("the PRNG state did not move")
	}
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

	secrets := []string{string(testKey[:]), string(testKey[:8]), string(testKey[8:]), fmt.Sprintf("%x", testKey[:8]), fmt.Sprintf("%x", testKey[8:])}
	for _, w := range []uint64{binary.LittleEndian.Uint64(testKey[:8]), binary.LittleEndian.Uint64(testKey[8:])} {
		for _, base := range []int{2, 8, 10, 16} {
			secrets = append(secrets, strconv.FormatUint(w, base))
		}
	}
	for _, x := range []uint64{seed, f.c.rng} {
		secrets = append(secrets, strconv.FormatUint(x, 10), fmt.Sprintf("%x", x))
	}
	// check fails if s shows a secret, in upper or lower case.
	check := func(what, s string) {
		t.Helper()
		for _, secret := range secrets {
			if strings.Contains(s, secret) || strings.Contains(strings.ToLower(s), strings.ToLower(secret)) {
				t.Fatalf("%s shows a secret (%q): %q", what, secret, s)
			}
		}
	}

	values := []struct {
		name string
		v    any
		want string // a part of the description, if it is described
	}{
		{"keyed *Filter", kf, "keyed"},
		{"keyed Filter", reflect.ValueOf(kf).Elem().Interface(), ""},
		{"keyed *View", kv, ""},
		{"keyed View", *kv, ""},
		{"keyed *ConcurrentFilter", kc, ""},
		{"keyed ConcurrentFilter", reflect.ValueOf(kc).Elem().Interface(), ""},
		{"struct holding a keyed *Filter", struct{ F *Filter[uint64] }{kf}, ""},
		{"*Filter", f, "(string/[]byte/[N]byte keys, 13-bit Packed, 1001 items, capacity 1000, load 94.1%)"},
		{"*View", v, "(string/[]byte/[N]byte keys, 13-bit Packed, 1001 items, capacity 1000, load 94.1%)"},
		{"View", *v, "1001 items"},
		{"struct holding a Filter", h, "capacity 1000"},
		{"*struct holding a Filter", &h, "13-bit Packed"},
		{"[]*Filter", []*Filter[string]{f}, "1001 items"},
	}
	// Every verb for the keyed filters; the common ones for the seeded.
	keyedVerbs := []string{"%v", "%+v", "%#v", "%s", "%q", "%d", "%x", "%X", "%o", "%b", "%t", "%p", "%T", "%10.3v"}
	seededVerbs := []string{"%v", "%+v", "%#v", "%s", "%d", "%x", "%X", "%q", "%40s", "%T %v"}
	for _, c := range values {
		verbs := seededVerbs
		if strings.HasPrefix(c.name, "keyed") {
			verbs = keyedVerbs
		}
		for _, verb := range verbs {
			out := fmt.Sprintf(verb, c.v)
			if strings.Count(verb, "%") == 2 {
				out = fmt.Sprintf(verb, c.v, c.v)
			}
			check(c.name+" printed with "+verb, out)
			if c.want == "" {
				continue
			}
			if len(out) > 500 {
				t.Fatalf("%s with %s prints %d bytes: %.200s...", c.name, verb, len(out), out)
			}
			if (verb == "%v" || verb == "%+v" || verb == "%s" || verb == "%#v") && !strings.Contains(out, c.want) {
				t.Fatalf("%s with %s: %s, want it to contain %q", c.name, verb, out, c.want)
			}
		}
	}
	for what, s := range map[string]string{
		"the encoding": string(kenc), "the text form": string(ktext),
		"NewKeyedView's error for another key": fmt.Sprint(e1), "UnmarshalBinary's error without the key": fmt.Sprint(e2),
	} {
		check(what, s)
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
