package main

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// series is one named line or point set, in the order first seen.
type series struct {
	names []string
	xys   map[string]plotter.XYs
}

func (s *series) add(name string, x, y float64) {
	if s.xys == nil {
		s.xys = map[string]plotter.XYs{}
	}
	if _, seen := s.xys[name]; !seen {
		s.names = append(s.names, name)
	}
	s.xys[name] = append(s.xys[name], plotter.XY{X: x, Y: y})
}

// args is the series as plotutil's alternating name, XYer arguments.
func (s *series) args() []any {
	var a []any
	for _, name := range s.names {
		a = append(a, name, s.xys[name])
	}
	return a
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p
}

func save(p *plot.Plot, dir, name string) (string, error) {
	path := filepath.Join(dir, name)
	return path, p.Save(9*vg.Inch, 6*vg.Inch, path)
}

// maxBitsShown is the top of the space chart's bits-per-key axis.
const maxBitsShown = 30

// writeCharts draws, for each key type, Contains hit time against filter
// size, and for the largest size of uint64 keys, bits per key against the
// measured false-positive rate with the bound log2(1/rate). It returns the
// files written.
func writeCharts(results []result, dir string) ([]string, error) {
	var files []string
	byKeys := map[string]*series{}
	var keyNames []string
	largest := 0
	for _, r := range results {
		if r.err != "" {
			continue
		}
		s := byKeys[r.keys]
		if s == nil {
			s = &series{}
			byKeys[r.keys] = s
			keyNames = append(keyNames, r.keys)
		}
		name := r.filter + " " + target(r)
		s.add(name, float64(r.n), r.hitNs)
		if !math.IsNaN(r.batchHitNs) {
			s.add(name+" batch", float64(r.n), r.batchHitNs)
		}
		if r.keys == "uint64" {
			largest = max(largest, r.n)
		}
	}
	for _, keys := range keyNames {
		p := newPlot(fmt.Sprintf("Contains, hits, %s keys", keys), "filter size (keys)", "ns per lookup")
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		if err := plotutil.AddLinePoints(p, byKeys[keys].args()...); err != nil {
			return files, err
		}
		path, err := save(p, dir, "lookup-"+keys+".svg")
		if err != nil {
			return files, err
		}
		files = append(files, path)
	}

	var space series
	var rates []float64
	for _, r := range results {
		if r.err != "" || r.keys != "uint64" || r.n != largest || r.fpr == 0 {
			continue
		}
		name := r.filter + " " + target(r)
		if r.bitsPerKey > maxBitsShown {
			// Drawn at the top edge, so the rest stays readable.
			name += fmt.Sprintf(" (off scale: %.0f bits/key)", r.bitsPerKey)
		}
		space.add(name, r.fpr, min(r.bitsPerKey, maxBitsShown))
		rates = append(rates, r.fpr)
	}
	if len(rates) == 0 {
		return files, nil
	}
	p := newPlot(fmt.Sprintf("Space vs measured false-positive rate, %s uint64 keys", count(largest)),
		"measured false-positive rate", "bits per key")
	lo, hi := slices.Min(rates)/2, slices.Max(rates)*2
	bound := plotter.XYs{{X: lo, Y: math.Log2(1 / lo)}, {X: hi, Y: math.Log2(1 / hi)}}
	line, err := plotter.NewLine(bound)
	if err != nil {
		return files, err
	}
	line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Y.Min, p.Y.Max = 0, maxBitsShown
	p.Add(line)
	p.Legend.Add("log2(1/rate) bound", line)
	if err := plotutil.AddScatters(p, space.args()...); err != nil {
		return files, err
	}
	path, err := save(p, dir, "space-vs-fpr.svg")
	if err != nil {
		return files, err
	}
	return append(files, path), nil
}
