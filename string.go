package cuckoo

import (
	"fmt"
	"io"
	"reflect"
	"strconv"
)

// Printing shows what a filter is, never what it holds: Format sends every
// verb to String or GoString, so no verb prints the seed, PRNG state or
// table. A Filter reached by value (its receivers are pointers, as vet
// reports copies) prints its fields, never the key (behind hasher.secret).

// String describes the filter in one line, for example
//
//	cuckoo.Filter(string/[]byte/[N]byte keys, 13-bit Packed, 3 items, capacity 1000, load 0.282%)
//
// with, when they apply, "keyed" before the key family and "growable to
// M" or "G generations" after the capacity. The zero Filter says that it
// was made neither by New nor by decoding.
func (f *Filter[T]) String() string { return f.c.describe("cuckoo.Filter", zeroFilterText) }

// GoString is String with the key type, for %#v: cuckoo.Filter[string](...).
func (f *Filter[T]) GoString() string {
	return f.c.describe(typeName[T]("cuckoo.Filter"), zeroFilterText)
}

// Format prints the filter with String, or GoString for %#v, never fields.
func (f *Filter[T]) Format(s fmt.State, verb rune) { formatWith(s, verb, f.String, f.GoString) }

// String describes the view in one line, like Filter.String:
//
//	cuckoo.View(integer keys, 16-bit Packed, 50 items, capacity 100, load 32.9%)
//
// The zero View says that no NewView function made it.
func (v View[T]) String() string { return v.r.describe("cuckoo.View", "made by no NewView function") }

// GoString is String with the key type, for the %#v verb.
func (v View[T]) GoString() string {
	return v.r.describe(typeName[T]("cuckoo.View"), "made by no NewView function")
}

// Format prints the view with String, or GoString for %#v.
func (v View[T]) Format(s fmt.State, verb rune) { formatWith(s, verb, v.String, v.GoString) }

const zeroFilterText = "made neither by New nor by decoding"

// describe is the reader's summary, or "zero: " and zero for a zero one.
func (r *reader) describe(name, zero string) string {
	if r.t.data == nil {
		return name + "(zero: " + zero + ")"
	}
	return r.summary(name)
}

// summary is describe for a reader with a table.
func (r *reader) summary(name string) string {
	keyed, grows := "", ""
	if r.h.sip() != nil {
		keyed = "keyed "
	}
	if r.maxCapacity > r.capacity {
		grows = fmt.Sprintf(", growable to %d", r.maxCapacity)
	}
	if r.t.gens != 0 {
		grows += ", " + plural(r.t.gens, "generation")
	}
	return fmt.Sprintf("%s(%s%s keys, %d-bit %v, %s, capacity %d%s, load %s%%)",
		name, keyed, r.kind.family().familyName(), r.t.fbits, r.t.layout, plural(r.count, "item"), r.capacity, grows,
		strconv.FormatFloat(100*r.loadFactor(), 'g', 3, 64))
}

// typeName is name with the key type as its type argument.
func typeName[T Hashable](name string) string {
	return name + "[" + reflect.TypeFor[T]().String() + "]"
}

// formatWith writes str(), or gostr() for %#v, as the verb and flags in s
// ask: a verb that does not print strings gives fmt's %!verb(string=...).
func formatWith(s fmt.State, verb rune, str, gostr func() string) {
	if verb == 'v' && s.Flag('#') {
		_, _ = io.WriteString(s, gostr())
		return
	}
	fmt.Fprintf(s, fmt.FormatString(s, verb), str())
}
