package cuckoo

import (
	"encoding/binary"
	"unsafe"
)

// Queries straight from an encoding, without a View: for code that probes
// many filters, each once, from bytes it does not keep, such as a storage
// engine's filter blocks in its block cache. A View costs an allocation and
// a check of the header on every open; these check the header on every
// call and allocate nothing. A compact encoding, what storage engines
// store, is probed without building a table: its trailer gives the shared
// shape of its layout and width, and probeFixed tests its bytes.

// ContainsEncoded reports whether the filter encoded in data may hold key:
// Contains of NewViewUnverified(data), reading the table where it lies,
// without allocating. data must be exactly one encoding of an unkeyed
// filter whose keys hash like T's, in any version (FORMAT.md), compact
// encodings included.
//
// It checks what NewViewUnverified checks, the header and the length, on
// every call, and neither the checksum nor the table: use it on bytes whose
// integrity is established otherwise (a storage engine checksums its
// blocks). Whatever the bytes, it never reads outside data and never
// panics. If it cannot read data as a filter (a wrong length, another key
// family, a keyed filter, bytes of something else) it returns true and an
// error wrapping ErrCorrupt, ErrUnsupportedVersion or ErrIncompatible: true
// rules nothing out, so a caller that only wants to skip work can ignore
// the error. It allocates nothing but that error: a call that can read
// data allocates nothing at all.
func ContainsEncoded[T Hashable](data []byte, key T) (bool, error) {
	return containsEncoded(data, kindOf[T](), unsafe.Pointer(&key))
}

// ContainsHashEncoded is ContainsEncoded for a key hashed with Hash by a
// filter or view of the encoded filter's seed, which answers for keys of
// any family.
func ContainsHashEncoded(data []byte, h uint64) (bool, error) {
	return containsEncoded(data, kindHash, unsafe.Pointer(&h))
}

// containsEncoded is ContainsEncoded for the key of kind k at p (for
// kindHash, the hash itself, which matches every family). The common case,
// a compact encoding with the default seed, is tested here from one load of
// the trailer, and its key hashed and probed with no call but the hash's
// and the probe's; every other case, and every error, goes to
// containsOther.
func containsEncoded(data []byte, k keyKind, p unsafe.Pointer) (bool, error) {
	n := uint64(len(data))
	if n < 1+compactTrailer || data[0] != formatVersion3 {
		return containsOther(data, k, p)
	}
	tr := binary.LittleEndian.Uint64(data[n-compactTrailer:])
	w := uint32(tr >> 32) // family, layout, bits, flags
	c := compactChecks[k]
	s := shapes[w>>8&1][w>>16&63]
	if (w^uint32(c))&uint32(c>>32) != 0 || w&3 == 0 || s == nil {
		return containsOther(data, k, p)
	}
	m, ok := s.bucketCount((n - 1 - compactTrailer) * 8)
	if !ok || uint64(uint32(tr)) > m*slotsPerBucket {
		return containsOther(data, k, p)
	}
	var h uint64
	switch k { // the engines' keys without a second switch
	case kindBytes:
		h = defaultHasher.bytes(*(*[]byte)(p))
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

// compactChecks holds, for each key kind, the test of a compact trailer's
// upper word (family, layout, fingerprint bits and flags, a byte each) that
// its fast path takes: the word XOR the low half, under the mask in the
// high half, must be zero. The family must be the kind's (for kindHash,
// any of 1..3, with the test that it is not 0), the layout 0 or 1, the
// width under 64 and no flag set.
var compactChecks = func() (c [256]uint64) {
	const any = 0xff_c0_fe_fc // flags, bits >= 64, layout > 1, family > 3
	for k := range c {
		c[k] = (any | 0xff) << 32
		if kind := keyKind(k); kind == kindHash {
			c[k] = any << 32
		} else if kind&kindKeyed == 0 && kind != kindInvalid {
			c[k] |= uint64(kind.family())
		}
	}
	return c
}()

// containsOther is containsEncoded for what its fast path does not take:
// a compact encoding with a seed, a header (versions 1 and 2), or bytes it
// cannot read, which answer true and the error.
//
//go:noinline
func containsOther(data []byte, k keyKind, p unsafe.Pointer) (bool, error) {
	if len(data) == 0 || data[0] != formatVersion3 {
		return containsHeaded(data, k, p)
	}
	layout, f, kind, m, _, seed, ok := readCompact(data)
	if !ok {
		return true, compactFault(data)
	}
	if k != kindHash && kind != k.family() {
		return true, errFamily(kind, k)
	}
	h := newHasher(seed)
	return shapeOf(layout, f).probeFixed(data[1:], m, h.key(k, p)), nil
}

// containsHeaded is containsEncoded for the versions with a header (1 and
// 2): it decodes the header and looks up in a reader of its table. Apart,
// so that the compact path does not carry a reader in its frame.
func containsHeaded(data []byte, k keyKind, p unsafe.Pointer) (bool, error) {
	h, t, err := decode(data, k, checkHeader, nil)
	if err != nil {
		return true, err
	}
	r := reader{t: t, h: newHasher(h.seed), kind: k}
	return r.lookup(k, p), nil
}
