package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/cpuid/v2"
	"github.com/seed-a0724874/cuckoo"
)

var nan = math.NaN()

// cpuModel names the CPU: the model name line of /proc/cpuinfo, else what
// CPUID says.
func cpuModel() string {
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(b)) {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return cpuid.CPU.BrandName
}

// goTarget names the Go build: its version and, where the architecture has
// levels (GOAMD64, GOARM64), the level the binary was built for, which is
// what the compiler may assume of the CPU (as g++ -march does).
func goTarget() string {
	s := runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, kv := range info.Settings {
			if kv.Key == "GO"+strings.ToUpper(runtime.GOARCH) {
				s += " " + kv.Key + "=" + kv.Value
			}
		}
	}
	return s
}

// count formats a key count: 1000000 as 1M, 100000 as 100K.
func count(n int) string {
	switch {
	case n >= 1e6 && n%1e6 == 0:
		return strconv.Itoa(n/1e6) + "M"
	case n >= 1e3 && n%1e3 == 0:
		return strconv.Itoa(n/1e3) + "K"
	}
	return strconv.Itoa(n)
}

// percent formats a rate with 3 significant digits.
func percent(r float64) string {
	return strconv.FormatFloat(100*r, 'g', 3, 64) + "%"
}

func target(r result) string {
	if r.fixed {
		return "fixed " + percent(r.target)
	}
	return percent(r.target)
}

// ns formats a time per key; "" for not applicable.
func ns(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'f', 1, 64)
}

// tally formats a count; "" for not applicable.
func tally(n int) string {
	if n < 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// row writes one markdown table row.
func row(w io.Writer, cells ...string) {
	fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
}

// header writes a markdown table header.
func header(w io.Writer, cells ...string) {
	row(w, cells...)
	seps := make([]string, len(cells))
	for i := range seps {
		seps[i] = "---"
	}
	row(w, seps...)
}

// runInfo is what the report says of the run that the charts repeat in
// their captions: the machine, the Go build and the date.
type runInfo struct {
	cpu  string // as the report's CPU line gives it
	goes string // Go version and target
	date string // when the run ended, as "2006-01-02 15:04 UTC"
}

const dateLayout = "2006-01-02 15:04 UTC"

// thisRun is the runInfo of a run on this machine ending at end.
func thisRun(end time.Time) runInfo {
	return runInfo{
		cpu:  fmt.Sprintf("%s (%d logical CPUs, GOMAXPROCS %d)", cpuModel(), runtime.NumCPU(), runtime.GOMAXPROCS(0)),
		goes: goTarget(),
		date: end.UTC().Format(dateLayout),
	}
}

// caption is the line under a chart: machine, Go and date of the run.
func (ri runInfo) caption() string {
	var parts []string
	for _, p := range []string{ri.cpu, ri.goes, ri.date} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Measured on " + strings.Join(parts, "; ")
}

// Report lines that hold the runInfo.
const (
	cpuLine  = "- CPU: "
	goLine   = "- Go: "
	dateLine = "- Date: "
)

// writeReport writes the results as markdown: the environment, then the
// speed and space table, then the lost keys table.
// charts are the chart files to link, relative to the report.
func writeReport(w io.Writer, results []result, info runInfo, command string, took time.Duration, charts []string) {
	fmt.Fprintf(w, "# Filter comparison\n\n")
	fmt.Fprintf(w, "%s%s\n", cpuLine, info.cpu)
	fmt.Fprintf(w, "%s%s\n", goLine, info.goes)
	fmt.Fprintf(w, "- cuckoo probe code: %s\n", cuckoo.ProbeImplementation())
	fmt.Fprintf(w, "- Command: `%s`\n", command)
	fmt.Fprintf(w, "%s%s; the run took %s\n\n", dateLine, info.date, took.Round(time.Second))
	fmt.Fprintf(w, "Times are ns per key, the median of the timed runs. See [README.md](README.md) for the columns.\n\n")
	for _, c := range charts {
		fmt.Fprintf(w, "![%s](%s)\n", strings.TrimSuffix(c, ".svg"), c)
	}
	if len(charts) > 0 {
		fmt.Fprintln(w)
	}

	// Filters with a note get it numbered, and their bits/key its number.
	var notes []string
	noteOf := map[string]int{}
	for _, s := range specs {
		if s.note == nil {
			continue
		}
		var rows []result
		for _, r := range results {
			if r.filter == s.name && r.err == "" {
				rows = append(rows, r)
			}
		}
		if len(rows) > 0 {
			notes = append(notes, s.note(rows))
			noteOf[s.name] = len(notes)
		}
	}

	fmt.Fprintf(w, "## Speed and space\n\n")
	header(w, "keys", "n", "filter", "target FPR", "bits/key", "measured FPR", "insert", "hit", "miss", "batch hit", "batch miss", "allocs/op ins, get")
	for _, r := range results {
		if r.err != "" {
			row(w, r.keys, count(r.n), r.filter, target(r), "n/a: "+r.err, "", "", "", "", "", "", "")
			continue
		}
		insert := ns(r.insertNs)
		if r.static {
			insert += " (build)"
		}
		bits := strconv.FormatFloat(r.bitsPerKey, 'f', 2, 64)
		if i := noteOf[r.filter]; i > 0 {
			bits += fmt.Sprintf(" (%d)", i)
		}
		row(w, r.keys, count(r.n), r.filter, target(r), bits,
			fmt.Sprintf("%s (%d/%d)", percent(r.fpr), r.falsePos, r.missesProbed),
			insert, ns(r.hitNs), ns(r.missNs), ns(r.batchHitNs), ns(r.batchMissNs),
			fmt.Sprintf("%.2f, %.2f", r.insertAllocs, r.lookupAllocs))
	}
	for i, n := range notes {
		fmt.Fprintf(w, "\n(%d) %s\n", i+1, n)
	}

	fmt.Fprintf(w, "\n## Keys lost\n\n")
	header(w, "keys", "n", "filter", "target FPR", "failed inserts at n", "lost at n", "failed inserts at n+5%", "lost at n+5%", "not found at n+5%")
	for _, r := range results {
		if r.err != "" {
			row(w, r.keys, count(r.n), r.filter, target(r), "n/a: "+r.err, "", "", "", "")
			continue
		}
		row(w, r.keys, count(r.n), r.filter, target(r),
			tally(r.failsCap), tally(r.lostCap), tally(r.failsOver), tally(r.lostOver), tally(r.missingOver))
	}
}

// readReport reads back the run's machine, Go and date, and the speed and
// space table of a report writeReport wrote: every column of it, so that
// charts can be drawn again without measuring. The keys lost table is not
// read; its counts are -1.
func readReport(r io.Reader) (runInfo, []result, error) {
	var info runInfo
	b, err := io.ReadAll(r)
	if err != nil {
		return info, nil, err
	}
	var results []result
	in, head := false, true
	for i, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			in, head = line == "## Speed and space", false
			continue
		case head:
			if v, ok := strings.CutPrefix(line, cpuLine); ok {
				info.cpu = v
			} else if v, ok := strings.CutPrefix(line, goLine); ok {
				info.goes = v
			} else if v, ok := strings.CutPrefix(line, dateLine); ok {
				info.date, _, _ = strings.Cut(v, ";")
			}
			continue
		case !in || !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "| keys ") || strings.HasPrefix(line, "| ---"):
			continue
		}
		res, err := parseRow(line)
		if err != nil {
			return info, nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		results = append(results, res)
	}
	if len(results) == 0 {
		return info, nil, fmt.Errorf("no speed and space table")
	}
	return info, results, nil
}

// parseRow parses one row of the speed and space table.
func parseRow(line string) (result, error) {
	cells := strings.Split(strings.TrimSpace(line), "|")
	if len(cells) != 14 {
		return result{}, fmt.Errorf("%d columns, want 12", len(cells)-2)
	}
	cells = cells[1:13]
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	r := result{keys: cells[0], filter: cells[2],
		failsCap: -1, lostCap: -1, failsOver: -1, lostOver: -1, missingOver: -1}
	sizes, err := parseSizes(cells[1])
	if err != nil {
		return r, err
	}
	r.n = sizes[0]
	rate, fixed := strings.CutPrefix(cells[3], "fixed ")
	r.fixed = fixed
	if r.target, err = parsePercent(rate); err != nil {
		return r, err
	}
	if e, ok := strings.CutPrefix(cells[4], "n/a: "); ok {
		r.err = e
		return r, nil
	}
	var errs []error
	num := func(s string) float64 {
		if s == "" {
			return nan
		}
		x, err := strconv.ParseFloat(s, 64)
		errs = append(errs, err)
		return x
	}
	bits, _, _ := strings.Cut(cells[4], " ") // after it, a note's number
	r.bitsPerKey = num(bits)
	if _, err := fmt.Sscanf(cells[5], "%s (%d/%d)", new(string), &r.falsePos, &r.missesProbed); err != nil {
		return r, fmt.Errorf("measured FPR %q: %v", cells[5], err)
	}
	r.fpr = float64(r.falsePos) / float64(r.missesProbed)
	insert, static := strings.CutSuffix(cells[6], " (build)")
	r.static = static
	r.insertNs = num(insert)
	r.hitNs, r.missNs = num(cells[7]), num(cells[8])
	r.batchHitNs, r.batchMissNs = num(cells[9]), num(cells[10])
	ins, get, _ := strings.Cut(cells[11], ", ")
	r.insertAllocs, r.lookupAllocs = num(ins), num(get)
	for _, err := range errs {
		if err != nil {
			return r, err
		}
	}
	return r, nil
}

// parsePercent parses a rate percent wrote.
func parsePercent(s string) (float64, error) {
	p, ok := strings.CutSuffix(s, "%")
	if !ok {
		return 0, fmt.Errorf("rate %q: no %%", s)
	}
	x, err := strconv.ParseFloat(p, 64)
	return x / 100, err
}
