package cuckoo

import (
	"encoding/binary"
	"unsafe"
)

// ContainsEncoded reports whether the filter encoded in data may hold key:
// Contains of NewViewUnverified(data), reading the table in place without a
// View's allocation. data must be exactly one encoding (with a header or
// compact) of an unkeyed filter whose keys hash like T's; an expiring one
// answers as when it was encoded. It checks the header and length on every
// call, in constant time, but neither the checksum nor the table: use it on
// bytes verified otherwise. It never reads outside data and never panics;
// for bytes it cannot read as such a filter it returns true, which rules
// nothing out, and an error wrapping ErrCorrupt, ErrUnsupportedVersion or
// ErrIncompatible. It allocates nothing but that error.
func ContainsEncoded[T Hashable](data []byte, key T) (bool, error) {
	return containsEncoded(data, kindOf[T](), unsafe.Pointer(&key))
}

// ContainsHashEncoded is ContainsEncoded, for keys of any family, for a key
// hashed with Hash by a filter or view of the encoded filter's seed.
func ContainsHashEncoded(data []byte, h uint64) (bool, error) {
	return containsEncoded(data, kindHash, unsafe.Pointer(&h))
}

// containsEncoded is ContainsEncoded for the key of kind k at p (kindHash:
// a hash, of any family). A default-seed compact encoding, the common case,
// is read from one 8-byte load of its trailer, calling only hash and probe.
func containsEncoded(data []byte, k keyKind, p unsafe.Pointer) (bool, error) {
	n := uint64(len(data))
	// A compact encoding is at least 9 bytes: its version, then a last
	// bucket and a trailer that cover at least a probe's 8-byte load.
	if n < 9 || data[0] != compactVersion {
		return containsOther(data, k, p)
	}
	tr := binary.LittleEndian.Uint64(data[n-8:]) // the trailer, with no seed
	s := compactShapes[tr>>56]
	c := tr>>48&0xff ^ compactMark // the count's bytes: the seed's flag or a wrong mark goes to containsOther
	if s == nil || c > 5 || tr>>40&0xff != n&0xff || kindFamilies[k]>>(tr>>62)&1 == 0 {
		return containsOther(data, k, p)
	}
	// The count fills the trailer up to the probes' reach, or is in the
	// fewest bytes that hold it: its top byte, tr's fifth, is not 0.
	tail := compactFields + c // at most 8
	count := tr & (1<<40 - 1) >> ((40 - 8*c) & 63)
	m, ok := s.bucketCount((n - 1 - tail) * 8)
	if !ok || tail < uint64(s.reach) || tail != uint64(s.reach) && c != 0 && tr>>32&0xff == 0 || count > m*slotsPerBucket {
		return containsOther(data, k, p)
	}
	var h uint64
	switch k { // the engines' keys without a second switch
	case kindBytes:
		h = defaultHasher.str(*(*string)(p))
	case kindHash:
		h = *(*uint64)(p)
	default:
		h = defaultHasher.key(k, p)
	}
	fp, i1 := locateOn(h, s.slotMax, m)
	i2 := altOn(i1, fp, m)
	if s.class.byWords() {
		return s.hasWords(data[1:], i1, i2, fp), nil
	}
	return s.probeFixed(data[1:], m, h), nil
}

// compactShapes is the shape of each compact shape byte, or nil.
var compactShapes = func() (s [256]*shape) {
	for b := range s {
		if f := uint(b&31) + minFingerprintBits; f <= maxFingerprintBits && b>>6 != 0 {
			s[b] = shapeOf(Layout(b>>5&1), f)
		}
	}
	return s
}()

// kindFamilies has bit i set for each family whose encodings kind k reads.
var kindFamilies = func() (f [256]uint8) {
	for k := range f {
		if kind := keyKind(k); kind == kindHash {
			f[k] = 1<<kindInt | 1<<kindFloat | 1<<kindBytes
		} else if kind&kindKeyed == 0 && kind != kindInvalid {
			f[k] = 1 << kind.family()
		}
	}
	return f
}()

// containsOther is containsEncoded for what its fast path does not take.
//
//go:noinline
func containsOther(data []byte, k keyKind, p unsafe.Pointer) (bool, error) {
	if len(data) == 0 || !isCompact(data[0]) {
		return containsHeaded(data, k, p)
	}
	h, err := compactHeader(data)
	if err != nil {
		return true, err
	}
	if k != kindHash && h.kind != k.family() {
		return true, errFamily(h.kind, k)
	}
	hs := newHasher(h.seed)
	return shapeOf(h.layout, h.f).probeFixed(data[1:], h.m, hs.key(k, p)), nil
}

// containsHeaded is containsEncoded for an encoding with a header, apart so
// that the compact path does not carry a reader in its frame.
func containsHeaded(data []byte, k keyKind, p unsafe.Pointer) (bool, error) {
	h, t, err := decode(data, k, checkHeader, nil)
	if err != nil {
		return true, err
	}
	r := reader{t: t, h: newHasher(h.seed), kind: k, keys: keysOf(k)}
	if k == kindHash {
		r.keys = probeHashed
	}
	x, q := kindArgs(k, p)
	return r.lookup(r.keys, x, q), nil
}
