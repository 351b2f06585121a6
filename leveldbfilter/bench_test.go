package leveldbfilter_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/seed-a0724874/cuckoo/leveldbfilter"
	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/filter"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// The benchmarks compare the policy with goleveldb's Bloom filter at the
// same bits per key: the cuckoo policy's, measured, rounded to the nearest
// integer for the Bloom filter. Run them interleaved, one process per
// round, and compare with benchstat:
//
//	for i in 1 2 3 4 5 6; do go test -p 1 -run '^$' -bench . -count 1 >> bench.txt; done
//	benchstat -col /policy bench.txt

const (
	benchKeys   = 1_000_000 // keys in each benchmark database
	benchAbsent = 1_000_000 // absent keys probed for the false-positive rate
)

// benchRoot holds the benchmark databases, made once per process.
var benchRoot string

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range benchDBs {
		d.db.Close()
	}
	if benchRoot != "" {
		os.RemoveAll(benchRoot)
	}
	os.Exit(code)
}

// dbConfig names a benchmark database: the policy, its parameter (the
// false-positive rate the cuckoo policy is made with; the Bloom filter gets
// the bits per key the cuckoo policy spends at that rate) and the value size.
type dbConfig struct {
	bloom     bool
	rate      float64
	valueSize int
}

// benchDB is an open benchmark database and what its making measured.
type benchDB struct {
	db            *leveldb.DB
	bitsPerKey    float64 // bytes the generators wrote, in bits, per key added
	keysPerFilter float64
	calls, trues  int64         // Contains calls and true answers for the absent keys
	bloomBits     int           // the Bloom filter's bits per key, for a Bloom database
	fill          time.Duration // to write and compact the database
}

var (
	benchDBs   = map[dbConfig]*benchDB{}
	absentKeys [][]byte // keys benchKeys.. benchKeys+benchAbsent
)

// getDB returns the database of cfg, making it the first time: it fills it
// with benchKeys keys through a counting policy, reopens it, measures the
// false-positive rate of the filters for benchAbsent absent keys, and
// reopens it with the plain policy for the timings.
func getDB(b *testing.B, cfg dbConfig) *benchDB {
	if d, ok := benchDBs[cfg]; ok {
		return d
	}
	b.StopTimer()
	defer b.StartTimer()
	if benchRoot == "" {
		var err error
		if benchRoot, err = os.MkdirTemp("", "leveldbfilter-bench-"); err != nil {
			b.Fatal(err)
		}
	}
	if absentKeys == nil {
		absentKeys = keys(benchKeys, benchAbsent)
	}
	d := &benchDB{}
	var pol filter.Filter = leveldbfilter.New(cfg.rate)
	if cfg.bloom {
		// Round the cuckoo policy's bits per key to the nearest integer.
		d.bloomBits = int(math.Round(getDB(b, dbConfig{rate: cfg.rate, valueSize: cfg.valueSize}).bitsPerKey))
		pol = filter.NewBloomFilter(d.bloomBits)
	}
	dir := filepath.Join(benchRoot, fmt.Sprintf("%s-%v-%d", pol.Name(), cfg.rate, cfg.valueSize))
	c := &counting{Filter: pol}
	start := time.Now()
	fill(b, dir, c, benchKeys, cfg.valueSize)
	d.fill = time.Since(start)
	d.bitsPerKey = 8 * float64(c.bytes.Load()) / float64(c.keys.Load())
	d.keysPerFilter = float64(c.keys.Load()) / float64(c.generates.Load())

	db := open(b, dir, c)
	d.calls, d.trues = probeAbsent(b, db, c, benchKeys, benchAbsent)
	db.Close()
	d.db = open(b, dir, pol)
	benchDBs[cfg] = d
	return d
}

// BenchmarkGetAbsent times Gets of absent keys through goleveldb, and
// reports the bits per key the filters take, the keys each filter holds and
// the false-positive rate of the filters through goleveldb (Contains calls
// answered true, of all calls, for benchAbsent absent keys).
func BenchmarkGetAbsent(b *testing.B) {
	for _, valueSize := range []int{8, 100} {
		for _, rate := range []float64{0.01, 0.001} {
			for _, bloom := range []bool{false, true} {
				name := fmt.Sprintf("v=%d/rate=%v/policy=%s", valueSize, rate, policyLabel(bloom))
				b.Run(name, func(b *testing.B) {
					d := getDB(b, dbConfig{bloom: bloom, rate: rate, valueSize: valueSize})
					b.ReportAllocs()
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						if _, err := d.db.Get(absentKeys[i%len(absentKeys)], nil); !errors.Is(err, leveldb.ErrNotFound) {
							b.Fatalf("Get of an absent key: %v", err)
						}
					}
					b.ReportMetric(d.bitsPerKey, "bits/key")
					b.ReportMetric(d.keysPerFilter, "keys/filter")
					b.ReportMetric(float64(d.trues)/float64(d.calls), "fp-rate")
					b.ReportMetric(d.fill.Seconds(), "fill-s")
					if bloom {
						b.ReportMetric(float64(d.bloomBits), "bloom-bits")
					}
				})
			}
		}
	}
}

func policyLabel(bloom bool) string {
	if bloom {
		return "bloom"
	}
	return "cuckoo"
}

// filterBlocks makes the filters of groups of k keys with pol, as one
// table's filter block holds them, and returns them.
func filterBlocks(pol filter.Filter, groups, k int) (filters [][]byte, bytes int) {
	g := pol.NewGenerator()
	var buf util.Buffer
	ends := make([]int, groups)
	var kb []byte
	for j := range groups {
		for i := range k {
			kb = key(kb, uint64(j*k+i))
			g.Add(kb)
		}
		g.Generate(&buf)
		ends[j] = buf.Len()
	}
	all, start := buf.Bytes(), 0
	for _, end := range ends {
		filters = append(filters, all[start:end:end])
		start = end
	}
	return filters, len(all)
}

// blockSet is the filter blocks of both policies for groups of k keys.
type blockSet struct {
	cuckoo, bloom         [][]byte
	cuckooBits, bloomBits float64 // bits per key
}

var blockSets = map[[2]float64]*blockSet{}

// getBlocks returns the filter blocks of groups of k keys made by the
// cuckoo policy of the rate and by the Bloom filter of its bits per key,
// rounded, making them the first time.
func getBlocks(b *testing.B, k int, rate float64) *blockSet {
	const groups = 4096 // about 600 KB of filters at k=122
	id := [2]float64{float64(k), rate}
	if s, ok := blockSets[id]; ok {
		return s
	}
	b.StopTimer()
	defer b.StartTimer()
	s := &blockSet{}
	var n int
	s.cuckoo, n = filterBlocks(leveldbfilter.New(rate), groups, k)
	s.cuckooBits = 8 * float64(n) / float64(groups*k)
	s.bloom, n = filterBlocks(filter.NewBloomFilter(int(math.Round(s.cuckooBits))), groups, k)
	s.bloomBits = 8 * float64(n) / float64(groups*k)
	blockSets[id] = s
	return s
}

// BenchmarkContains times Contains of absent keys on filter blocks, the
// filters of groups of k keys made by both policies from the same keys,
// probed round-robin, and reports the bits per key and the false-positive
// rate it sees.
func BenchmarkContains(b *testing.B) {
	probes := keys(1<<30, 1<<16)       // far past the keys stored (a 32-bit int holds it)
	for _, k := range []int{33, 122} { // the keys a filter holds in the databases
		for _, rate := range []float64{0.01, 0.001} {
			for _, bloom := range []bool{false, true} {
				b.Run(fmt.Sprintf("k=%d/rate=%v/policy=%s", k, rate, policyLabel(bloom)), func(b *testing.B) {
					s := getBlocks(b, k, rate)
					var pol filter.Filter = leveldbfilter.New(rate)
					filters, bits := s.cuckoo, s.cuckooBits
					if bloom {
						pol, filters, bits = filter.NewBloomFilter(int(math.Round(s.cuckooBits))), s.bloom, s.bloomBits
					}
					b.ReportAllocs()
					b.ResetTimer()
					trues := 0
					for i := 0; i < b.N; i++ {
						if pol.Contains(filters[i%len(filters)], probes[i%len(probes)]) {
							trues++
						}
					}
					b.ReportMetric(bits, "bits/key")
					b.ReportMetric(float64(trues)/float64(b.N), "fp-rate")
				})
			}
		}
	}
}

// BenchmarkGenerate times making the filter of k keys, per key, over 64
// groups of k keys in turn: the time a build takes varies with the keys.
func BenchmarkGenerate(b *testing.B) {
	const groups = 64
	for _, k := range []int{33, 122} {
		ks := keys(0, groups*k)
		for _, bloom := range []bool{false, true} {
			var pol filter.Filter = leveldbfilter.New(0.01)
			if bloom {
				pol = filter.NewBloomFilter(10)
			}
			b.Run(fmt.Sprintf("k=%d/policy=%s", k, policyLabel(bloom)), func(b *testing.B) {
				g := pol.NewGenerator()
				var buf util.Buffer
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					j := i % groups
					for _, kb := range ks[j*k : (j+1)*k] {
						g.Add(kb)
					}
					buf.Reset()
					g.Generate(&buf)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*k), "ns/key")
			})
		}
	}
}
