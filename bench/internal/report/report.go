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
	"unicode/utf8"

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
	// TimedOut says why the row was stopped at its guard's deadline (the
	// blocking section), if it was: not a failure, a measurement of its own.
	TimedOut string
	// Extra holds the row's other metrics by unit (the server rows'
	// percentiles, served share, ...), one value per repetition.
	Extra map[string][]float64
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

// speedup is the convention of every ratio in the report: the baseline's
// time over the row's, so above 1 is faster than the baseline.
func speedup(baselineNs, ns float64) float64 { return baselineNs / ns }

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

// speedupOverSeq is a row's speedup over the sequential baseline: the
// ratio of the medians when the group has a seq row, else the inverse of
// the median of the x-seq metric the row measured against its own
// baseline.
func (g *group) speedupOverSeq(res *Result) float64 {
	if s := g.seq(); s != nil {
		return speedup(median(s.NsPerOp), median(res.NsPerOp))
	}
	return 1 / median(res.XSeq)
}

// table is a rendered section: a title, notes and cells. A section with
// neither header nor rows is the title alone, one line.
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

// maxWorkers is the largest worker count of the run.
func (r *Report) maxWorkers() int { return slices.Max(r.Workers) }

func (r *Report) tables() []table {
	out := []table{r.targetsTable()}
	if t := r.blitzTable(); len(t.rows) > 0 {
		out = append(out, t)
	}
	for _, g := range r.groups() {
		if !workload.IsBlocking(g.workload) {
			out = append(out, r.groupTable(g))
		}
	}
	out = append(out, r.blockingTables()...)
	if s := r.scalingTable(); len(s.rows) > 0 {
		out = append(out, s)
	}
	return append(out, r.parkingTables()...)
}

// groupTable is the table of one workload at one size: every row's median
// time, its confidence interval, the per-item metric, allocations, and its
// speedups over the sequential row and over the fastest peer row.
func (r *Report) groupTable(g *group) table {
	withSeq := g.workload != "submit" // submit has no sequential baseline
	t := table{title: fmt.Sprintf("%s %s", g.workload, g.params)}
	t.notes = append(t.notes, workload.Note(g.workload, r.Sizes))
	best := g.bestPeer()
	if best != nil {
		t.notes = append(t.notes, fmt.Sprintf("best peer = %s at %s (%s/op), the fastest of the peer rows", best.Case.Impl,
			fmtWorkers(best.Case.Workers), fmtNs(median(best.NsPerOp))))
	}
	t.header = []string{"impl", "workers"}
	if r.showParking() {
		t.header = append(t.header, "parking")
	}
	t.header = append(t.header, "time/op", "±", g.rows[0].Case.Unit, "allocs/op")
	if withSeq {
		t.header = append(t.header, "speedup over seq")
	}
	t.header = append(t.header, "speedup over best peer", "runs")
	for _, res := range g.rows {
		c := res.Case
		row := []string{c.Label(), fmt.Sprint(c.Workers)}
		if r.showParking() {
			row = append(row, dash(c.Parking))
		}
		if res.Err != "" {
			t.rows = append(t.rows, append(row, "FAILED: "+res.Err))
			continue
		}
		ns := median(res.NsPerOp)
		row = append(row, fmtNs(ns), fmtCI(res.NsPerOp), fmtNum(ns/c.PerOp), fmtNum(median(res.Allocs)))
		if withSeq {
			row = append(row, fmtRatio(g.speedupOverSeq(res)))
		}
		vs := "-"
		if best != nil && c.Kind != workload.KindSeq {
			vs = fmtRatio(speedup(median(best.NsPerOp), ns))
		}
		t.rows = append(t.rows, append(row, vs, fmt.Sprint(len(res.NsPerOp))))
	}
	return t
}

// scalingTable lists, for every implementation measured at more than one
// worker count, its speedup at the most workers over the fewest.
func (r *Report) scalingTable() table {
	t := table{
		title:  "scaling: speedup at the most workers over the fewest",
		notes:  []string{"speedup = median time at the fewest workers / median time at the most workers, same impl and size: above 1, more workers made it faster"},
		header: []string{"workload", "impl", "parking", "workers", "speedup over the fewest workers"},
	}
	if len(r.Capacity) > 0 {
		t.notes = append(t.notes, r.capacityNote())
	}
	type key struct{ workload, params, impl, parking string }
	// A row on a long-lived pool scales against its kind (Label).
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
		t.rows = append(t.rows, []string{
			k.workload + " " + k.params, k.impl, dash(k.parking),
			fmt.Sprintf("%d -> %d", lo.Case.Workers, hi.Case.Workers),
			fmtRatio(speedup(median(lo.NsPerOp), median(hi.NsPerOp))),
		})
	}
	return t
}

// capacityNote says what the machine offered during the run.
func (r *Report) capacityNote() string {
	return fmt.Sprintf("the machine's parallel capacity during this run: perfectly parallel work on %d goroutines ran %s faster than on one "+
		"(median of %d probes, one per repetition; min %s, max %s): no speedup over 1 worker can exceed it",
		r.maxWorkers(), fmtRatio(median(r.Capacity)), len(r.Capacity), fmtRatio(slices.Min(r.Capacity)), fmtRatio(slices.Max(r.Capacity)))
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

// targetRow is one of the pool's performance goals with the value this
// run measured: "at most 15", "7.86", "met".
func targetRow(what, parking, goal, measured string, met bool) []string {
	result := "missed"
	if met {
		result = "met"
	}
	return []string{what, parking, goal, measured, result}
}

// targetsTable checks the pool's performance targets against this run.
func (r *Report) targetsTable() table {
	t := table{
		title:  "verdict: the pool's targets, met or missed",
		header: []string{"target", "parking", "goal", "measured", "result"},
	}
	if r.Quick {
		t.notes = append(t.notes, "quick sizes: these figures say nothing about speed")
	}
	if len(r.Capacity) > 0 {
		t.notes = append(t.notes, fmt.Sprintf("the machine's parallel capacity at %d workers during this run: %s (see scaling); no speedup over 1 worker can exceed it",
			r.maxWorkers(), fmtRatio(median(r.Capacity))))
	}
	t.notes = append(t.notes, r.blitzTableVerdict()...)
	t.notes = append(t.notes, "a one-worker pool has no thieves, so it pops its joins without the Chase-Lev fence: "+
		"its ns/join is about half of a stealable worker's, which lowers the speedup over 1 worker below; "+
		"the speedup of the stealable path alone is BenchmarkFibGeneralPath against BenchmarkFib in the root package "+
		"(bench/results/join-fastpath-amd64.txt)")
	s := r.Sizes
	fibP := fmt.Sprintf("n=%d", s.Fib)
	spP := fmt.Sprintf("n=%d", s.FibSpeedup)
	taskP := fmt.Sprintf("tasks=%d", s.Tasks)
	var submitPeer *Result
	for _, g := range r.groups() {
		if g.workload == "submit" && g.params == taskP {
			submitPeer = g.bestPeer()
		}
	}
	for _, parking := range r.Parkings {
		if res := r.find("fib", fibP, "blitz-args", 1, parking); res != nil {
			v := median(res.NsPerOp) / res.Case.PerOp
			t.rows = append(t.rows, targetRow(fmt.Sprintf("fib(%d) ns/join at 1 worker, JoinArgs", s.Fib), parking, "at most 15", fmtNum(v), v <= 15))
		}
		for _, w := range r.Workers {
			if res := r.find("fib", fibP, "blitz-args", w, parking); res != nil {
				perOp := median(res.Allocs)
				v := perOp / res.Case.PerOp
				t.rows = append(t.rows, targetRow(fmt.Sprintf("fib(%d) allocs/join at %s, JoinArgs", s.Fib, fmtWorkers(w)), parking,
					"below 1e-4 (0 but the op's entry into the pool)", fmt.Sprintf("%.2g (%s allocs/op)", v, fmtNum(perOp)), v < 1e-4))
			}
		}
		if slices.Contains(r.Workers, 1) && slices.Contains(r.Workers, 2) {
			lo, hi := r.find("fib", spP, "blitz-args", 1, parking), r.find("fib", spP, "blitz-args", 2, parking)
			if lo != nil && hi != nil {
				v := speedup(median(lo.NsPerOp), median(hi.NsPerOp))
				t.rows = append(t.rows, targetRow(fmt.Sprintf("fib(%d) speedup at 2 workers over 1 worker", s.FibSpeedup), parking,
					"at least 1.80x", fmtRatio(v), v >= 1.8))
			}
		}
		for _, w := range r.Workers {
			res := r.find("submit", taskP, "blitz", w, parking)
			if res == nil {
				continue
			}
			v := median(res.NsPerOp) / res.Case.PerOp
			t.rows = append(t.rows, targetRow(fmt.Sprintf("submit ns/task at %s", fmtWorkers(w)), parking, "at most 80", fmtNum(v), v <= 80))
			if submitPeer != nil {
				x := speedup(median(submitPeer.NsPerOp), median(res.NsPerOp))
				t.rows = append(t.rows, targetRow(fmt.Sprintf("submit at %s: speedup over the best peer (%s at %s)", fmtWorkers(w),
					submitPeer.Case.Impl, fmtWorkers(submitPeer.Case.Workers)), parking, "at least 2.00x", fmtRatio(x), x >= 2))
			}
		}
		t.rows = append(t.rows, r.blockingTargets(parking)...)
	}
	return t
}

// howToRun is the command that runs the report as a reader types it, from
// the repository root: `cd bench && go run .` and the flags, whether the
// run was that or a built binary (./bench, a cross-built one).
func howToRun(cmd string) string {
	const run = "cd bench && go run ."
	if cmd == "" || strings.HasPrefix(cmd, run) {
		return cmd
	}
	if rest, ok := strings.CutPrefix(cmd, "go run ."); ok {
		return run + rest
	}
	if _, flags, ok := strings.Cut(cmd, " "); ok {
		return run + " " + flags
	}
	return run
}

// readingNote says how to read every table.
func readingNote() string {
	return fmt.Sprintf("every ratio is a speedup over the baseline its column names (the baseline's time / this row's time): above 1 is faster than it, below 1 slower; "+
		"times are medians of the repetitions, ± is the median's %.0f%% confidence interval (golang.org/x/perf/benchmath, as benchstat; ∞ below -count 6)", 100*confidence)
}

// WriteText prints the report as aligned plain-text tables.
func (r *Report) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "Blitz for Go benchmark report, %s\n", r.Started.UTC().Format(time.RFC3339))
	if r.Command != "" {
		fmt.Fprintf(w, "command: %s\n", howToRun(r.Command))
	}
	fmt.Fprintf(w, "machine: %s\n", r.Machine)
	fmt.Fprintf(w, "%s\n", r.runLine())
	fmt.Fprintf(w, "reading: %s\n", readingNote())
	fmt.Fprintf(w, "%s\n", r.Machine.Details())
	return writeTextTables(w, r.tables())
}

// writeTextTables prints tables as aligned text under "== title" lines.
func writeTextTables(w io.Writer, tables []table) error {
	for _, t := range tables {
		if len(t.header) == 0 && len(t.rows) == 0 {
			fmt.Fprintf(w, "\n%s\n", t.title)
			continue
		}
		fmt.Fprintf(w, "\n== %s\n", t.title)
		for _, n := range t.notes {
			fmt.Fprintf(w, "   %s\n", n)
		}
		// Figures align right, the first column (the row's name) left.
		width := 0
		for _, row := range append([][]string{t.header}, t.rows...) {
			width = max(width, utf8.RuneCountInString(row[0]))
		}
		pad := func(row []string) string {
			cells := slices.Clone(row)
			cells[0] += strings.Repeat(" ", width-utf8.RuneCountInString(cells[0]))
			return strings.Join(cells, "\t")
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "  %s\t\n", pad(t.header))
		for _, row := range t.rows {
			fmt.Fprintf(tw, "  %s\t\n", pad(row))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// WriteMarkdown prints the report as Markdown tables.
func (r *Report) WriteMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "# Blitz for Go benchmark report\n\n")
	fmt.Fprintf(w, "- date: %s\n", r.Started.UTC().Format(time.RFC3339))
	if r.Command != "" {
		fmt.Fprintf(w, "- command: `%s`\n", howToRun(r.Command))
	}
	fmt.Fprintf(w, "- machine: %s\n", r.Machine)
	fmt.Fprintf(w, "- %s\n", r.runLine())
	fmt.Fprintf(w, "- reading: %s\n", readingNote())
	fmt.Fprintf(w, "- %s\n", r.Machine.Details())
	return writeMarkdownTables(w, r.tables())
}

// writeMarkdownTables prints tables as Markdown sections.
func writeMarkdownTables(w io.Writer, tables []table) error {
	for _, t := range tables {
		if len(t.header) == 0 && len(t.rows) == 0 {
			fmt.Fprintf(w, "\n%s\n", t.title)
			continue
		}
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
		mode = "quick sizes (a smoke run: the figures say nothing about speed)"
	}
	bt := r.Benchtime
	if bt == "" {
		bt = "1s"
		if r.Quick {
			bt = "1x"
		}
	}
	ws := make([]string, len(r.Workers))
	for i, n := range r.Workers {
		ws[i] = fmt.Sprint(n)
	}
	return fmt.Sprintf("run: -count %d, %s, benchtime %s, workers %s, parking %s; took %s",
		r.Count, mode, bt, strings.Join(ws, ", "), r.parkingLine(), r.Elapsed.Round(time.Second))
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

// dash is s, or "-" for none.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// fmtWorkers writes a worker count: "1 worker", "2 workers".
func fmtWorkers(n int) string {
	if n == 1 {
		return "1 worker"
	}
	return fmt.Sprintf("%d workers", n)
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

// fmtRatio writes a speedup: 1.25x, 133x, 0.0041x.
func fmtRatio(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "-"
	case v >= 100:
		return fmt.Sprintf("%.0fx", v)
	case v >= 0.01 || v == 0:
		return fmt.Sprintf("%.2fx", v)
	}
	return fmt.Sprintf("%.2gx", v)
}

// fmtBytesSI writes a byte count in MB (10^6), as Blitz's table does.
func fmtBytesSI(n int64) string {
	if n <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f MB", math.Round(float64(n)/1e5)/10)
}
