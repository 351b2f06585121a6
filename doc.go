// Package cuckoo implements cuckoo filters: compact sets that answer
// "maybe present" or "certainly absent", support deletion, and never report
// an inserted key as absent.
//
// A filter stores a short fingerprint of each key in one of two buckets of
// four slots (Fan, Andersen, Kaminsky and Mitzenmacher, "Cuckoo Filter:
// Practically Better Than Bloom", CoNEXT 2014). A lookup reads two buckets,
// each with one or two 64-bit loads, and tests all their slots at once.
//
//	f, err := cuckoo.New[string](cuckoo.Config{Capacity: 1_000_000})
//	if err != nil { ... }
//	_ = f.Insert("alice")
//	f.Contains("alice") // true
//	f.Contains("bob")   // false, or true with probability at most about 0.1%
//
// # Keys
//
// Keys are Go's integer, float, string and []byte types, [16]byte (UUIDs)
// and [32]byte (digests), named types included. Types of one family hash
// alike: integers by value, floats as float64, the others by their bytes
// (see Hashable).
//
// # Guarantees
//
//   - No false negatives: Contains(key) is true for every key inserted and
//     neither deleted nor expired (Config.Generations). An insert that
//     fails (ErrFull) leaves the table exactly as it was.
//   - Exact sizing: the table has the buckets Capacity needs, not a power of
//     two; inserting Capacity distinct keys into an empty filter succeeds
//     with the default MaxKicks. Every filter's Capacity is that promise for
//     its table, also one made by Build (which may hold more keys).
//   - Duplicates fail fast: a key's two buckets hold at most 8 copies of its
//     fingerprint; the ninth Insert returns ErrTooManyDuplicates at once.
//   - Bounded work: an insert makes at most Config.MaxKicks displacements,
//     and Build's work and memory are bounded by the key count, whatever
//     the keys (ErrFull for keys that fit in none of its tables).
//   - No allocation: inserts, lookups, counts, deletes, batches, Advance,
//     Hash, and AppendBinary into a buffer with room allocate nothing, for
//     every key type, but for the insert that doubles a growable filter.
//   - Determinism: the same Seed and the same operations give the same table.
//
// # Space and false positives
//
// With f-bit fingerprints at load a (the fraction of slots in use; Capacity
// fills 0.95 of them for f >= 8), a lookup for an absent key is a false
// positive with probability 1 - exp(-8a/(2^f-1)), about 8a/2^f, and the
// table takes f/a bits per item:
//
//	| fingerprint bits | false-positive rate | bits per item |
//	| 8  | 2.9%     | 8.4  |
//	| 10 | 0.74%    | 10.5 |
//	| 12 | 0.19%    | 12.6 |
//	| 13 | 0.093%   | 13.7 |
//	| 16 | 0.012%   | 16.8 |
//	| 20 | 0.00072% | 21.1 |
//	| 32 | 1.8e-09  | 33.7 |
//
// Config.FalsePositiveRate picks the smallest width that reaches a rate (13
// bits for the default, 0.001); Config.SizeBytes tells the table's size.
//
// # Keys that expire
//
// Config.Generations G >= 2 makes a filter that forgets by age: Advance
// starts a new generation and removes, in one pass over the table, the keys
// inserted G calls ago. A key so lives from its insert until the G-th
// Advance after it: with one Advance a tick, G-1 to G ticks, so a window
// of W ticks needs G = W+1 (WindowConfig) and a Capacity of G ticks' keys,
// the live keys of all generations; MaxCapacity lets the filter double for
// bursts. InsertUnique of a present key moves it to the current generation,
// so a key seen once a generation never expires (a sliding window). Each
// slot carries ceil(log2 G) generation bits beside the fingerprint:
// (f+ceil(log2 G))/f the bytes, the false-positive rate of f bits, and
// lookups of the same two buckets. A full expiring filter returns ErrFull
// and stores nothing, as any filter does: a key InsertUnique failed to
// store is not a repeat. G = 1 keeps no bits: Advance empties the filter.
// Expiring filters do not merge or build, and have no compact encoding;
// their full encoding carries the generations. InsertFor and
// InsertUniqueFor give a key a lifetime of its own, 1 to G calls of
// Advance: it goes in the generation that the ticks-th Advance clears. A
// filter that grew for a burst halves again in Advance once its live keys
// fit the smaller table, so its memory follows its keys.
//
// # Concurrency and copies
//
// A Filter's read-only methods may run concurrently; changes need exclusive
// access. A filter read by many goroutines while it changes should be a
// ConcurrentFilter, whose lookups take no lock (unless writes to their
// buckets keep spoiling their reads), scale with cores and never miss a key
// inserted before they began. Clone copies a Filter (go vet reports a
// copied Filter value, which would share the table).
//
// # Hashing once, probing many filters
//
// Hash(key) depends only on the key, Config.Seed and Config.Key, so a key
// hashed once can probe every filter of that seed (and key) through
// ContainsHash, such as one filter per data block. Printing a *Filter,
// *View or *ConcurrentFilter shows its key family, width, layout, count,
// capacity and load, never the seed or the table.
//
// # Security
//
// By default the hash is seeded, not keyed, and the seed is not a secret:
// the Hash of one known integer key gives it back, and encodings store it.
// Whoever knows the seed can compute colliding keys that make chosen
// lookups true and inserts (or Build) fail with ErrTooManyDuplicates or
// ErrFull, after bounded work. A stored key is never lost.
//
// For keys an adversary may choose, set Config.Key: the filter then hashes
// with SipHash-2-4 under that 128-bit secret, which Hash values, printing
// and encodings never reveal; a keyed encoding opens only with the Key.
//
// # Persistence
//
// AppendBinary, MarshalBinary and WriteTo write a filter in a versioned,
// checksummed, little-endian binary format (FORMAT.md); UnmarshalBinary and
// ReadFrom read it back into a Filter that continues exactly where the
// original was. NewView answers queries straight from encoded bytes, such as
// a memory-mapped file, without copying the table. Decoding checks sizes
// before allocating and returns errors wrapping ErrCorrupt, ErrChecksum,
// ErrUnsupportedVersion or ErrIncompatible, never a panic. The format has
// one version, 5, which later versions of the package will keep reading;
// any other version is refused with ErrUnsupportedVersion. EncodedLen and
// ReadFrom open filters stored back to back (ReadFrom returns io.EOF where
// the stream ends cleanly, before an encoding); MarshalText makes a struct
// holding a *Filter round-trip through encoding/json.
//
// # Many small filters
//
// AppendCompact writes a fixed, unkeyed filter whose keys do not expire as
// its buckets and 4 to 9 bytes, for containers that record each filter's
// length and checksum their blocks; ContainsEncoded probes any encoding in
// place, allocating nothing. AppendCompactHashes builds the smallest filter
// for a block's key hashes straight into the output buffer, as the
// pebblefilter and leveldbfilter modules do for Pebble and goleveldb.
package cuckoo

// Where things live, for those changing the package. The files of a line
// use their own and those of the lines below, never those above;
// TestFileLayers checks it:
//
//	info.go                             Info, for the three query types
//	concurrent.go, concurrent_*.go      ConcurrentFilter: its protocol and API, codec and
//	                                    snapshots, path search, table of atomic words, the
//	                                    model test's store recorder (empty in this build)
//	string.go, merge.go                 printing, Merge
//	keyed.go, view.go                   the keyed constructors, View
//	build.go, batch.go                  Build, the batches
//	encoded.go, encoding*.go            ContainsEncoded, the formats (FORMAT.md)
//	filter.go                           Filter and its methods
//	lookup.go, lookup_generic.go,       the single-key probe, batch dispatch, pure-Go batches;
//	count.go                            Count's probe
//	lookup_asm.go, lookup_*.go, *.s     the assembly batches and their selection
//	insert.go, growth.go, shrink*.go, generations.go, lifetimes.go
//	                                    an insert: fast paths, displacement walks; growth:
//	                                    where a key lives (locate, alt, stages), doubling,
//	                                    the policy that doubles and retries, halving (of
//	                                    one-word buckets, a word at a time); keys that
//	                                    expire: generation bits, InsertUnique, Delete,
//	                                    Advance; keys' own lifetimes (InsertFor)
//	core.go                             reader and core, the state under the public types
//	config.go, errors.go                Config and its resolution, the errors
//	table.go, table_*.go, probe.go      Layout, the table, its shapes, loads and stores and
//	                                    bucket operations; the layouts' bucket codecs
//	                                    (table_packed.go, table_semisort.go; table.go chooses);
//	                                    the probe kinds a lookup switches on
//	hash.go, siphash.go, lanes.go       key kinds, hashing (xxh3; SipHash-2-4 for keyed
//	                                    filters); SWAR arithmetic on four lanes
//	loads_*.go, pages_*.go              unaligned atomic loads, huge-page advice, by platform
//	doc.go                              the package's documentation, and this map
//
// Adding a key type: a kind in hash.go (kindOf, hasher.key or otherKey,
// keyWord) and its family in the formats (FORMAT.md). Adding a layout: a
// codec file beside table_packed.go and table_semisort.go, a case in each
// codec function of table.go, bucketBits and makeShape; where it pays, a
// probe class written out in the hot paths, a walk and a batch probe.
