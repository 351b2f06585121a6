// Package pebblefilter stores cuckoo filters as the table filters of a
// Pebble database (github.com/cockroachdb/pebble/v2): a pebble.FilterPolicy
// that Pebble consults, like its Bloom filter, to skip the sstables that
// cannot hold the key of a point lookup.
//
// Set the policy on the levels that should get filters:
//
//	p := pebblefilter.Policy(0.01)
//	opts := &pebble.Options{}
//	for i := range opts.Levels {
//		opts.Levels[i].FilterPolicy = p
//		opts.Levels[i].FilterType = pebble.TableFilter
//	}
//	db, err := pebble.Open(dir, opts)
//
// Each filter holds the prefixes (Comparer.Split) of a table's keys; with
// the default Comparer the prefix is the whole key.
//
// Only point lookups consult the filters: DB.Get and Iterator.SeekPrefixGE,
// never range reads (SeekGE, First, Next, ...). And Pebble skips the
// filters of L6 tables, where a full compaction puts every key and where
// most of a large database lives, unless the Iterator was opened with
// IterOptions.UseL6Filters, which Get cannot ask for: after a full
// compaction a Get consults no filter at all, and the Filter counts of
// DB.Metrics stay where they were. Point lookups that consult the filters
// of every level:
//
//	it, err := db.NewIter(&pebble.IterOptions{UseL6Filters: true})
//	found := it.SeekPrefixGE(key) && bytes.Equal(it.Key(), key)
//	value := it.Value() // key's value, while found
//
// An Iterator reads the database as it was when it was opened and keeps
// that version's files: open one for a run of lookups, then Close it.
//
// Pebble records the policy's name ("cuckoo.v5", for the compact encoding,
// format version 5) in each table and uses a table's filter only if a
// policy of that name is configured. Tables written before the switch, with
// another policy such as bloom.FilterPolicy(10), stay readable and give the
// same results; their filters are skipped unless that policy is also
// listed in Options.Filters, under its name. Likewise, opening the database
// without this policy skips the cuckoo filters but reads everything.
//
// Every filter records its own fingerprint width, so a policy of one rate
// reads the filters written at any other: the rate given to Policy only
// decides how new filters are built.
package pebblefilter

import (
	"fmt"

	"github.com/cockroachdb/pebble/v2"
	"github.com/seed-a0724874/cuckoo"
)

// Name is the policy's name, recorded in every table it writes a filter
// for. It names the encoding, the compact encoding of format version 5: a
// later encoding would come under another name, so that a reader never
// takes one for the other. (Tables written before the first release name
// cuckoo.v3 or cuckoo.v4, whose filters this policy skips.)
const Name = "cuckoo.v5"

// alwaysTrue is the filter Finish writes if it cannot build one: a byte
// that is no encoding's first, which MayContain answers true for, whatever
// the key, as it does for any bytes it cannot read. A table with such a
// filter is read as if it had none: never wrong, only slower.
const alwaysTrue = 0

// Policy returns a pebble.FilterPolicy that writes cuckoo filters with a
// false-positive rate of at most falsePositiveRate, whatever the number of
// keys in a table (at 0.01, 10-bit fingerprints; the README's "Inside a
// database" compares them with bloom.FilterPolicy).
//
// falsePositiveRate must be in (0, 1) and at least about 2^-29 (32-bit
// fingerprints); Policy panics otherwise, since a rate that is out of range
// is a mistake in the program, not something to recover from at run time.
func Policy(falsePositiveRate float64) pebble.FilterPolicy {
	cfg := cuckoo.Config{FalsePositiveRate: falsePositiveRate, Layout: cuckoo.SemiSorted}
	if !(falsePositiveRate > 0 && falsePositiveRate < 1) {
		panic(fmt.Sprintf("pebblefilter: false-positive rate %v is not in (0, 1)", falsePositiveRate))
	}
	if _, err := cuckoo.AppendCompactHashes[[]byte](nil, cfg, nil); err != nil {
		panic(fmt.Sprintf("pebblefilter: false-positive rate %v: %v", falsePositiveRate, err))
	}
	return policy{cfg: cfg}
}

type policy struct {
	cfg cuckoo.Config
}

var _ pebble.FilterPolicy = policy{}

// Name implements pebble.FilterPolicy.
func (policy) Name() string { return Name }

// MayContain implements pebble.FilterPolicy: it probes the filter where it
// lies, allocating nothing. It answers true for bytes it cannot read as a
// filter (true rules nothing out), and never panics.
func (policy) MayContain(_ pebble.FilterType, filter, key []byte) bool {
	ok, err := cuckoo.ContainsEncoded(filter, key)
	return ok || err != nil
}

// NewWriter implements pebble.FilterPolicy.
func (p policy) NewWriter(pebble.FilterType) pebble.FilterWriter {
	return &writer{cfg: p.cfg}
}

// writer keeps the hash of each key added since the last Finish.
type writer struct {
	cfg    cuckoo.Config
	hashes []uint64
}

// AddKey hashes key at once, so that Pebble may reuse its buffer, and
// keeps the 8-byte hash. Pebble adds keys in order, so a repeated key
// (the prefix of several versions) comes right after itself and is
// skipped; any other repeat is harmless.
func (w *writer) AddKey(key []byte) {
	h := cuckoo.Hash(key)
	if n := len(w.hashes); n > 0 && w.hashes[n-1] == h {
		return
	}
	w.hashes = append(w.hashes, h)
}

// Finish appends to buf a filter of the keys added since the last Finish,
// at the smallest size that holds them, and forgets them, keeping their
// memory for the next filter. It builds the filter in buf's spare capacity
// and allocates nothing but buf's growth. A filter of no keys is 18 bytes
// and answers false. If it cannot build the filter it appends a byte that
// MayContain answers true for, so that the table is read as if unfiltered:
// keys whose hashes crowd into too few buckets at every size tried, which
// random keys never do but anyone can compute for the unkeyed hash, make
// the build give up (cuckoo.Build) after work and memory bounded by the
// number of keys; and no sstable has 2^32 keys.
func (w *writer) Finish(buf []byte) []byte {
	out, err := cuckoo.AppendCompactHashes[[]byte](buf, w.cfg, w.hashes)
	w.hashes = w.hashes[:0]
	if err != nil {
		return append(buf, alwaysTrue)
	}
	return out
}
