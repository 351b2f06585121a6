package cuckoo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/bits"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// Running: what a test runs on, and for how long.

// longTests reports whether the long runs were asked for, with the
// environment variable CUCKOO_LONG set to anything but "" (.ci/run sets
// it, CUCKOO_LONG=1 go test ./...). Tests that check more the longer they
// run then run at full size: stress runs of seconds, every width of the
// displacement walks, more calls per allocation count. Two run only then:
// TestFillToCapacityLarge (fills of 10 and 32 million keys) and
// TestREADMEPrograms (it builds a program per README example). Without
// it go test ./... takes under a minute on two cores, and -short trims
// sizes further.
func longTests() bool { return os.Getenv("CUCKOO_LONG") != "" }

// Tests in parallel: a test that takes more than a few tens of
// milliseconds calls t.Parallel(), unless it
//   - counts allocations (testing.AllocsPerRun, runtime.ReadMemStats): the
//     counts are of every goroutine's, and AllocsPerRun sets GOMAXPROCS;
//   - sets a package variable that other tests read: useBatchAsm and
//     useWideAsm (forEachImpl, setImpl, implementations), walkPrefetchMin;
//   - sets GOMAXPROCS (the stress tests).
// Go resumes the parallel tests only when every sequential one has
// finished, so those run alone, as before.

// layouts lists the layouts every shared test runs on.
var layouts = []Layout{Packed, SemiSorted}

// forEachLayout runs fn as a subtest per layout.
func forEachLayout(t *testing.T, fn func(t *testing.T, layout Layout)) {
	for _, l := range layouts {
		t.Run(l.String(), func(t *testing.T) { fn(t, l) })
	}
}

// impl is one probe implementation, as the dispatch bools that select it.
type impl struct {
	name        string
	batch, wide bool
}

// implementations lists every probe implementation this CPU runs, the
// generic one first.
func implementations() []impl {
	list := []impl{{"generic", false, false}}
	if haveAsm && hasBatchAsm {
		// The narrow assembly, then the wide one where there is one.
		saved := useWideAsm
		useWideAsm = false
		list = append(list, impl{asmName(), true, false})
		useWideAsm = saved
		if hasWideAsm {
			useWideAsm = true
			list = append(list, impl{asmName(), true, true})
			useWideAsm = saved
		}
	}
	return list
}

// setImpl selects an implementation and returns a function that restores the
// previous one.
func setImpl(p impl) (restore func()) {
	b, w := useBatchAsm, useWideAsm
	useBatchAsm, useWideAsm = p.batch, p.wide
	return func() { useBatchAsm, useWideAsm = b, w }
}

// forEachImpl runs fn as a subtest per implementation, with it selected.
func forEachImpl(t *testing.T, fn func(t *testing.T)) {
	for _, p := range implementations() {
		t.Run(p.name, func(t *testing.T) {
			defer setImpl(p)()
			if got := ProbeImplementation(); got != p.name {
				t.Fatalf("ProbeImplementation() = %q, want %q", got, p.name)
			}
			fn(t)
		})
	}
}

// Keys.

// Named key types, of each family.
type (
	userID   uint64
	label    string
	blob     []byte
	smallInt int8
	temp     float32
	uuid     [16]byte // as github.com/google/uuid.UUID
	digest   [32]byte // as a named sha256 sum
)

// uuidKey and digestKey are distinct byte-array keys.
func uuidKey(i int) uuid {
	var u uuid
	binary.LittleEndian.PutUint64(u[:], uint64(i))
	binary.LittleEndian.PutUint64(u[8:], uint64(i)*0x9e3779b97f4a7c15)
	return u
}

func digestKey(i int) digest {
	var d digest
	for k := range 4 {
		binary.LittleEndian.PutUint64(d[8*k:], uint64(i)*uint64(2*k+1)*0x9e3779b97f4a7c15)
	}
	return d
}

// intKey and stringKey are distinct keys of the two commonest types.
func intKey(i int) uint64 { return uint64(i) * 0x9e3779b97f4a7c15 }

func stringKey(i int) string { return "key-" + strconv.Itoa(i) }

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

// mulHash is a one-multiply hash of an integer key: the 128-bit product of
// the key (xored with a seed) and an odd constant, its halves folded: the
// cost of the C++ of the paper's authors, whose integer hash is one
// multiply and an add. This package does not use it: BenchmarkLookupCost
// times it, and TestStructuredKeys shows why.
func mulHash(k uint64) uint64 {
	hi, lo := bits.Mul64(k^DefaultSeed, 0x9fb21c651e98df25)
	return hi ^ lo
}

// testKey is a keyed filter's Key with distinctive words; otherKey is another.
var (
	testKey  = [16]byte{0x5e, 0xc7, 0xe7, 0x00, 0x0b, 0xad, 0xf0, 0x0d, 0xde, 0xad, 0xbe, 0xef, 0xca, 0xfe, 0xba, 0xbe}
	otherKey = [16]byte{1}
)

// Filters, views and encodings.

// mustNew is New that fails the test on error.
func mustNew[T Hashable](tb testing.TB, cfg Config) *Filter[T] {
	tb.Helper()
	f, err := New[T](cfg)
	if err != nil {
		tb.Fatalf("New(%+v): %v", cfg, err)
	}
	return f
}

// mustNewConcurrent is NewConcurrent that fails the test on error.
func mustNewConcurrent[T Hashable](tb testing.TB, cfg Config) *ConcurrentFilter[T] {
	tb.Helper()
	f, err := NewConcurrent[T](cfg)
	if err != nil {
		tb.Fatalf("NewConcurrent(%+v): %v", cfg, err)
	}
	return f
}

// builtFilter is a filter of the first n keys, with every fifth deleted.
func builtFilter[T Hashable](tb testing.TB, cfg Config, n int, key func(int) T) *Filter[T] {
	tb.Helper()
	return fillBuilt(tb, mustNew[T](tb, cfg), n, key)
}

// fillBuilt makes f the filter builtFilter describes.
func fillBuilt[T Hashable](tb testing.TB, f *Filter[T], n int, key func(int) T) *Filter[T] {
	tb.Helper()
	for i := range n {
		if err := f.Insert(key(i)); err != nil {
			tb.Fatalf("insert %d of %d: %v", i, n, err)
		}
	}
	for i := 0; i < n; i += 5 {
		if !f.Delete(key(i)) {
			tb.Fatalf("delete %d failed", i)
		}
	}
	return f
}

func mustMarshal[T Hashable](tb testing.TB, f *Filter[T]) []byte {
	tb.Helper()
	b, err := f.MarshalBinary()
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// mustCompact is AppendCompact(nil) that fails the test on error.
func mustCompact[T Hashable](tb testing.TB, f *Filter[T]) []byte {
	tb.Helper()
	b, err := f.AppendCompact(nil)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// querier is what a Filter and a View both answer.
type querier[T Hashable] interface {
	Contains(T) bool
	Count(T) int
	Hash(T) uint64
	ContainsHash(uint64) bool
	CountHash(uint64) int
	ContainsBatch([]T, []bool) int
	ContainsHashBatch([]uint64, []bool) int
	Len() int
	Capacity() int
	Slots() int
	LoadFactor() float64
	FingerprintBits() int
	Layout() Layout
	SizeBytes() int
	EstimatedFalsePositiveRate() float64
	Seed() uint64
}

var (
	_ querier[uint64] = (*Filter[uint64])(nil)
	_ querier[string] = (*View[string])(nil)
)

// Checks.

// model is the exact multiset of fingerprint-relevant hashes a filter should
// hold: no false negatives is checked against it.
type model map[uint64]int

func (m model) total() int {
	n := 0
	for _, c := range m {
		n += c
	}
	return n
}

// checkNoFalseNegatives fails if any hash in the model is not found.
func checkNoFalseNegatives(tb testing.TB, c *reader, m model) {
	tb.Helper()
	lost := 0
	for h, n := range m {
		if n > 0 && !c.containsHash(h) {
			lost++
		}
	}
	if lost > 0 {
		tb.Fatalf("%d of %d stored hashes not found", lost, len(m))
	}
	if c.count != m.total() {
		tb.Fatalf("Len %d, model holds %d", c.count, m.total())
	}
}

// checkSameAnswers fails unless got answers every query like want.
func checkSameAnswers[T Hashable](tb testing.TB, want, got querier[T], keys []T) {
	tb.Helper()
	checkAnswers(tb, want, got, keys, false)
}

// checkAnswers is checkSameAnswers; compact leaves out Capacity and
// SizeBytes, which a compact encoding does not record (its Capacity is its
// Len, its table its trailer instead of the padding).
func checkAnswers[T Hashable](tb testing.TB, want, got querier[T], keys []T, compact bool) {
	tb.Helper()
	hashes := make([]uint64, len(keys))
	for i, k := range keys {
		h := want.Hash(k)
		hashes[i] = h
		if got.Hash(k) != h || got.Contains(k) != want.Contains(k) || got.Count(k) != want.Count(k) ||
			got.ContainsHash(h) != want.ContainsHash(h) || got.CountHash(h) != want.CountHash(h) {
			tb.Fatalf("key %v: got Contains %v Count %d, want %v %d", k, got.Contains(k), got.Count(k), want.Contains(k), want.Count(k))
		}
	}
	wf, gf := make([]bool, len(keys)), make([]bool, len(keys))
	if want.ContainsBatch(keys, wf) != got.ContainsBatch(keys, gf) || !slicesEqual(wf, gf) {
		tb.Fatal("ContainsBatch differs")
	}
	if want.ContainsHashBatch(hashes, wf) != got.ContainsHashBatch(hashes, gf) || !slicesEqual(wf, gf) {
		tb.Fatal("ContainsHashBatch differs")
	}
	type stats struct {
		Len, Capacity, Slots, Bits, Size int
		Layout                           Layout
		Load, FPR                        float64
		Seed                             uint64
	}
	st := func(q querier[T]) stats {
		s := stats{q.Len(), q.Capacity(), q.Slots(), q.FingerprintBits(), q.SizeBytes(), q.Layout(), q.LoadFactor(), q.EstimatedFalsePositiveRate(), q.Seed()}
		if compact {
			s.Capacity, s.Size = 0, 0
		}
		return s
	}
	if w, g := st(want), st(got); w != g {
		tb.Fatalf("got %+v, want %+v", g, w)
	}
}

func slicesEqual[E comparable](a, b []E) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkFormatErr fails unless err is a decoding error wrapping a sentinel.
func checkFormatErr(tb testing.TB, err error, what string) {
	tb.Helper()
	switch {
	case err == nil:
		tb.Fatalf("%s: no error", what)
	case errors.Is(err, ErrCorrupt), errors.Is(err, ErrChecksum), errors.Is(err, ErrUnsupportedVersion), errors.Is(err, ErrIncompatible):
	default:
		tb.Fatalf("%s: %v wraps no format sentinel", what, err)
	}
}

// The table, slot by slot.

// hashFor returns a hash that locate maps to bucket i and fingerprint fp.
func hashFor(t *table, i uint64, fp uint32) uint64 {
	hi := (i<<32 + t.m0 - 1) / t.m0                      // smallest x with x*m0>>32 == i
	lo := (uint64(fp-1)<<32 + t.fpRange - 1) / t.fpRange // smallest y with y*fpRange>>32 == fp-1
	return hi<<32 | lo
}

// refSlot reads slot k of bucket i bit by bit, independently of the
// word-level code under test.
func refSlot(t *table, i uint64, k uint) uint32 {
	var v uint32
	pos := i*uint64(t.bbits) + uint64(k*t.f)
	for b := uint(0); b < t.f; b++ {
		p := pos + uint64(b)
		v |= uint32(t.data[p>>3]>>(p&7)&1) << b
	}
	return v
}

// slot reads slot k of packed bucket i.
func (t *table) slot(i uint64, k uint) uint32 { return t.bucketSlots(i)[k] }

// setSlot writes v into slot k of packed bucket i, leaving every other bit
// as it was.
func (t *table) setSlot(i uint64, k uint, v uint32) {
	t.setSlotAt(i*uint64(t.bbits)+uint64(k*t.f), v)
}

// writeSlots stores the values s as bucket i.
func (t *table) writeSlots(i uint64, s [4]uint32) {
	lo, hi := t.encode(s)
	t.setBucket(i, lo, hi)
}

// Programs.

// goCommand is the go command run in a new temporary module, named name,
// whose main.go is main and which requires this checkout of the package
// (GOFLAGS=-mod=mod lets go add its dependencies, which go.sum lists).
func goCommand(t *testing.T, name, main string, args ...string) *exec.Cmd {
	t.Helper()
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mod := "module " + name + "\n\ngo 1.24.0\n\nrequire github.com/seed-a0724874/cuckoo v0.0.0\n\nreplace github.com/seed-a0724874/cuckoo => " + root + "\n"
	for file, data := range map[string]string{"go.mod": mod, "go.sum": string(sum), "main.go": main} {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	return cmd
}

// newTable is an empty fixed table of m buckets of f-bit fingerprints.
func newTable(m uint64, f uint, layout Layout) table { return newStage(m, f, 0, 0, layout, 0) }

// pinFirst gives the empty growable filter c a first table of m0 buckets
// that doubles g times, for golden files made with an older sizing.
func pinFirst(c *core, m0 uint64, g uint) {
	c.t = newStage(m0, c.t.fbits, g, 0, c.t.layout, c.t.gens)
}

// containsGeneric reports whether the table holds the fingerprint of hash h
// in either of its buckets, by the codec: the reference of the probes.
func containsGeneric(t *table, h uint64) bool {
	fp, i1 := t.locate(h)
	i2 := t.alt(i1, fp)
	return containsAt(t, i1, i2, fp)
}

// genValue is what a slot of t holds for key value v (a fingerprint, with
// layer bits if growable) stored in generation gen.
func genValue(t *table, v uint32, gen uint) uint32 { return v | uint32(gen)<<t.kbits }

// expireByDecoding is table.expire by decoding each bucket, clearing its
// slots of generation id one by one and encoding it again: the reference
// of the passes that do not decode.
func expireByDecoding(t *table, id uint) int {
	n := 0
	for i := range t.m {
		s := t.bucketSlots(i)
		k := 0
		for j, v := range s {
			if v != 0 && v>>t.kbits == uint32(id) {
				s[j] = 0
				k++
			}
		}
		if k > 0 {
			lo, hi := t.encode(s)
			t.setBucket(i, lo, hi)
			n += k
		}
	}
	return n
}

// goldenBytes compares enc with testdata/file, writing the file first with
// -update, and returns the file's bytes.
func goldenBytes(tb testing.TB, file string, enc []byte) []byte {
	tb.Helper()
	path := filepath.Join("testdata", file)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, enc, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	golden, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	if !bytes.Equal(golden, enc) {
		tb.Fatalf("the filter built here encodes differently from %s", path)
	}
	return golden
}
