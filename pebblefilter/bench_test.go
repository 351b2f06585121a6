package pebblefilter_test

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"unsafe"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/seed-a0724874/cuckoo/pebblefilter"
)

// The benchmarks compare the cuckoo policy at testRate with Pebble's Bloom
// filter at its usual 10 bits a key ("bloom") and at 9, the whole number
// of bits nearest the 9.2 a key the cuckoo filters spend ("bloom9").
var benchPolicies = []struct {
	name   string
	policy pebble.FilterPolicy
}{
	{"cuckoo", pebblefilter.Policy(testRate)},
	{"bloom", bloom.FilterPolicy(10)},
	{"bloom9", bloom.FilterPolicy(9)},
}

// probeKeys is how many absent keys the benchmarks cycle through, and
// fpKeys how many absent keys measure a false-positive rate.
const (
	probeKeys = 1 << 16
	fpKeys    = 1_000_000
)

var sink int

// filterFixture is one policy's filter block of one key set, with the
// share of fpKeys absent keys it lets through.
type filterFixture struct {
	filter []byte
	bits   float64 // filter block bits over keys
	fp     float64
}

var filterFixtures = map[string]*filterFixture{}

// makeFilterFixture builds (once a process) p's filter of keys 0..n-1 and
// measures its false-positive rate, so that a -bench pattern that selects
// one sub-benchmark builds only its filter.
func makeFilterFixture(name string, p pebble.FilterPolicy, n int) *filterFixture {
	key := fmt.Sprint(name, n)
	if fx := filterFixtures[key]; fx != nil {
		return fx
	}
	f := buildFilter(p, keys(0, n))
	fp := 0
	var k [keyLen]byte
	for i := range fpKeys {
		if p.MayContain(pebble.TableFilter, f, makeKey(k[:], absentBase+probeKeys+uint64(i))) {
			fp++
		}
	}
	fx := &filterFixture{filter: f, bits: float64(8*len(f)) / float64(n), fp: float64(fp) / fpKeys}
	filterFixtures[key] = fx
	return fx
}

// BenchmarkMayContain probes filter blocks built by each policy from the
// same keys with absent keys, through the pebble.FilterPolicy interface as
// Pebble calls it. bits/key is the filter block's size over the keys;
// fp-rate the share of fpKeys other absent keys it lets through.
func BenchmarkMayContain(b *testing.B) {
	absent := keys(absentBase, probeKeys)
	for _, size := range []struct {
		name string
		n    int
	}{{"1K", 1000}, {"100K", 100_000}, {"1M", 1_000_000}} {
		for _, bp := range benchPolicies {
			b.Run("keys="+size.name+"/"+bp.name, func(b *testing.B) {
				p := bp.policy
				fx := makeFilterFixture(bp.name, p, size.n)
				f := fx.filter
				b.ReportAllocs()
				n := 0
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if p.MayContain(pebble.TableFilter, f, absent[i&(probeKeys-1)]) {
						n++
					}
				}
				sink += n
				b.ReportMetric(fx.bits, "bits/key")
				b.ReportMetric(fx.fp, "fp-rate")
			})
		}
	}
}

// BenchmarkMayContainChained is BenchmarkMayContain with each probe's key
// chosen by the answer before it, so that probes do not overlap: the
// latency of one probe, as an engine sees it between its other work,
// rather than the throughput of many.
func BenchmarkMayContainChained(b *testing.B) {
	absent := keys(absentBase, probeKeys)
	for _, size := range []struct {
		name string
		n    int
	}{{"1K", 1000}, {"1M", 1_000_000}} {
		for _, bp := range benchPolicies {
			b.Run("keys="+size.name+"/"+bp.name, func(b *testing.B) {
				p := bp.policy
				f := makeFilterFixture(bp.name, p, size.n).filter
				k := 0
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					ok := p.MayContain(pebble.TableFilter, f, absent[k])
					k = (k + 1 + int(*(*uint8)(unsafe.Pointer(&ok)))) & (probeKeys - 1)
				}
				sink += k
			})
		}
	}
}

// benchDB is a database of engineKeys keys written with one policy,
// opened once per process and shared by the runs of -count.
type benchDB struct {
	db       *pebble.DB
	it       *pebble.Iterator
	bitsKey  float64 // filter block bytes over entries, in bits
	fpRate   float64 // filter checks passed over checks, for engineKeys absent keys
	tables   int
	checksAt float64 // filter checks per absent lookup
}

// engineKeys is the number of keys of the benchmark databases: 1M, or
// $PEBBLEFILTER_ENGINE_KEYS, for runs under valgrind, where writing 1M
// keys takes minutes.
var engineKeys = func() int {
	if n, err := strconv.Atoi(os.Getenv("PEBBLEFILTER_ENGINE_KEYS")); err == nil && n > 0 {
		return n
	}
	return 1_000_000
}()

var (
	benchMu  sync.Mutex
	benchDBs = map[string]*benchDB{}
	benchDir string
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range benchDBs {
		d.it.Close()
		d.db.Close()
	}
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// openBenchDB writes (once) and opens a database of engineKeys keys with
// policy p on every level, compacted into sstables, with a block cache
// that holds it all, and measures its filters' bits a key and its false
// positives through the engine.
func openBenchDB(b *testing.B, name string, p pebble.FilterPolicy) *benchDB {
	benchMu.Lock()
	defer benchMu.Unlock()
	if d := benchDBs[name]; d != nil {
		return d
	}
	if benchDir == "" {
		dir, err := os.MkdirTemp("", "pebblefilter-bench")
		if err != nil {
			b.Fatal(err)
		}
		benchDir = dir
	}
	dir := benchDir + "/" + name
	writeDB(b, dir, p, engineKeys)
	cache := pebble.NewCache(256 << 20)
	db, err := pebble.Open(dir, dbOptions(p, cache))
	cache.Unref() // the database holds its own reference
	if err != nil {
		b.Fatal(err)
	}
	d := &benchDB{db: db}
	var filterBytes, entries uint64
	d.tables, filterBytes, entries = tableStats(b, db, p.Name())
	d.bitsKey = float64(8*filterBytes) / float64(entries)
	d.it, err = db.NewIter(&pebble.IterOptions{UseL6Filters: true})
	if err != nil {
		b.Fatal(err)
	}
	var k [keyLen]byte
	for i := range engineKeys { // warm the cache: every block read once
		if !lookup(d.it, makeKey(k[:], uint64(i))) {
			b.Fatalf("key %d not found", i)
		}
	}
	before := db.Metrics().Filter
	for i := range engineKeys {
		if lookup(d.it, makeKey(k[:], absentBase+probeKeys+uint64(i))) {
			b.Fatalf("absent key %d found", i)
		}
	}
	after := db.Metrics().Filter
	hits, misses := after.Hits-before.Hits, after.Misses-before.Misses
	d.fpRate = float64(misses) / float64(hits+misses)
	d.checksAt = float64(hits+misses) / float64(engineKeys)
	benchDBs[name] = d
	return d
}

// BenchmarkEngineAbsentLookup makes point lookups (SeekPrefixGE with
// UseL6Filters) of absent keys in a database of engineKeys keys on disk, all in
// the block cache, with each policy. bits/key comes from the tables'
// properties (filter size over entries), fp-rate from Pebble's filter
// metrics over engineKeys other absent keys.
func BenchmarkEngineAbsentLookup(b *testing.B) {
	absent := keys(absentBase, probeKeys)
	for _, bp := range benchPolicies {
		b.Run(bp.name, func(b *testing.B) {
			d := openBenchDB(b, bp.name, bp.policy)
			b.ReportAllocs()
			b.ResetTimer()
			if found := absentLookups(d.it, absent, b.N); found != 0 {
				b.Fatalf("%d absent keys found", found)
			}
			b.ReportMetric(d.bitsKey, "bits/key")
			b.ReportMetric(d.fpRate, "fp-rate")
			b.ReportMetric(d.checksAt, "checks/lookup")
		})
	}
}

// absentLookups looks up n keys of absent, cycling, and returns how many
// it found. A function of its own, so that callgrind can count its
// instructions alone (--toggle-collect).
//
//go:noinline
func absentLookups(it *pebble.Iterator, absent [][]byte, n int) int {
	found := 0
	for i := 0; i < n; i++ {
		if lookup(it, absent[i&(len(absent)-1)]) {
			found++
		}
	}
	return found
}

// BenchmarkFinish measures building a filter block of 100K keys, AddKey
// included.
func BenchmarkFinish(b *testing.B) {
	ks := keys(0, 100_000)
	for _, bp := range benchPolicies {
		b.Run(bp.name, func(b *testing.B) {
			w := bp.policy.NewWriter(pebble.TableFilter)
			var buf []byte
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				for _, k := range ks {
					w.AddKey(k)
				}
				buf = w.Finish(buf[:0])
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ks)), "ns/key")
		})
	}
}
