package cuckoo

import (
	"encoding/binary"
	"math"
)

// The compact encoding (format version 3, FORMAT.md) is for filters stored
// many to a file by a container that knows each one's length and checks its
// bytes itself, such as a storage engine's filter blocks: a one-byte
// version, the buckets, and an 8-byte trailer, with no padding and no
// checksum of its own. Its trailer is the padding: the probes' 64-bit loads
// that run past the last bucket read the trailer's bytes, which no lane
// test looks at. The bucket count is not stored: the length gives it.
//
// Only fixed, unkeyed filters have a compact encoding: a growable one needs
// its stage, a keyed one its key's check value (version 2's header).

const (
	formatVersion3 = 3
	compactTrailer = 8 // item count (uint32), key family, layout, fingerprint bits, flags
	compactSeedLen = 8 // the seed, before the trailer, unless it is DefaultSeed

	compactFlagSeed = 1 // the trailer is preceded by the seed
)

// The trailer pads the buckets for the probes (table.go).
var _ [compactTrailer - probeReach]struct{}

// Trailer field offsets, from the trailer's first byte.
const (
	offCompactCount  = 0 // uint32
	offCompactFamily = 4
	offCompactLayout = 5
	offCompactBits   = 6
	offCompactFlags  = 7
)

// compactLen is the length of the compact encoding of a table of m buckets
// of bbits bits with the given seed.
func compactLen(m uint64, bbits uint, seed uint64) uint64 {
	n := 1 + m*uint64(bbits)/8 + compactTrailer
	if seed != DefaultSeed {
		n += compactSeedLen
	}
	return n
}

// AppendCompact appends the filter's compact encoding (FORMAT.md, version
// 3) to b and returns the extended slice: the buckets and 9 bytes (17 with
// a seed other than DefaultSeed), against version 1's 84, for storage that
// knows each encoding's length and checksums its bytes itself, such as a
// storage engine's filter blocks. NewView, NewViewUnverified,
// ContainsEncoded, UnmarshalBinary and UnmarshalText read it; EncodedLen
// and ReadFrom cannot, since it does not record its length.
//
// A compact encoding records the filter's keys, seed and Len, not its
// Capacity, MaxKicks or displacement PRNG state: decoded, it has Capacity
// Len (at least 1) and the default MaxKicks, and its displacements start
// from the seed. Only fixed, unkeyed filters of fewer than 2^32 items have
// one; others give an error wrapping ErrIncompatible. It allocates nothing
// when b has room.
func (f *Filter[T]) AppendCompact(b []byte) ([]byte, error) {
	r := &f.c.reader
	switch {
	case r.t.data == nil:
		return b, errZeroFilter
	case r.t.g > 0:
		return b, formatErr(ErrIncompatible, "a growable filter has no compact encoding")
	case r.h.sip() != nil:
		return b, formatErr(ErrIncompatible, "a keyed filter has no compact encoding")
	case uint64(r.count) > math.MaxUint32:
		return b, formatErr(ErrIncompatible, "%d items: a compact encoding holds fewer than 2^32", r.count)
	}
	t := &r.t
	b = append(b, formatVersion3)
	b = append(b, t.data[:t.m*uint64(t.bbits)/8]...)
	return appendCompactTrailer(b, r, kindOf[T]().family()), nil
}

// appendCompactTrailer appends the seed if it is not DefaultSeed, and the
// trailer, of r's filter of keys of the given family.
func appendCompactTrailer(b []byte, r *reader, family keyKind) []byte {
	t := &r.t
	flags := byte(0)
	if r.h.seed != DefaultSeed {
		b = binary.LittleEndian.AppendUint64(b, r.h.seed)
		flags = compactFlagSeed
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(r.count))
	return append(b, byte(family), byte(t.layout), byte(t.fbits), flags)
}

// readCompact checks the compact encoding that is all of data, which
// starts with formatVersion3, and returns what its trailer and length give:
// layout, fingerprint bits, key family, bucket count, item count and seed,
// and whether every field is in range and the length exactly an even
// number of buckets and the trailer. compactFault says what is wrong when
// ok is false. Probing an encoding in place runs it on every call
// (encoded.go), so it tests everything at once and returns its results in
// registers.
func readCompact(data []byte) (layout Layout, f uint, kind keyKind, m, count, seed uint64, ok bool) {
	n := uint64(len(data))
	if n < 1+compactTrailer {
		return
	}
	end := n - compactTrailer
	tr := binary.LittleEndian.Uint64(data[end:])
	layout, f = Layout(tr>>(8*offCompactLayout)), uint(uint8(tr>>(8*offCompactBits)))
	kind, flags := keyKind(tr>>(8*offCompactFamily)), byte(tr>>(8*offCompactFlags))
	seed = DefaultSeed
	if flags == compactFlagSeed && end >= 1+compactSeedLen {
		end -= compactSeedLen
		seed = binary.LittleEndian.Uint64(data[end:])
	}
	if flags != 0 && end == n-compactTrailer || flags > compactFlagSeed || !layout.valid() ||
		f-minFingerprintBits > maxFingerprintBits-minFingerprintBits || kind-kindInt > kindBytes-kindInt ||
		seed == 0 || flags == compactFlagSeed && seed == DefaultSeed {
		return
	}
	buckets, bbits := (end-1)*8, uint64(bucketBits(layout, f))
	m, count = buckets/bbits, uint64(uint32(tr>>(8*offCompactCount)))
	ok = m*bbits == buckets && m >= 2 && m%2 == 0 && m <= maxBuckets && count <= m*slotsPerBucket
	return layout, f, kind, m, count, seed, ok
}

// compactFault is the error for a compact encoding that readCompact
// rejects: the first of its checks that fails, in words.
//
//go:noinline
func compactFault(data []byte) error {
	if len(data) < 1+compactTrailer {
		return formatErr(ErrCorrupt, "truncated: %d bytes, a compact encoding has at least %d", len(data), 1+compactTrailer)
	}
	end := len(data) - compactTrailer
	tr := data[end:]
	layout, f, kind, flags := Layout(tr[offCompactLayout]), uint(tr[offCompactBits]), keyKind(tr[offCompactFamily]), tr[offCompactFlags]
	switch {
	case flags > compactFlagSeed:
		return formatErr(ErrCorrupt, "unknown compact flags %#x", flags)
	case flags == compactFlagSeed && end < 1+compactSeedLen:
		return formatErr(ErrCorrupt, "truncated: %d bytes, too short for the seed its flags announce", len(data))
	case flags == compactFlagSeed && binary.LittleEndian.Uint64(data[end-compactSeedLen:]) == 0:
		return formatErr(ErrCorrupt, "seed 0 (a filter's seed is never 0)")
	case flags == compactFlagSeed && binary.LittleEndian.Uint64(data[end-compactSeedLen:]) == DefaultSeed:
		return formatErr(ErrCorrupt, "DefaultSeed written out (it is written only as a clear flag)")
	case !layout.valid():
		return formatErr(ErrCorrupt, "unknown layout %d", layout)
	case f < minFingerprintBits || f > maxFingerprintBits:
		return formatErr(ErrCorrupt, "fingerprint bits %d not in %d..%d", f, minFingerprintBits, maxFingerprintBits)
	case kind != kindInt && kind != kindFloat && kind != kindBytes:
		return formatErr(ErrCorrupt, "unknown key kind %d", kind)
	}
	if flags == compactFlagSeed {
		end -= compactSeedLen
	}
	bbits := bucketBits(layout, f)
	return formatErr(ErrCorrupt, "%d bytes of buckets are not an even number of %d-bit buckets in 2..%d holding at most the %d items of the trailer",
		end-1, bbits, uint64(maxBuckets), binary.LittleEndian.Uint32(tr[offCompactCount:]))
}

// parseCompact is readCompact as the header of the decoded filter: it has
// Capacity Len (at least 1), the default MaxKicks, and its PRNG at the seed.
func parseCompact(data []byte) (header, error) {
	layout, f, kind, m, count, seed, ok := readCompact(data)
	if !ok {
		return header{}, compactFault(data)
	}
	capacity := max(count, 1)
	return header{version: formatVersion3, layout: layout, f: f, kind: kind, m: m, count: count,
		capacity: capacity, maxCapacity: capacity, seed: seed, rng: seed, maxKicks: DefaultMaxKicks}, nil
}
