package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/perf/benchmath"

	"github.com/blitz-go/blitz/bench/internal/workload"
)

// Report is a finished run of the suite: what ran, where, and every
// measurement. Package runner makes one by running the rows; ReadJSON
// makes one from a JSON report.
type Report struct {
	Machine   Machine
	Command   string   // the command line that ran the suite
	Count     int      // repetitions of every row, interleaved
	Quick     bool     // quick sizes: a smoke run, not figures
	Benchtime string   // the testing package's -benchtime of every row ("" = 1s, or 1x when quick)
	Workers   []int    // worker counts (GOMAXPROCS limits for the goroutine peers), increasing
	Parkings  []string // the -parking names run, in order
	Sizes     workload.Sizes
	Started   time.Time
	Elapsed   time.Duration
	Results   []*Result
	// Capacity is the machine's parallel capacity at the most workers,
	// measured once per repetition: perfectly parallel work on that many
	// goroutines against one (runner's parallelCapacity).
	Capacity []float64
	// Resolved maps each -parking name to the backend it resolved to, or
	// to "unavailable: why".
	Resolved map[string]string
	// Probes are the parking probes, one per backend, when they ran.
	Probes []Probe
	// PeakRSS is the process's peak resident set size at the end of the
	// rows (getrusage), VCSW and IVCSW its context switches over them; 0
	// where getrusage does not exist.
	PeakRSS     int64
	VCSW, IVCSW int64
}

// Result is every measurement of one row, one value per repetition.
type Result struct {
	Case    workload.Case
	NsPerOp []float64
	Allocs  []float64 // heap allocations per op
	Metric  []float64 // the row's custom unit (ns/join, ns/task, ...)
	XSeq    []float64 // the x-seq metric the row reported: its time over the sequential time
	VCSW    []float64 // voluntary context switches per op
	IVCSW   []float64 // involuntary context switches per op
	Err     string    // why the row failed, if it did
}

// confidence is the level of every confidence interval of the report.
const confidence = 0.95

// summary is the median of xs and its confidence interval, as benchstat
// computes them (benchmath's AssumeNothing); NaN when xs is empty.
func summary(xs []float64) benchmath.Summary {
	if len(xs) == 0 {
		return benchmath.Summary{Center: math.NaN(), Lo: math.Inf(-1), Hi: math.Inf(1)}
	}
	th := benchmath.DefaultThresholds
	return benchmath.AssumeNothing.Summary(benchmath.NewSample(slices.Clone(xs), &th), confidence)
}

// median of xs (NaN when empty).
func median(xs []float64) float64 { return summary(xs).Center }

// fmtCI writes the confidence interval of the median of xs as ±percent of
// the median; ±∞ where the repetitions are too few for one (fewer than 6 at
// 95%).
func fmtCI(xs []float64) string {
	if len(xs) == 0 {
		return "-"
	}
	return "±" + summary(xs).PctRangeString()
}

// group is the rows of one workload at one size: one table.
type group struct {
	workload, params string
	rows             []*Result
}

// groups splits the results into tables, rows ordered by workers, then seq,
// peers, ours, in suite order within those.
func (r *Report) groups() []*group {
	var out []*group
	index := map[string]*group{}
	for _, res := range r.Results {
		key := res.Case.Workload + "/" + res.Case.Params
		g, ok := index[key]
		if !ok {
			g = &group{workload: res.Case.Workload, params: res.Case.Params}
			index[key] = g
			out = append(out, g)
		}
		g.rows = append(g.rows, res)
	}
	for _, g := range out {
		sort.SliceStable(g.rows, func(i, j int) bool {
			a, b := g.rows[i].Case, g.rows[j].Case
			if a.Kind == workload.KindSeq || b.Kind == workload.KindSeq {
				return a.Kind == workload.KindSeq && b.Kind != workload.KindSeq
			}
			if a.Workers != b.Workers {
				return a.Workers < b.Workers
			}
			return a.Kind < b.Kind
		})
	}
	return out
}

// bestPeer returns the peer row with the lowest median ns/op in g, or nil.
func (g *group) bestPeer() *Result {
	var best *Result
	for _, res := range g.rows {
		if res.Case.Kind != workload.KindPeer || len(res.NsPerOp) == 0 {
			continue
		}
		if best == nil || median(res.NsPerOp) < median(best.NsPerOp) {
			best = res
		}
	}
	return best
}

// seq returns the sequential row of g, or nil.
func (g *group) seq() *Result {
	for _, res := range g.rows {
		if res.Case.Kind == workload.KindSeq && len(res.NsPerOp) > 0 {
			return res
		}
	}
	return nil
}

// xseq is a row's time over the sequential time: the ratio of the medians
// when the group has a seq row, else the median of the x-seq metric the row
// measured against its own baseline.
func (g *group) xseq(res *Result) float64 {
	if s := g.seq(); s != nil {
		return median(res.NsPerOp) / median(s.NsPerOp)
	}
	return median(res.XSeq)
}

// table is a rendered table: a title, notes and cells.
type table struct {
	title  string
	notes  []string
	header []string
	rows   [][]string
}

// showParking says whether the tables need a parking column.
func (r *Report) showParking() bool {
	return len(r.Parkings) > 1 || (len(r.Parkings) == 1 && r.Parkings[0] != "auto")
}

func (r *Report) tables() []table {
	out := []table{r.targetsTable()}
	if t := r.blitzTable(); len(t.rows) > 0 {
		out = append(out, t)
	}
	for _, g := range r.groups() {
		if len(g.rows) == 0 {
			continue
		}
		unit := g.rows[0].Case.Unit
		t := table{title: fmt.Sprintf("%s %s", g.workload, g.params)}
		t.notes = append(t.notes, workload.Note(g.workload, r.Sizes))
		best := g.bestPeer()
		if best != nil {
			t.notes = append(t.notes, fmt.Sprintf("best peer: %s workers=%d (%s/op)", best.Case.Impl, best.Case.Workers, fmtNs(median(best.NsPerOp))))
		}
		t.header = []string{"impl", "workers"}
		if r.showParking() {
			t.header = append(t.header, "parking")
		}
		t.header = append(t.header, "ns/op", "±", unit)
		if g.workload != "submit" {
			t.header = append(t.header, "x-seq")
		}
		t.header = append(t.header, "vs best peer", "allocs/op", "runs")
		for _, res := range g.rows {
			c := res.Case
			row := []string{c.Label(), fmt.Sprint(c.Workers)}
			if r.showParking() {
				p := c.Parking
				if p == "" {
					p = "-"
				}
				row = append(row, p)
			}
			if res.Err != "" {
				row = append(row, "FAILED: "+res.Err)
				t.rows = append(t.rows, row)
				continue
			}
			ns := median(res.NsPerOp)
			row = append(row, fmtNs(ns), fmtCI(res.NsPerOp), fmtNum(ns/c.PerOp))
			if g.workload != "submit" {
				row = append(row, fmtRatio(g.xseq(res)))
			}
			vs := "-"
			if best != nil && c.Kind != workload.KindSeq {
				vs = fmtRatio(ns / median(best.NsPerOp))
			}
			row = append(row, vs, fmtNum(median(res.Allocs)), fmt.Sprint(len(res.NsPerOp)))
			t.rows = append(t.rows, row)
		}
		out = append(out, t)
	}
	if s := r.scalingTable(); len(s.rows) > 0 {
		out = append(out, s)
	}
	return append(out, r.parkingTables()...)
}

// scalingTable lists, for every implementation measured at more than one
// worker count, its speedup from the fewest to the most workers.
func (r *Report) scalingTable() table {
	t := table{
		title:  "scaling",
		notes:  []string{"speedup = median ns/op at the fewest workers / median ns/op at the most workers, same impl and size"},
		header: []string{"workload", "impl", "parking", "workers", "speedup"},
	}
	if len(r.Capacity) > 0 {
		t.notes = append(t.notes, fmt.Sprintf("the machine's parallel capacity during this run: %s goroutines on independent CPU-bound work ran %s faster than one "+
			"(median of %d probes, one per repetition; min %s, max %s): no impl can scale beyond it",
			fmt.Sprint(slices.Max(r.Workers)), fmtRatio(median(r.Capacity)), len(r.Capacity),
			fmtRatio(slices.Min(r.Capacity)), fmtRatio(slices.Max(r.Capacity))))
	}
	type key struct{ workload, params, impl, parking string }
	// A row on a long-lived pool scales against its kind (implLabel).
	byKey := map[key][]*Result{}
	var order []key
	for _, res := range r.Results {
		if len(res.NsPerOp) == 0 || res.Case.Kind == workload.KindSeq {
			continue
		}
		k := key{res.Case.Workload, res.Case.Params, res.Case.Label(), res.Case.Parking}
		if _, ok := byKey[k]; !ok {
			order = append(order, k)
		}
		byKey[k] = append(byKey[k], res)
	}
	for _, k := range order {
		rs := byKey[k]
		if len(rs) < 2 {
			continue
		}
		lo, hi := rs[0], rs[0]
		for _, res := range rs {
			if res.Case.Workers < lo.Case.Workers {
				lo = res
			}
			if res.Case.Workers > hi.Case.Workers {
				hi = res
			}
		}
		if lo == hi {
			continue
		}
		p := k.parking
		if p == "" {
			p = "-"
		}
		t.rows = append(t.rows, []string{
			k.workload + " " + k.params, k.impl, p,
			fmt.Sprintf("%d -> %d", lo.Case.Workers, hi.Case.Workers),
			fmtRatio(median(lo.NsPerOp) / median(hi.NsPerOp)),
		})
	}
	return t
}

// find returns the result of the row with the given workload, params, impl,
// workers and parking on a new pool, or nil: the rows on a long-lived pool
// (pool=warm) are only in their workload's table.
func (r *Report) find(wl, params, impl string, workers int, parking string) *Result {
	for _, res := range r.Results {
		c := res.Case
		if c.Workload == wl && c.Params == params && c.Impl == impl && c.Workers == workers && c.Parking == parking && c.Pool != workload.PoolWarm && len(res.NsPerOp) > 0 {
			return res
		}
	}
	return nil
}

// targetsTable checks the pool's performance targets against this run.
func (r *Report) targetsTable() table {
	t := table{
		title:  "verdict: targets met and missed",
		header: []string{"target", "parking", "measured", "goal", "met"},
	}
	if r.Quick {
		t.notes = append(t.notes, "quick sizes: these figures say nothing about speed")
	}
	if len(r.Capacity) > 0 {
		t.notes = append(t.notes, fmt.Sprintf("the machine's parallel capacity at %d workers during this run: %s (see scaling)", r.maxWorkers(), fmtRatio(median(r.Capacity))))
	}
	t.notes = append(t.notes, r.blitzTableVerdict()...)
	t.notes = append(t.notes, "a one-worker pool has no thieves, so it pops its joins without the Chase-Lev fence: "+
		"its ns/join is about half of a stealable worker's, which lowers the 1 -> 2 worker speedup below; "+
		"the speedup of the stealable path alone is BenchmarkFibGeneralPath against BenchmarkFib in the root package "+
		"(bench/results/join-fastpath-amd64.txt)")
	s := r.Sizes
	fibP := fmt.Sprintf("n=%d", s.Fib)
	spP := fmt.Sprintf("n=%d", s.FibSpeedup)
	taskP := fmt.Sprintf("tasks=%d", s.Tasks)
	met := func(ok bool) string {
		if ok {
			return "yes"
		}
		return "NO"
	}
	var groups = r.groups()
	bestPeerOf := func(wl, params string) *Result {
		for _, g := range groups {
			if g.workload == wl && g.params == params {
				return g.bestPeer()
			}
		}
		return nil
	}
	for _, parking := range r.Parkings {
		if res := r.find("fib", fibP, "blitz-args", 1, parking); res != nil {
			v := median(res.NsPerOp) / res.Case.PerOp
			t.rows = append(t.rows, []string{fmt.Sprintf("fib(%d) ns/join, 1 worker, JoinArgs", s.Fib), parking, fmtNum(v), "<= 15", met(v <= 15)})
		}
		for _, w := range r.Workers {
			if res := r.find("fib", fibP, "blitz-args", w, parking); res != nil {
				v := median(res.Allocs) / res.Case.PerOp
				t.rows = append(t.rows, []string{fmt.Sprintf("fib(%d) allocs/join, %d workers, JoinArgs", s.Fib, w), parking,
					fmt.Sprintf("%.2g (%s allocs/op)", v, fmtNum(median(res.Allocs))), "0 (< 1e-4: per-op entry only)", met(v < 1e-4)})
			}
		}
		if slices.Contains(r.Workers, 1) && slices.Contains(r.Workers, 2) {
			lo, hi := r.find("fib", spP, "blitz-args", 1, parking), r.find("fib", spP, "blitz-args", 2, parking)
			if lo != nil && hi != nil {
				v := median(lo.NsPerOp) / median(hi.NsPerOp)
				t.rows = append(t.rows, []string{fmt.Sprintf("fib(%d) speedup 1 -> 2 workers", s.FibSpeedup), parking, fmtRatio(v), ">= 1.80x", met(v >= 1.8)})
			}
		}
		for _, w := range r.Workers {
			res := r.find("submit", taskP, "blitz", w, parking)
			if res == nil {
				continue
			}
			v := median(res.NsPerOp) / res.Case.PerOp
			t.rows = append(t.rows, []string{fmt.Sprintf("submit ns/task, %d workers", w), parking, fmtNum(v), "<= 80", met(v <= 80)})
			if best := bestPeerOf("submit", taskP); best != nil {
				x := median(best.NsPerOp) / median(res.NsPerOp)
				t.rows = append(t.rows, []string{fmt.Sprintf("submit, %d workers: best peer (%s workers=%d) time / ours", w, best.Case.Impl, best.Case.Workers),
					parking, fmtRatio(x), ">= 2.00x", met(x >= 2)})
			}
		}
	}
	return t
}

// WriteText prints the report as aligned plain-text tables.
func (r *Report) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "Blitz for Go benchmark report, %s\n", r.Started.UTC().Format(time.RFC3339))
	fmt.Fprintf(w, "machine: %s\n", r.Machine)
	if r.Command != "" {
		fmt.Fprintf(w, "command: %s\n", r.Command)
	}
	fmt.Fprintf(w, "%s\n", r.runLine())
	fmt.Fprintf(w, "%s\n", r.Machine.Details())
	for _, t := range r.tables() {
		fmt.Fprintf(w, "\n== %s\n", t.title)
		for _, n := range t.notes {
			fmt.Fprintf(w, "   %s\n", n)
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "%s\t\n", strings.Join(t.header, "\t"))
		for _, row := range t.rows {
			fmt.Fprintf(tw, "%s\t\n", strings.Join(row, "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// WriteMarkdown prints the report as Markdown tables.
func (r *Report) WriteMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "# Benchmark report\n\n")
	fmt.Fprintf(w, "- date: %s\n", r.Started.UTC().Format(time.RFC3339))
	fmt.Fprintf(w, "- machine: %s\n", r.Machine)
	if r.Command != "" {
		fmt.Fprintf(w, "- command: `%s`\n", r.Command)
	}
	fmt.Fprintf(w, "- %s\n", r.runLine())
	fmt.Fprintf(w, "- %s\n", r.Machine.Details())
	return writeMarkdownTables(w, r.tables())
}

// writeMarkdownTables prints tables as Markdown sections.
func writeMarkdownTables(w io.Writer, tables []table) error {
	for _, t := range tables {
		fmt.Fprintf(w, "\n## %s\n\n", t.title)
		for _, n := range t.notes {
			fmt.Fprintf(w, "%s.  \n", n)
		}
		if len(t.notes) > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(t.header, " | "))
		seps := make([]string, len(t.header))
		for i := range seps {
			seps[i] = "---"
			if i > 0 {
				seps[i] = "---:"
			}
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(seps, " | "))
		for _, row := range t.rows {
			cells := slices.Clone(row)
			for len(cells) < len(t.header) {
				cells = append(cells, "")
			}
			fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
		}
	}
	_, err := fmt.Fprintln(w)
	return err
}

// runLine describes the run: repetitions, sizes, parking backends, duration.
func (r *Report) runLine() string {
	mode := "full sizes"
	if r.Quick {
		mode = "quick sizes (smoke run, not figures)"
	}
	bt := r.Benchtime
	if bt == "" {
		bt = "1s"
		if r.Quick {
			bt = "1x"
		}
	}
	return fmt.Sprintf("run: -count %d, %s, benchtime %s, workers %v, parking %s; took %s; ratios are of medians, x-seq and vs best peer are time ratios (below 1 is faster); "+
		"± is the median's 95%% confidence interval (golang.org/x/perf/benchmath, as benchstat; ∞ below -count 6)",
		r.Count, mode, bt, r.Workers, r.parkingLine(), r.Elapsed.Round(time.Second))
}

// parkingLine names the backends run, with what each resolved to.
func (r *Report) parkingLine() string {
	var parts []string
	for _, name := range r.Parkings {
		desc := name
		if got, ok := r.Resolved[name]; ok && got != name {
			if strings.HasPrefix(got, "unavailable") {
				desc += " (" + got + ")"
			} else {
				desc += " (= " + got + ")"
			}
		}
		parts = append(parts, desc)
	}
	return strings.Join(parts, ", ")
}

func fmtNs(ns float64) string {
	switch {
	case math.IsNaN(ns):
		return "-"
	case ns >= 1e9:
		return fmt.Sprintf("%.2fs", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.2fms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.2fµs", ns/1e3)
	}
	return fmt.Sprintf("%.1fns", ns)
}

func fmtNum(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "-"
	case v == 0:
		return "0"
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.1f", v)
	case math.Abs(v) >= 0.01:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.2g", v)
}

func fmtRatio(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	if v >= 100 {
		return fmt.Sprintf("%.0fx", v)
	}
	return fmt.Sprintf("%.2fx", v)
}

// WriteRawHeader writes the configuration lines benchstat reads ("key:
// value", keys without spaces) at the head of a raw file (go test -bench
// format), so it carries the machine's identity as the JSON report does.
func (r *Report) WriteRawHeader(w io.Writer) {
	m := r.Machine
	fmt.Fprintf(w, "goos: %s\ngoarch: %s\npkg: github.com/blitz-go/blitz/bench\ncpu: %s\n", m.GOOS, m.GOARCH, m.CPUModel)
	for _, kv := range [][2]string{
		{"arch-level", m.ArchLevel}, {"go-version", m.GoVersion}, {"commit", m.Commit},
		{"kernel", m.Kernel}, {"hypervisor", m.Hypervisor}, {"vendor", m.Vendor},
		{"features", strings.Join(m.Features, " ")}, {"caches", strings.Join(m.Caches, ", ")},
		{"num-cpu", fmt.Sprint(m.NumCPU)}, {"allowed-cpus", fmt.Sprint(m.Allowed)}, {"cores", fmt.Sprint(m.Cores)},
		{"smt", fmt.Sprint(m.SMT)}, {"numa-nodes", fmt.Sprint(m.NUMANodes)},
		{"parking", r.parkingLine()}, {"workers", fmt.Sprint(r.Workers)},
	} {
		if kv[1] != "" {
			fmt.Fprintf(w, "%s: %s\n", kv[0], kv[1])
		}
	}
}
