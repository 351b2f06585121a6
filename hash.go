package cuckoo

import (
	"encoding/binary"
	"math"
	"math/bits"
	"reflect"
	"unsafe"

	"github.com/zeebo/xxh3"
)

// Hashable lists the key types a Filter accepts, including named types
// such as `type UserID uint64` or `type UUID [16]byte`.
//
// Integers hash as their value widened to 64 bits (signed ones sign-extended),
// so int32(7), int64(7) and uint8(7) have the same hash, whatever the
// platform's int size. Floats hash as float64 bits, with -0 folded into +0 and
// every NaN into one NaN, so keys that compare equal hash equal. Strings,
// byte slices and the byte arrays [16]byte (UUIDs) and [32]byte (SHA-256
// digests) hash their bytes: string("ab") and []byte("ab") hash equal, and
// an array hashes like the slice of its bytes, id and id[:].
type Hashable interface {
	~string | ~[]byte | ~[16]byte | ~[32]byte |
		~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64
}

// DefaultSeed is the seed used when Config.Seed is 0.
const DefaultSeed uint64 = 0x5ca1ab1e_c0ffee11

// keyKind tells how a key's bytes are hashed. It is also written into the
// binary format, so its values must not change.
type keyKind uint8

const (
	kindInvalid keyKind = iota
	kindInt             // every integer type, widened to 64 bits
	kindFloat           // float32 and float64, as float64 bits
	kindBytes           // string, []byte and the byte arrays
	kindSigned8
	kindSigned16
	kindSigned32
	kindUnsigned8
	kindUnsigned16
	kindUnsigned32
	kindFloat32
	kindString
	kindBytes16 // [16]byte
	kindBytes32 // [32]byte

	// kindKeyed marks the kinds of a filter with Config.Key: they hash with
	// SipHash (keyed.go). It is never stored, nor any kind with it.
	kindKeyed keyKind = 0x80
)

// kindHash is the kind of a "key" that is already a hash, for the ...Hash
// methods. It is never stored: encodings record key families only.
const kindHash keyKind = 0xff

// kindOf reports how keys of type T are read. []byte, the storage engines'
// keys, costs one test, so ContainsEncoded, calling it each time, inlines.
func kindOf[T Hashable]() keyKind {
	if _, ok := any((*T)(nil)).(*[]byte); ok {
		return kindBytes
	}
	return otherKindOf[T]()
}

// otherKindOf is kindOf for the other types, the common ones without
// reflection (a dozen instructions less); not inlined, so that kindOf inlines.
//
//go:noinline
func otherKindOf[T Hashable]() keyKind {
	switch any((*T)(nil)).(type) {
	case *string:
		return kindString
	case *uint64:
		return kindInt
	}
	return reflectKind[T]()
}

// reflectKind is kindOf for the types it does not test for by name.
func reflectKind[T Hashable]() keyKind {
	switch t := reflect.TypeFor[T](); t.Kind() {
	case reflect.String:
		return kindString
	case reflect.Slice:
		return kindBytes
	case reflect.Array: // [16]byte or [32]byte: Hashable allows no other
		if t.Len() == 16 {
			return kindBytes16
		}
		return kindBytes32
	case reflect.Int8:
		return kindSigned8
	case reflect.Int16:
		return kindSigned16
	case reflect.Int32:
		return kindSigned32
	case reflect.Uint8:
		return kindUnsigned8
	case reflect.Uint16:
		return kindUnsigned16
	case reflect.Uint32:
		return kindUnsigned32
	case reflect.Float32:
		return kindFloat32
	case reflect.Float64:
		return kindFloat
	case reflect.Int, reflect.Int64:
		if t.Size() == 4 {
			return kindSigned32
		}
		return kindInt
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		if t.Size() == 4 {
			return kindUnsigned32
		}
		return kindInt
	}
	return kindInvalid
}

// family is the key kind recorded in encodings: keys of one family hash the
// same way, so filters may be shared between the types of one family.
func (k keyKind) family() keyKind {
	switch k &^ kindKeyed {
	case kindString, kindBytes, kindBytes16, kindBytes32:
		return kindBytes
	case kindFloat32, kindFloat:
		return kindFloat
	}
	return kindInt
}

// hasher turns keys into 64-bit hashes. It is xxh3 (64-bit, seeded) over the
// key's bytes; integer keys take a short cut that computes the same value as
// xxh3 over their 8 little-endian bytes.
type hasher struct {
	bitflip uint64 // xxh3's seed-dependent constant for 4..8-byte inputs
	seed    uint64
	// secret is Config.Key's SipHash, replacing xxh3, or nil (keyRef).
	secret keyRef
}

// keyRef holds a keyed filter's *sipHasher as an unsafe.Pointer, which fmt
// prints as an address, so a filter printed by value shows no word of key.
type keyRef struct{ p unsafe.Pointer }

// sip is the keyed hash, or nil for an unkeyed filter.
func (h *hasher) sip() *sipHasher { return (*sipHasher)(h.secret.p) }

func newHasher(seed uint64) hasher {
	if seed == 0 {
		seed = DefaultSeed
	}
	// XXH3 (len 4..8): the seed's low half, byte-swapped, is folded into its
	// high half, then subtracted from two words of the default secret.
	s := seed ^ uint64(bits.ReverseBytes32(uint32(seed)))<<32
	return hasher{seed: seed, bitflip: (0x1cad21f72c81017c ^ 0xdb979083e96dd4de) - s}
}

// u64 is xxh3 of the 8 little-endian bytes of v.
func (h *hasher) u64(v uint64) uint64 {
	// XXH3 reads the input as two 32-bit halves, high half first, then mixes
	// with rrmxmx and the input length 8.
	x := bits.RotateLeft64(v, 32) ^ h.bitflip
	x ^= bits.RotateLeft64(x, 49) ^ bits.RotateLeft64(x, 24)
	x *= 0x9fb21c651e98df25
	x ^= (x >> 35) + 8
	x *= 0x9fb21c651e98df25
	return x ^ x>>28
}

// str is xxh3 of the bytes of s (or of a []byte read as a string: its
// first two words are one) with the filter's seed: keys of 9 to 16 bytes
// (UUIDs, and IDs of that size) by str16, the other lengths by xxh3.
func (h *hasher) str(s string) uint64 {
	if uint64(len(s))-9 > 7 {
		return xxh3.HashStringSeed(s, h.seed)
	}
	return h.str16(s)
}

// str16 is xxh3 of a string of 9 to 16 bytes, XXH3's path for them written
// out as u64 is for 8 bytes: the first and the last 8 bytes, each xor'd with
// two words of the default secret shifted by the seed, multiplied 64 x 64
// into 128 bits and folded, then avalanched with the length.
func (h *hasher) str16(s string) uint64 {
	p := unsafe.Pointer(unsafe.StringData(s))
	lo := binary.LittleEndian.Uint64((*[8]byte)(p)[:]) ^ (0x1f67b3b7a4a44072 ^ 0x78e5c0cc4ee679cb + h.seed)
	hi := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, len(s)-8))[:]) ^ (0x2172ffcc7dd05a82 ^ 0x8e2443f7744608b8 - h.seed)
	mh, ml := bits.Mul64(lo, hi)
	x := uint64(len(s)) + bits.ReverseBytes64(lo) + hi + (mh ^ ml)
	x ^= x >> 37
	x *= 0x165667919e3779f9
	return x ^ x>>32
}

// floatBits is the word a float64 key hashes as: equal keys hash equal.
func floatBits(v float64) uint64 {
	if v == 0 {
		v = 0 // folds -0 into +0
	}
	if v != v {
		v = math.NaN()
	}
	return math.Float64bits(v)
}

// kindArgs is how lookup takes a key of kind k at p: a hash (kindHash) in
// h, any other key at p.
func kindArgs(k keyKind, p unsafe.Pointer) (h uint64, q unsafe.Pointer) {
	if k == kindHash {
		return *(*uint64)(p), nil
	}
	return 0, p
}

// key hashes a key of kind k through its address, so that one non-generic
// function serves every type of a shape. The single-key paths inline its
// first two cases: 2-4 instructions less than a (hash, ok) front function.
func (h *hasher) key(k keyKind, p unsafe.Pointer) uint64 {
	switch k { // the common cases first, and the byte keys of storage engines
	case kindInt:
		return h.u64(*(*uint64)(p))
	case kindHash:
		return *(*uint64)(p)
	case kindBytes, kindString:
		return h.str(*(*string)(p))
	}
	return h.otherKey(k, p)
}

// otherKey is key for the kinds it does not take itself: a string is
// hashed as its bytes, read in place, which gives the same hash.
func (h *hasher) otherKey(k keyKind, p unsafe.Pointer) uint64 {
	keyed := k&kindKeyed != 0
	var b []byte
	switch k &^ kindKeyed {
	case kindString:
		s := *(*string)(p)
		b = unsafe.Slice(unsafe.StringData(s), len(s))
	case kindBytes:
		b = *(*[]byte)(p)
	case kindBytes16:
		b = (*[16]byte)(p)[:]
	case kindBytes32:
		b = (*[32]byte)(p)[:]
	default:
		w := keyWord(k&^kindKeyed, p)
		if keyed {
			return h.sip().u64(w)
		}
		return h.u64(w)
	}
	if keyed {
		return h.sip().bytes(b)
	}
	return h.str(unsafe.String(unsafe.SliceData(b), len(b)))
}

// keyWord is the 64-bit word an integer or float key of kind k hashes as.
func keyWord(k keyKind, p unsafe.Pointer) uint64 {
	switch k {
	case kindInt:
		return *(*uint64)(p)
	case kindUnsigned32:
		return uint64(*(*uint32)(p))
	case kindSigned32:
		return uint64(int64(*(*int32)(p)))
	case kindUnsigned16:
		return uint64(*(*uint16)(p))
	case kindSigned16:
		return uint64(int64(*(*int16)(p)))
	case kindUnsigned8:
		return uint64(*(*uint8)(p))
	case kindSigned8:
		return uint64(int64(*(*int8)(p)))
	case kindFloat:
		return floatBits(*(*float64)(p))
	case kindFloat32:
		return floatBits(float64(*(*float32)(p)))
	}
	panic("cuckoo: unreachable key kind")
}

func hashBatchGeneric(h *hasher, keys []uint64, out []uint64) {
	out = out[:len(keys)]
	for i, k := range keys {
		out[i] = h.u64(k)
	}
}

// defaultHasher hashes the keys of ContainsEncoded and Hash.
var defaultHasher = newHasher(DefaultSeed)

// Hash is the Hash method of every unkeyed filter with DefaultSeed: the
// hash that BuildHashes and AppendCompactHashes take with Config.Seed 0,
// and ContainsHashEncoded and the ...Hash methods of such filters. It
// allocates nothing and is safe for concurrent use.
func Hash[T Hashable](key T) uint64 {
	return defaultHasher.key(kindOf[T](), unsafe.Pointer(&key))
}
