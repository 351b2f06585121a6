package leveldbfilter_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seed-a0724874/cuckoo"
	"github.com/seed-a0724874/cuckoo/leveldbfilter"
	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/filter"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// mix is splitmix64's finalizer, a bijection of uint64: distinct indexes
// give distinct keys.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// key writes the 16-byte key of index i into dst: keys of distinct indexes
// differ in their first 8 bytes, and look random, so the sorted tables
// spread every range of indexes over all their blocks.
func key(dst []byte, i uint64) []byte {
	dst = binary.BigEndian.AppendUint64(dst[:0], mix(i))
	return binary.BigEndian.AppendUint64(dst, mix(^i))
}

// value writes key i's value of n bytes (incompressible, so that blocks
// keep their size under goleveldb's default Snappy compression).
func value(dst []byte, i uint64, n int) []byte {
	dst = dst[:0]
	for j := uint64(0); len(dst) < n; j++ {
		dst = binary.LittleEndian.AppendUint64(dst, mix(i<<8^j^0x5555))
	}
	return dst[:n]
}

// counting wraps a policy, keeping its name, and counts what goleveldb asks
// of it: Contains calls and true answers, and the keys added to and the
// bytes and filters written by its generators.
type counting struct {
	filter.Filter
	calls, trues           atomic.Int64
	keys, bytes, generates atomic.Int64
}

func (c *counting) Contains(data, key []byte) bool {
	ok := c.Filter.Contains(data, key)
	c.calls.Add(1)
	if ok {
		c.trues.Add(1)
	}
	return ok
}

func (c *counting) NewGenerator() filter.FilterGenerator {
	return &countingGenerator{FilterGenerator: c.Filter.NewGenerator(), c: c}
}

type countingGenerator struct {
	filter.FilterGenerator
	c *counting
}

func (g *countingGenerator) Add(key []byte) {
	g.c.keys.Add(1)
	g.FilterGenerator.Add(key)
}

func (g *countingGenerator) Generate(b filter.Buffer) {
	cb := &countingBuffer{Buffer: b}
	g.FilterGenerator.Generate(cb)
	g.c.bytes.Add(cb.n)
	g.c.generates.Add(1)
}

// countingBuffer counts the bytes a generator writes.
type countingBuffer struct {
	filter.Buffer
	n int64
}

func (b *countingBuffer) Alloc(n int) []byte {
	b.n += int64(n)
	return b.Buffer.Alloc(n)
}

func (b *countingBuffer) Write(p []byte) (int, error) {
	b.n += int64(len(p))
	return b.Buffer.Write(p)
}

func (b *countingBuffer) WriteByte(c byte) error {
	b.n++
	return b.Buffer.WriteByte(c)
}

// fill writes keys [0, n) with values of valueSize bytes into a new
// database in dir, compacts it so that every key lives in sorted tables,
// and closes it.
func fill(tb testing.TB, dir string, pol filter.Filter, n, valueSize int) {
	tb.Helper()
	db, err := leveldb.OpenFile(dir, &opt.Options{Filter: pol})
	if err != nil {
		tb.Fatal(err)
	}
	var batch leveldb.Batch
	var k, v []byte
	for i := 0; i < n; i++ {
		k, v = key(k, uint64(i)), value(v, uint64(i), valueSize)
		batch.Put(k, v)
		if batch.Len() == 1000 || i == n-1 {
			if err := db.Write(&batch, nil); err != nil {
				tb.Fatal(err)
			}
			batch.Reset()
		}
	}
	if err := db.CompactRange(util.Range{}); err != nil {
		tb.Fatal(err)
	}
	if err := db.Close(); err != nil {
		tb.Fatal(err)
	}
}

// open opens the database in dir with the policy.
func open(tb testing.TB, dir string, pol filter.Filter) *leveldb.DB {
	tb.Helper()
	db, err := leveldb.OpenFile(dir, &opt.Options{Filter: pol, ErrorIfMissing: true})
	if err != nil {
		tb.Fatal(err)
	}
	return db
}

// checkPresent gets keys [0, n) and fails on any that is missing or wrong.
func checkPresent(tb testing.TB, db *leveldb.DB, n, valueSize int) {
	tb.Helper()
	var k, v []byte
	missing := 0
	for i := 0; i < n; i++ {
		k, v = key(k, uint64(i)), value(v, uint64(i), valueSize)
		got, err := db.Get(k, nil)
		if err != nil || !bytes.Equal(got, v) {
			if missing++; missing <= 5 {
				tb.Errorf("Get(key %d) = %x, %v; want the value", i, got, err)
			}
		}
	}
	if missing > 0 {
		tb.Fatalf("%d of %d present keys not found: false negatives", missing, n)
	}
}

// probeAbsent gets keys [from, from+n), none of which is in the database,
// and returns the Contains calls and true answers they took.
func probeAbsent(tb testing.TB, db *leveldb.DB, c *counting, from, n int) (calls, trues int64) {
	tb.Helper()
	c0, t0 := c.calls.Load(), c.trues.Load()
	var k []byte
	for i := from; i < from+n; i++ {
		k = key(k, uint64(i))
		if _, err := db.Get(k, nil); !errors.Is(err, leveldb.ErrNotFound) {
			tb.Fatalf("Get(absent key %d): err %v, want ErrNotFound", i, err)
		}
	}
	return c.calls.Load() - c0, c.trues.Load() - t0
}

// maxRate is the largest false-positive rate that measuring calls lookups
// may show for a filter of the given rate: the rate plus 4 standard
// deviations of the binomial count of false positives, trues/calls. Each
// absent Get's lookup is a Bernoulli trial of success probability at most
// rate (the filters are built for at most rate at any load), so the
// measured fraction exceeds this bound with probability below 4e-5.
func maxRate(rate float64, calls int64) float64 {
	return rate + 4*math.Sqrt(rate*(1-rate)/float64(calls))
}

// TestEngine writes a database with the policy, reopens it and checks every
// present key is found and the false-positive rate of the filters, through
// goleveldb, for absent keys.
func TestEngine(t *testing.T) {
	const rate = 0.01
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	dir := t.TempDir()
	c := &counting{Filter: leveldbfilter.New(rate)}
	fill(t, dir, c, n, 8)
	if got := c.keys.Load(); got < int64(n) {
		t.Fatalf("generators got %d keys, want at least %d", got, n)
	}

	db := open(t, dir, c) // the filters now come from disk
	defer db.Close()
	checkPresent(t, db, n, 8)

	calls, trues := probeAbsent(t, db, c, n, n)
	if calls == 0 {
		t.Fatal("no filter consulted for absent keys: the policy is not in use")
	}
	fp := float64(trues) / float64(calls)
	bitsPerKey := 8 * float64(c.bytes.Load()) / float64(c.keys.Load())
	t.Logf("%d keys, %.1f keys a filter, %.2f bits a key; absent keys: %d lookups, %d false positives (%.4f%%)",
		n, float64(c.keys.Load())/float64(c.generates.Load()), bitsPerKey, calls, trues, 100*fp)
	if limit := maxRate(rate, calls); fp > limit {
		t.Errorf("false-positive rate %.5f through the engine, above %.5f (rate %v and 4 sigma)", fp, limit, rate)
	}
}

// TestOtherPolicy checks that databases written with one policy are read
// with the other: goleveldb skips the filter of another name, and uses it
// again when the policy is listed in AltFilters.
func TestOtherPolicy(t *testing.T) {
	const n = 20_000
	bloom := &counting{Filter: filter.NewBloomFilter(10)}
	ck := &counting{Filter: leveldbfilter.New(0.01)}
	for _, tc := range []struct {
		name          string
		writer, other *counting
	}{{"bloom-then-cuckoo", bloom, ck}, {"cuckoo-then-bloom", ck, bloom}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			fill(t, dir, tc.writer, n, 8)

			db := open(t, dir, tc.other)
			checkPresent(t, db, n, 8)
			if calls, _ := probeAbsent(t, db, tc.other, n, n); calls != 0 {
				t.Errorf("%s consulted %d times on tables written by %s", tc.other.Name(), calls, tc.writer.Name())
			}
			db.Close()

			db, err := leveldb.OpenFile(dir, &opt.Options{Filter: tc.other, AltFilters: []filter.Filter{tc.writer}})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			checkPresent(t, db, n, 8)
			if calls, _ := probeAbsent(t, db, tc.writer, n, n); calls == 0 {
				t.Errorf("%s in AltFilters not consulted", tc.writer.Name())
			}
		})
	}
}

// generate makes the filter of keys with a new generator of pol.
func generate(pol filter.Filter, keys [][]byte) []byte {
	g := pol.NewGenerator()
	for _, k := range keys {
		g.Add(k)
	}
	var b util.Buffer
	g.Generate(&b)
	return b.Bytes()
}

// keys returns keys [from, from+n).
func keys(from, n int) [][]byte {
	ks := make([][]byte, n)
	for i := range ks {
		ks[i] = key(nil, uint64(from+i))
	}
	return ks
}

// falsePositives counts the keys of ks that pol reports in data.
func falsePositives(pol filter.Filter, data []byte, ks [][]byte) int {
	n := 0
	for _, k := range ks {
		if pol.Contains(data, k) {
			n++
		}
	}
	return n
}

func TestName(t *testing.T) {
	if got := leveldbfilter.New(0.01).Name(); got != "cuckoo.v5" {
		t.Errorf("Name() = %q, want cuckoo.v5", got)
	}
}

func TestNewRate(t *testing.T) {
	for _, rate := range []float64{0, 1, -0.1, 2, math.NaN(), math.Inf(1), 1e-12} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("New(%v) did not panic", rate)
				}
			}()
			leveldbfilter.New(rate)
		}()
	}
	for _, rate := range []float64{0.9, 0.1, 0.01, 0.001, 1e-6, 2e-9} {
		pol := leveldbfilter.New(rate)
		ks := keys(0, 500)
		data := generate(pol, ks)
		if fp := falsePositives(pol, data, ks); fp != len(ks) {
			t.Errorf("rate %v: %d of %d keys found", rate, fp, len(ks))
		}
	}
}

func TestContainsAllocs(t *testing.T) {
	pol := leveldbfilter.New(0.01)
	data := generate(pol, keys(0, 100))
	present, absent := key(nil, 7), key(nil, 1000)
	fallback := []byte{0} // Generate's fallback
	allocs := testing.AllocsPerRun(1000, func() {
		pol.Contains(data, present)
		pol.Contains(data, absent)
		pol.Contains(nil, absent)
		pol.Contains(fallback, absent)
	})
	if allocs != 0 {
		t.Errorf("Contains allocates %v times a run, want 0", allocs)
	}
	// Other unreadable bytes cost the library's error; goleveldb never
	// passes them.
	garbage := []byte("not a filter at all")
	t.Logf("Contains of garbage: %v allocations", testing.AllocsPerRun(100, func() { pol.Contains(garbage, absent) }))
}

// TestGeneratorAllocs: a generator allocates its hash buffer and the
// buffer it builds filters in, nothing else: reused, it allocates nothing
// but what goleveldb's own buffer takes.
func TestGeneratorAllocs(t *testing.T) {
	pol := leveldbfilter.New(0.01)
	g := pol.NewGenerator()
	ks := keys(0, 2_000)
	var b util.Buffer
	gen := func() {
		for _, k := range ks {
			g.Add(k)
		}
		b.Reset()
		g.Generate(&b)
	}
	gen()
	if allocs := testing.AllocsPerRun(10, gen); allocs != 0 {
		t.Errorf("a reused generator allocates %v times a filter, want 0", allocs)
	}
	if !pol.Contains(b.Bytes(), ks[42]) {
		t.Error("the filter lost a key")
	}
}

// TestContainsUnreadable checks that bytes that are not a filter of this
// policy rule nothing out and do not panic.
func TestContainsUnreadable(t *testing.T) {
	pol := leveldbfilter.New(0.01)
	probe := keys(1_000_000, 200)
	check := func(what string, data []byte) {
		t.Helper()
		if fp := falsePositives(pol, data, probe); fp != len(probe) {
			t.Errorf("%s (%d bytes): %d of %d keys found, want all", what, len(data), fp, len(probe))
		}
	}
	check("nil", nil)
	check("empty", []byte{})
	for _, b := range []byte{0, 1, 2, 3, 4, 0xff} {
		check("one byte", []byte{b})
	}
	var g []byte
	for n := 0; n < 600; n++ {
		check("garbage", g)
		g = append(g, byte(mix(uint64(n))))
	}
	for _, n := range []int{1, 5, 30, 100, 1000} {
		data := generate(pol, keys(0, n))
		for l := 0; l < len(data); l++ {
			check("truncated", data[:l])
		}
		check("extended", append(data[:len(data):len(data)], 0))
		for bits := 1; bits <= 20; bits++ {
			check("bloom", generate(filter.NewBloomFilter(bits), keys(0, n)))
		}
	}
}

// TestDuplicates checks that keys added more than once are all found and
// cost nothing when repeated in a row, as goleveldb adds the versions of a
// key.
func TestDuplicates(t *testing.T) {
	pol := leveldbfilter.New(0.01)
	for _, n := range []int{1, 10, 100, 1000} {
		ks := keys(0, n)
		want := generate(pol, ks)
		var inRow, spread [][]byte
		for _, k := range ks {
			inRow = append(inRow, k, k, k)
		}
		for range 3 {
			spread = append(spread, ks...)
		}
		if got := generate(pol, inRow); !bytes.Equal(got, want) {
			t.Errorf("%d keys three times in a row: filter differs from the keys' once", n)
		}
		got := generate(pol, spread)
		if fp := falsePositives(pol, got, ks); fp != n {
			t.Errorf("%d keys three times over: %d found", n, fp)
		}
		if len(got) > len(want)+len(want)/8+8 {
			t.Errorf("%d keys three times over: %d bytes, once %d", n, len(got), len(want))
		}
		t.Logf("%d keys: %d bytes once, %d three times over", n, len(want), len(got))
	}
}

// TestGeneratorReuse checks that one generator gives, call after call, the
// filter a new generator gives for each group of keys, written one after
// the other into one buffer as goleveldb does.
func TestGeneratorReuse(t *testing.T) {
	pol := leveldbfilter.New(0.01)
	g := pol.NewGenerator()
	var b util.Buffer
	sizes := []int{37, 1, 500, 3, 0, 120, 2000, 64}
	var ends []int
	from := 0
	for _, n := range sizes {
		for _, k := range keys(from, n) {
			g.Add(k)
		}
		g.Generate(&b)
		ends = append(ends, b.Len())
		from += n
	}
	all, start, from := b.Bytes(), 0, 0
	others := keys(10_000_000, 2000)
	for i, n := range sizes {
		data := all[start:ends[i]]
		ks := keys(from, n)
		if want := generate(pol, ks); !bytes.Equal(data, want) {
			t.Errorf("group %d (%d keys): filter of the reused generator differs from a new one's", i, n)
		}
		if fp := falsePositives(pol, data, ks); fp != n {
			t.Errorf("group %d: %d of its %d keys found", i, fp, n)
		}
		if fp := falsePositives(pol, data, others); fp > 60 { // 20 expected at most
			t.Errorf("group %d: %d false positives of %d", i, fp, len(others))
		}
		start, from = ends[i], from+n
	}
}

func TestZeroKeys(t *testing.T) {
	pol := leveldbfilter.New(0.01)
	data := generate(pol, nil)
	if len(data) == 0 {
		t.Fatal("no bytes for zero keys")
	}
	if fp := falsePositives(pol, data, keys(0, 1000)); fp != 0 {
		t.Errorf("empty filter: %d of 1000 keys found", fp)
	}
}

func FuzzContains(f *testing.F) {
	pol := leveldbfilter.New(0.01)
	for _, n := range []int{0, 1, 10, 100} {
		data := generate(pol, keys(0, n))
		f.Add(data, key(nil, 0))
		f.Add(data[:len(data)/2], key(nil, 1))
		f.Add(generate(filter.NewBloomFilter(10), keys(0, n)), key(nil, 0))
	}
	f.Add([]byte{}, []byte{})
	f.Add([]byte{3}, []byte("k"))
	f.Fuzz(func(t *testing.T, data, key []byte) {
		pol.Contains(data, key)
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

// TestCrowdedKeys drives a generator with keys that no filter of its width
// can hold, alone and among ordinary keys: Generate returns within a
// second and 64 MB allocated, with a filter that Contains answers true for
// every key; the next filter of the same generator is a real one. Through
// goleveldb, a database of such keys finds every one of them.
func TestCrowdedKeys(t *testing.T) {
	others := keys(0, 100)
	for _, rate := range []float64{0.01, 1e-4, 1e-6, 1e-8, 2e-9} {
		pol := leveldbfilter.New(rate)
		v, err := cuckoo.NewView[[]byte](generate(pol, others))
		if err != nil {
			t.Fatal(err)
		}
		f := v.FingerprintBits()
		t.Logf("rate %v: %d-bit fingerprints", rate, f)
		crowded := crowdedKeys(t, f)
		g := pol.NewGenerator()
		for _, ks := range [][][]byte{crowded, append(append([][]byte{}, others...), crowded...)} {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			for _, k := range ks {
				g.Add(k)
			}
			var b util.Buffer
			g.Generate(&b)
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			if alloc := after.TotalAlloc - before.TotalAlloc; took > time.Second || alloc > 64<<20 {
				t.Fatalf("f=%d, %d keys: Generate took %v and %d bytes allocated", f, len(ks), took, alloc)
			}
			if fp := falsePositives(pol, b.Bytes(), ks); fp != len(ks) {
				t.Fatalf("f=%d: %d of %d keys found in a %d-byte filter", f, fp, len(ks), b.Len())
			}
		}
		for _, k := range others {
			g.Add(k)
		}
		var b util.Buffer
		g.Generate(&b)
		if !bytes.Equal(b.Bytes(), generate(pol, others)) {
			t.Fatalf("f=%d: after crowded keys the generator wrote %d bytes, not the filter of the next keys", f, b.Len())
		}
	}

	dir := t.TempDir()
	c := &oneByteFilters{Filter: leveldbfilter.New(0.01)}
	db, err := leveldb.OpenFile(dir, &opt.Options{Filter: c})
	if err != nil {
		t.Fatal(err)
	}
	// 29 keys and values of 8 to 16 bytes: one data block of 4 KB, so that
	// one filter has all the crowded keys.
	all := append(append([][]byte{}, others[:20]...), crowdedKeys(t, 10)...)
	for _, k := range all {
		if err := db.Put(k, k, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.CompactRange(util.Range{}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = open(t, dir, c)
	defer db.Close()
	for i, k := range all {
		if got, err := db.Get(k, nil); err != nil || !bytes.Equal(got, k) {
			t.Errorf("Get(key %d) = %x, %v; want the key", i, got, err)
		}
	}
	if c.asked.Load() == 0 {
		t.Error("no Get consulted a one-byte filter: the crowded block has another")
	}
}

// oneByteFilters wraps a policy, keeping its name, and counts the Contains
// calls on one-byte filters, the fallback of a failed build.
type oneByteFilters struct {
	filter.Filter
	asked atomic.Int64
}

func (o *oneByteFilters) Contains(data, key []byte) bool {
	if len(data) == 1 {
		o.asked.Add(1)
	}
	return o.Filter.Contains(data, key)
}
