package pebblefilter_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/seed-a0724874/cuckoo"
	"github.com/seed-a0724874/cuckoo/pebblefilter"
)

// testRate is the false-positive rate the tests configure.
const testRate = 0.01

// Keys are 16 bytes of a mixed counter: present keys are keys 0..n-1,
// absent ones start at absentBase. Two such keys collide with probability
// about 2^-128 a pair.
const (
	keyLen     = 16
	absentBase = 1 << 40
)

func mix(x uint64) uint64 { // splitmix64's finalizer
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// makeKey writes key i into dst, which has keyLen bytes, and returns it.
func makeKey(dst []byte, i uint64) []byte {
	binary.BigEndian.PutUint64(dst[0:], mix(i))
	binary.BigEndian.PutUint64(dst[8:], mix(i^0x5bd1e9955bd1e995))
	return dst[:keyLen]
}

// keys returns keys first..first+n-1, in one allocation.
func keys(first uint64, n int) [][]byte {
	buf := make([]byte, n*keyLen)
	ks := make([][]byte, n)
	for i := range ks {
		ks[i] = makeKey(buf[i*keyLen:(i+1)*keyLen:(i+1)*keyLen], first+uint64(i))
	}
	return ks
}

// buildFilter adds ks to a writer of p and returns the filter block.
func buildFilter(p pebble.FilterPolicy, ks [][]byte) []byte {
	w := p.NewWriter(pebble.TableFilter)
	for _, k := range ks {
		w.AddKey(k)
	}
	return w.Finish(nil)
}

// dbOptions are the options of the test databases: on disk, with p on
// every level, so that the flushed and compacted tables all have filters.
func dbOptions(p pebble.FilterPolicy, cache *pebble.Cache) *pebble.Options {
	opts := &pebble.Options{
		FS:                 vfs.Default,
		FormatMajorVersion: pebble.FormatNewest,
		MemTableSize:       32 << 20,
		Cache:              cache,
		Logger:             quietLogger{},
	}
	for i := range opts.Levels {
		opts.Levels[i].FilterPolicy = p
		opts.Levels[i].FilterType = pebble.TableFilter
	}
	return opts
}

// quietLogger drops Pebble's informational messages.
type quietLogger struct{}

func (quietLogger) Infof(string, ...any)         {}
func (quietLogger) Errorf(f string, args ...any) { pebble.DefaultLogger.Errorf(f, args...) }
func (quietLogger) Fatalf(f string, args ...any) { pebble.DefaultLogger.Fatalf(f, args...) }

// writeDB creates a database in dir with keys 0..n-1 (8-byte values),
// written in batches, flushed and compacted over the whole key space, so
// that every key lives in an sstable, and closes it.
func writeDB(tb testing.TB, dir string, p pebble.FilterPolicy, n int) {
	tb.Helper()
	db, err := pebble.Open(dir, dbOptions(p, nil))
	if err != nil {
		tb.Fatal(err)
	}
	const batchKeys = 10000
	var k [keyLen]byte
	var v [8]byte
	for i := 0; i < n; i += batchKeys {
		b := db.NewBatch()
		for j := i; j < min(i+batchKeys, n); j++ {
			binary.LittleEndian.PutUint64(v[:], uint64(j))
			if err := b.Set(makeKey(k[:], uint64(j)), v[:], nil); err != nil {
				tb.Fatal(err)
			}
		}
		if err := b.Commit(pebble.NoSync); err != nil {
			tb.Fatal(err)
		}
		b.Close()
	}
	if err := db.Flush(); err != nil {
		tb.Fatal(err)
	}
	// Every key is 16 bytes, so [0x00, 0xff*17) covers them all.
	if err := db.Compact(context.Background(), []byte{0}, bytes.Repeat([]byte{0xff}, keyLen+1), true); err != nil {
		tb.Fatal(err)
	}
	if err := db.Close(); err != nil {
		tb.Fatal(err)
	}
}

// tableStats sums, over the tables of db, the bytes of filter blocks and
// the entries, and checks that every table has a filter of policy name.
func tableStats(tb testing.TB, db *pebble.DB, name string) (tables int, filterBytes, entries uint64) {
	tb.Helper()
	levels, err := db.SSTables(pebble.WithProperties())
	if err != nil {
		tb.Fatal(err)
	}
	perLevel := make([]int, len(levels))
	for l, level := range levels {
		perLevel[l] = len(level)
		for _, t := range level {
			if got := t.Properties.FilterPolicyName; got != name {
				tb.Fatalf("table %s has filter policy %q, want %q", t.FileNum, got, name)
			}
			tables++
			filterBytes += t.Properties.FilterSize
			entries += t.Properties.NumEntries
		}
	}
	tb.Logf("tables per level L0..L6: %v", perLevel)
	return tables, filterBytes, entries
}

// lookup reports whether a point lookup, the way CockroachDB makes them
// (SeekPrefixGE, which consults the filters; the default Comparer's prefix
// is the whole key), finds exactly key.
func lookup(it *pebble.Iterator, key []byte) bool {
	return it.SeekPrefixGE(key) && bytes.Equal(it.Key(), key)
}

// TestPebble writes keys into a real database on disk with the policy on
// every level, reopens it so that the filters come from the files, finds
// every key and measures the false-positive rate of absent ones through
// the engine.
func TestPebble(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	dir := t.TempDir()
	p := pebblefilter.Policy(testRate)
	writeDB(t, dir, p, n)

	cache := pebble.NewCache(64 << 20)
	defer cache.Unref()
	db, err := pebble.Open(dir, dbOptions(p, cache))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}()

	tables, filterBytes, entries := tableStats(t, db, pebblefilter.Name)
	if entries != uint64(n) {
		t.Fatalf("tables hold %d entries, want %d", entries, n)
	}
	t.Logf("%d keys in %d tables, filters %d bytes, %.3f bits a key", n, tables, filterBytes, float64(8*filterBytes)/float64(n))

	// UseL6Filters: Pebble skips the filters of L6 tables, where the
	// compaction put every key, unless the iterator asks for them.
	it, err := db.NewIter(&pebble.IterOptions{UseL6Filters: true})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()

	// Filter.Hits counts the filter checks that answered false (a table
	// skipped), Filter.Misses those that answered true (sstable/filter.go).
	before := db.Metrics().Filter
	var k [keyLen]byte
	for i := range n {
		if !lookup(it, makeKey(k[:], uint64(i))) {
			t.Fatalf("key %d (%x) not found", i, k)
		}
	}
	present := db.Metrics().Filter
	// Every present key is in one table, whose filter must be asked and
	// answer true.
	if got := present.Misses - before.Misses; got < int64(n) {
		t.Fatalf("filters answered true %d times for %d present keys: not consulted", got, n)
	}

	for i := range n {
		if lookup(it, makeKey(k[:], absentBase+uint64(i))) {
			t.Fatalf("absent key %d (%x) found", i, k)
		}
	}
	after := db.Metrics().Filter
	hits, misses := after.Hits-present.Hits, after.Misses-present.Misses
	checks := hits + misses
	// An absent key between two tables' ranges consults no filter; with
	// keys spread evenly that is rare, so nearly every lookup must have
	// asked one.
	if checks < int64(n)*95/100 {
		t.Fatalf("%d filter checks for %d absent lookups: filters not consulted", checks, n)
	}
	fp := float64(misses) / float64(checks)
	// Each check of an absent key is a Bernoulli trial with success
	// probability at most testRate, independent across keys, so misses is
	// at most Binomial(checks, testRate): its mean plus 4 standard
	// deviations, sqrt(p(1-p)/checks) in rate, is exceeded with
	// probability about 3e-5 (normal approximation, good at these counts).
	limit := testRate + 4*math.Sqrt(testRate*(1-testRate)/float64(checks))
	t.Logf("absent: %d filter checks, %d passed: false-positive rate %.5f (limit %.5f)", checks, misses, fp, limit)
	if fp > limit {
		t.Errorf("false-positive rate through the engine %.5f > %.5f", fp, limit)
	}
}

// The lines the package doc and the README give for point lookups that
// consult the filters of every level; TestFilterReads runs them.
const (
	docOpen = `it, err := db.NewIter(&pebble.IterOptions{UseL6Filters: true})`
	docSeek = `found := it.SeekPrefixGE(key) && bytes.Equal(it.Key(), key)`
)

// TestFilterReads checks what the package doc says of which reads consult
// the filters, on a real database on disk: Get consults the filters of L0
// tables; after a full compaction, which puts every table in L6, it
// consults none; the documented lookups (docOpen, docSeek), which the doc
// and the README must show, consult them and skip tables.
func TestFilterReads(t *testing.T) {
	for _, name := range []string{"pebblefilter.go", "../README.md"} {
		text, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range []string{docOpen, docSeek} {
			if !bytes.Contains(text, []byte(line)) {
				t.Errorf("%s does not show the lookup line %s", name, line)
			}
		}
		if bytes.Contains(text, []byte("(or Get)")) {
			t.Errorf("%s says Get consults the filters as SeekPrefixGE does", name)
		}
	}

	const n, absent = 20_000, 2_000
	p := pebblefilter.Policy(testRate)
	opts := dbOptions(p, nil)
	opts.DisableAutomaticCompactions = true // the tables stay where the test puts them
	db, err := pebble.Open(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}()
	b := db.NewBatch()
	for _, k := range keys(0, n) {
		if err := b.Set(k, k, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(pebble.NoSync); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	absentKeys := keys(absentBase, absent)
	// checks is how many filter checks the reads by read made of the
	// absent keys, and how many of them skipped a table.
	checks := func(read func(key []byte)) (checks, skips int64) {
		before := db.Metrics().Filter
		for _, key := range absentKeys {
			read(key)
		}
		after := db.Metrics().Filter
		return after.Hits + after.Misses - before.Hits - before.Misses, after.Hits - before.Hits
	}
	get := func(key []byte) {
		if _, _, err := db.Get(key); !errors.Is(err, pebble.ErrNotFound) {
			t.Fatalf("Get of absent key %x: %v", key, err)
		}
	}
	levels := func() string {
		var s []string
		for l, tables := range db.Metrics().Levels {
			if tables.TablesCount > 0 {
				s = append(s, "L"+string(rune('0'+l)))
			}
		}
		return strings.Join(s, " ")
	}

	if l := levels(); l != "L0" {
		t.Fatalf("flushed tables in %s, want L0 only", l)
	}
	c, skips := checks(get)
	t.Logf("Get of %d absent keys in L0: %d filter checks, %d skips", absent, c, skips)
	if c < absent*95/100 || skips < c*9/10 {
		t.Fatalf("Get of %d absent keys in L0: %d filter checks, %d skips", absent, c, skips)
	}

	if err := db.Compact(context.Background(), []byte{0}, bytes.Repeat([]byte{0xff}, keyLen+1), true); err != nil {
		t.Fatal(err)
	}
	if l := levels(); l != "L6" {
		t.Fatalf("compacted tables in %s, want L6 only", l)
	}
	if c, _ := checks(get); c != 0 {
		t.Fatalf("Get of %d absent keys in L6: %d filter checks, want none", absent, c)
	}

	// docOpen and docSeek, verbatim.
	it, err := db.NewIter(&pebble.IterOptions{UseL6Filters: true})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	c, skips = checks(func(key []byte) {
		found := it.SeekPrefixGE(key) && bytes.Equal(it.Key(), key)
		if found {
			t.Fatalf("absent key %x found", key)
		}
	})
	t.Logf("documented lookups of %d absent keys in L6: %d filter checks, %d skips", absent, c, skips)
	if c < absent*95/100 || skips < c*9/10 {
		t.Fatalf("documented lookups of %d absent keys in L6: %d filter checks, %d skips", absent, c, skips)
	}
	key := keys(7, 1)[0]
	found := it.SeekPrefixGE(key) && bytes.Equal(it.Key(), key)
	if !found || !bytes.Equal(it.Value(), key) {
		t.Fatalf("present key %x: found %v", key, found)
	}
}

func TestPolicyRate(t *testing.T) {
	for _, rate := range []float64{0, 1, -0.5, 2, math.NaN(), math.Inf(1), 1e-12} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Policy(%v) did not panic", rate)
				}
			}()
			pebblefilter.Policy(rate)
		}()
	}
	for _, rate := range []float64{0.5, 0.01, 1e-6} {
		if got := pebblefilter.Policy(rate).Name(); got != "cuckoo.v5" {
			t.Errorf("Policy(%v).Name() = %q", rate, got)
		}
	}
}

// TestWriterAllocs: a writer allocates its hash buffer and the filter (the
// growth of the buffer Finish appends to), nothing else: a writer reused
// with a buffer that has room allocates nothing.
func TestWriterAllocs(t *testing.T) {
	p := pebblefilter.Policy(testRate)
	w := p.NewWriter(pebble.TableFilter)
	ks := keys(0, 20_000)
	var buf []byte
	write := func() {
		for _, k := range ks {
			w.AddKey(k)
		}
		buf = w.Finish(buf[:0])
	}
	write()
	if allocs := testing.AllocsPerRun(10, write); allocs != 0 {
		t.Errorf("a reused writer allocates %v times a filter, want 0", allocs)
	}
	if !p.MayContain(pebble.TableFilter, buf, ks[123]) {
		t.Error("the filter lost a key")
	}
}

func TestMayContainAllocs(t *testing.T) {
	p := pebblefilter.Policy(testRate)
	f := buildFilter(p, keys(0, 10000))
	present, absent := keys(0, 1)[0], keys(absentBase, 1)[0]
	allocs := testing.AllocsPerRun(1000, func() {
		p.MayContain(pebble.TableFilter, f, present)
		p.MayContain(pebble.TableFilter, f, absent)
	})
	if allocs != 0 {
		t.Errorf("MayContain allocates %v times a call", allocs/2)
	}
}

// TestFilter checks a filter outside Pebble: every key present, the rate
// of absent ones about the configured one.
func TestFilter(t *testing.T) {
	p := pebblefilter.Policy(testRate)
	for _, n := range []int{1, 2, 10, 1000, 100000} {
		ks := keys(uint64(n)<<20, n)
		f := buildFilter(p, ks)
		for i, k := range ks {
			if !p.MayContain(pebble.TableFilter, f, k) {
				t.Fatalf("%d keys: key %d missing", n, i)
			}
		}
		const probes = 200000
		fp := 0
		var k [keyLen]byte
		for i := range probes {
			if p.MayContain(pebble.TableFilter, f, makeKey(k[:], absentBase+uint64(i))) {
				fp++
			}
		}
		rate := float64(fp) / probes
		t.Logf("%d keys: %d bytes (%.2f bits a key), false-positive rate %.5f", n, len(f), float64(8*len(f))/float64(n), rate)
		if limit := testRate + 4*math.Sqrt(testRate*(1-testRate)/probes); rate > limit {
			t.Errorf("%d keys: false-positive rate %.5f > %.5f", n, rate, limit)
		}
	}
}

func TestZeroKeys(t *testing.T) {
	p := pebblefilter.Policy(testRate)
	w := p.NewWriter(pebble.TableFilter)
	f := w.Finish(nil)
	if len(f) == 0 || len(f) > 32 {
		t.Fatalf("filter of no keys is %d bytes", len(f))
	}
	for _, k := range keys(0, 1000) {
		if p.MayContain(pebble.TableFilter, f, k) {
			t.Fatalf("filter of no keys contains %x", k)
		}
	}
	prefix := []byte("prefix")
	g := w.Finish(append([]byte(nil), prefix...))
	if !bytes.Equal(g[:len(prefix)], prefix) || !bytes.Equal(g[len(prefix):], f) {
		t.Fatalf("Finish(prefix) = %x, want prefix then %x", g, f)
	}
}

// TestDuplicates adds every key three times, in a row and in later
// passes: the filter holds every key, repeats in a row change nothing,
// and later repeats cost little.
func TestDuplicates(t *testing.T) {
	p := pebblefilter.Policy(testRate)
	ks := keys(0, 5000)
	want := buildFilter(p, ks)

	w := p.NewWriter(pebble.TableFilter)
	for _, k := range ks {
		for range 3 {
			w.AddKey(k)
		}
	}
	if got := w.Finish(nil); !bytes.Equal(got, want) {
		t.Errorf("repeats in a row change the filter: %d bytes, want %d", len(got), len(want))
	}

	for range 3 {
		for _, k := range ks {
			w.AddKey(k)
		}
	}
	got := w.Finish(nil)
	for i, k := range ks {
		if !p.MayContain(pebble.TableFilter, got, k) {
			t.Fatalf("key %d missing after repeated passes", i)
		}
	}
	if len(got) > len(want)+len(want)/50 {
		t.Errorf("repeated passes: %d bytes, want about %d", len(got), len(want))
	}
}

// TestWriterReuse finishes several filters with one writer: each holds
// its own keys only, and equals a new writer's.
func TestWriterReuse(t *testing.T) {
	p := pebblefilter.Policy(testRate)
	w := p.NewWriter(pebble.TableFilter)
	sets := [][][]byte{keys(0, 3000), keys(1<<30, 10), keys(2<<30, 50000), nil, keys(3<<30, 700)}
	var filters [][]byte
	for i, ks := range sets {
		for _, k := range ks {
			w.AddKey(k)
		}
		buf := []byte{byte(i), 0xee}
		f := w.Finish(buf)
		if !bytes.Equal(f[:2], []byte{byte(i), 0xee}) {
			t.Fatalf("filter %d: Finish changed the bytes before it", i)
		}
		f = f[2:]
		if fresh := buildFilter(p, ks); !bytes.Equal(f, fresh) {
			t.Fatalf("filter %d of a reused writer differs from a new writer's", i)
		}
		filters = append(filters, f)
	}
	for i, f := range filters {
		for j, ks := range sets {
			in := 0
			for _, k := range ks {
				if p.MayContain(pebble.TableFilter, f, k) {
					in++
				}
			}
			switch {
			case i == j && in != len(ks):
				t.Errorf("filter %d holds %d of its %d keys", i, in, len(ks))
			case i != j && len(ks) >= 1000 && in > len(ks)/20:
				t.Errorf("filter %d holds %d of the %d keys of set %d", i, in, len(ks), j)
			}
		}
	}
}

// TestMayContainGarbage gives MayContain bytes that are no cuckoo filter:
// it must not panic and, where the bytes cannot be read as a filter, must
// answer true.
func TestMayContainGarbage(t *testing.T) {
	p := pebblefilter.Policy(testRate)
	ks := keys(0, 2000)
	valid := buildFilter(p, ks)
	probe := append(ks[:10:10], keys(absentBase, 10)...)
	mustTrue := func(what string, data []byte) {
		t.Helper()
		for _, k := range probe {
			if !p.MayContain(pebble.TableFilter, data, k) {
				t.Fatalf("%s (%d bytes): MayContain(%x) = false", what, len(data), k)
			}
		}
	}
	mustTrue("nil", nil)
	mustTrue("empty", []byte{})
	for b := range 256 {
		mustTrue("one byte", []byte{byte(b)})
	}
	for n := range len(valid) {
		mustTrue("truncated", valid[:n])
	}
	mustTrue("extended", append(append([]byte(nil), valid...), 0))
	for _, bits := range []int{1, 5, 10, 20} {
		mustTrue("bloom", buildFilter(bloom.FilterPolicy(bits), ks))
	}
	for i := 0; i < 8; i++ { // every trailer byte changed
		c := append([]byte(nil), valid...)
		c[len(c)-8+i] ^= 0xff
		for _, k := range probe { // may still read as a filter: no panic
			p.MayContain(pebble.TableFilter, c, k)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		data := make([]byte, rng.IntN(200))
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		if len(data) > 0 && rng.IntN(2) == 0 {
			data[0] = 5 // the compact encoding's version
		}
		for _, k := range probe[:2] {
			p.MayContain(pebble.TableFilter, data, k)
		}
	}
}

func FuzzMayContain(f *testing.F) {
	p := pebblefilter.Policy(testRate)
	ks := keys(0, 100)
	valid := buildFilter(p, ks)
	f.Add(valid, ks[0])
	f.Add(valid, keys(absentBase, 1)[0])
	f.Add(valid[:len(valid)-1], ks[1])
	f.Add(valid[1:], ks[1])
	f.Add(buildFilter(p, nil), []byte("k"))
	f.Add(buildFilter(bloom.FilterPolicy(10), ks), ks[2])
	f.Add([]byte{}, []byte{})
	f.Add([]byte{3}, []byte("key"))
	f.Fuzz(func(t *testing.T, data, key []byte) {
		p.MayContain(pebble.TableFilter, data, key)
	})
}

// crowdedKeys returns nine 8-byte keys whose hashes (cuckoo.Hash, xxh3 of
// the 8 bytes under DefaultSeed, a bijection of their little-endian word)
// share bucket 0 and its alternate at every size a filter of f-bit
// fingerprints for them is tried at, with distinct fingerprints: no build
// can place them, since two buckets hold 8. Each key is computed by running
// the hash backwards from a hash below 2^32 whose fingerprint gives alt an
// offset of 1.
func crowdedKeys(tb testing.TB, f int) [][]byte {
	const invPhi = 0x0e8b2f51 // 0x9e3779b1 * invPhi == 1 mod 2^32
	fpRange := uint64(1)<<f - 1
	var ks [][]byte
	for x := uint32(1); len(ks) < 9; x++ {
		fp := x * invPhi
		if fp == 0 || uint64(fp) > fpRange {
			continue
		}
		h := ((uint64(fp-1) << 32) + fpRange - 1) / fpRange
		k := binary.LittleEndian.AppendUint64(nil, unhash(h))
		if got := cuckoo.Hash(k); got != h {
			tb.Fatalf("key %x hashes to %#x, not %#x", k, got, h)
		}
		ks = append(ks, k)
	}
	return ks
}

// unhash returns the word whose unkeyed hash under DefaultSeed is h: the
// steps of xxh3 for 8 bytes, undone in reverse order.
func unhash(h uint64) uint64 {
	const c = 0x9fb21c651e98df25
	inv := uint64(c) // c's inverse modulo 2^64, by Newton's iteration
	for range 5 {
		inv *= 2 - c*inv
	}
	x := h ^ h>>28 ^ h>>56
	x *= inv
	x ^= x>>35 + 8 // the top 35 bits pass through unchanged
	x *= inv
	// x ^ rotl(x, 49) ^ rotl(x, 24) is a linear map whose 64th power is the
	// identity: 63 more applications undo it.
	for range 63 {
		x ^= bits.RotateLeft64(x, 49) ^ bits.RotateLeft64(x, 24)
	}
	seed := cuckoo.DefaultSeed
	s := seed ^ uint64(bits.ReverseBytes32(uint32(seed)))<<32
	return bits.RotateLeft64(x^((0x1cad21f72c81017c^0xdb979083e96dd4de)-s), 32)
}

// TestCrowdedKeys drives the writer with keys that no filter of its width
// can hold, alone and among ordinary keys: Finish returns within a second
// and 64 MB allocated, with a block that answers true for every key; the
// next filter of the same writer is a real one. Through Pebble, a table
// written from such keys finds every one of them.
func TestCrowdedKeys(t *testing.T) {
	others := keys(0, 100)
	for _, rate := range []float64{testRate, 1e-4, 1e-6, 1e-8, 2e-9} {
		p := pebblefilter.Policy(rate)
		v, err := cuckoo.NewView[[]byte](buildFilter(p, others))
		if err != nil {
			t.Fatal(err)
		}
		f := v.FingerprintBits()
		t.Logf("rate %v: %d-bit fingerprints", rate, f)
		crowded := crowdedKeys(t, f)
		w := p.NewWriter(pebble.TableFilter)
		for _, ks := range [][][]byte{crowded, append(append([][]byte{}, others...), crowded...)} {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			for _, k := range ks {
				w.AddKey(k)
			}
			block := w.Finish(nil)
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			if alloc := after.TotalAlloc - before.TotalAlloc; took > time.Second || alloc > 64<<20 {
				t.Fatalf("f=%d, %d keys: Finish took %v and %d bytes allocated", f, len(ks), took, alloc)
			}
			for i, k := range ks {
				if !p.MayContain(pebble.TableFilter, block, k) {
					t.Fatalf("f=%d: key %d of %d missing from a %d-byte block", f, i, len(ks), len(block))
				}
			}
		}
		for _, k := range others {
			w.AddKey(k)
		}
		if block := w.Finish(nil); !bytes.Equal(block, buildFilter(p, others)) {
			t.Fatalf("f=%d: after crowded keys the writer wrote %d bytes, not the filter of the next keys", f, len(block))
		}
	}

	p := pebblefilter.Policy(testRate)
	dir := t.TempDir()
	db, err := pebble.Open(dir, dbOptions(p, nil))
	if err != nil {
		t.Fatal(err)
	}
	crowded := crowdedKeys(t, 10)
	all := append(append([][]byte{}, others...), crowded...)
	for _, k := range all {
		if err := db.Set(k, k, pebble.NoSync); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	tables, filterBytes, _ := tableStats(t, db, pebblefilter.Name)
	if tables != 1 || filterBytes != 1 {
		t.Fatalf("%d tables with %d filter bytes, want one whose filter is the 1-byte fallback", tables, filterBytes)
	}
	it, err := db.NewIter(&pebble.IterOptions{UseL6Filters: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range all {
		if !lookup(it, k) {
			t.Errorf("key %d (%x) not found", i, k)
		}
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}
