// Command bench compares this cuckoo filter with other Go filters: insert
// and lookup speed, space, false-positive rate, lost keys and allocations.
// See README.md.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// The sizes of a full run and of -quick: a full run's charts need enough
// sizes for their lines to show a trend, from caches to main memory.
const (
	defaultSizes = "100K,1M,8M,32M"
	quickSizes   = "100K,1M"
	anchorSizes  = "1M,32M" // -anchor's, where the C++ table is nearly as full as ours
)

// keptSections is what a report written over old keeps of it: its sections
// after the generated tables (from the first "## " heading after "## Keys
// lost"), notes and history that the run does not write.
func keptSections(old []byte) []byte {
	lines := bytes.SplitAfter(old, []byte("\n"))
	seen := false
	for i, l := range lines {
		switch {
		case !bytes.HasPrefix(l, []byte("## ")):
		case bytes.Equal(bytes.TrimSpace(l), []byte("## Keys lost")):
			seen = true
		case seen:
			return bytes.Join(lines[i:], nil)
		}
	}
	return nil
}

// memLimit is the most heap an adapter may ask for; see -memlimit.
var memLimit int64 = 12 << 30

func gib(b int64) float64 { return float64(b) / (1 << 30) }

// parseSizes parses a comma-separated list of key counts with optional K
// or M suffixes (decimal: 1M is 1000000).
func parseSizes(s string) ([]int, error) {
	var sizes []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		mult := 1
		switch {
		case strings.HasSuffix(f, "M"):
			mult, f = 1e6, strings.TrimSuffix(f, "M")
		case strings.HasSuffix(f, "K"):
			mult, f = 1e3, strings.TrimSuffix(f, "K")
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("bad size %q", f)
		}
		sizes = append(sizes, n*mult)
	}
	return sizes, nil
}

// progress reports on stderr how far a long run has got.
type progress struct {
	start time.Time
	done  int
}

func (p *progress) report(r result, took time.Duration) {
	p.done++
	status := fmt.Sprintf("%.1fs", took.Seconds())
	if r.err != "" {
		status = "n/a: " + r.err
	}
	fmt.Fprintf(os.Stderr, "[%s] %d: %s keys, n=%s, %s %s: %s\n",
		time.Since(p.start).Round(time.Second), p.done, r.keys, count(r.n), r.filter, target(r), status)
}

// runKeys measures every selected filter at every size with keys made by gen.
func runKeys[K Key](keyName string, gen func(seed uint64, hits, misses int) keySet[K], sizes []int, only string, seed uint64, o options, p *progress) []result {
	var results []result
	for _, n := range sizes {
		ks := gen(seed, n+n/20, min(max(n, 1e6), o.probeMax))
		for _, s := range specs {
			if !strings.Contains(s.name, only) {
				continue
			}
			for _, rate := range s.rates {
				start := time.Now()
				r := measure(s, keyName, ks, n, rate, o)
				p.report(r, time.Since(start))
				results = append(results, r)
				runtime.GC()
			}
		}
	}
	return results
}

// redrawCharts draws the charts of the report at path into dir.
func redrawCharts(path, dir string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	info, results, err := readReport(f)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	files, err := writeCharts(results, info, dir)
	if len(files) > 0 {
		fmt.Fprintf(os.Stderr, "wrote %s\n", strings.Join(files, ", "))
	}
	return err
}

func main() {
	quick := flag.Bool("quick", false, "small sizes ("+quickSizes+") for a run of a minute or two; overrides -sizes")
	sizesFlag := flag.String("sizes", defaultSizes, "filter sizes in keys, comma-separated, K and M suffixes (e.g. 1M,32M,256M); -anchor's default is "+anchorSizes)
	keys := flag.String("keys", "uint64,string", "key types: uint64, string (16 bytes), or both")
	only := flag.String("only", "", "measure only filters whose name contains this")
	o := options{}
	flag.IntVar(&o.runs, "runs", 3, "times each timed loop runs; the median is reported")
	flag.IntVar(&o.probeMax, "probe", 2_000_000, "most keys per timed lookup loop (and misses probed for the false-positive rate)")
	seed := flag.Uint64("seed", 1, "seed of the key generator")
	out := flag.String("out", "", "directory to write RESULTS.md and the SVG charts to (none: the report goes to stdout only)")
	anchor := flag.String("anchor", "", "path of the C++ anchor's run script: time this library against it in alternating rounds instead")
	rounds := flag.Int("rounds", 5, "rounds of the -anchor comparison")
	growth := flag.Bool("growth", false, "measure a growable filter at every doubling against a fixed filter and a stack of sub-filters instead")
	growFrom := flag.Int("growfrom", 1000, "the growable filter's Capacity, for -growth")
	growBy := flag.Int("doublings", 10, "doublings from Capacity to MaxCapacity, for -growth")
	growRate := flag.Float64("rate", 0.001, "target false-positive rate, for -growth")
	redraw := flag.String("charts", "", "draw the charts again from the speed and space table of this report (a RESULTS.md written by -out) into -out, or next to the report; nothing is measured")
	memGiB := flag.Float64("memlimit", gib(memLimit), "refuse filters whose estimated heap exceeds this many GiB")
	floor := flag.Bool("floor", false, "time Contains of a packed f = 12 filter against the floor, a straight-line loop doing its work over the same table, in alternating -rounds, at each of -sizes (default "+anchorSizes+"), instead")
	writers := flag.String("writers", "", "time a lone Filter, a Filter behind a sync.Mutex and a ConcurrentFilter at these numbers of goroutines (e.g. 1,2,4,8,16) on a fuzz harness's InsertUnique and on fills of -sizes, beside the machine's own limit, instead")
	flag.Parse()
	memLimit = int64(*memGiB * (1 << 30))

	sizesSet := false
	flag.Visit(func(f *flag.Flag) { sizesSet = sizesSet || f.Name == "sizes" })
	switch {
	case *quick:
		*sizesFlag = quickSizes
	case (*anchor != "" || *floor) && !sizesSet:
		*sizesFlag = anchorSizes
	}
	sizes, err := parseSizes(*sizesFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	if *redraw != "" {
		dir := *out
		if dir == "" {
			dir = filepath.Dir(*redraw)
		}
		if err := redrawCharts(*redraw, dir); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *writers != "" {
		var counts []int
		for _, f := range strings.Split(*writers, ",") {
			c, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || c < 1 {
				fmt.Fprintf(os.Stderr, "bench: bad writer count %q\n", f)
				os.Exit(2)
			}
			counts = append(counts, c)
		}
		if err := runWriters(os.Stdout, sizes, *rounds, counts); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *floor {
		if err := runFloor(os.Stdout, sizes, *rounds, o.probeMax); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *growth {
		if err := runGrowth(os.Stdout, *growFrom, *growBy, *growRate, o.probeMax); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *anchor != "" {
		if err := runAnchor(os.Stdout, *anchor, sizes, *rounds); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	command := strings.Join(append([]string{"cd bench && go run ."}, os.Args[1:]...), " ")

	p := &progress{start: time.Now()}
	var results []result
	for _, k := range strings.Split(*keys, ",") {
		switch strings.TrimSpace(k) {
		case "uint64":
			results = append(results, runKeys("uint64", newUint64Keys, sizes, *only, *seed, o, p)...)
		case "string":
			results = append(results, runKeys("string", newStringKeys, sizes, *only, *seed, o, p)...)
		default:
			fmt.Fprintf(os.Stderr, "bench: unknown key type %q\n", k)
			os.Exit(2)
		}
	}

	took := time.Since(p.start)
	info := thisRun(time.Now())
	var files []string
	if *out != "" {
		files, err = writeCharts(results, info, *out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench: charts:", err)
		}
	}
	var charts []string
	for _, f := range files {
		charts = append(charts, filepath.Base(f))
	}
	var md bytes.Buffer
	writeReport(&md, results, info, command, took, charts)
	os.Stdout.Write(md.Bytes())
	if *out == "" {
		return
	}
	report := filepath.Join(*out, "RESULTS.md")
	if old, rerr := os.ReadFile(report); rerr == nil {
		if tail := keptSections(old); len(tail) > 0 {
			md.WriteString("\n")
			md.Write(tail)
		}
	}
	if werr := os.WriteFile(report, md.Bytes(), 0o644); werr != nil {
		fmt.Fprintln(os.Stderr, "bench:", werr)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "wrote %s\n", strings.Join(append(files, report), ", "))
	if err != nil {
		os.Exit(1)
	}
}
