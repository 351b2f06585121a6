package cuckoo

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// The compact encodings (format versions 3 and 4, FORMAT.md) are for
// filters stored many to a file by a container that knows each one's length
// and checks its bytes itself, such as a storage engine's filter blocks: a
// one-byte version, the buckets, and a trailer, with no padding and no
// checksum of their own. The trailer is the padding: the probes' loads that
// run past the last bucket read the trailer's bytes, which no lane test
// looks at. The bucket count is not stored: the length gives it.
//
// AppendCompact writes version 4, whose trailer is as short as its fields
// and those loads allow (compactTail): 4 bytes for most filters of a few
// dozen keys, which some engines write one per data block, against version
// 3's 8. Its item count fills the trailer up to the probes' reach, so it
// needs no padding. Version 3, written before version 4 existed, is still
// read.
//
// Neither has a checksum, but both have some redundancy, so that bytes that
// are not such an encoding (a block cut short, another policy's filter)
// are refused rather than read as a filter that rules keys out: version 3's
// trailer fields admit few values, and version 4's trailer holds the low
// byte of the encoding's length and a mark in its flags.
//
// Only fixed, unkeyed filters have a compact encoding: a growable one needs
// its stage, a keyed one its key's check value (version 2's header).

const (
	formatVersion3 = 3
	formatVersion4 = 4
	compactSeedLen = 8 // the seed, in the trailer, unless it is DefaultSeed

	// Version 3's trailer: item count (uint32), key family, layout,
	// fingerprint bits and flags, preceded by the seed if flag bit 0 is set.
	compactTrailer3  = 8
	compactFlagSeed3 = 1

	// Version 4's trailer ends with three bytes: the low byte of the
	// encoding's length, flags and shape. Flags hold the item count's
	// length in bytes (countBytes4), flag4Seed, and flag4Mark in the high
	// four bits, which no zero byte matches; the shape byte holds f - 4,
	// the layout (bit 5) and the key family (bits 6-7). Before them come
	// the count, in that many bytes, then the seed if flagged.
	compactFields4 = 3
	flag4Seed      = 8
	flag4Mark      = 0xa0
)

// Version 3's trailer field offsets, from the trailer's first byte.
const (
	offCompactCount  = 0 // uint32
	offCompactFamily = 4
	offCompactLayout = 5
	offCompactBits   = 6
	offCompactFlags  = 7
)

// isCompact reports whether an encoding whose first byte is v is compact.
func isCompact(v uint16) bool { return v == formatVersion3 || v == formatVersion4 }

// countLen is the fewest bytes that hold count: 0 for 0.
func countLen(count uint64) uint64 { return uint64(bits.Len64(count)+7) / 8 }

// countBytes4 is how many bytes version 4 writes an item count in: the
// fewest that hold it or, with no seed, enough to make the trailer as long
// as the probes' reach, so that the trailer needs no padding.
func countBytes4(count uint64, seeded bool, reach uint64) uint64 {
	c := countLen(count)
	if !seeded && compactFields4+c < reach {
		c = reach - compactFields4
	}
	return c
}

// compactTail is the length of what follows the buckets in a compact
// encoding of the given version and shape: the trailer, and the seed if it
// is not DefaultSeed.
func compactTail(version uint16, s *shape, seed, count uint64) uint64 {
	seedLen := uint64(0)
	if seed != DefaultSeed {
		seedLen = compactSeedLen
	}
	if version == formatVersion3 {
		return compactTrailer3 + seedLen
	}
	return compactFields4 + countBytes4(count, seedLen != 0, uint64(s.reach)) + seedLen
}

// AppendCompact appends the filter's compact encoding (FORMAT.md, version
// 4) to b and returns the extended slice: the buckets and 4 to 9 bytes (12
// to 16 with a seed other than DefaultSeed; 5 for a filter of 1 to 255
// items with 8- to 16-bit fingerprints), against version 1's 84, for
// storage that knows each encoding's length and checksums its bytes itself,
// such as a storage engine's filter blocks. NewView, NewViewUnverified,
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
	start := len(b)
	b = append(b, formatVersion4)
	b = append(b, t.data[:t.m*uint64(t.bbits)/8]...)
	return appendCompactTrailer(b, start, r, kindOf[T]().family()), nil
}

// appendCompactTrailer appends what follows the buckets in the version 4
// encoding of r's filter of keys of the given family, which starts at
// b[start].
func appendCompactTrailer(b []byte, start int, r *reader, family keyKind) []byte {
	t := &r.t
	count, seeded := uint64(r.count), r.h.seed != DefaultSeed
	c := countBytes4(count, seeded, uint64(t.reach))
	flags := flag4Mark | byte(c)
	if seeded {
		b = binary.LittleEndian.AppendUint64(b, r.h.seed)
		flags |= flag4Seed
	}
	for i := range c {
		b = append(b, byte(count>>(8*i)))
	}
	b = append(b, 0, flags, byte(t.fbits-minFingerprintBits)|byte(t.layout)<<5|byte(family)<<6)
	b[len(b)-3] = byte(len(b) - start)
	return b
}

// parseCompact checks the compact encoding that is all of data, which
// starts with formatVersion3 or formatVersion4, and returns it as the
// header of the decoded filter: it has Capacity Len (at least 1), the
// default MaxKicks, and its PRNG at the seed.
func parseCompact(data []byte) (header, error) {
	var h header
	var ok bool
	if data[0] == formatVersion3 {
		h.layout, h.f, h.kind, h.m, h.count, h.seed, ok = readCompact3(data)
		if !ok {
			return header{}, compactFault3(data)
		}
	} else if err := readCompact4(data, &h); err != nil {
		return header{}, err
	}
	h.version = uint16(data[0])
	h.capacity = max(h.count, 1)
	h.maxCapacity, h.rng, h.maxKicks = h.capacity, h.seed, DefaultMaxKicks
	return h, nil
}

// readCompact4 reads the version 4 encoding that is all of data into h's
// layout, width, key family, bucket count, item count and seed, and says
// what is wrong if anything is.
func readCompact4(data []byte, h *header) error {
	n := uint64(len(data))
	if n < 1+compactFields4 {
		return formatErr(ErrCorrupt, "truncated: %d bytes, a compact encoding has at least %d", n, 1+compactFields4)
	}
	shape, flags, check := data[n-1], data[n-2], data[n-3]
	h.layout, h.f, h.kind = Layout(shape>>5&1), uint(shape&31)+minFingerprintBits, keyKind(shape>>6)
	c, seeded := uint64(flags&^flag4Seed^flag4Mark), flags&flag4Seed != 0
	// The length first: bytes cut or extended by their container shift the
	// trailer, whose other fields then say nothing useful.
	switch {
	case check != byte(n):
		return formatErr(ErrCorrupt, "%d bytes, but the trailer gives %d for the length's low byte: cut short, extended, or not a filter", n, check)
	case h.kind == kindInvalid:
		return formatErr(ErrCorrupt, "unknown key kind %d", h.kind)
	case h.f > maxFingerprintBits:
		return formatErr(ErrCorrupt, "fingerprint bits %d not in %d..%d", h.f, minFingerprintBits, maxFingerprintBits)
	case c > 7:
		return formatErr(ErrCorrupt, "unknown compact flags %#x", flags)
	}
	h.seed = DefaultSeed
	tail := compactFields4 + c
	if seeded {
		tail += compactSeedLen
	}
	if n < 1+tail {
		return formatErr(ErrCorrupt, "truncated: %d bytes, too short for the %d-byte trailer its flags announce", n, tail)
	}
	if seeded {
		h.seed = binary.LittleEndian.Uint64(data[n-tail:])
	}
	for i := range c {
		h.count |= uint64(data[n-compactFields4-c+i]) << (8 * i)
	}
	bbits := bucketBits(h.layout, h.f)
	buckets := (n - 1 - tail) * 8
	h.m = buckets / uint64(bbits)
	switch {
	case c != countBytes4(h.count, seeded, probeReachOf(h.f, bbits)):
		return formatErr(ErrCorrupt, "item count %d written in %d bytes", h.count, c)
	case h.count > math.MaxUint32:
		return formatErr(ErrCorrupt, "item count %d: a compact encoding holds fewer than 2^32", h.count)
	case h.seed == 0:
		return formatErr(ErrCorrupt, "seed 0 (a filter's seed is never 0)")
	case seeded && h.seed == DefaultSeed:
		return formatErr(ErrCorrupt, "DefaultSeed written out (it is written only as a clear flag)")
	case h.m*uint64(bbits) != buckets || h.m < 2 || h.m%2 != 0 || h.m > maxBuckets || h.count > h.m*slotsPerBucket:
		return formatErr(ErrCorrupt, "%d bytes of buckets are not an even number of %d-bit buckets in 2..%d holding at most the %d items of the trailer",
			buckets/8, bbits, uint64(maxBuckets), h.count)
	}
	return nil
}

// readCompact3 checks the version 3 encoding that is all of data and
// returns what its trailer and length give: layout, fingerprint bits, key
// family, bucket count, item count and seed, and whether every field is in
// range and the length exactly an even number of buckets and the trailer.
// compactFault3 says what is wrong when ok is false.
func readCompact3(data []byte) (layout Layout, f uint, kind keyKind, m, count, seed uint64, ok bool) {
	n := uint64(len(data))
	if n < 1+compactTrailer3 {
		return
	}
	end := n - compactTrailer3
	tr := binary.LittleEndian.Uint64(data[end:])
	layout, f = Layout(tr>>(8*offCompactLayout)), uint(uint8(tr>>(8*offCompactBits)))
	kind, flags := keyKind(tr>>(8*offCompactFamily)), byte(tr>>(8*offCompactFlags))
	seed = DefaultSeed
	if flags == compactFlagSeed3 && end >= 1+compactSeedLen {
		end -= compactSeedLen
		seed = binary.LittleEndian.Uint64(data[end:])
	}
	if flags != 0 && end == n-compactTrailer3 || flags > compactFlagSeed3 || !layout.valid() ||
		f-minFingerprintBits > maxFingerprintBits-minFingerprintBits || kind-kindInt > kindBytes-kindInt ||
		seed == 0 || flags == compactFlagSeed3 && seed == DefaultSeed {
		return
	}
	buckets, bbits := (end-1)*8, uint64(bucketBits(layout, f))
	m, count = buckets/bbits, uint64(uint32(tr>>(8*offCompactCount)))
	ok = m*bbits == buckets && m >= 2 && m%2 == 0 && m <= maxBuckets && count <= m*slotsPerBucket
	return layout, f, kind, m, count, seed, ok
}

// compactFault3 is the error for a version 3 encoding that readCompact3
// rejects: the first of its checks that fails, in words.
func compactFault3(data []byte) error {
	if len(data) < 1+compactTrailer3 {
		return formatErr(ErrCorrupt, "truncated: %d bytes, a compact encoding has at least %d", len(data), 1+compactTrailer3)
	}
	end := len(data) - compactTrailer3
	tr := data[end:]
	layout, f, kind, flags := Layout(tr[offCompactLayout]), uint(tr[offCompactBits]), keyKind(tr[offCompactFamily]), tr[offCompactFlags]
	switch {
	case flags > compactFlagSeed3:
		return formatErr(ErrCorrupt, "unknown compact flags %#x", flags)
	case flags == compactFlagSeed3 && end < 1+compactSeedLen:
		return formatErr(ErrCorrupt, "truncated: %d bytes, too short for the seed its flags announce", len(data))
	case flags == compactFlagSeed3 && binary.LittleEndian.Uint64(data[end-compactSeedLen:]) == 0:
		return formatErr(ErrCorrupt, "seed 0 (a filter's seed is never 0)")
	case flags == compactFlagSeed3 && binary.LittleEndian.Uint64(data[end-compactSeedLen:]) == DefaultSeed:
		return formatErr(ErrCorrupt, "DefaultSeed written out (it is written only as a clear flag)")
	case !layout.valid():
		return formatErr(ErrCorrupt, "unknown layout %d", layout)
	case f < minFingerprintBits || f > maxFingerprintBits:
		return formatErr(ErrCorrupt, "fingerprint bits %d not in %d..%d", f, minFingerprintBits, maxFingerprintBits)
	case kind != kindInt && kind != kindFloat && kind != kindBytes:
		return formatErr(ErrCorrupt, "unknown key kind %d", kind)
	}
	if flags == compactFlagSeed3 {
		end -= compactSeedLen
	}
	bbits := bucketBits(layout, f)
	return formatErr(ErrCorrupt, "%d bytes of buckets are not an even number of %d-bit buckets in 2..%d holding at most the %d items of the trailer",
		end-1, bbits, uint64(maxBuckets), binary.LittleEndian.Uint32(tr[offCompactCount:]))
}
