package cuckoo

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// sipHasher is SipHash-2-4 with a 128-bit key (Aumasson and Bernstein,
// "SipHash: a fast short-input PRF", INDOCRYPT 2012), checked against the
// reference implementation's 64 published vectors. 2-4, not 1-3: Hash
// values leave the process, so an attacker may see outputs for chosen
// inputs, where only 2-4 claims PRF security (1-3 would save about 4 ns of
// a 28 ns keyed lookup, bench/RESULTS.md). Keep it behind keyRef.
type sipHasher struct {
	k0, k1 uint64 // the key, as two little-endian words
}

func newSipHasher(key [16]byte) sipHasher {
	return sipHasher{k0: binary.LittleEndian.Uint64(key[:8]), k1: binary.LittleEndian.Uint64(key[8:])}
}

// initial is the state before the first message word: the key words xored
// with the ASCII of "somepseudorandomlygeneratedbytes".
func (s *sipHasher) initial() (v0, v1, v2, v3 uint64) {
	return s.k0 ^ 0x736f6d6570736575, s.k1 ^ 0x646f72616e646f6d,
		s.k0 ^ 0x6c7967656e657261, s.k1 ^ 0x7465646279746573
}

// sipRound is one SipRound: three add-rotate-xor half rounds on the pairs
// (v0, v1) and (v2, v3), then across them.
func sipRound(v0, v1, v2, v3 uint64) (uint64, uint64, uint64, uint64) {
	v0 += v1
	v1 = bits.RotateLeft64(v1, 13) ^ v0
	v0 = bits.RotateLeft64(v0, 32)
	v2 += v3
	v3 = bits.RotateLeft64(v3, 16) ^ v2
	v0 += v3
	v3 = bits.RotateLeft64(v3, 21) ^ v0
	v2 += v1
	v1 = bits.RotateLeft64(v1, 17) ^ v2
	v2 = bits.RotateLeft64(v2, 32)
	return v0, v1, v2, v3
}

// u64 is bytes of the 8 little-endian bytes of v: the word v, then the last
// word, which holds only the length, 8, in its top byte. Every round is
// written out so that all inline: a call costs more than a round.
func (s *sipHasher) u64(v uint64) uint64 {
	v0, v1, v2, v3 := s.initial()
	v3 ^= v
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0 ^= v
	const last = 8 << 56
	v3 ^= last
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0 ^= last
	return finish(v0, v1, v2, v3)
}

// bytes is SipHash-2-4 of b. The message is read as little-endian 64-bit
// words, two SipRounds each; the last word holds the 0-7 bytes left over
// and, in its top byte, the length of b modulo 256.
func (s *sipHasher) bytes(b []byte) uint64 {
	v0, v1, v2, v3 := s.initial()
	last := uint64(len(b)) << 56
	for ; len(b) >= 8; b = b[8:] {
		m := binary.LittleEndian.Uint64(b)
		v3 ^= m
		v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
		v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
		v0 ^= m
	}
	for i, c := range b {
		last |= uint64(c) << (8 * i)
	}
	v3 ^= last
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0 ^= last
	return finish(v0, v1, v2, v3)
}

// finish is the finalization: four SipRounds after marking v2, then the
// four words folded into one.
func finish(v0, v1, v2, v3 uint64) uint64 {
	v2 ^= 0xff
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	return v0 ^ v1 ^ v2 ^ v3
}

// string is bytes of the bytes of str, read in place.
func (s *sipHasher) string(str string) uint64 {
	return s.bytes(unsafe.Slice(unsafe.StringData(str), len(str)))
}
