package main

import (
	"encoding/binary"
	"unsafe"

	"github.com/seed-a0724874/cuckoo"
	"github.com/zeebo/xxh3"
)

// Key is a key type the harness measures.
type Key interface{ uint64 | string }

// Filter is the one shape every filter under test takes. Adapters are not
// safe for concurrent use: some keep a scratch buffer.
type Filter[K Key] interface {
	// Insert adds key and reports whether the filter said it succeeded.
	// Static filters, built from the whole key set, never get Insert calls.
	Insert(key K) bool
	// Contains reports whether key may be present.
	Contains(key K) bool
}

// Batcher is a Filter that also answers many lookups in one call.
type Batcher[K Key] interface {
	ContainsBatch(keys []K, found []bool) int
}

// maker makes a filter for capacity keys at a target false-positive rate.
// A static filter is built from keys (all of them, len(keys) == capacity);
// a dynamic one ignores keys and starts empty.
type maker[K Key] func(capacity int, rate float64, keys []K) (Filter[K], error)

// spec describes one filter configuration family under test.
type spec struct {
	name string
	// rates are the target rates to build it for: targets when tunable. A
	// fixed filter cannot be tuned: its single rate is its nominal one,
	// shown for reference.
	rates  []float64
	fixed  bool
	static bool // built from the whole key set at once; no Insert
	batch  bool // its filters implement Batcher
	u64    maker[uint64]
	str    maker[string]
	// note, if set, explains the figures of the rows measured (those
	// given), in a footnote to the report's bits/key column.
	note func(rows []result) string
}

// specNamed is the spec of the filter called name.
func specNamed(name string) (spec, bool) {
	for _, s := range specs {
		if s.name == name {
			return s, true
		}
	}
	return spec{}, false
}

// targets are the comparable false-positive targets tunable filters get.
var targets = []float64{0.001, 0.03}

// specs is every filter under test, in report order. Each is defined in
// the adapters_*.go file of its package.
var specs = []spec{
	cuckooSpec(cuckoo.Packed),
	cuckooSpec(cuckoo.SemiSorted),
	seiflotfySpec,
	bloomSpec,
	binaryFuse8Spec,
	binaryFuse16Spec,
	boomSpec,
}

// makerFor returns the spec's maker for key type K.
func makerFor[K Key](s spec) maker[K] {
	var m any
	var k K
	switch any(k).(type) {
	case uint64:
		m = s.u64
	case string:
		m = s.str
	}
	return m.(maker[K])
}

// keyBytes is key as bytes, for filters that take []byte: a uint64 in
// little-endian order written to buf, or a string's own bytes, not copied
// (the filters only read them).
func keyBytes[K Key](key K, buf *[8]byte) []byte {
	if unsafe.Sizeof(key) == 8 {
		binary.LittleEndian.PutUint64(buf[:], *(*uint64)(unsafe.Pointer(&key)))
		return buf[:]
	}
	s := *(*string)(unsafe.Pointer(&key))
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// keyHash is key as a uint64, for filters that take uint64 keys only:
// a uint64 as is (those filters mix it themselves), a string hashed.
func keyHash[K Key](key K) uint64 {
	if unsafe.Sizeof(key) == 8 {
		return *(*uint64)(unsafe.Pointer(&key))
	}
	return xxh3.HashString(*(*string)(unsafe.Pointer(&key)))
}

// byteSet is a filter of []byte keys, wrapped (in its adapter file) to one
// method set.
type byteSet interface {
	insertBytes(b []byte) bool
	containsBytes(b []byte) bool
}

// bytesFilter is a Filter[K] over a byteSet: keys are passed as keyBytes,
// through a scratch buffer of its own.
type bytesFilter[K Key, S byteSet] struct {
	s   S
	buf *[8]byte
}

func newBytesFilter[K Key, S byteSet](s S) Filter[K] {
	return bytesFilter[K, S]{s, new([8]byte)}
}

func (a bytesFilter[K, S]) Insert(key K) bool   { return a.s.insertBytes(keyBytes(key, a.buf)) }
func (a bytesFilter[K, S]) Contains(key K) bool { return a.s.containsBytes(keyBytes(key, a.buf)) }
