package cuckoo

import (
	"errors"
	"math/bits"
	"testing"
)

// The attacks below are why the seed is not a secret (doc.go, "Security"):
// the unkeyed hash of an integer key is a bijection that anyone can run
// backwards, so one Hash value of a known key gives the seed, and with the
// seed anyone can make keys with any hash they like.

// mulInverse is the inverse of an odd c modulo 2^64 (Newton's iteration:
// each step doubles the correct low bits, from 3).
func mulInverse(c uint64) uint64 {
	x := c
	for range 5 {
		x *= 2 - c*x
	}
	return x
}

// mixRotations is the linear step of hasher.u64: x ^ rotl(x, 49) ^ rotl(x, 24).
// As a polynomial in the rotation it is 1 + t^49 + t^24 over GF(2) modulo
// t^64 + 1 = (t + 1)^64; it is 1 at t = 1, so it is a unit whose order
// divides 64: applying it 63 times inverts it.
func mixRotations(x uint64) uint64 { return x ^ bits.RotateLeft64(x, 49) ^ bits.RotateLeft64(x, 24) }

// unmix runs hasher.u64 backwards from its output to the value after the
// seed's bitflip is xored in: rotl(v, 32) ^ bitflip.
func unmix(h uint64) uint64 {
	const c = 0x9fb21c651e98df25
	x := h ^ h>>28 ^ h>>56 // undoes x ^= x >> 28
	x *= mulInverse(c)
	x ^= (x >> 35) + 8 // the top 35 bits pass through, so this undoes itself
	x *= mulInverse(c)
	for range 63 {
		x = mixRotations(x)
	}
	return x
}

// recoverSeed returns the seed of a filter from the Hash of one known
// integer key.
func recoverSeed(key, hash uint64) uint64 {
	bitflip := unmix(hash) ^ bits.RotateLeft64(key, 32)
	s := (0x1cad21f72c81017c ^ 0xdb979083e96dd4de) - bitflip
	// s is the seed with its high half xored with its byte-swapped low half.
	return s ^ uint64(bits.ReverseBytes32(uint32(s)))<<32
}

// keyWithHash returns the integer key whose hash under seed is h.
func keyWithHash(seed, h uint64) uint64 {
	hs := newHasher(seed)
	return bits.RotateLeft64(unmix(h)^hs.bitflip, 32)
}

func TestSeedFromOneHash(t *testing.T) {
	if g := uint64(0x0123456789abcdef); func() uint64 {
		x := g
		for range 64 {
			x = mixRotations(x)
		}
		return x
	}() != g {
		t.Fatal("the rotation mix does not have order dividing 64")
	}
	r := newRand(14)
	for _, seed := range []uint64{0, 1, DefaultSeed, ^uint64(0), r.Uint64(), r.Uint64(), r.Uint64()} {
		f := mustNew[int64](t, Config{Capacity: 10, Seed: seed})
		key := int64(r.Uint64())
		if got := recoverSeed(uint64(key), f.Hash(key)); got != f.c.h.seed {
			t.Errorf("seed %#x: recovered %#x from Hash(%d)", f.c.h.seed, got, key)
		}
		if k := keyWithHash(seed, 0xdead_beef); f.Hash(int64(k)) != 0xdead_beef {
			t.Errorf("seed %#x: key %d hashes to %#x", seed, k, f.Hash(int64(k)))
		}
	}
}

// TestCraftedCollisions is the attack of issue 14 on the default seed: 8
// keys, computed, that share key 42's fingerprint and buckets. In an empty
// filter of a million keys they make Contains(42) true, and once inserted
// they make Insert(42) fail with ErrTooManyDuplicates. SipHash-2-4 under a
// key the attacker does not know scatters the same keys.
func TestCraftedCollisions(t *testing.T) {
	f := mustNew[uint64](t, Config{Capacity: 1_000_000})
	fp, i1 := f.c.t.locate(f.Hash(42))
	base := hashFor(&f.c.t, i1, fp) // the smallest hash with 42's fingerprint and first bucket
	crafted := make([]uint64, 0, 8)
	for h := base; len(crafted) < cap(crafted); h++ {
		if h != f.Hash(42) {
			crafted = append(crafted, keyWithHash(0, h))
		}
	}
	for _, k := range crafted {
		if k == 42 {
			t.Fatal("crafted key 42 itself")
		}
		if err := f.Insert(k); err != nil {
			t.Fatal(err)
		}
	}
	if !f.Contains(42) || f.Count(42) != 8 {
		t.Fatalf("Contains(42) %v, Count %d after 8 crafted keys", f.Contains(42), f.Count(42))
	}
	if err := f.Insert(42); !errors.Is(err, ErrTooManyDuplicates) {
		t.Fatalf("Insert(42): %v, want ErrTooManyDuplicates", err)
	}

	// The same keys into a keyed filter of the same seed: scattered, so 42
	// is absent and fits.
	g := mustNew[uint64](t, Config{Capacity: 1_000_000, Key: [16]byte{'n', 'o', 't', ' ', 'k', 'n', 'o', 'w', 'n'}})
	for _, k := range crafted {
		if err := g.Insert(k); err != nil {
			t.Fatal(err)
		}
	}
	if g.Contains(42) || g.Count(42) != 0 || g.Insert(42) != nil {
		t.Fatal("the crafted keys collide in a keyed filter too")
	}
}
