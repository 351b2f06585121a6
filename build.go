package cuckoo

import (
	"math"
	"slices"
)

// Build returns a fixed filter holding keys in the smallest table it can
// place them in, trying the fewest buckets that could hold them, then
// slightly larger tables: smaller than New's for the same keys (README,
// "Choosing parameters"). No key is ever dropped. Work and memory are
// O(len(keys)), whatever the keys: at most 16 attempts (33 when keys
// repeat), on tables at most 30 buckets or 6.1% larger than the first, then
// an error wrapping ErrFull. Random keys fit in the first few; keys that fit
// in none were chosen to collide (set Config.Key if an adversary may choose
// them: "Security").
//
// cfg is New's Config without Capacity, MaxCapacity and Generations, which
// must be 0; FalsePositiveRate picks the smallest width that reaches it
// when full. Len is the number of keys stored and Capacity what New
// promises for a table of this size, so inserts after Build, bounded by
// MaxKicks, may fail; emptied with Reset, the filter accepts Capacity keys.
//
// Like InsertUnique, Build skips a key the filter already reports present:
// duplicates cost nothing, and a key sharing another's fingerprint and
// buckets takes no slot, so do not Delete from a built filter. Build
// allocates 8 bytes a key for the hashes, and the filter.
func Build[T Hashable](cfg Config, keys []T) (*Filter[T], error) {
	r, p, err := buildReader[T](cfg, len(keys))
	if err != nil {
		return nil, err
	}
	hs := make([]uint64, len(keys))
	for off := 0; off < len(keys); off += hashBlock {
		end := min(off+hashBlock, len(keys))
		hashKeys(&r.h, r.kind, keys[off:end], hs[off:end])
	}
	return buildFilter[T](r, p, hs)
}

// BuildHashes is Build for keys hashed with Hash by a filter of the same
// Seed and Key, which it leaves as they are, allocating the filter only.
// Its bound is Build's, also for values that are not Hash's (small
// integers, say), which may crowd buckets and fail with ErrFull.
func BuildHashes[T Hashable](cfg Config, hashes []uint64) (*Filter[T], error) {
	r, p, err := buildReader[T](cfg, len(hashes))
	if err != nil {
		return nil, err
	}
	return buildFilter[T](r, p, hashes)
}

// AppendCompactHashes appends to b the compact encoding (AppendCompact) of
// the filter BuildHashes(cfg, hashes) returns, building the table in b's
// spare capacity: it allocates nothing but b's growth, so a writer that
// reuses b and hashes allocates nothing once they are large enough. A
// Config with a Key gives an error wrapping ErrIncompatible, hashes that
// BuildHashes cannot place its error, after the same bounded work and
// memory; on an error b is returned unchanged.
func AppendCompactHashes[T Hashable](b []byte, cfg Config, hashes []uint64) ([]byte, error) {
	r, p, err := buildReader[T](cfg, len(hashes))
	switch {
	case err != nil:
		return b, err
	case p.key != [16]byte{}:
		return b, formatErr(ErrIncompatible, "a keyed filter has no compact encoding")
	case uint64(len(hashes)) > math.MaxUint32:
		return b, formatErr(ErrIncompatible, "%d keys: a compact encoding holds fewer than 2^32", len(hashes))
	}
	start, in := len(b), b
	c, err := build(r, p, hashes, func(n uint64) []byte {
		b = slices.Grow(b[:start], int(1+n+n/64+compactSeedLen))
		return b[start+1 : cap(b)]
	})
	if err != nil {
		return in, err
	}
	b = b[:start+1+int(c.t.m*uint64(c.t.bbits)/8)]
	b[start] = compactVersion
	return appendCompactTrailer(b, start, &c.reader, kindOf[T]().family()), nil
}

// buildReader checks a Build Config for n keys: params, a reader, no table.
func buildReader[T Hashable](cfg Config, n int) (reader, params, error) {
	var p params
	var err error
	switch {
	case cfg.Capacity != 0:
		err = invalidField("Capacity", "%d is set; Build sizes the filter for its keys", cfg.Capacity)
	case cfg.MaxCapacity != 0:
		err = invalidField("MaxCapacity", "%d is set; a built filter is fixed", cfg.MaxCapacity)
	case cfg.Generations != 0:
		err = invalidField("Generations", "%d is set; a built filter's keys do not expire", cfg.Generations)
	default:
		// Not New's sizing (resolve): Build starts from buildStart, which may fill the table.
		cfg.Capacity = max(n, 1)
		if p, err = cfg.check(true); err == nil && uint64(n) > maxCapacity(p.f) {
			err = overCapacity(n, p.f)
		} else if err == nil {
			err = checkCounts(n, buildStart(n, p.f), bucketBits(p.layout, p.f), math.MaxInt)
		}
	}
	if err != nil {
		return reader{}, p, err
	}
	r := reader{h: newHasher(p.seed), kind: kindOf[T](), keys: keysOf(kindOf[T]())}
	r.setKey(p.key)
	return r, p, nil
}

// buildKicks bounds a large build's walks: 16 times the default fills
// tables about half a point further. Small builds, at a load of 1, bound
// each walk by 2 steps a key (at least 100): retrying 2 buckets larger is
// cheaper.
const buildKicks = 16 * DefaultMaxKicks

// buildLoad is Build's first load for larger key sets: walks of buildKicks
// fill tables of a million keys to 0.976-0.978, of thousands to 0.96-0.98.
const buildLoad = 0.977

// buildAttempts bounds each pass of build: random keys took at most 4 in
// 400,000 builds; 16 grow the table 30 buckets or 6.1% (to a load of 0.92).
const buildAttempts = 16

// build inserts the distinct hashes hs (InsertUnique's sense) into empty
// tables of more and more buckets until one holds them all, each in the
// buffer alloc returns for n bytes or more (the table, then the walks'
// path) or the last one. If the table that holds them stores clearly fewer
// (hs repeats keys), build starts over once, sized for those. Work and
// memory are bounded by len(hs): the first pass makes buildAttempts
// attempts at most, on at most 1.061*buildStart(len(hs))+30 buckets, then
// ErrFull; the second as many below the size that held them, then that
// size, which places the hashes as before.
func build(r reader, p params, hs []uint64, alloc func(n uint64) []byte) (core, error) {
	m := buildStart(len(hs), p.f)
	kicks := min(buildKicks, max(DefaultMaxKicks/5, 2*len(hs)))
	kickLen := uint64(0)
	if kicks > kickStackSteps {
		kickLen = uint64(kicks+3) / 4
	}
	var buf []byte
	held := uint64(0) // the size that held every key, once one has
	for attempt := 1; ; attempt++ {
		n := tableBytes(m, bucketBits(p.layout, p.f))
		if uint64(cap(buf)) < n+kickLen {
			buf = alloc(n + kickLen)
		}
		r.t = tableShape(m, p.f, 0, 0, p.layout, 0)
		r.t.data = buf[:n]
		clear(r.t.data)
		c := core{reader: r, maxKicks: kicks, rng: r.h.seed, kickBuf: buf[n : n+kickLen]}
		failed := -1 // the first of hs that did not go in
		for i, h := range hs {
			if !c.containsHash(h) && c.insertHash(h) != nil {
				failed = i
				break
			}
		}
		switch {
		case failed < 0 && held == 0 && buildStart(c.count, p.f) < m-m/64:
			held, m, attempt = m, buildStart(c.count, p.f), 0
			continue
		case failed < 0:
			return c, nil
		case held == 0 && (attempt == buildAttempts || m == maxBuckets):
			return core{}, buildFailed(&c.t, hs, hs[failed], attempt)
		}
		m = min(m+max(2, m/256&^1), maxBuckets)
		if held != 0 && (attempt == buildAttempts || m > held) {
			m = held
		}
	}
}

// buildFailed is the error of an attempt that could not place h of hs in t.
func buildFailed(t *table, hs []uint64, h uint64, attempt int) error {
	if k, b1, b2 := keysCrowded(t, hs, h); k > 2*slotsPerBucket {
		return formatErr(ErrFull, "%d keys of distinct fingerprints share buckets %d and %d of %d, which hold %d: "+
			"keys chosen to collide, or hashes that are not Hash's (Config.Key keeps keys from being chosen)",
			k, b1, b2, t.m, 2*slotsPerBucket)
	}
	return formatErr(ErrFull, "%s did not fit in %s, the last of %d buckets: "+
		"keys chosen to crowd a few buckets, or hashes that are not Hash's (Config.Key keeps keys from being chosen)",
		plural(len(hs), "key"), plural(attempt, "attempt"), t.m)
}

// keysCrowded returns h's buckets in t and how many distinct fingerprints
// (up to 9: more than 8 fit none) the hashes of hs sharing both have.
func keysCrowded(t *table, hs []uint64, h uint64) (k int, b1, b2 uint64) {
	b1, _, b2, _ = t.place(h)
	var fps [2*slotsPerBucket + 1]uint32
	for _, x := range hs {
		c1, v, c2, _ := t.place(x)
		if !(c1 == b1 && c2 == b2 || c1 == b2 && c2 == b1) || slices.Contains(fps[:k], v) {
			continue
		}
		fps[k] = v
		if k++; k == len(fps) {
			break
		}
	}
	return k, b1, b2
}

// buildFilter is build into a table of its own, a fixed filter of p's MaxKicks.
func buildFilter[T Hashable](r reader, p params, hs []uint64) (*Filter[T], error) {
	c, err := build(r, p, hs, func(n uint64) []byte { return newTableData(n + n/64) })
	if err != nil {
		return nil, err
	}
	c.capacity = capacityFor(c.t.m, c.t.fbits)
	c.maxCapacity = c.capacity
	f := &Filter[T]{c: newCore(c.reader, p.maxKicks)}
	f.c.rng = c.rng
	return f, nil
}

// buildStart is Build's first bucket count for n keys: the fewest at
// buildLoad (less for narrow f), or at 1 for small n, whose tries are cheap.
func buildStart(n int, f uint) uint64 {
	load := min(buildLoad, targetLoad(f)+0.025)
	if n <= 256 {
		load = 1
	}
	m := max(2, uint64(math.Ceil(float64(n)/(slotsPerBucket*load))))
	return min(m+m&1, maxBuckets)
}
