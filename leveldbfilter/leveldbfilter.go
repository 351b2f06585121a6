// Package leveldbfilter is a goleveldb filter policy made of cuckoo filters:
// an alternative to goleveldb's built-in Bloom filter for the per-block
// filters of its sorted tables, which let a Get skip the data blocks that
// cannot hold its key.
//
// Plug it in through the options:
//
//	db, err := leveldb.OpenFile(path, &opt.Options{Filter: leveldbfilter.New(0.01)})
//
// Each filter is the compact encoding (format version 5) of a cuckoo filter
// built for exactly the keys of its block, at the smallest size that holds
// them; goleveldb checksums the filter block it lives in. The policy's name,
// "cuckoo.v5", is stored in every table, and goleveldb uses a table's filter
// only when that name matches the policy of the options (Options.Filter or
// one of Options.AltFilters). So a database written with another filter,
// or with none, keeps working: its old tables are read without a filter
// (list the old policy in AltFilters to keep using their filters) until
// compaction rewrites them; so are the tables of this package's policies
// from before the first release, cuckoo.v3 and cuckoo.v4. The
// false-positive rate is not part of the name: each encoding records its
// own shape, so tables written at one rate are read by a policy made for
// another.
//
// Against goleveldb's Bloom filter at the same bits per key (the README's
// "Inside a database", bench_test.go), lookups are faster and builds
// slower; in the small filters of blocks of a few dozen keys, the even
// bucket count and the encoding's bytes weigh more, so choose a rate of
// 0.001 or less there.
package leveldbfilter

import (
	"fmt"

	"github.com/seed-a0724874/cuckoo"
	"github.com/syndtr/goleveldb/leveldb/filter"
)

// Name is the policy name, written into every table made with the policy.
// It carries the filters' format version: a policy that wrote another
// encoding would have another name.
const Name = "cuckoo.v5"

// unreadable is what Generate writes if it cannot build a filter (for a
// valid rate, only for keys chosen to crowd too few buckets: see
// Generate): a one-byte encoding of no version this package knows, which
// Contains answers true for, whatever the key. It must not be empty, since
// goleveldb takes an empty filter for a block of no keys and skips the
// block.
var unreadable = []byte{0}

// policy is the filter.Filter New returns.
type policy struct {
	cfg cuckoo.Config
}

// New returns a goleveldb filter policy whose filters have at most the given
// false-positive rate, whatever their load (0.01 gives 10-bit fingerprints,
// 10 to 12 bits a key, 0.001 gives 13-bit ones, 13 to 16 bits a key: the
// fewer keys a filter holds, the more bits each takes). It panics
// if the rate is not in (0, 1), or too small for 32-bit fingerprints
// (below about 2e-9): a policy is configured once, at startup, and a wrong
// rate is a programming error, not something to work around by clamping.
func New(falsePositiveRate float64) filter.Filter {
	cfg := cuckoo.Config{FalsePositiveRate: falsePositiveRate, Layout: cuckoo.SemiSorted}
	if !(falsePositiveRate > 0 && falsePositiveRate < 1) {
		panic(fmt.Sprintf("leveldbfilter: false-positive rate %v not in (0, 1)", falsePositiveRate))
	}
	if _, err := cuckoo.AppendCompactHashes[[]byte](nil, cfg, nil); err != nil { // the check Generate's builds make
		panic("leveldbfilter: " + err.Error())
	}
	return policy{cfg: cfg}
}

// Name returns "cuckoo.v5".
func (policy) Name() string { return Name }

// NewGenerator returns a generator for one table.
func (p policy) NewGenerator() filter.FilterGenerator {
	return &generator{cfg: p.cfg}
}

// minLen bounds the length of an encoding from below: a compact one is its
// version byte and at least 8 bytes of buckets and trailer. Shorter bytes
// are not a filter.
const minLen = 9

// Contains reports whether the block of data may hold key. It answers true
// for bytes it cannot read as a filter and never panics. It allocates
// nothing for the filters the policy writes; for other bytes of 9 bytes or
// more, which goleveldb never passes it (it checksums filter blocks and
// passes a table's filters only to the policy of their name), the library
// builds an error that costs a few allocations.
func (policy) Contains(data, key []byte) bool {
	if len(data) < minLen { // unreadable, Generate's fallback among them
		return true
	}
	ok, _ := cuckoo.ContainsEncoded(data, key) // true on an error
	return ok
}

// generator collects the hashes of a block's keys. goleveldb uses one per
// table writer, from one goroutine.
type generator struct {
	cfg     cuckoo.Config
	hashes  []uint64 // of the keys added since the last Generate
	scratch []byte   // where the filters are built, reused
}

// Add hashes key at once, since goleveldb reuses its buffer. A key whose
// hash is the previous one's (the same user key twice in a row, as
// goleveldb adds for each version of a key it keeps) is not kept again.
func (g *generator) Add(key []byte) {
	h := cuckoo.Hash(key)
	if n := len(g.hashes); n > 0 && g.hashes[n-1] == h {
		return
	}
	g.hashes = append(g.hashes, h)
}

// Generate writes the filter of the keys added since the last call to b and
// starts over. With no keys it writes the encoding of an empty filter, which
// rules every key out. If the build fails, it writes a one-byte filter that
// Contains answers true for: the block is then read for every key, which is
// slower, never wrong. Builds fail only for keys whose hashes crowd into
// too few buckets at every size tried, which random keys never do but
// anyone can compute for the unkeyed hash; they give up after work and
// memory bounded by the number of keys (cuckoo.Build).
func (g *generator) Generate(b filter.Buffer) {
	out, err := cuckoo.AppendCompactHashes[[]byte](g.scratch[:0], g.cfg, g.hashes)
	if err != nil {
		out = append(g.scratch[:0], unreadable...)
	}
	g.scratch = out
	_, _ = b.Write(out) // goleveldb's buffer does not fail
	g.hashes = g.hashes[:0]
}
