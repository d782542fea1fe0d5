package chart

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/blitz-go/blitz/examples/internal/loadgen"
)

// colors per mode, fixed so every chart reads the same way.
var colors = map[string]color.Color{
	"inline": color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	"ants":   color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	"blitz":  color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
}

// Draw writes the chart of rows to each path; the format follows the
// extension (.png, .svg, .pdf). Points without successful requests (no
// p99) are left out, since a log scale has no zero.
func Draw(rows []loadgen.Row, title string, paths ...string) error {
	if len(rows) == 0 {
		return errors.New("chart: no rows")
	}
	if len(paths) == 0 {
		return errors.New("chart: no output path")
	}
	for _, path := range paths {
		ext := strings.ToLower(filepath.Ext(path))
		if ext != ".png" && ext != ".svg" && ext != ".pdf" {
			return fmt.Errorf("chart: %s: unsupported format (want .png, .svg or .pdf)", path)
		}
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "offered load (% of inline capacity)"
	p.Y.Label.Text = "p99 latency, ms (log)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Add(plotter.NewGrid())
	// The legend goes top left, in headroom made above the highest point
	// (see the Y range below), so it never covers a line.
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(8), -vg.Points(14)
	var ticks []plot.Tick
	for _, r := range rows {
		if !slices.ContainsFunc(ticks, func(t plot.Tick) bool { return t.Value == float64(r.LoadPct) }) {
			ticks = append(ticks, plot.Tick{Value: float64(r.LoadPct), Label: fmt.Sprintf("%d%%", r.LoadPct)})
		}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	lo, hi := rows[0].LoadPct, rows[0].LoadPct
	for _, r := range rows {
		lo, hi = min(lo, r.LoadPct), max(hi, r.LoadPct)
	}
	p.X.Min, p.X.Max = float64(lo)-5, float64(hi)+5

	var modes []string
	for _, r := range rows {
		if !slices.Contains(modes, r.Mode) {
			modes = append(modes, r.Mode)
		}
	}
	for i, m := range modes {
		var pts plotter.XYs
		var last loadgen.Row
		for _, r := range rows {
			if r.Mode != m {
				continue
			}
			if r.LoadPct >= last.LoadPct {
				last = r
			}
			if r.P99 > 0 {
				pts = append(pts, plotter.XY{X: float64(r.LoadPct), Y: r.P99})
			}
		}
		if len(pts) == 0 {
			continue
		}
		slices.SortFunc(pts, func(a, b plotter.XY) int { return int(a.X - b.X) })
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return fmt.Errorf("chart: %s: %w", m, err)
		}
		c, ok := colors[m]
		if !ok {
			c = plotutilColor(i)
		}
		line.Color, line.Width = c, vg.Points(2)
		points.Color, points.Shape = c, draw.CircleGlyph{}
		p.Add(line, points)
		p.Legend.Add(fmt.Sprintf("%s (%.0f%% rejected at %d%%)", m, last.RejectedPct, last.LoadPct), line, points)
	}
	// Log scale: a factor of 10 above the highest p99 keeps the top
	// decade for the legend.
	lo99, hi99 := math.Inf(1), 0.0
	for _, r := range rows {
		if r.P99 > 0 {
			lo99, hi99 = math.Min(lo99, r.P99), math.Max(hi99, r.P99)
		}
	}
	if hi99 > 0 {
		p.Y.Min, p.Y.Max = lo99/1.5, hi99*10
	}
	for _, path := range paths {
		if err := p.Save(8*vg.Inch, 5*vg.Inch, path); err != nil {
			return fmt.Errorf("chart: %w", err)
		}
	}
	return nil
}

func plotutilColor(i int) color.Color {
	extra := []color.Color{
		color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
		color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
		color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
	}
	return extra[i%len(extra)]
}
