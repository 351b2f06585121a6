package cuckoo

import (
	"fmt"
	"math"
	"strconv"
)

// Layout selects how buckets are stored.
type Layout uint8

const (
	// Packed stores each fingerprint in f bits: a bucket is 4f bits.
	Packed Layout = iota
	// SemiSorted sorts the 4-bit prefixes of a bucket's fingerprints and
	// stores the sorted prefixes as one 12-bit code: a bucket is 4f-4 bits,
	// one bit per item less than Packed, for slightly slower lookups.
	SemiSorted
)

func (l Layout) String() string {
	switch l {
	case Packed:
		return "Packed"
	case SemiSorted:
		return "SemiSorted"
	}
	return "Layout(" + strconv.Itoa(int(l)) + ")"
}

// Config describes a filter. Capacity is required; every other zero field
// takes its default.
type Config struct {
	// Capacity is the number of items the filter must accept. Inserting
	// Capacity distinct keys into an empty filter succeeds. Required, > 0.
	Capacity int

	// FalsePositiveRate is the rate wanted with Capacity items stored; it
	// picks the smallest fingerprint width that reaches it. Default 0.001.
	// Set this or FingerprintBits, not both.
	FalsePositiveRate float64

	// FingerprintBits is the fingerprint width, 4 to 32.
	FingerprintBits int

	// Layout selects the bucket encoding. Default Packed.
	Layout Layout

	// Seed seeds the key hash and the displacement order. 0 means
	// DefaultSeed. Filters with the same Seed hash keys alike, so one
	// Hash(key) can probe them all; a secret seed defends against keys chosen
	// to collide.
	Seed uint64

	// MaxKicks bounds the displacements one insert may make before it gives
	// up with ErrFull (and undoes them). 0 means DefaultMaxKicks; at most
	// MaxMaxKicks.
	MaxKicks int
}

const (
	// DefaultFalsePositiveRate is the rate used when a Config sets neither
	// FalsePositiveRate nor FingerprintBits.
	DefaultFalsePositiveRate = 0.001

	// DefaultMaxKicks is the displacement bound used when Config.MaxKicks is 0.
	DefaultMaxKicks = 500

	// MaxMaxKicks is the largest accepted Config.MaxKicks.
	MaxMaxKicks = 1 << 16

	// TargetLoad is the fraction of slots that Capacity fills: a filter has
	// ceil(Capacity / (4 * TargetLoad)) buckets, rounded up to even.
	TargetLoad = 0.95

	minFingerprintBits = 4
	maxFingerprintBits = 32
)

// params is a validated Config.
type params struct {
	capacity int
	f        uint
	m        uint64
	layout   Layout
	seed     uint64
	maxKicks int
}

func invalid(field, format string, args ...any) error {
	return fmt.Errorf("%w: %s %s", ErrInvalidConfig, field, fmt.Sprintf(format, args...))
}

// resolve checks every field of c and computes the table's shape. It never
// allocates anything proportional to the requested size.
func (c Config) resolve() (params, error) {
	p := params{capacity: c.Capacity, layout: c.Layout, seed: c.Seed, maxKicks: c.MaxKicks}
	if c.Capacity <= 0 {
		return p, invalid("Capacity", "%d must be > 0", c.Capacity)
	}
	if c.Layout > SemiSorted {
		return p, invalid("Layout", "%v is unknown", c.Layout)
	}
	if c.MaxKicks < 0 || c.MaxKicks > MaxMaxKicks {
		return p, invalid("MaxKicks", "%d must be in 0..%d", c.MaxKicks, MaxMaxKicks)
	}
	if p.maxKicks == 0 {
		p.maxKicks = DefaultMaxKicks
	}
	switch {
	case c.FingerprintBits != 0 && c.FalsePositiveRate != 0:
		return p, invalid("FingerprintBits", "%d and FalsePositiveRate %v are both set; set one", c.FingerprintBits, c.FalsePositiveRate)
	case c.FingerprintBits != 0:
		if c.FingerprintBits < minFingerprintBits || c.FingerprintBits > maxFingerprintBits {
			return p, invalid("FingerprintBits", "%d must be in %d..%d", c.FingerprintBits, minFingerprintBits, maxFingerprintBits)
		}
		p.f = uint(c.FingerprintBits)
	default:
		rate := c.FalsePositiveRate
		if rate == 0 {
			rate = DefaultFalsePositiveRate
		}
		if !(rate > 0 && rate < 1) { // also rejects NaN
			return p, invalid("FalsePositiveRate", "%v must be in (0, 1)", rate)
		}
		f, ok := bitsForRate(rate, TargetLoad)
		if !ok {
			return p, invalid("FalsePositiveRate", "%v needs more than %d fingerprint bits", rate, maxFingerprintBits)
		}
		p.f = f
	}
	m, ok := bucketsFor(c.Capacity)
	if !ok {
		return p, invalid("Capacity", "%d is too large (at most %d)", c.Capacity, maxCapacity())
	}
	if tableBytes(m, bucketBits(p.layout, p.f)) > math.MaxInt {
		return p, invalid("Capacity", "%d needs a table larger than this platform can address", c.Capacity)
	}
	p.m = m
	return p, nil
}

// maxCapacity is the largest Capacity that fits maxBuckets buckets.
func maxCapacity() uint64 {
	slots := float64(maxBuckets * slotsPerBucket)
	return uint64(slots * TargetLoad)
}

// bucketsFor is the bucket count for a capacity: enough for TargetLoad,
// even (see table.alt), at least 2.
func bucketsFor(capacity int) (uint64, bool) {
	if uint64(capacity) > maxCapacity() {
		return 0, false
	}
	m := uint64(math.Ceil(float64(capacity) / (slotsPerBucket * TargetLoad)))
	m += m & 1
	return max(m, 2), m <= maxBuckets
}

// falsePositiveRate is the expected rate of a lookup for a key not in a
// filter with f-bit fingerprints at the given load: it compares against the
// 2*4*load fingerprints of two buckets, each equal with probability
// 1/(2^f-1).
func falsePositiveRate(f uint, load float64) float64 {
	return -math.Expm1(2 * slotsPerBucket * load * math.Log1p(-1/float64(uint64(1)<<f-1)))
}

// bitsForRate is the smallest width that keeps the rate at load below rate.
func bitsForRate(rate, load float64) (uint, bool) {
	for f := uint(minFingerprintBits); f <= maxFingerprintBits; f++ {
		if falsePositiveRate(f, load) <= rate {
			return f, true
		}
	}
	return 0, false
}
