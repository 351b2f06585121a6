package cuckoo

import (
	"math"
	"slices"
)

// Building a filter from a known set of keys: when every key is known before
// the table is made, the table can be as small as the keys allow, instead of
// New's, which leaves room for Capacity keys that may come in any order.

// Build returns a fixed filter holding keys, in a table as small as this
// package can place them in: it tries the fewest buckets that could hold
// them (a table filled to capacity, for small key sets) or a load of 0.975
// (larger ones), and on a failed attempt tries again with 2 buckets more,
// or 0.4% more, until every key is in. No key is ever dropped. At a million
// keys it takes 0.97 of New's bytes for the same keys, and for a few dozen
// keys half or less (TestBuildSize).
//
// cfg is New's Config without Capacity and MaxCapacity, which must be 0:
// the filter's Capacity and Len are the number of keys it stored.
// FalsePositiveRate picks the smallest fingerprint width whose rate is at
// most the one asked for at any load, since a built table may be fuller
// than New's. Seed, Key, Layout and MaxKicks are New's; MaxKicks bounds the
// inserts made after Build, which makes longer walks of its own.
//
// Like InsertUnique, Build skips a key the filter already reports present,
// so duplicate keys cost nothing, and a key that shares its fingerprint and
// buckets with another takes no slot: the filter answers true for both.
// For that reason, do not Delete from a built filter.
//
// Build allocates the hashes of the keys (8 bytes a key) and the filter;
// its attempts reuse one table while they fit.
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
	return &Filter[T]{c: buildFilter(r, p, hs)}, nil
}

// BuildHashes is Build for keys hashed with Hash by a filter of the same
// Seed and Key: it allocates the filter only, and leaves hashes as they
// are.
func BuildHashes[T Hashable](cfg Config, hashes []uint64) (*Filter[T], error) {
	r, p, err := buildReader[T](cfg, len(hashes))
	if err != nil {
		return nil, err
	}
	return &Filter[T]{c: buildFilter(r, p, hashes)}, nil
}

// AppendCompactHashes appends to b the compact encoding (AppendCompact) of
// the filter BuildHashes(cfg, hashes) returns, and returns the extended
// slice. It builds the table in b's spare capacity, where its encoding
// goes, so it allocates nothing but b's growth: a caller that writes many
// filters, such as a storage engine's filter writer, and reuses b and
// hashes allocates nothing once they are large enough.
//
// Only unkeyed filters have a compact encoding: a Config with a Key gives
// an error wrapping ErrIncompatible. On an error b is returned unchanged.
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
	start := len(b)
	c := build(r, p, hashes, func(n uint64) []byte {
		b = slices.Grow(b[:start], int(1+n+n/64+compactSeedLen))
		return b[start+1 : cap(b)]
	})
	t := &c.t
	b = b[:start+1+int(t.m*uint64(t.bbits)/8)]
	b[start] = compactVersion
	return appendCompactTrailer(b, start, &c.reader, kindOf[T]().family()), nil
}

// buildReader checks a Build Config for n keys of type T and returns the
// resolved parameters and a reader with their hash, without a table.
func buildReader[T Hashable](cfg Config, n int) (reader, params, error) {
	p, err := buildParams(cfg, n)
	if err != nil {
		return reader{}, p, err
	}
	r := reader{h: newHasher(p.seed), kind: kindOf[T]()}
	r.setKey(p.key)
	return r, p, nil
}

// buildParams checks a Build Config for n keys and resolves it.
func buildParams(cfg Config, n int) (params, error) {
	switch {
	case cfg.Capacity != 0:
		return params{}, invalidField("Capacity", "%d is set; Build sizes the filter for its keys", cfg.Capacity)
	case cfg.MaxCapacity != 0:
		return params{}, invalidField("MaxCapacity", "%d is set; a built filter is fixed", cfg.MaxCapacity)
	}
	cfg.Capacity = max(n, 1)
	// New's sizing (resolve) is not Build's, which starts from buildStart;
	// its tables may be full.
	p, err := cfg.check(true)
	if err != nil {
		return p, err
	}
	if uint64(n) > maxCapacity(p.f) {
		return p, overCapacity(n, p.f)
	}
	return p, checkCounts(n, buildStart(n, p.f), bucketBits(p.layout, p.f), math.MaxInt)
}

// buildKicks bounds the walk of each insert of a build of many keys: 16
// times the default MaxKicks fills tables about half a point further.
// Small builds walk at most 2 steps a key (at least 100): their tables are
// tried at a load of 1, where a failing insert would otherwise walk
// thousands of steps before the next attempt, 2 buckets larger, succeeds.
const buildKicks = 16 * DefaultMaxKicks

// buildLoad is the load Build first tries for larger key sets: the
// displacement walk with buildKicks fills tables of a million keys to
// 0.976-0.978 of their slots, of thousands to 0.96-0.98.
const buildLoad = 0.977

// build inserts the distinct hashes hs (InsertUnique's sense) into the
// smallest table it can: the first of its attempts that holds them all.
// Each attempt starts over from an empty table of more buckets. Attempts
// are sized for len(hs) keys; the first that stores clearly fewer (hs
// repeats keys) starts over, once, from the size for those it stored.
//
// Each attempt works in the buffer that alloc returns for n bytes (at least
// n), or in the last attempt's if it is large enough: its table is the
// buffer's first bytes, and the path of its long walks comes after them.
func build(r reader, p params, hs []uint64, alloc func(n uint64) []byte) core {
	f, layout := p.f, p.layout
	m := buildStart(len(hs), f)
	kicks := min(buildKicks, max(DefaultMaxKicks/5, 2*len(hs)))
	kickLen := uint64(0)
	if kicks > kickStackSteps {
		kickLen = uint64(kicks+3) / 4
	}
	var buf []byte
	resized := false
	for {
		n := tableBytes(m, bucketBits(layout, f))
		if uint64(cap(buf)) < n+kickLen {
			buf = alloc(n + kickLen)
		}
		r.t = tableShape(m, f, 0, 0, layout)
		r.t.data = buf[:n]
		clear(r.t.data)
		c := core{reader: r, maxKicks: kicks, rng: r.h.seed, kickBuf: buf[n : n+kickLen]}
		if !c.insertAll(hs) {
			m += max(2, m/256&^1)
			continue
		}
		if smaller := buildStart(c.count, f); !resized && smaller < m-m/64 {
			m, resized = smaller, true
			continue
		}
		return c
	}
}

// buildFilter is build into a table of its own, made a fixed filter of
// p's MaxKicks.
func buildFilter(r reader, p params, hs []uint64) core {
	c := build(r, p, hs, func(n uint64) []byte { return newTableData(n + n/64) })
	c.maxKicks, c.kickBuf = p.maxKicks, nil
	if p.maxKicks > kickStackSteps {
		c.kickBuf = make([]byte, (p.maxKicks+3)/4)
	}
	c.capacity = max(c.count, 1)
	c.maxCapacity = c.capacity
	return c
}

// insertAll inserts every hash of hs that the table does not already report
// present, and reports whether all went in.
func (c *core) insertAll(hs []uint64) bool {
	for _, h := range hs {
		if c.containsHash(h) {
			continue
		}
		if c.insertHash(h) != nil {
			return false
		}
	}
	return true
}

// buildStart is the bucket count Build tries first for n keys of f-bit
// fingerprints: the fewest that hold n at buildLoad, or for small n, where
// a table of a few buckets fills unevenly but tries are cheap, the fewest
// that hold n at all. Narrow fingerprints fill less (targetLoad).
func buildStart(n int, f uint) uint64 {
	load := min(buildLoad, targetLoad(f)+0.025)
	if n <= 256 {
		load = 1
	}
	m := max(2, uint64(math.Ceil(float64(n)/(slotsPerBucket*load))))
	return min(m+m&1, maxBuckets)
}
