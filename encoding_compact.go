package cuckoo

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// The compact encoding (FORMAT.md), for containers that record each
// filter's length and check its bytes: a version byte, the buckets and a
// trailer, the padding the probes read past the last bucket. The length's
// low byte and a flags mark, not a checksum, refuse most other bytes; it
// has no room for a growable filter's stage or a keyed one's key check.

const (
	// compactVersion is the one compact version written and read. A first
	// byte in 1..maxCompactVersion is a compact version, 'C' a header's magic.
	compactVersion    = formatVersion
	maxCompactVersion = 0x1f
	compactSeedLen    = 8 // the seed, in the trailer, unless it is DefaultSeed

	// The trailer ends with three bytes (FORMAT.md): the length's low byte,
	// flags (the count's length in bytes, compactFlagSeed, and compactMark,
	// which no zero byte matches) and shape (f - 4, layout, key family).
	compactFields   = 3
	compactFlagSeed = 8
	compactMark     = 0xa0
)

// isCompact reports whether an encoding starting with b is compact, of any version.
func isCompact(b byte) bool { return b >= 1 && b <= maxCompactVersion }

func checkCompactVersion(v byte) error {
	if v != compactVersion {
		return formatErr(ErrUnsupportedVersion, "compact encoding version %d; this package reads version %d", v, compactVersion)
	}
	return nil
}

// countLen is the fewest bytes that hold count: 0 for 0.
func countLen(count uint64) uint64 { return uint64(bits.Len64(count)+7) / 8 }

// countBytes is the length of the trailer's item count: the fewest bytes
// that hold it or, with no seed, enough to fill the probes' reach.
func countBytes(count uint64, seeded bool, reach uint64) uint64 {
	if c := countLen(count); seeded || compactFields+c >= reach {
		return c
	}
	return reach - compactFields
}

// AppendCompact appends the filter's compact encoding (FORMAT.md) to b,
// allocating nothing when b has room: the buckets and 4 to 9 bytes (12 to
// 16 with a seed not DefaultSeed), against AppendBinary's 148, for storage
// that records each encoding's length and checks its bytes. NewView,
// NewViewUnverified, ContainsEncoded, UnmarshalBinary and UnmarshalText
// read it; EncodedLen and ReadFrom cannot. It records
// the keys, seed and Len, not Capacity, MaxKicks or PRNG state: decoded, it
// has the Capacity New promises for its table and the default MaxKicks.
// Only fixed, unkeyed filters of fewer than 2^32 items whose keys never
// expire have one; others give an error wrapping ErrIncompatible.
func (f *Filter[T]) AppendCompact(b []byte) ([]byte, error) {
	r := &f.c.reader
	switch {
	case r.t.data == nil:
		return b, errZeroFilter
	case r.t.g > 0:
		return b, formatErr(ErrIncompatible, "a growable filter has no compact encoding")
	case r.t.gens != 0:
		return b, formatErr(ErrIncompatible, "an expiring filter (Generations %d) has no compact encoding, which has no room for its generations: use AppendBinary", r.t.gens)
	case r.h.sip() != nil:
		return b, formatErr(ErrIncompatible, "a keyed filter has no compact encoding")
	case uint64(r.count) > math.MaxUint32:
		return b, formatErr(ErrIncompatible, "%d items: a compact encoding holds fewer than 2^32", r.count)
	}
	start := len(b)
	b = append(b, compactVersion)
	b = append(b, r.t.data[:r.t.m*uint64(r.t.bbits)/8]...)
	return appendCompactTrailer(b, start, r, kindOf[T]().family()), nil
}

// appendCompactTrailer appends the trailer of r's compact encoding, which starts at b[start].
func appendCompactTrailer(b []byte, start int, r *reader, family keyKind) []byte {
	t := &r.t
	count, seeded := uint64(r.count), r.h.seed != DefaultSeed
	c := countBytes(count, seeded, uint64(t.reach))
	flags := compactMark | byte(c)
	if seeded {
		b = binary.LittleEndian.AppendUint64(b, r.h.seed)
		flags |= compactFlagSeed
	}
	for i := range c {
		b = append(b, byte(count>>(8*i)))
	}
	b = append(b, 0, flags, byte(t.fbits-minFingerprintBits)|byte(t.layout)<<5|byte(family)<<6)
	b[len(b)-3] = byte(len(b) - start)
	return b
}

// compactHeader checks the compact encoding that is all of data (data[0]
// a compact version) and returns its header but for the capacity, which
// decode adds: containsOther needs none, and capacityFor costs more than
// its lookup at f = 8 to 10. MaxKicks is the default, the PRNG the seed.
func compactHeader(data []byte) (header, error) {
	if err := checkCompactVersion(data[0]); err != nil {
		return header{}, err
	}
	n := uint64(len(data))
	if n < 1+compactFields {
		return header{}, formatErr(ErrCorrupt, "truncated: %s, a compact encoding has at least %d", plural(n, "byte"), 1+compactFields)
	}
	shape, flags, check := data[n-1], data[n-2], data[n-3]
	h := header{compact: true, layout: Layout(shape >> 5 & 1), f: uint(shape&31) + minFingerprintBits,
		kind: keyKind(shape >> 6), seed: DefaultSeed, maxKicks: DefaultMaxKicks}
	c, seeded := uint64(flags&^compactFlagSeed^compactMark), flags&compactFlagSeed != 0
	tail := compactFields + c
	if seeded {
		tail += compactSeedLen
	}
	// The length first: cut or extended bytes shift the trailer's fields.
	switch {
	case check != byte(n):
		return header{}, formatErr(ErrCorrupt, "%d bytes, but the trailer gives %d for the length's low byte: cut short, extended, or not a filter", n, check)
	case h.kind == kindInvalid:
		return header{}, formatErr(ErrCorrupt, "unknown key kind %d", h.kind)
	case h.f > maxFingerprintBits:
		return header{}, formatErr(ErrCorrupt, "fingerprint bits %d not in %d..%d", h.f, minFingerprintBits, maxFingerprintBits)
	case c > 7:
		return header{}, formatErr(ErrCorrupt, "unknown compact flags %#x", flags)
	case n < 1+tail:
		return header{}, formatErr(ErrCorrupt, "truncated: %d bytes, too short for the %d-byte trailer its flags announce", n, tail)
	}
	if seeded {
		h.seed = binary.LittleEndian.Uint64(data[n-tail:])
	}
	h.rng = h.seed
	for i := range c {
		h.count |= uint64(data[n-compactFields-c+i]) << (8 * i)
	}
	bbits := bucketBits(h.layout, h.f)
	buckets := (n - 1 - tail) * 8
	h.m = buckets / uint64(bbits)
	switch {
	case c != countBytes(h.count, seeded, probeReachOf(h.f, bbits)):
		return header{}, formatErr(ErrCorrupt, "item count %d written in %s", h.count, plural(c, "byte"))
	case h.count > math.MaxUint32:
		return header{}, formatErr(ErrCorrupt, "item count %d: a compact encoding holds fewer than 2^32", h.count)
	case h.seed == 0:
		return header{}, formatErr(ErrCorrupt, "seed 0 (a filter's seed is never 0)")
	case seeded && h.seed == DefaultSeed:
		return header{}, formatErr(ErrCorrupt, "DefaultSeed written out (it is written only as a clear flag)")
	case h.m*uint64(bbits) != buckets || h.m < 2 || h.m%2 != 0 || h.m > maxBuckets || h.count > h.m*slotsPerBucket:
		return header{}, formatErr(ErrCorrupt, "%s of buckets are not an even number of %d-bit buckets in 2..%d holding at most the trailer's %s",
			plural(buckets/8, "byte"), bbits, uint64(maxBuckets), plural(h.count, "item"))
	}
	return h, nil
}
