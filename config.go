package cuckoo

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Config describes a filter. Every zero field but Capacity takes its default.
type Config struct {
	// Capacity, required (> 0), is the number of items the filter must accept:
	// inserting Capacity distinct keys into an empty filter succeeds, with
	// MaxKicks at its default or above. New allocates at once the buckets it
	// needs (about Capacity*s/7.6 bytes for s-bit slots: FingerprintBits, plus
	// the bits of Generations or MaxCapacity), not rounded up to a power of
	// two, and rejects a size an int cannot count; running out of memory is
	// fatal in Go, so bound Capacity by the memory you mean to spend. An
	// expiring filter's Capacity counts the keys alive at once: those
	// inserted or refreshed in the last Generations ticks (calls of
	// Advance), so Capacity = keys per tick x Generations (WindowConfig).
	Capacity int

	// FalsePositiveRate is the rate wanted with Capacity items stored; it
	// picks the smallest fingerprint width that reaches it. Default 0.001.
	// Set this or FingerprintBits, not both.
	FalsePositiveRate float64

	// FingerprintBits is the fingerprint width, 4 to 32.
	FingerprintBits int

	// Layout selects the bucket encoding. Default Packed.
	Layout Layout

	// Seed seeds the key hash and the displacement order; 0 means
	// DefaultSeed. Filters with the same Seed (and Key, or none) hash keys
	// alike, so one Hash(key) probes them all. It is no secret ("Security").
	Seed uint64

	// MaxKicks bounds the displacements one insert may make before it gives
	// up with ErrFull (and undoes them). 0 means DefaultMaxKicks; at most
	// MaxMaxKicks. Values below the default void the Capacity promise. A
	// ConcurrentFilter keeps a search queue of 64 bytes a step.
	MaxKicks int

	// Key, when not all zero, makes keys hash with SipHash-2-4 under this
	// 128-bit secret instead of the seeded xxh3, slower, so that whoever
	// chooses keys cannot aim them at buckets ("Security"). Hash values,
	// printing and encodings never reveal it; a keyed encoding opens only
	// with it (DecodeKeyed, NewKeyedView).
	Key [16]byte

	// MaxCapacity makes the filter growable: it starts with the table
	// Capacity needs (the same whatever MaxCapacity is) and doubles it,
	// without the keys, whenever it is full, as many times as it takes to
	// hold MaxCapacity: a MaxCapacity between two powers of two of Capacity
	// takes the doublings to the larger (10 times Capacity: 4 doublings, to
	// 16 times). Inserting MaxCapacity distinct keys into a new filter
	// succeeds, at most at the configured false-positive rate at every
	// size; an expiring filter so takes bursts of up to MaxCapacity live
	// keys, and halves again in Advance once they fit a smaller table
	// (Filter.Advance; Filter.Shrink halves a filter whose keys were
	// deleted). A slot carries a bit per doubling left (about (f+d)/f the bytes of a
	// fixed filter); FingerprintBits, the doublings and the generation bits
	// must fit 32, or New's error names each and values that fit. 0, or
	// Capacity, makes a fixed filter. A MaxCapacity below twice Capacity,
	// or of 72 items or fewer, leaves no room to double: New makes the
	// fixed filter for MaxCapacity, whose Capacity and Config().Capacity
	// are MaxCapacity.
	MaxCapacity int

	// Generations, G (at most MaxGenerations), makes keys expire: a key
	// lives from its insert (or its refresh by InsertUnique) until the G-th
	// call of Advance after it, which removes it. With Advance called once
	// a tick, a key so lives at least G-1 and at most G ticks: for a window
	// of W, with a tick of T, G = W/T + 1 (rounded up; WindowConfig), and
	// Capacity the keys of G ticks. Each slot carries ceil(log2 G)
	// generation bits above the key: (f+ceil(log2 G))/f times the bytes at
	// the same false-positive rate. G = 1 keeps none: Advance empties the
	// filter. 0, the default, makes keys that never expire. An expiring
	// filter that is full returns ErrFull, like any other, and stores
	// nothing: set MaxCapacity to take bursts, or call Advance sooner, which
	// shortens the window. It cannot be built or merged and has no compact
	// encoding; its other encodings carry its generations.
	Generations int
}

// WindowConfig returns the Config of an expiring filter that holds every
// key inserted in the last window, with Advance called once every tick and
// up to keysPerTick keys inserted a tick: Generations ceil(window/tick)+1
// and Capacity keysPerTick times that. A key then lives Generations-1 to
// Generations ticks: at least window, and less than window plus two ticks
// (plus one if window is a whole number of ticks). Set MaxCapacity on it
// to take bursts above keysPerTick, and any other field as for any Config.
// It returns an error wrapping ErrInvalidConfig for keysPerTick, window or
// tick below 1, or a window of more than MaxGenerations-1 ticks.
func WindowConfig(keysPerTick int, window, tick time.Duration) (Config, error) {
	switch {
	case keysPerTick < 1:
		return Config{}, fmt.Errorf("%w: WindowConfig: %d keys a tick; want at least 1", ErrInvalidConfig, keysPerTick)
	case window < 1 || tick < 1:
		return Config{}, fmt.Errorf("%w: WindowConfig: a window of %v with a tick of %v; both must be positive", ErrInvalidConfig, window, tick)
	case (window-1)/tick+2 > MaxGenerations:
		return Config{}, fmt.Errorf("%w: WindowConfig: a window of %v is more than %d ticks of %v (MaxGenerations %d): choose a longer tick", ErrInvalidConfig, window, MaxGenerations-1, tick, MaxGenerations)
	}
	g := int((window-1)/tick + 2) // ceil(window/tick) + 1
	if keysPerTick > math.MaxInt/g {
		return Config{}, fmt.Errorf("%w: WindowConfig: %d keys a tick for %d generations overflow Capacity", ErrInvalidConfig, keysPerTick, g)
	}
	return Config{Capacity: keysPerTick * g, Generations: g}, nil
}

const (
	// DefaultFalsePositiveRate is the rate used when a Config sets neither
	// FalsePositiveRate nor FingerprintBits.
	DefaultFalsePositiveRate = 0.001

	// DefaultMaxKicks is the displacement bound used when Config.MaxKicks is 0.
	DefaultMaxKicks = 500

	// MaxMaxKicks is the largest accepted Config.MaxKicks.
	MaxMaxKicks = 1 << 16
	// MaxGenerations is the largest accepted Config.Generations (8 bits a slot).
	MaxGenerations = 256
)

// SizeBytes is the SizeBytes of the filter New(c) returns, whatever its key
// type (for a growable one, of its first table), allocating nothing; for a
// Config that New rejects it returns New's error, wrapping ErrInvalidConfig.
func (c Config) SizeBytes() (int, error) {
	p, err := c.resolve()
	if err != nil {
		return 0, err
	}
	return int(tableBytes(p.m, bucketBits(p.layout, p.f+p.g+genBits(p.gens)))), nil
}

// params is a validated Config.
type params struct {
	key         [16]byte // Config.Key: all zero for an unkeyed filter
	capacity    int
	maxCapacity int // = capacity for a fixed filter
	f           uint
	m           uint64 // buckets: of a fixed table; of a growable one at stage 0
	g           uint   // doublings a growable table has (growth.go); 0 for a fixed one
	layout      Layout
	seed        uint64
	maxKicks    int
	gens        uint // Config.Generations: 0 for keys that never expire
}

// table is the empty table of a filter of these parameters, without data.
func (p *params) table() table { return tableShape(p.m, p.f, p.g, 0, p.layout, p.gens) }

func invalidField(field, format string, args ...any) error {
	return fmt.Errorf("%w: %s %s", ErrInvalidConfig, field, fmt.Sprintf(format, args...))
}

// resolve checks every field of c and computes the table's shape.
func (c Config) resolve() (params, error) {
	p, err := c.check(false)
	if err != nil {
		return p, err
	}
	m, ok := bucketsFor(c.Capacity, p.f)
	if !ok {
		return p, overCapacity(c.Capacity, p.f)
	}
	if err := checkCounts(c.Capacity, m, bucketBits(p.layout, p.f+genBits(p.gens)), math.MaxInt); err != nil {
		return p, err
	}
	p.m, p.maxCapacity = m, c.Capacity
	if c.growing() {
		return p, p.growable(&c, false)
	}
	return p, nil
}

// growing reports whether c sets a MaxCapacity other than its Capacity.
func (c *Config) growing() bool { return c.MaxCapacity != 0 && c.MaxCapacity != c.Capacity }

// check checks every field of c but MaxCapacity and resolves all but the
// table's size (p.m, p.maxCapacity), choosing widths for a full table if full.
func (c Config) check(full bool) (params, error) {
	p := params{key: c.Key, capacity: c.Capacity, layout: c.Layout, seed: c.Seed, maxKicks: cmp.Or(c.MaxKicks, DefaultMaxKicks)}
	switch {
	case c.Capacity <= 0:
		return p, invalidField("Capacity", "%d must be > 0", c.Capacity)
	case !c.Layout.valid():
		return p, invalidField("Layout", "%v is unknown", c.Layout)
	case c.MaxKicks < 0 || c.MaxKicks > MaxMaxKicks:
		return p, invalidField("MaxKicks", "%d must be in 0..%d", c.MaxKicks, MaxMaxKicks)
	case c.FingerprintBits != 0 && c.FalsePositiveRate != 0:
		return p, invalidField("FingerprintBits", "%d and FalsePositiveRate %v are both set; set one", c.FingerprintBits, c.FalsePositiveRate)
	case c.FingerprintBits != 0:
		if c.FingerprintBits < minFingerprintBits || c.FingerprintBits > maxFingerprintBits {
			return p, invalidField("FingerprintBits", "%d must be in %d..%d", c.FingerprintBits, minFingerprintBits, maxFingerprintBits)
		}
		p.f = uint(c.FingerprintBits)
	default:
		rate := cmp.Or(c.FalsePositiveRate, DefaultFalsePositiveRate)
		if !(rate > 0 && rate < 1) { // also rejects NaN
			return p, invalidField("FalsePositiveRate", "%v must be in (0, 1)", rate)
		}
		f, ok := bitsForRate(rate, full)
		if !ok {
			return p, invalidField("FalsePositiveRate", "%v needs more than %d fingerprint bits", rate, maxFingerprintBits)
		}
		p.f = f
	}
	g := c.Generations
	if g < 0 || g > MaxGenerations {
		return p, invalidField("Generations", "%d must be in 0..%d", g, MaxGenerations)
	}
	p.gens = uint(g)
	if p.f+genBits(p.gens) > maxFingerprintBits && !c.growing() { // else growable names MaxCapacity too
		return p, slotOverflow(&c, &p, 0, full)
	}
	return p, nil
}

// minBaseBuckets is the fewest buckets a growable table starts with: the
// final count is a multiple of the first, which must not round it up much.
const minBaseBuckets = 16

// growable sets p up to start from Capacity's buckets (minBaseBuckets at
// least) and double as often as it takes to reach MaxCapacity's: a
// MaxCapacity between two powers of two of Capacity takes the doublings to
// the larger, so the first table never depends on MaxCapacity.
func (p *params) growable(c *Config, full bool) error {
	maxCap := c.MaxCapacity
	if maxCap < p.capacity {
		return invalidField("MaxCapacity", "%d is below Capacity %d (0 means a fixed filter)", maxCap, p.capacity)
	}
	final, ok := bucketsFor(maxCap, p.f)
	if !ok {
		return invalidField("MaxCapacity", "%d is more than the largest filter holds at %d-bit fingerprints, %d", maxCap, p.f, maxCapacity(p.f))
	}
	m0 := max(p.m, minBaseBuckets)
	for splitsTable(m0, p.f) { // the base buckets are where alt works
		m0 += 2
	}
	g := uint(0)
	if maxCap>>1 >= p.capacity && final>>1 >= minBaseBuckets {
		for m0<<g < final {
			g++
		}
	}
	// g <= 28: the first table has 16 buckets or more, the last at most 2^32.
	if p.f+g+genBits(p.gens) > maxFingerprintBits {
		return slotOverflow(c, p, g, full)
	}
	if m0<<g > maxBuckets || checkCounts(maxCap, m0<<g, bucketBits(p.layout, p.f+genBits(p.gens)), math.MaxInt) != nil {
		return invalidField("MaxCapacity", "%d needs a filter larger than this platform can address", maxCap)
	}
	p.m, p.g, p.maxCapacity = m0, g, maxCap
	if g == 0 { // no room to double: a fixed filter for maxCap
		p.m, p.capacity = final, maxCap
	}
	return nil
}

// slotOverflow is the error for a Config whose slot needs more than 32 bits:
// the fingerprint's (FingerprintBits, or FalsePositiveRate's), g doublings'
// (MaxCapacity) and the generations' (Generations). One error names every
// field that takes bits and gives values that New accepts (TestSlotOverflow
// applies them): the width that fits beside the others; or, keeping the
// width, fewer doublings and generations.
func slotOverflow(c *Config, p *params, g uint, full bool) error {
	f, gb, d := int(p.f), int(genBits(p.gens)), int(g)
	width := fmt.Sprintf("FingerprintBits %d", f)
	if c.FingerprintBits == 0 {
		width = fmt.Sprintf("FalsePositiveRate %v (%d-bit fingerprints)", cmp.Or(c.FalsePositiveRate, DefaultFalsePositiveRate), f)
	}
	parts, others := []string{width}, []string(nil)
	if gb > 0 {
		parts = append(parts, fmt.Sprintf("Generations %d (%s)", p.gens, plural(gb, "bit")))
		others = append(others, plural(gb, "generation bit"))
	}
	if d > 0 {
		parts = append(parts, fmt.Sprintf("MaxCapacity %d (%s from Capacity %d)", c.MaxCapacity, plural(d, "doubling"), p.capacity))
		others = append([]string{plural(d, "doubling")}, others...)
	}
	var fixes []string
	if fits := maxFingerprintBits - d - gb; fits >= minFingerprintBits {
		if c.FingerprintBits == 0 {
			fixes = append(fixes, fmt.Sprintf("FalsePositiveRate %v (%d-bit fingerprints)", rateForBits(uint(fits), full), fits))
		} else {
			fixes = append(fixes, fmt.Sprintf("FingerprintBits %d", fits))
		}
	}
	// Keeping the width: the generations, then the doublings, give up bits.
	var keep []string
	gens := int(p.gens)
	if f+gb > maxFingerprintBits {
		gens = 1 << (maxFingerprintBits - f)
		keep = append(keep, fmt.Sprintf("Generations %d", gens))
	}
	if d > 0 {
		maxCap := 0 // a fixed filter
		if left := maxFingerprintBits - f - int(genBits(uint(gens))); left > 0 {
			maxCap = p.capacity << left
		}
		keep = append(keep, fmt.Sprintf("MaxCapacity %d", maxCap))
	}
	if gens != 1 || p.gens <= 1 { // not Generations 1, which expires every key at each Advance
		fixes = append(fixes, strings.Join(keep, " and ")+" (the same fingerprints)")
	}
	return formatErr(ErrInvalidConfig, "%s need %d bits a slot, and a slot holds at most %d: with %s, a slot holds fingerprints of at most %d bits, not %d; values that fit: %s",
		joinAnd(parts), f+d+gb, maxFingerprintBits, joinAnd(others), max(maxFingerprintBits-d-gb, 0), f, strings.Join(fixes, "; or "))
}

// joinAnd is s joined as a list in a sentence: "a", "a and b", "a, b and c".
func joinAnd(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// checkCounts rejects a table whose bytes or slots exceed maxInt: counts
// are ints.
func checkCounts(capacity int, m uint64, bbits uint, maxInt uint64) error {
	if n := tableBytes(m, bbits); n > maxInt {
		return invalidField("Capacity", "%d needs a %d-byte filter, more than this platform can address", capacity, n)
	}
	if n := m * slotsPerBucket; n > maxInt {
		return invalidField("Capacity", "%d needs %d slots, more than an int counts on this platform", capacity, n)
	}
	return nil
}

// spareBuckets are added to every table: small tables fill unevenly.
const spareBuckets = 2

// minFreeSlots: a table keeps at least min(2*Capacity, 48) slots free at
// capacity: the target load alone failed 1,123 of 57.6 million small
// tables' fills, with it none of 62 million.
const minFreeSlots = 48

// overCapacity is the error for a Capacity above maxCapacity(f).
func overCapacity(capacity int, f uint) error {
	return invalidField("Capacity", "%d is more than the largest filter holds at %d-bit fingerprints, %d", capacity, f, maxCapacity(f))
}

// maxCapacity is the largest Capacity that fits maxBuckets buckets.
func maxCapacity(f uint) uint64 {
	slots := float64((maxBuckets - spareBuckets - 2) * slotsPerBucket)
	return uint64(slots * targetLoad(f))
}

// bucketsFor is bucketsBase, skipping the counts that split the table.
func bucketsFor(capacity int, f uint) (uint64, bool) {
	if uint64(capacity) > maxCapacity(f) {
		return 0, false
	}
	m := bucketsBase(uint64(capacity), f)
	for splitsTable(m, f) {
		m += 2
	}
	return m, m <= maxBuckets
}

// bucketsBase is enough buckets for the target load, even (see table.alt),
// plus the spare ones, or if more enough to keep min(2n, minFreeSlots) free.
func bucketsBase(n uint64, f uint) uint64 {
	m := uint64(math.Ceil(float64(n) / (slotsPerBucket * targetLoad(f))))
	m += m&1 + spareBuckets
	if small := (n + min(2*n, minFreeSlots) + slotsPerBucket - 1) / slotsPerBucket; small > m {
		m = small + small&1
	}
	return m
}

// capacityFor is the Capacity a table of m (even) buckets promises, the
// largest (at least 1) for which bucketsFor gives at most m, so Build's and
// compact tables promise what New does; a split table promises a tenth
// less (2.3% of fills failed at the full figure, none of 66,790 so).
func capacityFor(m uint64, f uint) int {
	// bucketsFor(c) <= m exactly when bucketsBase(c) <= top, the last
	// count up to m that does not split.
	top := m
	for top > 2 && splitsTable(top, f) {
		top -= 2
	}
	// Estimate from bucketsBase's two counts, then step to the exact
	// answer, which the float products may miss by one.
	limit := min(maxCapacity(f), math.MaxInt)
	c := uint64(0)
	if top > spareBuckets {
		c = uint64(float64(top-spareBuckets) * slotsPerBucket * targetLoad(f))
	}
	if slots := top * slotsPerBucket; slots >= 3*minFreeSlots/2 {
		c = min(c, slots-minFreeSlots)
	} else {
		c = min(c, slots/3)
	}
	c = min(c, limit)
	for c > 0 && bucketsBase(c, f) > top {
		c--
	}
	for c < limit && bucketsBase(c+1, f) <= top {
		c++
	}
	if top != m {
		c -= c / 10
	}
	return int(max(c, 1))
}

// splitsTable reports whether nearly all offsets r(fp) of table.alt agree
// modulo some q in 3..64 dividing m: under 1 in 16 fingerprints then cross
// the bucket classes, and fills fail far more often (f = 8: 26 of 400 at
// 932 buckets, none at 934). f > 10, which splits no table below 10^4
// buckets, is not checked.
func splitsTable(m uint64, f uint) bool {
	if f > 10 {
		return false
	}
	fps := uint32(1)<<f - 1
	for q := uint64(3); q <= 64; q++ {
		// If q splits, so does its every divisor d >= 3, tried before q: only
		// 3, 4 and the odd primes need trying (2,800 instructions a call, not 5,400).
		if m%q != 0 || primesAnd4>>q&1 == 0 {
			continue
		}
		var classes [64]uint32
		most := uint32(0)
		fp := uint32(1)
		// Once 1 in 16 of all fingerprints lie outside the largest class so
		// far, q cannot split.
		for ; fp <= fps && (fp-1-most)*16 < fps; fp++ {
			c := (uint64(fp*0x9e3779b1)*m>>32 | 1) % q
			classes[c]++
			most = max(most, classes[c])
		}
		if fp > fps && (fps-most)*16 < fps {
			return true
		}
	}
	return false
}

// primesAnd4 has bit q set for 4 and the odd primes below 64.
const primesAnd4 uint64 = 1<<3 | 1<<4 | 1<<5 | 1<<7 | 1<<11 | 1<<13 | 1<<17 | 1<<19 | 1<<23 |
	1<<29 | 1<<31 | 1<<37 | 1<<41 | 1<<43 | 1<<47 | 1<<53 | 1<<59 | 1<<61

// falsePositiveRate is the expected false-positive rate at f bits and load:
// 4*load*m items match with probability 2/(m*(2^f-1)) each, nearly Poisson.
func falsePositiveRate(f uint, load float64) float64 {
	return -math.Expm1(-2 * slotsPerBucket * load / float64(uint64(1)<<f-1))
}

// bitsForRate is the least width reaching rate at its target load (or full).
func bitsForRate(rate float64, full bool) (uint, bool) {
	for f := uint(minFingerprintBits); f <= maxFingerprintBits; f++ {
		load := 1.0
		if !full {
			load = targetLoad(f)
		}
		if falsePositiveRate(f, load) <= rate {
			return f, true
		}
	}
	return 0, false
}

// rateForBits is the least FalsePositiveRate that bitsForRate turns into f
// bits or fewer, rounded up to 3 significant digits, for messages that
// advise a rate: New accepts the rate as printed.
func rateForBits(f uint, full bool) float64 {
	load := 1.0
	if !full {
		load = targetLoad(f)
	}
	x := falsePositiveRate(f, load)
	exp := int(math.Floor(math.Log10(x))) - 2
	digits := math.Ceil(x / math.Pow(10, float64(exp)))
	for {
		r, _ := strconv.ParseFloat(fmt.Sprintf("%.0fe%d", digits, exp), 64)
		if r >= x {
			return r
		}
		digits++
	}
}
