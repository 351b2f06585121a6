package main

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Markers never hide one another. Every marker of a chart is drawn by one
// markLayer, which places them all at once, on the canvas, one after
// another from the bottom of the plot up (left to right on one height):
//
//  1. A marker goes to its data point if every marker placed before it is
//     at least the sum of their radii and markGap away.
//  2. Else it goes to the nearest point, in steps of dodgeStep, on the
//     same horizontal line that is that far from every marker placed before
//     it, in the plot's data area: a horizontal dodge, so that its value on
//     the y axis still reads true (on a lookup chart, the x axis only
//     tells the sizes apart; on the space chart, the x axis is the rate).
//  3. If the whole line is taken, it goes to the nearest such point on a
//     spiral around its data point.
//
// Each marker is tested against all those placed before it, so no two
// overlap. A marker away from its data point is joined to it by a thin
// leader line in its colour, and its data point, where the chart's lines
// go, is marked with a dot.

// markGap is the least space between two markers.
const (
	markGap     = vg.Length(1.5)
	leaderWidth = vg.Length(0.7)
	dotRadius   = vg.Length(1.3)
)

// mark is one marker: a data point and how it is drawn.
type mark struct {
	xy    plotter.XY
	style draw.GlyphStyle
	label string // its series, for messages
}

// placement is where a mark went on the canvas: its data point, the centre
// of its marker, and the radius of the disc the marker fills.
type placement struct {
	data, at vg.Point
	r        vg.Length
}

// markLayer is a plot.Plotter drawing every marker of a chart.
type markLayer struct {
	marks  []mark
	placed []placement // set when drawn
}

func (l *markLayer) add(label string, xys plotter.XYs, sty draw.GlyphStyle) {
	for _, xy := range xys {
		l.marks = append(l.marks, mark{xy, sty, label})
	}
}

// Plot implements plot.Plotter.
func (l *markLayer) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	data := make([]vg.Point, len(l.marks))
	radii := make([]vg.Length, len(l.marks))
	for i, m := range l.marks {
		data[i] = vg.Point{X: trX(m.xy.X), Y: trY(m.xy.Y)}
		radii[i] = glyphExtent(m.style)
	}
	at := spread(data, radii, c.Rectangle, markGap)
	l.placed = make([]placement, len(l.marks))
	for i, m := range l.marks {
		l.placed[i] = placement{data[i], at[i], radii[i]}
		d := at[i].Sub(data[i])
		dist := vg.Length(math.Hypot(float64(d.X), float64(d.Y)))
		if dist < 0.5 {
			continue
		}
		end := data[i].Add(d.Scale((dist - radii[i]) / dist))
		c.StrokeLine2(draw.LineStyle{Color: m.style.Color, Width: leaderWidth}, data[i].X, data[i].Y, end.X, end.Y)
		var dot vg.Path
		dot.Move(vg.Point{X: data[i].X + dotRadius, Y: data[i].Y})
		dot.Arc(data[i], dotRadius, 0, 2*math.Pi)
		dot.Close()
		c.SetColor(m.style.Color)
		c.Fill(dot)
	}
	for i, m := range l.marks {
		c.DrawGlyphNoClip(m.style, at[i])
	}
}

// GlyphBoxes implements plot.GlyphBoxer: the plot leaves room for every
// marker at its data point.
func (l *markLayer) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	boxes := make([]plot.GlyphBox, len(l.marks))
	for i, m := range l.marks {
		r := glyphExtent(m.style)
		boxes[i] = plot.GlyphBox{
			X: p.X.Norm(m.xy.X), Y: p.Y.Norm(m.xy.Y),
			Rectangle: vg.Rectangle{Min: vg.Point{X: -r, Y: -r}, Max: vg.Point{X: r, Y: r}},
		}
	}
	return boxes
}

// dodgeStep is the step of the search for a clear point.
const dodgeStep = vg.Length(0.5)

// spread returns where to draw markers of radii r whose data points are at
// data, centred inside bounds, so that no two are closer than gap: the rule
// above. (The plot leaves room around its data area for a marker's radius,
// which GlyphBoxes asks for.)
func spread(data []vg.Point, r []vg.Length, bounds vg.Rectangle, gap vg.Length) []vg.Point {
	order := make([]int, len(data))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if c := cmp.Compare(data[a].Y, data[b].Y); c != 0 {
			return c
		}
		return cmp.Compare(data[a].X, data[b].X)
	})
	at := make([]vg.Point, len(data))
	var placed []int
	clear := func(i int, p vg.Point) bool {
		if p.X < bounds.Min.X || p.X > bounds.Max.X || p.Y < bounds.Min.Y || p.Y > bounds.Max.Y {
			return false
		}
		for _, j := range placed {
			if distance(p, at[j]) < float64(r[i]+r[j]+gap) {
				return false
			}
		}
		return true
	}
	for _, i := range order {
		p := vg.Point{X: max(bounds.Min.X, min(data[i].X, bounds.Max.X)), Y: max(bounds.Min.Y, min(data[i].Y, bounds.Max.Y))}
		at[i] = findClear(p, bounds, func(q vg.Point) bool { return clear(i, q) })
		placed = append(placed, i)
	}
	return at
}

// findClear returns p if it is clear, else the nearest clear point on its
// horizontal line, else the nearest on a spiral around it (or p, if the
// spiral leaves bounds without finding one).
func findClear(p vg.Point, bounds vg.Rectangle, clear func(vg.Point) bool) vg.Point {
	if clear(p) {
		return p
	}
	width := bounds.Max.X - bounds.Min.X
	for d := dodgeStep; d <= width; d += dodgeStep {
		for _, q := range []vg.Point{{X: p.X + d, Y: p.Y}, {X: p.X - d, Y: p.Y}} {
			if clear(q) {
				return q
			}
		}
	}
	reach := max(width, bounds.Max.Y-bounds.Min.Y)
	for ring := dodgeStep; ring <= reach; ring += dodgeStep {
		n := int(math.Ceil(2 * math.Pi * float64(ring/dodgeStep)))
		for k := range n {
			a := 2 * math.Pi * float64(k) / float64(n)
			q := vg.Point{X: p.X + ring*vg.Length(math.Cos(a)), Y: p.Y + ring*vg.Length(math.Sin(a))}
			if clear(q) {
				return q
			}
		}
	}
	return p
}

func distance(a, b vg.Point) float64 {
	return math.Hypot(float64(a.X-b.X), float64(a.Y-b.Y))
}
