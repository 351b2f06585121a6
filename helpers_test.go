package cuckoo

import (
	"math/bits"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

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

// layouts lists the layouts every shared test runs on.
var layouts = []Layout{Packed, SemiSorted}

// forEachLayout runs fn as a subtest per layout.
func forEachLayout(t *testing.T, fn func(t *testing.T, layout Layout)) {
	for _, l := range layouts {
		t.Run(l.String(), func(t *testing.T) { fn(t, l) })
	}
}

// mustNew is New that fails the test on error.
func mustNew[T Hashable](tb testing.TB, cfg Config) *Filter[T] {
	tb.Helper()
	f, err := New[T](cfg)
	if err != nil {
		tb.Fatalf("New(%+v): %v", cfg, err)
	}
	return f
}

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

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

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

// mulHash is a one-multiply hash of an integer key: the 128-bit product of
// the key (xored with a seed) and an odd constant, its halves folded: the
// cost of the C++ of the paper's authors, whose integer hash is one
// multiply and an add. This package does not use it: BenchmarkLookupCost
// times it, and TestStructuredKeys shows why.
func mulHash(k uint64) uint64 {
	hi, lo := bits.Mul64(k^DefaultSeed, 0x9fb21c651e98df25)
	return hi ^ lo
}
