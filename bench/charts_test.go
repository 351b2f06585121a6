package main

import (
	"bytes"
	"image/color"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/vg"
)

// chartResults are results of every kind the report and charts show: a
// filter with batch lookups, a fixed static one, one over the bits-per-key
// scale, one that could not be measured.
func chartResults() []result {
	var rs []result
	for _, keys := range []string{"uint64", "string"} {
		for _, n := range []int{1_000_000, 32_000_000} {
			scale := float64(n) / 1e6
			rs = append(rs,
				result{filter: "cuckoo/Packed", keys: keys, n: n, target: 0.001, bitsPerKey: 13.7,
					falsePos: 908, missesProbed: 1_000_000, insertNs: 87, hitNs: 31.6 + scale, missNs: 40.8,
					batchHitNs: 11.7 + scale, batchMissNs: 11.4},
				result{filter: "xorfilter/BinaryFuse16", keys: keys, n: n, target: 1.0 / 65536, fixed: true, static: true,
					bitsPerKey: 18.09, falsePos: 13, missesProbed: 2_000_000, insertNs: 95.7, hitNs: 22.3 + scale, missNs: 21.7,
					batchHitNs: nan, batchMissNs: nan},
				result{filter: "BoomFilters/CuckooFilter", keys: keys, n: n, target: 0.03, bitsPerKey: 8181.06,
					falsePos: 919, missesProbed: 1_000_000, insertNs: 1306.4, hitNs: 1063.1, missNs: 1189.9,
					batchHitNs: nan, batchMissNs: nan, insertAllocs: 2, lookupAllocs: 2},
				result{filter: "bits-and-blooms/bloom", keys: keys, n: n, target: 0.03, err: "needs about 30.2 GiB (limit 12.0 GiB, -memlimit)"},
			)
		}
	}
	for i := range rs {
		r := &rs[i]
		r.fpr = float64(r.falsePos) / float64(r.missesProbed)
		r.failsCap, r.lostCap, r.failsOver, r.lostOver, r.missingOver = -1, -1, -1, -1, -1
	}
	return rs
}

// TestReadReport reads back what writeReport wrote.
func TestReadReport(t *testing.T) {
	want := chartResults()
	var md bytes.Buffer
	info := runInfo{cpu: "Test CPU @ 1.00GHz (2 logical CPUs, GOMAXPROCS 2)", goes: "go1.0 test/arch", date: "2026-01-02 03:04 UTC"}
	writeReport(&md, want, info, "test", time.Second, nil)
	text := md.String()
	md.WriteString("\n## Notes\n\n| keys | n | not | the table |\n| --- | --- | --- | --- |\n| a | b | c | d |\n")
	gotInfo, got, err := readReport(&md)
	if err != nil {
		t.Fatal(err)
	}
	if gotInfo != info {
		t.Errorf("read run %+v, want %+v", gotInfo, info)
	}
	for _, s := range []string{"| 8181.06 (1) |", "\n(1) BoomFilters/CuckooFilter's bits/key is what it allocates",
		"1M keys: 2^23 buckets, 8.4 a key, 8181.06"} {
		if !strings.Contains(text, s) {
			t.Errorf("report has no %q", s)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("read %d rows, want %d", len(got), len(want))
	}
	same := func(a, b float64) bool {
		return a == b || math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) <= 5e-3*math.Abs(b)
	}
	for i, g := range got {
		w := want[i]
		if g.filter != w.filter || g.keys != w.keys || g.n != w.n || g.fixed != w.fixed || g.err != w.err ||
			target(g) != target(w) || !same(g.target, w.target) {
			t.Errorf("row %d: read %+v, want %+v", i, g, w)
			continue
		}
		if w.err != "" {
			continue
		}
		if g.static != w.static || g.falsePos != w.falsePos || g.missesProbed != w.missesProbed || g.fpr != w.fpr ||
			!same(g.bitsPerKey, w.bitsPerKey) || !same(g.insertNs, w.insertNs) ||
			!same(g.hitNs, w.hitNs) || !same(g.missNs, w.missNs) ||
			!same(g.batchHitNs, w.batchHitNs) || !same(g.batchMissNs, w.batchMissNs) ||
			g.insertAllocs != w.insertAllocs || g.lookupAllocs != w.lookupAllocs {
			t.Errorf("row %d: read %+v, want %+v", i, g, w)
		}
	}
}

var (
	textRE   = regexp.MustCompile(`>([^<>]*)</text>`)
	exponent = regexp.MustCompile(`[0-9]e[+-]?[0-9]`)
)

// TestCharts draws the charts and checks what makes them readable
// anywhere: the font embedded with fallbacks, sizes and rates labelled.
func TestCharts(t *testing.T) {
	dir := t.TempDir()
	files, err := writeCharts(chartResults(), testRun, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"lookup-uint64.svg": {">1M<", ">10M<", ">32M<", ">cuckoo/Packed 0.1% batch<"},
		"lookup-string.svg": {">1M<", ">32M<"},
		"space-vs-fpr.svg":  {">0.1%<", ">0.01%<", "(off scale: 8181 bits/key)", ">log2(1/rate) bound<"},
	}
	if len(files) != len(want) {
		t.Fatalf("wrote %v, want %d charts", files, len(want))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		svg := string(b)
		for _, s := range append(want[filepath.Base(f)], "@font-face", "font-family:"+chartFamily+","+fallbackFamilies+";",
			">"+testRun.caption()+"<") {
			if !strings.Contains(svg, s) {
				t.Errorf("%s: no %q", filepath.Base(f), s)
			}
		}
		for _, m := range textRE.FindAllStringSubmatch(svg, -1) {
			if exponent.MatchString(m[1]) {
				t.Errorf("%s: %q is in exponent notation", filepath.Base(f), m[1])
			}
		}
	}
}

var testRun = runInfo{cpu: "Test CPU @ 1.00GHz (2 logical CPUs, GOMAXPROCS 2)", goes: "go1.0 test/arch", date: "2026-01-02 03:04 UTC"}

// crowdedResults are results made to collide: many configurations with
// the same times and space, at four sizes, and points on the axes' ends.
func crowdedResults() []result {
	var rs []result
	for _, keys := range []string{"uint64", "string"} {
		for _, n := range []int{100_000, 1_000_000, 8_000_000, 32_000_000} {
			for _, s := range specs {
				for _, rate := range s.rates {
					rs = append(rs, result{filter: s.name, keys: keys, n: n, target: rate, fixed: s.fixed, static: s.static,
						bitsPerKey: 8.4, falsePos: 2950, missesProbed: 100_000, fpr: 0.0295,
						insertNs: 50, hitNs: 20, missNs: 20, batchHitNs: 20, batchMissNs: 20})
				}
			}
		}
	}
	// One far above the rest, on the top edge of the space chart.
	rs = append(rs, result{filter: "elsewhere/Filter", keys: "uint64", n: 32_000_000, target: 0.01,
		bitsPerKey: 500, falsePos: 1, missesProbed: 100_000, fpr: 1e-5, hitNs: 1000, batchHitNs: nan})
	return rs
}

// TestChartMarkersApart draws the charts of several result sets, the
// committed report's among them, and fails if any two markers of a chart
// overlap, or one is not drawn inside the plot.
func TestChartMarkersApart(t *testing.T) {
	sets := map[string][]result{"chartResults": chartResults(), "crowded": crowdedResults()}
	if f, err := os.Open("RESULTS.md"); err == nil {
		_, rs, err := readReport(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		sets["RESULTS.md"] = rs
	}
	for name, rs := range sets {
		charts, err := drawCharts(rs, testRun)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		for _, ch := range charts {
			if _, err := ch.save(dir, ch.file); err != nil {
				t.Fatal(err)
			}
			where := name + ", " + ch.file
			ps := ch.marks.placed
			if len(ps) != len(ch.marks.marks) || len(ps) == 0 {
				t.Errorf("%s: %d markers placed of %d", where, len(ps), len(ch.marks.marks))
				continue
			}
			for i := range ps {
				for j := i + 1; j < len(ps); j++ {
					if d := distance(ps[i].at, ps[j].at); d < float64(ps[i].r+ps[j].r) {
						t.Errorf("%s: markers of %s (%v) and %s (%v) overlap: %.2f apart, radii %.2f and %.2f",
							where, ch.marks.marks[i].label, ch.marks.marks[i].xy, ch.marks.marks[j].label, ch.marks.marks[j].xy,
							d, ps[i].r, ps[j].r)
					}
				}
			}
		}
	}
}

// TestSpread places random markers, many on the same points, and checks
// the rule: none overlap, all are inside, a marker moves only when it must,
// and along its horizontal line when it can.
func TestSpread(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	bounds := vg.Rectangle{Min: vg.Point{X: 10, Y: 20}, Max: vg.Point{X: 410, Y: 320}}
	for trial := range 200 {
		n := 1 + rng.IntN(60)
		data := make([]vg.Point, n)
		r := make([]vg.Length, n)
		for i := range data {
			if i > 0 && rng.IntN(3) == 0 {
				data[i] = data[rng.IntN(i)] // the same point again
			} else {
				data[i] = vg.Point{X: bounds.Min.X + vg.Length(rng.Float64())*400, Y: bounds.Min.Y + vg.Length(rng.Float64())*300}
			}
			r[i] = vg.Length(3 + 3*rng.Float64())
		}
		at := spread(data, r, bounds, markGap)
		for i := range at {
			if at[i].X < bounds.Min.X || at[i].X > bounds.Max.X || at[i].Y < bounds.Min.Y || at[i].Y > bounds.Max.Y {
				t.Errorf("trial %d: marker %d at %v sticks out of %v", trial, i, at[i], bounds)
			}
			for j := i + 1; j < len(at); j++ {
				if distance(at[i], at[j]) < float64(r[i]+r[j]+markGap) {
					t.Errorf("trial %d: markers %d and %d overlap at %v, %v", trial, i, j, at[i], at[j])
				}
			}
			if at[i] == data[i] {
				continue
			}
			// It moved: a marker must be in the way at its data point.
			blocked := false
			for j := range at {
				if j != i && distance(data[i], at[j]) < float64(r[i]+r[j]+markGap) {
					blocked = true
				}
			}
			if !blocked {
				t.Errorf("trial %d: marker %d moved from %v to %v with nothing in its way", trial, i, data[i], at[i])
			}
			if at[i].Y != data[i].Y {
				t.Errorf("trial %d: marker %d moved off its line, from %v to %v", trial, i, data[i], at[i])
			}
		}
	}
}

// TestStyles checks that the colours tell the filters apart: one hue a
// library, every configuration a colour of its own, and no two alike.
func TestStyles(t *testing.T) {
	st := newStyles(nil)
	hue := func(c color.NRGBA) float64 {
		r, g, b := float64(c.R)/255, float64(c.G)/255, float64(c.B)/255
		hi, lo := max(r, g, b), min(r, g, b)
		if hi-lo < 0.1 {
			return -1 // grey
		}
		var h float64
		switch hi {
		case r:
			h = math.Mod((g-b)/(hi-lo), 6)
		case g:
			h = (b-r)/(hi-lo) + 2
		default:
			h = (r-g)/(hi-lo) + 4
		}
		return math.Mod(60*h+360, 360)
	}
	hueDist := func(a, b float64) float64 {
		if a < 0 || b < 0 {
			if a < 0 && b < 0 {
				return 0
			}
			return 360
		}
		d := math.Abs(a - b)
		return min(d, 360-d)
	}
	var keys []string
	for k := range st {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, a := range keys {
		for _, b := range keys[i+1:] {
			ca, cb := st[a].color, st[b].color
			fa, fb := family(strings.Fields(a)[0]), family(strings.Fields(b)[0])
			dh := hueDist(hue(ca), hue(cb))
			dc := math.Sqrt(math.Pow(float64(ca.R)-float64(cb.R), 2) + math.Pow(float64(ca.G)-float64(cb.G), 2) + math.Pow(float64(ca.B)-float64(cb.B), 2))
			switch {
			case fa == fb && dh > 20:
				t.Errorf("%s and %s: one library, hues %.0f apart", a, b, dh)
			case fa != fb && dh < 25:
				t.Errorf("%s and %s: two libraries, hues only %.0f apart", a, b, dh)
			case fa == fb && st[a].shape == st[b].shape:
				t.Errorf("%s and %s: one library, one marker", a, b)
			}
			if dc < 60 {
				t.Errorf("%s and %s: colours %v and %v too alike", a, b, ca, cb)
			}
		}
	}
}

// TestKeptSections checks what rewriting a report keeps: the sections after
// the generated tables, nothing of a report without them.
func TestKeptSections(t *testing.T) {
	old := "# Filter comparison\n\n- CPU: x\n\n## Speed and space\n\n| a |\n\n## Keys lost\n\n| b |\n\n## History\n\nold runs\n\n### Round 1\n\n## More\n"
	if got, want := string(keptSections([]byte(old))), "## History\n\nold runs\n\n### Round 1\n\n## More\n"; got != want {
		t.Errorf("kept %q, want %q", got, want)
	}
	if got := keptSections([]byte("# Filter comparison\n\n## Speed and space\n\n## Keys lost\n\n| b |\n")); len(got) != 0 {
		t.Errorf("kept %q of a report alone", got)
	}
}
