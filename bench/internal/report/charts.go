package report

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/blitz-go/blitz/bench/internal/workload"
)

// The compare charts, drawn with gonum.org/v1/plot:
//
//	speedup.png  one panel per workload and size: the speedup over
//	             sequential against workers, for the pool (solid) and the
//	             best plain-Go peer (dashed), each report in its colour
//	wake.png     the wake latency distribution of each report's backends,
//	             from parked and from yielding (box plots, log scale)

var sideColours = []color.Color{color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}}

// WriteCharts writes the charts of a comparison into dir, made if need be.
func WriteCharts(dir string, c *Comparison) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := writeSpeedupChart(filepath.Join(dir, "speedup.png"), c); err != nil {
		return err
	}
	return writeWakeChart(filepath.Join(dir, "wake.png"), c)
}

// speedupSeries is one line of a speedup panel: a report's impl at each
// worker count.
func speedupSeries(r *Report, wl, params, impl, parking string) plotter.XYs {
	var xys plotter.XYs
	for _, w := range r.Workers {
		res := r.find(wl, params, impl, w, parking)
		if res == nil {
			continue
		}
		if s := r.seqSpeedup(res); !math.IsNaN(s) {
			xys = append(xys, plotter.XY{X: float64(w), Y: s})
		}
	}
	return xys
}

// chartImpls picks, for one workload and size of r, the pool's impl (the
// one Blitz's table quotes, else the first) and the peer that is fastest
// at the most workers.
func chartImpls(r *Report, wl, params string) (pool, peer string) {
	for _, br := range workload.BlitzRows(r.Sizes) {
		if br.Workload == wl && br.Params == params {
			pool = br.Impl
		}
	}
	for _, res := range r.Results {
		if res.Case.Workload == wl && res.Case.Params == params && res.Case.Kind == workload.KindBlitz && pool == "" {
			pool = res.Case.Impl
		}
	}
	if p := r.bestPeerAt(wl, params, r.maxWorkers()); p != nil {
		peer = p.Case.Impl
	}
	return pool, peer
}

func writeSpeedupChart(path string, c *Comparison) error {
	var panels []*plot.Plot
	for _, g := range c.a.groups() {
		if g.seq() == nil {
			continue
		}
		p := plot.New()
		p.Title.Text = g.workload + " " + g.params
		p.Title.TextStyle.Font.Size = vg.Points(8)
		p.X.Label.Text = "workers"
		p.Y.Label.Text = "speedup"
		p.X.Tick.Label.Font.Size = vg.Points(6)
		p.Y.Tick.Label.Font.Size = vg.Points(6)
		p.X.Label.TextStyle.Font.Size = vg.Points(6)
		p.Y.Label.TextStyle.Font.Size = vg.Points(6)
		p.Y.Min = 0
		lines := 0
		for side, r := range []*Report{c.a, c.b} {
			pool, peer := chartImpls(r, g.workload, g.params)
			parking := r.Parkings[0]
			for i, impl := range []string{pool, peer} {
				if impl == "" {
					continue
				}
				pk := parking
				if i == 1 {
					pk = ""
				}
				xys := speedupSeries(r, g.workload, g.params, impl, pk)
				if len(xys) == 0 {
					continue
				}
				l, pts, err := plotter.NewLinePoints(xys)
				if err != nil {
					return err
				}
				l.Color, pts.Color = sideColours[side], sideColours[side]
				if i == 1 {
					l.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
				}
				p.Add(l, pts)
				lines++
			}
		}
		if lines > 0 {
			panels = append(panels, p)
		}
	}
	if len(panels) == 0 {
		return fmt.Errorf("no workload with a sequential row and a parallel one in %s", c.labelA)
	}
	legend := fmt.Sprintf("speedup over sequential against workers; solid: the pool, dashed: the best plain-Go peer; blue: %s, red: %s", c.labelA, c.labelB)
	return drawPanels(path, panels, 5, legend)
}

func writeWakeChart(path string, c *Comparison) error {
	var panels []*plot.Plot
	for _, kind := range []string{"parked", "yielding"} {
		p := plot.New()
		p.Title.Text = "wake latency from " + kind
		p.Y.Label.Text = "post to run (µs)"
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		var names []string
		x := 0.0
		for side, r := range []*Report{c.a, c.b} {
			label := []string{c.labelA, c.labelB}[side]
			for _, pr := range r.Probes {
				xs := pr.WakeParkedNs
				if kind == "yielding" {
					xs = pr.WakeYieldNs
				}
				if len(xs) == 0 {
					continue
				}
				vals := make(plotter.Values, len(xs))
				for i, v := range xs {
					vals[i] = math.Max(v, 1) / 1e3
				}
				b, err := plotter.NewBoxPlot(vg.Points(14), x, vals)
				if err != nil {
					return err
				}
				b.FillColor = sideColours[side]
				p.Add(b)
				names = append(names, label+"\n"+pr.Parking)
				x++
			}
		}
		if len(names) == 0 {
			continue
		}
		p.NominalX(names...)
		p.X.Tick.Label.Font.Size = vg.Points(6)
		panels = append(panels, p)
	}
	if len(panels) == 0 {
		return fmt.Errorf("neither report has parking probes")
	}
	return drawPanels(path, panels, 1, "wake latency per parking backend (box: quartiles, whiskers: 1.5 IQR)")
}

// drawPanels tiles panels in rows of cols and writes a PNG with a caption.
func drawPanels(path string, panels []*plot.Plot, cols int, caption string) error {
	cols = min(cols, len(panels))
	rows := (len(panels) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for i := range grid {
		grid[i] = make([]*plot.Plot, cols)
		for j := range grid[i] {
			if k := i*cols + j; k < len(panels) {
				grid[i][j] = panels[k]
			}
		}
	}
	width := vg.Points(float64(max(cols, 2)) * 220)
	height := vg.Points(float64(rows)*170 + 24)
	img := vgimg.New(width, height)
	dc := draw.New(img)
	top := draw.Crop(dc, 0, 0, 0, -vg.Points(20))
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(8), PadY: vg.Points(8), PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(4)}
	canvases := plot.Align(grid, tiles, top)
	for i := range grid {
		for j, p := range grid[i] {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
	capStyle := plot.New().Title.TextStyle
	capStyle.Font.Size = vg.Points(9)
	capStyle.XAlign, capStyle.YAlign = draw.XLeft, draw.YTop
	dc.FillText(capStyle, vg.Point{X: vg.Points(6), Y: height - vg.Points(4)}, caption)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
