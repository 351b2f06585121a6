package main

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The charts' text is set in Go Regular, which this program carries
// (golang.org/x/image/font/gofont): the layout is measured with it and the
// SVG embeds it, so a browser draws the text the layout was made for
// whatever fonts its machine has. A renderer that ignores embedded fonts
// falls back to fallbackFamilies: Arial and its metric twins are about as
// wide as Go Regular; a generic sans-serif such as DejaVu Sans is up to 15%
// wider, which the layout leaves room for.
const (
	chartFamily      = "Go"
	fallbackFamilies = "Arial,Helvetica,'Liberation Sans',sans-serif"
)

var chartFont = font.Font{Typeface: chartFamily, Variant: "Sans"}

// setupFonts makes Go Regular the font of every plot made after it.
var setupFonts = sync.OnceValue(func() error {
	face, err := opentype.Parse(goregular.TTF)
	if err != nil {
		return fmt.Errorf("parsing Go Regular: %v", err)
	}
	font.DefaultCache.Add([]font.Face{{Font: chartFont, Face: face}})
	plot.DefaultFont = chartFont
	plotter.DefaultFont = chartFont
	return nil
})

// Chart geometry. The legend gets a column to the right of the plot, as
// wide as its longest entry plus fallbackSlack, and never covers data.
const (
	chartWidth    = 10 * vg.Inch
	chartHeight   = 6 * vg.Inch
	chartMargin   = vg.Length(8)
	legendGap     = vg.Length(14) // between the plot area and the legend
	fallbackSlack = 1.18          // legend width per measured text width
	legendFont    = 10
	axisLabelPad  = vg.Length(5)
	lineWidth     = vg.Length(1.6)
	glyphRadius   = vg.Length(3.6)
	captionFont   = 9
	captionPad    = vg.Length(6)
)

var captionColor = color.NRGBA{R: 0x40, G: 0x40, B: 0x40, A: 255}

// Colours and markers. A filter library (each of this library's layouts
// counting as one) has a hue family of its own; its configurations (target
// rates) take shades of it, the darkest for the lowest rate. A marker's
// shape tells the target rate, the same for every library. Batch lookups
// are drawn in their configuration's colour, dashed, with hollow markers.

// hueFamily is the darkest and lightest shade of a library's hue.
type hueFamily struct{ dark, light color.NRGBA }

// families are the hues of the harness's libraries, by family name (see
// family); spareHues go to other names, in the order first met.
var (
	families = map[string]hueFamily{
		"cuckoo/Packed":     {rgb(0x0b4f9e), rgb(0x5aa7f0)}, // blue
		"cuckoo/SemiSorted": {rgb(0x6a2c91), rgb(0xb48ad6)}, // purple
		"seiflotfy":         {rgb(0xe07000), rgb(0xf5a54a)}, // orange
		"bits-and-blooms":   {rgb(0x17743a), rgb(0x63c27f)}, // green
		"xorfilter":         {rgb(0xb3001b), rgb(0xf25c6e)}, // red
		"BoomFilters":       {rgb(0x3d3d3d), rgb(0x9a9a9a)}, // grey
	}
	spareHues = []hueFamily{
		{rgb(0x7a4a14), rgb(0xc49a6c)}, // brown
		{rgb(0x00838f), rgb(0x5cc8d2)}, // cyan
		{rgb(0xa8a000), rgb(0xd8d26a)}, // olive
		{rgb(0xc2185b), rgb(0xf48fb1)}, // pink
	}
)

func rgb(v uint32) color.NRGBA {
	return color.NRGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 255}
}

// family is the hue family of a filter: each of this library's layouts its
// own, any other filter by its package, the name before the "/".
func family(filter string) string {
	if strings.HasPrefix(filter, "cuckoo/") {
		return filter
	}
	pkg, _, _ := strings.Cut(filter, "/")
	return pkg
}

// shade is the colour t of the way from f's dark shade to its light one.
func (f hueFamily) shade(t float64) color.NRGBA {
	mix := func(a, b uint8) uint8 { return uint8(math.Round(float64(a) + t*(float64(b)-float64(a)))) }
	return color.NRGBA{R: mix(f.dark.R, f.light.R), G: mix(f.dark.G, f.light.G), B: mix(f.dark.B, f.light.B), A: 255}
}

// marker is a point marker: a regular polygon with sides corners (a circle
// when 0), its first corner at angle rot (radians), filled with a
// translucent shade of its colour, so that points drawn on each other stay
// visible, or hollow.
type marker struct {
	sides  int
	rot    float64
	scale  float64 // of the radius, so that shapes look about as large
	hollow bool
}

// strokeMarker is a marker of crossing strokes: n of them, the first at
// angle rot.
type strokeMarker struct {
	n   int
	rot float64
}

const (
	markerStroke = vg.Length(1.3)
	crossStroke  = vg.Length(1.6)
)

// rateMarkers are the shapes of the target rates, lowest rate first.
var rateMarkers = []draw.GlyphDrawer{
	marker{sides: 4, rot: math.Pi / 4, scale: 1.25}, // square
	marker{sides: 0, scale: 1},                      // circle
	marker{sides: 4, rot: 0, scale: 1.3},            // diamond
	marker{sides: 3, rot: math.Pi / 2, scale: 1.4},  // triangle
	marker{sides: 3, rot: -math.Pi / 2, scale: 1.4}, // triangle down
	marker{sides: 5, rot: math.Pi / 2, scale: 1.15},
	marker{sides: 6, rot: 0, scale: 1.1},
	strokeMarker{n: 2, rot: 0},
	strokeMarker{n: 2, rot: math.Pi / 4},
	strokeMarker{n: 3, rot: math.Pi / 2},
}

func (m marker) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius * vg.Length(m.scale)
	var p vg.Path
	if m.sides == 0 {
		p.Move(vg.Point{X: pt.X + r, Y: pt.Y})
		p.Arc(pt, r, 0, 2*math.Pi)
	} else {
		for i := range m.sides {
			a := m.rot + 2*math.Pi*float64(i)/float64(m.sides)
			q := vg.Point{X: pt.X + r*vg.Length(math.Cos(a)), Y: pt.Y + r*vg.Length(math.Sin(a))}
			if i == 0 {
				p.Move(q)
			} else {
				p.Line(q)
			}
		}
	}
	p.Close()
	fill := color.NRGBAModel.Convert(sty.Color).(color.NRGBA)
	fill.A = 0x70
	if m.hollow {
		fill = color.NRGBA{R: 255, G: 255, B: 255, A: 255}
	}
	c.SetColor(fill)
	c.Fill(p)
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: markerStroke})
	c.Stroke(p)
}

func (m strokeMarker) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius * 1.25
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: crossStroke})
	for i := range m.n {
		a := m.rot + math.Pi*float64(i)/float64(m.n)
		dx, dy := r*vg.Length(math.Cos(a)), r*vg.Length(math.Sin(a))
		var p vg.Path
		p.Move(vg.Point{X: pt.X - dx, Y: pt.Y - dy})
		p.Line(vg.Point{X: pt.X + dx, Y: pt.Y + dy})
		c.Stroke(p)
	}
}

// glyphExtent is the radius of the disc that holds a marker drawn with
// sty, its stroke included.
func glyphExtent(sty draw.GlyphStyle) vg.Length {
	switch m := sty.Shape.(type) {
	case marker:
		return sty.Radius*vg.Length(m.scale) + markerStroke/2
	case strokeMarker:
		return sty.Radius*1.25 + crossStroke/2
	}
	return sty.Radius
}

// hollowed is m's outline: batch lookups are drawn hollow (filled white,
// so that a line under it does not cross it).
func hollowed(m draw.GlyphDrawer) draw.GlyphDrawer {
	if mm, ok := m.(marker); ok {
		mm.hollow = true
		return mm
	}
	return m
}

var batchDashes = []vg.Length{vg.Points(6), vg.Points(3)}

// style is the colour and marker of a filter configuration.
type style struct {
	color color.NRGBA
	shape draw.GlyphDrawer
}

// config is a filter configuration, as the charts tell them apart.
type config struct {
	filter string
	rate   float64
}

// styles gives every filter configuration ("filter target") its colour
// and marker, the same in every chart drawn with it: a shade of its
// library's hue, and the shape of its target rate.
type styles map[string]style

// newStyles makes the styles of the harness's configurations and of any
// other in results.
func newStyles(results []result) styles {
	var configs []config
	names := map[string]bool{}
	addConfig := func(r result) {
		if name := styleKey(r); !names[name] {
			names[name] = true
			configs = append(configs, config{r.filter, r.target})
		}
	}
	for _, s := range specs {
		for _, rate := range s.rates {
			addConfig(result{filter: s.name, target: rate, fixed: s.fixed})
		}
	}
	for _, r := range results {
		addConfig(r)
	}

	var rates []float64
	byFamily := map[string][]float64{}
	var order []string
	for _, c := range configs {
		if !slices.Contains(rates, c.rate) {
			rates = append(rates, c.rate)
		}
		f := family(c.filter)
		if _, ok := byFamily[f]; !ok {
			order = append(order, f)
		}
		if !slices.Contains(byFamily[f], c.rate) {
			byFamily[f] = append(byFamily[f], c.rate)
		}
	}
	slices.Sort(rates)
	hues := map[string]hueFamily{}
	spare := 0
	for _, f := range order {
		h, ok := families[f]
		if !ok {
			h = spareHues[spare%len(spareHues)]
			spare++
		}
		hues[f] = h
		slices.Sort(byFamily[f])
	}

	st := styles{}
	for _, c := range configs {
		f := family(c.filter)
		own := byFamily[f]
		t := 0.0
		if len(own) > 1 {
			t = float64(slices.Index(own, c.rate)) / float64(len(own)-1)
		}
		shape := rateMarkers[slices.Index(rates, c.rate)%len(rateMarkers)]
		st[styleKey(result{filter: c.filter, target: c.rate})] = style{color: hues[f].shade(t), shape: shape}
	}
	return st
}

// styleKey names a configuration for its style: filter and target rate.
func styleKey(r result) string { return r.filter + " " + percent(r.target) }

// configName names a configuration in a legend.
func configName(r result) string { return r.filter + " " + target(r) }

// line returns config's line and marker styles, of its batch lookups when
// batch is set.
func (st styles) line(config string, batch bool) (draw.LineStyle, draw.GlyphStyle) {
	s := st[config]
	ls := draw.LineStyle{Color: s.color, Width: lineWidth}
	gs := draw.GlyphStyle{Color: s.color, Radius: glyphRadius, Shape: s.shape}
	if batch {
		ls.Dashes = batchDashes
		gs.Shape = hollowed(gs.Shape)
	}
	return ls, gs
}

// series is a line or point set of one filter configuration.
type series struct {
	label  string // legend entry
	config string // styleKey, for its style
	batch  bool
	xys    plotter.XYs
}

// seriesSet keeps series in the order first seen.
type seriesSet struct {
	list []*series
}

func (s *seriesSet) add(label, config string, batch bool, x, y float64) {
	for _, e := range s.list {
		if e.label == label {
			e.xys = append(e.xys, plotter.XY{X: x, Y: y})
			return
		}
	}
	s.list = append(s.list, &series{label: label, config: config, batch: batch, xys: plotter.XYs{{X: x, Y: y}}})
}

// chart is a plot, the legend drawn beside it and a caption under both.
type chart struct {
	p       *plot.Plot
	marks   *markLayer // every marker of the plot, drawn last
	legend  plot.Legend
	labels  []string // the legend's entries, for its width
	caption string
	file    string // the SVG's name
	// The axis labels are drawn here, not by the plot, which places
	// them (and the room it leaves for them) by the middle of the data
	// range, not of the axis: on a log axis they go off centre and
	// squeeze the plot.
	xLabel, yLabel string
}

func (ch *chart) addLegend(label string, thumbs ...plot.Thumbnailer) {
	ch.legend.Add(label, thumbs...)
	ch.labels = append(ch.labels, label)
}

func newChart(title, x, y, caption string) *chart {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = 13
	p.Title.Padding = 6
	p.X.Tick.Label.Font.Size = legendFont
	p.Y.Tick.Label.Font.Size = legendFont
	p.Add(plotter.NewGrid())
	l := plot.NewLegend()
	l.Left, l.Top = true, true
	l.TextStyle.Font.Size = legendFont
	l.Padding = 3
	l.ThumbnailWidth = 26
	return &chart{p: p, marks: &markLayer{}, legend: l, xLabel: x, yLabel: y, caption: caption}
}

// addSeries draws each series with its style, as lines through markers
// when lines is set, else as markers.
func (ch *chart) addSeries(st styles, set *seriesSet, lines bool) error {
	for _, s := range set.list {
		ls, gs := st.line(s.config, s.batch)
		sc, err := plotter.NewScatter(s.xys)
		if err != nil {
			return err
		}
		sc.GlyphStyle = gs // for the legend only
		ch.marks.add(s.label, s.xys, gs)
		if !lines {
			ch.addLegend(s.label, sc)
			continue
		}
		l, err := plotter.NewLine(s.xys)
		if err != nil {
			return err
		}
		l.LineStyle = ls
		ch.p.Add(l)
		ch.addLegend(s.label, l, sc)
	}
	return nil
}

// save writes the chart as SVG with its font embedded.
func (ch *chart) save(dir, name string) (string, error) {
	c := vgsvg.NewWith(vgsvg.UseWH(chartWidth, chartHeight), vgsvg.EmbedFonts(true))
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	area := draw.Crop(dc, chartMargin, -chartMargin, chartMargin, -chartMargin)

	var text vg.Length
	for _, e := range ch.labels {
		text = max(text, ch.legend.TextStyle.Width(" "+e))
	}
	legendW := ch.legend.ThumbnailWidth + vg.Length(fallbackSlack)*text

	// The caption takes the bottom line, left-aligned.
	capStyle := ch.legend.TextStyle
	capStyle.Font.Size = captionFont
	capStyle.Color = captionColor
	capStyle.XAlign, capStyle.YAlign = draw.XLeft, draw.YBottom
	var capH vg.Length
	if ch.caption != "" {
		area.FillText(capStyle, vg.Point{X: area.Min.X, Y: area.Min.Y + capStyle.FontExtents().Descent}, ch.caption)
		capH = capStyle.Height(ch.caption) + captionPad
		area = draw.Crop(area, 0, 0, capH, 0)
	}

	ch.p.Add(ch.marks)
	label := ch.p.X.Label.TextStyle
	descent := label.FontExtents().Descent
	xh := label.Height(ch.xLabel) + axisLabelPad
	yw := label.Height(ch.yLabel) + axisLabelPad
	plotArea := draw.Crop(area, yw, -(legendW + legendGap), xh, 0)
	ch.p.Draw(plotArea)
	data := ch.p.DataCanvas(plotArea)
	area.FillText(label, vg.Point{X: data.Center().X, Y: area.Min.Y + descent}, ch.xLabel)
	label.Rotation = math.Pi / 2
	area.FillText(label, vg.Point{X: area.Min.X + yw - axisLabelPad - descent, Y: data.Center().Y}, ch.yLabel)

	// The legend's top lines up with the top of the data.
	top := data.Max.Y
	legendArea := draw.Crop(area, area.Size().X-legendW, 0, 0, top-area.Max.Y)
	ch.legend.Draw(legendArea)

	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return "", err
	}
	svg := bytes.ReplaceAll(buf.Bytes(), []byte("font-family:"+chartFamily+";"),
		[]byte("font-family:"+chartFamily+","+fallbackFamilies+";"))
	path := filepath.Join(dir, name)
	return path, os.WriteFile(path, svg, 0o644)
}

// logRange pads [lo, hi] by factor pad at both ends of a log axis, so that
// no marker sits on the axis.
func logRange(lo, hi, pad float64) (float64, float64) { return lo / pad, hi * pad }

// sizeTicks marks a log axis of key counts: the sizes measured and the
// powers of ten labelled as 100K, 1M, 32M; 2..9 times a power of ten as
// minor ticks. A power of ten too close to a measured size goes unlabelled.
func sizeTicks(sizes []int) plot.Ticker {
	return plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		var ticks []plot.Tick
		measured := func(v float64) bool {
			for _, n := range sizes {
				if float64(n) == v {
					return true
				}
			}
			return false
		}
		near := func(v float64) bool {
			for _, n := range sizes {
				if r := v / float64(n); r != 1 && r > 1/1.8 && r < 1.8 {
					return true
				}
			}
			return false
		}
		for p := math.Pow10(int(math.Floor(math.Log10(lo)))); p <= hi; p *= 10 {
			for m := 1; m < 10; m++ {
				v := p * float64(m)
				if v < lo || v > hi || measured(v) {
					continue
				}
				t := plot.Tick{Value: v}
				if m == 1 && !near(v) {
					t.Label = count(int(math.Round(v)))
				}
				ticks = append(ticks, t)
			}
		}
		for _, n := range sizes {
			ticks = append(ticks, plot.Tick{Value: float64(n), Label: count(n)})
		}
		return ticks
	})
}

// logTicks marks a log axis: 1, 2 and 5 times powers of ten labelled
// (only the powers when the axis spans more than three of them), the other
// multiples minor; label formats a labelled value.
func logTicks(label func(float64) string) plot.Ticker {
	return plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		dense := math.Log10(hi/lo) <= 3
		var ticks []plot.Tick
		for p := math.Pow10(int(math.Floor(math.Log10(lo)))); p <= hi; p *= 10 {
			for m := 1; m < 10; m++ {
				v := p * float64(m)
				if v < lo || v > hi {
					continue
				}
				t := plot.Tick{Value: v}
				if m == 1 || dense && (m == 2 || m == 5) {
					t.Label = label(v)
				}
				ticks = append(ticks, t)
			}
		}
		return ticks
	})
}

// linearTicks labels every step from 0 and marks every minor step.
func linearTicks(step, minor float64) plot.Ticker {
	return plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		var ticks []plot.Tick
		for i := math.Ceil(lo / minor); i*minor <= hi; i++ {
			v := i * minor
			t := plot.Tick{Value: v}
			if math.Mod(v, step) == 0 {
				t.Label = strconv.FormatFloat(v, 'f', -1, 64)
			}
			ticks = append(ticks, t)
		}
		return ticks
	})
}

func nsLabel(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// percentLabel labels a rate as a percentage: 1e-05 as 0.001%.
func percentLabel(v float64) string {
	return strconv.FormatFloat(100*v, 'g', 3, 64) + "%"
}

// maxBitsShown is the top of the space chart's bits-per-key axis.
const maxBitsShown = 30

// writeCharts writes the charts of results into dir, captioned with the
// run's machine and date, and returns the files written.
func writeCharts(results []result, info runInfo, dir string) ([]string, error) {
	charts, err := drawCharts(results, info)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, ch := range charts {
		path, err := ch.save(dir, ch.file)
		if err != nil {
			return files, err
		}
		files = append(files, path)
	}
	return files, nil
}

// drawCharts makes, for each key type, a chart of Contains hit time against
// filter size, and for the largest size of uint64 keys, one of bits per key
// against the measured false-positive rate with the bound log2(1/rate).
func drawCharts(results []result, info runInfo) ([]*chart, error) {
	if err := setupFonts(); err != nil {
		return nil, err
	}
	st := newStyles(results)
	var charts []*chart
	byKeys := map[string]*seriesSet{}
	sizes := map[string][]int{}
	var keyNames []string
	largest := 0
	for _, r := range results {
		if r.err != "" {
			continue
		}
		s := byKeys[r.keys]
		if s == nil {
			s = &seriesSet{}
			byKeys[r.keys] = s
			keyNames = append(keyNames, r.keys)
		}
		if !slices.Contains(sizes[r.keys], r.n) {
			sizes[r.keys] = append(sizes[r.keys], r.n)
		}
		name, key := configName(r), styleKey(r)
		s.add(name, key, false, float64(r.n), r.hitNs)
		if !math.IsNaN(r.batchHitNs) {
			s.add(name+" batch", key, true, float64(r.n), r.batchHitNs)
		}
		if r.keys == "uint64" {
			largest = max(largest, r.n)
		}
	}
	for _, keys := range keyNames {
		ch := newChart(fmt.Sprintf("Contains on keys present (hits), %s keys", keys),
			"filter size (keys)", "ns per lookup (batch: ContainsBatch, per key)", info.caption())
		ch.file = "lookup-" + keys + ".svg"
		if err := ch.addSeries(st, byKeys[keys], true); err != nil {
			return nil, err
		}
		var xs, ys []float64
		for _, s := range byKeys[keys].list {
			for _, xy := range s.xys {
				xs, ys = append(xs, xy.X), append(ys, xy.Y)
			}
		}
		ch.p.X.Scale, ch.p.Y.Scale = plot.LogScale{}, plot.LogScale{}
		ch.p.X.Min, ch.p.X.Max = logRange(slices.Min(xs), slices.Max(xs), 1.5)
		ch.p.Y.Min, ch.p.Y.Max = logRange(slices.Min(ys), slices.Max(ys), 1.25)
		ch.p.X.Tick.Marker = sizeTicks(sizes[keys])
		ch.p.Y.Tick.Marker = logTicks(nsLabel)
		charts = append(charts, ch)
	}

	var space seriesSet
	var rates []float64
	for _, r := range results {
		if r.err != "" || r.keys != "uint64" || r.n != largest || r.fpr == 0 {
			continue
		}
		label := configName(r)
		if r.bitsPerKey > maxBitsShown {
			// Drawn at the top edge, so the rest stays readable.
			label += fmt.Sprintf(" (off scale: %.0f bits/key)", r.bitsPerKey)
		}
		space.add(label, styleKey(r), false, r.fpr, min(r.bitsPerKey, maxBitsShown))
		rates = append(rates, r.fpr)
	}
	if len(rates) == 0 {
		return charts, nil
	}
	ch := newChart(fmt.Sprintf("Space against measured false-positive rate, %s uint64 keys", count(largest)),
		"measured false-positive rate", "bits per key", info.caption())
	ch.file = "space-vs-fpr.svg"
	lo, hi := logRange(slices.Min(rates), slices.Max(rates), 2)
	bound := plotter.XYs{{X: lo, Y: math.Log2(1 / lo)}, {X: hi, Y: math.Log2(1 / hi)}}
	line, err := plotter.NewLine(bound)
	if err != nil {
		return nil, err
	}
	line.Color = color.Black
	line.Width = vg.Length(1)
	line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	ch.p.Add(line)
	ch.addLegend("log2(1/rate) bound", line)
	if err := ch.addSeries(st, &space, false); err != nil {
		return nil, err
	}
	ch.p.X.Scale = plot.LogScale{}
	ch.p.X.Min, ch.p.X.Max = lo, hi
	top := 0.0
	for _, s := range space.list {
		for _, xy := range s.xys {
			top = max(top, xy.Y)
		}
	}
	ch.p.Y.Min, ch.p.Y.Max = 0, min(maxBitsShown, 5*math.Ceil(1.1*top/5))
	ch.p.X.Tick.Marker = logTicks(percentLabel)
	ch.p.Y.Tick.Marker = linearTicks(5, 1)
	return append(charts, ch), nil
}
