package main

import (
	"math"

	"github.com/FastFilter/xorfilter"
)

// github.com/FastFilter/xorfilter binary fuse filters: static, built once
// from the whole key set, the speed and space reference. They take uint64
// keys; string keys are hashed first (inside the timed build). The rate is
// 2^-bits, fixed by the fingerprint type.

var (
	binaryFuse8Spec  = binaryFuseSpec[uint8]("xorfilter/BinaryFuse8", 8)
	binaryFuse16Spec = binaryFuseSpec[uint16]("xorfilter/BinaryFuse16", 16)
)

func binaryFuseSpec[T xorfilter.Unsigned](name string, bits int) spec {
	return spec{
		name:   name,
		rates:  []float64{math.Ldexp(1, -bits)},
		fixed:  true,
		static: true,
		u64:    newBinaryFuse[T, uint64],
		str:    newBinaryFuse[T, string],
	}
}

type binaryFuseFilter[T xorfilter.Unsigned, K Key] struct {
	f *xorfilter.BinaryFuse[T]
}

func newBinaryFuse[T xorfilter.Unsigned, K Key](_ int, _ float64, keys []K) (Filter[K], error) {
	hashes := make([]uint64, len(keys)) // NewBinaryFuse may reorder its argument
	for i, k := range keys {
		hashes[i] = keyHash(k)
	}
	f, err := xorfilter.NewBinaryFuse[T](hashes)
	if err != nil {
		return nil, err
	}
	return binaryFuseFilter[T, K]{f}, nil
}

func (binaryFuseFilter[T, K]) Insert(K) bool         { panic("static filter: no Insert") }
func (a binaryFuseFilter[T, K]) Contains(key K) bool { return a.f.Contains(keyHash(key)) }
