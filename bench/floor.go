package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"time"
	"unsafe"

	"github.com/seed-a0724874/cuckoo"
	"github.com/zeebo/xxh3"
)

// The floor: what Contains of a packed f = 12 filter of uint64 keys costs
// with nothing but its work, a straight-line Go loop over the library's own
// table. DESIGN.md's target for single lookups is within 1.1x of it; the
// gap is dispatch and call overhead.

// floorBits is the floor's fingerprint width: 12, whose buckets are 6 bytes.
const floorBits = 12

// floor12 is a packed f = 12 table as Filter holds it (FORMAT.md): bucket i
// is 48 bits at byte 6i, four 12-bit slots, 16 zero bytes after the last.
type floor12 struct {
	data    []byte // the table: the encoding's, which has the same bytes as the filter's
	m       uint64 // bucket count
	bitflip uint64 // xxh3's seed-dependent constant for inputs of 4 to 8 bytes
	seed    uint64
}

// newFloor12 reads the table, bucket count and seed of f's encoding.
func newFloor12(f *cuckoo.Filter[uint64]) (*floor12, error) {
	enc, err := f.MarshalBinary()
	if err != nil {
		return nil, err
	}
	const header = 128
	m := binary.LittleEndian.Uint64(enc[16:])
	seed := binary.LittleEndian.Uint64(enc[40:])
	if enc[6] != byte(cuckoo.Packed) || enc[7] != floorBits || enc[11] != 0 || enc[13]|enc[14] != 0 {
		return nil, fmt.Errorf("floor: not a fixed packed f = %d filter", floorBits)
	}
	// xxh3 (len 4..8): the seed's low half, byte-swapped, folded into its
	// high half, then subtracted from two words of the default secret.
	s := seed ^ uint64(bits.ReverseBytes32(uint32(seed)))<<32
	return &floor12{
		data:    enc[header : header+m*6+16],
		m:       m,
		bitflip: (0x1cad21f72c81017c ^ 0xdb979083e96dd4de) - s,
		seed:    seed,
	}, nil
}

// hash is xxh3.HashSeed of key's 8 little-endian bytes, its 4..8-byte
// path written out, as the library computes it.
func (y *floor12) hash(key uint64) uint64 {
	x := bits.RotateLeft64(key, 32) ^ y.bitflip
	x ^= bits.RotateLeft64(x, 49) ^ bits.RotateLeft64(x, 24)
	x *= 0x9fb21c651e98df25
	x ^= (x >> 35) + 8
	x *= 0x9fb21c651e98df25
	return x ^ x>>28
}

// floorLoop is a loop of Contains's work and nothing more, written out in
// the loop (a function of it is over the inlining budget, and its call would
// be no floor): the hash; a fingerprint from its low 32 bits and the
// bucket from its high 32 by multiplies (the index a 64x64 high multiply,
// exact for any bucket count); the other bucket by a multiply and a
// branch-free wrap; both buckets by unaligned 8-byte loads masked to 48
// bits; and a SWAR test of their 4 lanes each. It returns how many keys it
// found.
//
//go:noinline
func floorLoop(y *floor12, keys []uint64) int {
	const (
		ones  = 0x001001001001
		tops  = 0x800800800800
		lanes = 1<<48 - 1
	)
	base, m, n := unsafe.Pointer(unsafe.SliceData(y.data)), y.m, 0
	for _, key := range keys {
		h := y.hash(key)
		fp := uint32(uint64(uint32(h))*(1<<floorBits-1)>>32) + 1
		i1, _ := bits.Mul64(h&^(1<<32-1), m)
		r := uint64(fp*0x9e3779b1)*m>>32 | 1
		j := m - i1 - r
		i2 := j + m&uint64(int64(j)>>63)
		pat := uint64(fp) * ones
		x1 := *(*uint64)(unsafe.Add(base, i1*6))&lanes ^ pat // little-endian hosts: the bench runs on amd64 and arm64
		x2 := *(*uint64)(unsafe.Add(base, i2*6))&lanes ^ pat
		if ((x1-ones)&^x1|(x2-ones)&^x2)&tops != 0 {
			n++
		}
	}
	return n
}

// containsLoop is the loop of Contains that the floor and the anchor time:
// a function of its own, as floorLoop is, so that both loops are compiled
// alike (inlined into the anchor's larger function, it reloaded 7 values
// after each call; that was not the anchor's gap to the floor, which
// stayed: bench/RESULTS.md).
//
//go:noinline
func containsLoop(f *cuckoo.Filter[uint64], keys []uint64) int {
	n := 0
	for _, k := range keys {
		n += one(f.Contains(k))
	}
	return n
}

// runFloor times Contains of a filled packed f = 12 filter of each size
// against the floor over the same table and keys (up to probe lookups, half
// inserted keys, half not), in rounds that alternate them, and prints the
// medians and their ratio. It first checks that the floor answers every
// probed key as Contains does, and hashes as xxh3 does.
func runFloor(w io.Writer, sizes []int, rounds, probe int) error {
	fmt.Fprintf(w, "| keys | Contains ns | floor ns | Contains / floor |\n|---:|---:|---:|---:|\n")
	for _, n := range sizes {
		f, err := cuckoo.New[uint64](cuckoo.Config{Capacity: n, FingerprintBits: floorBits})
		if err != nil {
			return err
		}
		for i := range n {
			if err := f.Insert(splitmix(1, uint64(i))); err != nil {
				return fmt.Errorf("floor: filling %d keys: %w", n, err)
			}
		}
		y, err := newFloor12(f)
		if err != nil {
			return err
		}
		keys := make([]uint64, min(probe, 2*n))
		for i := range keys {
			keys[i] = splitmix(1, uint64(i/2)+uint64(i%2)*missBase) // a hit, then a miss
		}
		var le [8]byte
		for i, k := range keys {
			if binary.LittleEndian.PutUint64(le[:], k); i < 1000 && y.hash(k) != xxh3.HashSeed(le[:], y.seed) {
				return fmt.Errorf("floor: hash of %#x is not xxh3's", k)
			}
			if (floorLoop(y, keys[i:i+1]) == 1) != f.Contains(k) {
				return fmt.Errorf("floor: key %#x: the floor and Contains disagree", k)
			}
		}
		var tc, tf []time.Duration
		for r := range rounds {
			for k := range 2 {
				start := time.Now()
				if (k+r)%2 == 0 { // a round starts with the other loop than the last
					containsLoop(f, keys)
					tc = append(tc, time.Since(start))
				} else {
					floorLoop(y, keys)
					tf = append(tf, time.Since(start))
				}
			}
		}
		c, fl := medianTime(tc), medianTime(tf)
		per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(len(keys)) }
		fmt.Fprintf(w, "| %s | %.2f | %.2f | %.2fx |\n", count(n), per(c), per(fl), float64(c)/float64(fl))
	}
	return nil
}
