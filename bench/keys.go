package main

import (
	"encoding/binary"
	"unsafe"
)

// keySet is the keys for one run: hits to insert (capacity of them, then 5%
// more to overfill) and misses never inserted.
type keySet[K Key] struct {
	hits   []K // first capacity are the fill, the rest the overfill
	misses []K
}

// splitmix is the SplitMix64 generator: the i-th output of the stream with
// this seed is mix(seed + i*gamma). mix is a bijection and gamma is odd, so
// distinct i give distinct outputs, which makes hits and misses (drawn from
// disjoint ranges of i) distinct and disjoint without a set.
func splitmix(seed, i uint64) uint64 {
	z := seed + (i+1)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// missBase is where the misses' stream indexes start, far past any hit's.
const missBase = 1 << 48

func newUint64Keys(seed uint64, hits, misses int) keySet[uint64] {
	ks := keySet[uint64]{make([]uint64, hits), make([]uint64, misses)}
	for i := range ks.hits {
		ks.hits[i] = splitmix(seed, uint64(i))
	}
	for i := range ks.misses {
		ks.misses[i] = splitmix(seed, missBase+uint64(i))
	}
	return ks
}

// stringKeyLen is the length of string keys.
const stringKeyLen = 16

// newStringKeys makes 16-byte keys: 8 distinct random bytes (as for uint64
// keys) and 8 more random bytes, all in one backing array.
func newStringKeys(seed uint64, hits, misses int) keySet[string] {
	back := make([]byte, (hits+misses)*stringKeyLen)
	key := func(i uint64) string {
		b := back[:stringKeyLen]
		back = back[stringKeyLen:]
		binary.LittleEndian.PutUint64(b, splitmix(seed, i))
		binary.LittleEndian.PutUint64(b[8:], splitmix(^seed, i))
		return unsafe.String(&b[0], stringKeyLen)
	}
	ks := keySet[string]{make([]string, hits), make([]string, misses)}
	for i := range ks.hits {
		ks.hits[i] = key(uint64(i))
	}
	for i := range ks.misses {
		ks.misses[i] = key(missBase + uint64(i))
	}
	return ks
}
