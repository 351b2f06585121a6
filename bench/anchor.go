package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/FastFilter/xorfilter"
	"github.com/seed-a0724874/cuckoo"
)

// The anchor comparison (-anchor) times this library against the C++ cuckoo
// filter of the paper's authors, built and run on this machine by the script
// given to -anchor (../shared/anchors/cpp-cuckoo/run beside the repository;
// its source never enters this repository). Both sides run the same
// workload, in alternating rounds so that a change in the machine's load
// hits both: n keys from SplitMix64 (seed 1) inserted into a filter made for
// n, then three passes of Contains over the inserted keys (hit) and three
// over n other keys (miss, seed 2). The C++ filter rounds its table up to a
// power of two; at n = 1M and 32M (just under powers of two) both tables
// have nearly the same load.

// anchorConfig is one filter the comparison times on both sides.
type anchorConfig struct {
	name   string // the C++ driver's name for it
	f      int
	layout cuckoo.Layout
}

var anchorConfigs = []anchorConfig{
	{"cuckoo", 8, cuckoo.Packed},
	{"cuckoo", 12, cuckoo.Packed},
	{"cuckoo", 16, cuckoo.Packed},
	{"semisort", 13, cuckoo.SemiSorted},
}

// anchorTimes is one side's times for one filter and size, ns per key.
type anchorTimes struct {
	insert, hit, miss []float64
	bits              float64
	// Ours only: ContainsBatch over the hit keys, and InsertBatch of the
	// keys into a new filter.
	batchHit, batchInsert []float64
}

type anchorKey struct {
	name string
	f, n int
}

// anchorKeys is the C++ driver's key stream: SplitMix64 from seed.
func anchorKeys(n int, seed uint64) []uint64 {
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = splitmix(seed, uint64(i))
	}
	return keys
}

// runAnchorOurs times this library on the anchor workload and adds one
// round's times to into.
func runAnchorOurs(n int, in, out []uint64, into map[anchorKey]*anchorTimes) error {
	for _, c := range anchorConfigs {
		runtime.GC()
		f, err := cuckoo.New[uint64](cuckoo.Config{Capacity: n, FingerprintBits: c.f, Layout: c.layout})
		if err != nil {
			return err
		}
		t0 := time.Now()
		for _, k := range in {
			if err := f.Insert(k); err != nil {
				return fmt.Errorf("%s f=%d n=%d: insert: %v", c.name, c.f, n, err)
			}
		}
		t1 := time.Now()
		found := 0
		for range 3 {
			found += containsLoop(f, in)
		}
		t2 := time.Now()
		fps := 0
		for range 3 {
			fps += containsLoop(f, out)
		}
		t3 := time.Now()
		sink += fps
		if found != 3*n {
			return fmt.Errorf("%s f=%d n=%d: %d false negatives", c.name, c.f, n, 3*n-found)
		}
		if c.f == floorBits && c.layout == cuckoo.Packed {
			if err := runAnchorFloor(f, n, in, out, into); err != nil {
				return err
			}
		}
		batchHit, batchInsert, err := anchorBatches(f, c, in)
		if err != nil {
			return err
		}
		e := entry(into, anchorKey{c.name, c.f, n})
		e.batchHit = append(e.batchHit, batchHit)
		e.batchInsert = append(e.batchInsert, batchInsert)
		e.insert = append(e.insert, perKey(t1.Sub(t0), n))
		e.hit = append(e.hit, perKey(t2.Sub(t1), 3*n))
		e.miss = append(e.miss, perKey(t3.Sub(t2), 3*n))
		e.bits = 8 * float64(f.SizeBytes()) / float64(n)
	}
	return nil
}

// runAnchorFloor times the floor (floor.go) over f's table on the anchor's
// lookups, as runAnchorOurs times Contains, and adds one round's times to
// into under the name "floor": Go's own limit for this work, beside the C++.
func runAnchorFloor(f *cuckoo.Filter[uint64], n int, in, out []uint64, into map[anchorKey]*anchorTimes) error {
	y, err := newFloor12(f)
	if err != nil {
		return err
	}
	t0 := time.Now()
	found := 0
	for range 3 {
		found += floorLoop(y, in)
	}
	t1 := time.Now()
	for range 3 {
		sink += floorLoop(y, out)
	}
	t2 := time.Now()
	if found != 3*n {
		return fmt.Errorf("floor n=%d: %d false negatives", n, 3*n-found)
	}
	e := entry(into, anchorKey{"floor", floorBits, n})
	e.hit = append(e.hit, perKey(t1.Sub(t0), 3*n))
	e.miss = append(e.miss, perKey(t2.Sub(t1), 3*n))
	return nil
}

// anchorBatches times, in ns per key, three passes of ContainsBatch over
// the keys in f, in batches of 1024, and InsertBatch of the keys into a new
// filter made as f was.
func anchorBatches(f *cuckoo.Filter[uint64], c anchorConfig, in []uint64) (hit, insert float64, err error) {
	n := len(in)
	found := make([]bool, 1024)
	t0 := time.Now()
	hits := 0
	for range 3 {
		for off := 0; off < n; off += len(found) {
			hits += f.ContainsBatch(in[off:min(off+len(found), n)], found)
		}
	}
	t1 := time.Now()
	if hits != 3*n {
		return 0, 0, fmt.Errorf("%s f=%d n=%d: %d false negatives in batches", c.name, c.f, n, 3*n-hits)
	}
	runtime.GC()
	g, err := cuckoo.New[uint64](cuckoo.Config{Capacity: n, FingerprintBits: c.f, Layout: c.layout})
	if err != nil {
		return 0, 0, err
	}
	t2 := time.Now()
	if k, err := g.InsertBatch(in); err != nil {
		return 0, 0, fmt.Errorf("%s f=%d n=%d: InsertBatch: %d went in: %v", c.name, c.f, n, k, err)
	}
	t3 := time.Now()
	return perKey(t1.Sub(t0), 3*n), perKey(t3.Sub(t2), n), nil
}

// runAnchorFuse times Go's BinaryFuse8 (github.com/FastFilter/xorfilter,
// static: built from the keys) on the same lookups, called directly as ours
// are, and adds one round's times to into under the name "fuse8".
func runAnchorFuse(n int, in, out []uint64, into map[anchorKey]*anchorTimes) error {
	runtime.GC()
	t0 := time.Now()
	f, err := xorfilter.PopulateBinaryFuse8(in)
	if err != nil {
		return err
	}
	t1 := time.Now()
	found := 0
	for range 3 {
		found += fuseLoop(f, in)
	}
	t2 := time.Now()
	fps := 0
	for range 3 {
		fps += fuseLoop(f, out)
	}
	t3 := time.Now()
	sink += fps
	if found != 3*n {
		return fmt.Errorf("BinaryFuse8 n=%d: %d false negatives", n, 3*n-found)
	}
	e := entry(into, anchorKey{"fuse8", 8, n})
	e.insert = append(e.insert, perKey(t1.Sub(t0), n))
	e.hit = append(e.hit, perKey(t2.Sub(t1), 3*n))
	e.miss = append(e.miss, perKey(t3.Sub(t2), 3*n))
	e.bits = 8 * float64(len(f.Fingerprints)) / float64(n)
	return nil
}

// fuseLoop is containsLoop (floor.go) for BinaryFuse8: a loop of its own,
// not a generic one, which would call Contains through a dictionary.
//
//go:noinline
func fuseLoop(f *xorfilter.BinaryFuse8, keys []uint64) int {
	n := 0
	for _, k := range keys {
		n += one(f.Contains(k))
	}
	return n
}

// one is 1 for true, 0 for false. The timed loops add it up, as the C++
// driver adds up its lookups' results: with no branch on the answer, whose
// mispredictions would be charged to the filter (a miss loop at f = 8 finds
// about 3% false positives at random).
func one(b bool) int {
	if b {
		return 1
	}
	return 0
}

func perKey(d time.Duration, n int) float64 { return float64(d.Nanoseconds()) / float64(n) }

func entry(m map[anchorKey]*anchorTimes, k anchorKey) *anchorTimes {
	if m[k] == nil {
		m[k] = new(anchorTimes)
	}
	return m[k]
}

// runAnchorCpp runs the C++ driver once for sizes and adds its times to
// into. Its lines read "cpp-NAME f=F n=N insert_ns=I hit_ns=H miss_ns=M
// bits_per_key=B fpr=R"; a line starting with # names the CPU and compiler.
func runAnchorCpp(script string, sizes []int, into map[anchorKey]*anchorTimes) (header string, err error) {
	args := make([]string, len(sizes))
	for i, n := range sizes {
		args[i] = strconv.Itoa(n)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(script, args...)
	cmd.Stderr = &stderr
	outp, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s: %v\n%s", script, err, stderr.Bytes())
	}
	sc := bufio.NewScanner(bytes.NewReader(outp))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			header = strings.TrimSpace(strings.TrimPrefix(line, "#"))
			continue
		}
		fields := map[string]string{}
		parts := strings.Fields(line)
		if len(parts) == 0 || !strings.HasPrefix(parts[0], "cpp-") {
			continue
		}
		for _, p := range parts[1:] {
			if k, v, ok := strings.Cut(p, "="); ok {
				fields[k] = v
			}
		}
		num := func(k string) float64 { v, _ := strconv.ParseFloat(fields[k], 64); return v }
		if _, ok := fields["hit_ns"]; !ok {
			return header, fmt.Errorf("C++ driver: %s", line)
		}
		e := entry(into, anchorKey{strings.TrimPrefix(parts[0], "cpp-"), int(num("f")), int(num("n"))})
		e.insert = append(e.insert, num("insert_ns"))
		e.hit = append(e.hit, num("hit_ns"))
		e.miss = append(e.miss, num("miss_ns"))
		e.bits = num("bits_per_key")
	}
	return header, sc.Err()
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// runAnchor alternates rounds of the C++ driver and of this library, the
// order swapped every round, and prints the medians and their ratios.
func runAnchor(w io.Writer, script string, sizes []int, rounds int) error {
	ours := map[anchorKey]*anchorTimes{}
	cpp := map[anchorKey]*anchorTimes{}
	var header string
	inputs := map[int][2][]uint64{}
	for _, n := range sizes {
		inputs[n] = [2][]uint64{anchorKeys(n, 1), anchorKeys(n, 2)}
	}
	runOurs := func() error {
		for _, n := range sizes {
			if err := runAnchorOurs(n, inputs[n][0], inputs[n][1], ours); err != nil {
				return err
			}
			if err := runAnchorFuse(n, inputs[n][0], inputs[n][1], ours); err != nil {
				return err
			}
		}
		return nil
	}
	for r := range rounds {
		fmt.Fprintf(os.Stderr, "anchor round %d of %d\n", r+1, rounds)
		steps := []func() error{runOurs, func() (err error) { header, err = runAnchorCpp(script, sizes, cpp); return err }}
		if r%2 == 1 {
			steps[0], steps[1] = steps[1], steps[0]
		}
		for _, s := range steps {
			if err := s(); err != nil {
				return err
			}
		}
	}
	fmt.Fprintf(w, "# %s; Go %s, probe code %s; medians of %d alternating rounds, ns per key\n\n",
		header, goTarget(), cuckoo.ProbeImplementation(), rounds)
	fmt.Fprintln(w, "| filter | f | n | ours hit / miss | C++ hit / miss | ratio hit / miss | ours insert | C++ insert | ratio insert | bits/key ours / C++ |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, n := range sizes {
		for _, c := range anchorConfigs {
			k := anchorKey{c.name, c.f, n}
			o, p := ours[k], cpp[k]
			if o == nil || p == nil {
				continue
			}
			oh, om, oi := median(o.hit), median(o.miss), median(o.insert)
			ph, pm, pi := median(p.hit), median(p.miss), median(p.insert)
			fmt.Fprintf(w, "| %s | %d | %s | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %.1f | %.1f | %.2f | %.2f / %.2f |\n",
				c.layout, c.f, count(n), oh, om, ph, pm, oh/ph, om/pm, oi, pi, oi/pi, o.bits, p.bits)
		}
	}
	fmt.Fprintln(w, "\nOur batches in the same rounds: ContainsBatch of the hit keys (1024 a call) against the C++ single hit, and InsertBatch of all keys against our loop of Insert:")
	fmt.Fprintln(w, "\n| filter | f | n | batch hit | ratio to C++ hit | InsertBatch | ratio to Insert loop |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|")
	for _, n := range sizes {
		for _, c := range anchorConfigs {
			k := anchorKey{c.name, c.f, n}
			o, p := ours[k], cpp[k]
			if o == nil || p == nil {
				continue
			}
			bh, bi := median(o.batchHit), median(o.batchInsert)
			fmt.Fprintf(w, "| %s | %d | %s | %.2f | %.2f | %.1f | %.2f |\n",
				c.layout, c.f, count(n), bh, bh/median(p.hit), bi, bi/median(o.insert))
		}
	}
	fmt.Fprintf(w, "\nGo's floor (floor.go: Contains's work for Packed f = %d written out in a loop over the same table), same keys and rounds:\n", floorBits)
	fmt.Fprintln(w, "\n| n | floor hit / miss | floor / C++ hit / miss | ours / floor hit / miss |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|")
	for _, n := range sizes {
		fl, o, p := ours[anchorKey{"floor", floorBits, n}], ours[anchorKey{"cuckoo", floorBits, n}], cpp[anchorKey{"cuckoo", floorBits, n}]
		if fl == nil || o == nil || p == nil {
			continue
		}
		fh, fm := median(fl.hit), median(fl.miss)
		fmt.Fprintf(w, "| %s | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f |\n",
			count(n), fh, fm, fh/median(p.hit), fm/median(p.miss), median(o.hit)/fh, median(o.miss)/fm)
	}
	fmt.Fprintln(w, "\nGo's BinaryFuse8 (static, rate 0.39%), same keys and rounds; ratio = ours Packed f=8 / BinaryFuse8:")
	fmt.Fprintln(w, "\n| n | BinaryFuse8 hit / miss | ratio hit / miss | BinaryFuse8 build per key | bits/key |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|")
	for _, n := range sizes {
		fz, o := ours[anchorKey{"fuse8", 8, n}], ours[anchorKey{"cuckoo", 8, n}]
		if fz == nil || o == nil {
			continue
		}
		fh, fm := median(fz.hit), median(fz.miss)
		fmt.Fprintf(w, "| %s | %.2f / %.2f | %.2f / %.2f | %.1f | %.2f |\n",
			count(n), fh, fm, median(o.hit)/fh, median(o.miss)/fm, median(fz.insert), fz.bits)
	}
	return nil
}
