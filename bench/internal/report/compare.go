package report

import (
	"fmt"
	"io"
	"math"
	"slices"

	"golang.org/x/perf/benchmath"

	"github.com/blitz-go/blitz/bench/internal/workload"
)

// Compare puts two JSON reports side by side (two machines, or two commits
// on one machine): for every row both measured, each side's median time per
// op with its confidence interval, B's speedup over A with the p-value of a
// Mann-Whitney U test (benchmath's AssumeNothing, as benchstat), and each
// side's speedup over its own sequential baseline, the figure that compares
// across machines. WriteCharts draws it (charts.go).

// Comparison is two reports matched row by row.
type Comparison struct {
	a, b           *Report
	labelA, labelB string
	rows           []comparedRow
	onlyA, onlyB   int // rows measured on one side only
}

// comparedRow is one row both reports measured.
type comparedRow struct {
	name       string
	a, b       *Result
	sumA, sumB benchmath.Summary
	cmp        benchmath.Comparison
	// speedup is B's speedup over A: median A / median B, above 1 when B
	// is faster; significant when the U test's p is below its alpha.
	speedup     float64
	significant bool
	// seqA and seqB are each side's speedup over its own sequential row;
	// NaN without one.
	seqA, seqB float64
}

// Compare matches b's rows to a's by benchmark name; labelA and labelB
// name the two sides in the tables and charts.
func Compare(a, b *Report, labelA, labelB string) *Comparison {
	c := &Comparison{a: a, b: b, labelA: labelA, labelB: labelB}
	byName := map[string]*Result{}
	for _, res := range b.Results {
		byName[res.Case.FullName()] = res
	}
	matched := map[string]bool{}
	th := benchmath.DefaultThresholds
	for _, ra := range a.Results {
		name := ra.Case.FullName()
		rb, ok := byName[name]
		if !ok || len(compared(ra)) == 0 || len(compared(rb)) == 0 {
			c.onlyA++
			continue
		}
		matched[name] = true
		sa := benchmath.NewSample(slices.Clone(compared(ra)), &th)
		sb := benchmath.NewSample(slices.Clone(compared(rb)), &th)
		if ra.Case.Workload == workload.BlockingServer {
			name += " (p99)"
		}
		row := comparedRow{
			name: name, a: ra, b: rb,
			sumA: benchmath.AssumeNothing.Summary(sa, confidence),
			sumB: benchmath.AssumeNothing.Summary(sb, confidence),
			cmp:  benchmath.AssumeNothing.Compare(sa, sb),
		}
		row.speedup = speedup(row.sumA.Center, row.sumB.Center)
		row.significant = row.cmp.P < row.cmp.Alpha
		row.seqA, row.seqB = a.seqSpeedup(ra), b.seqSpeedup(rb)
		c.rows = append(c.rows, row)
	}
	for _, rb := range b.Results {
		if !matched[rb.Case.FullName()] {
			c.onlyB++
		}
	}
	return c
}

// compared is what compare compares of a row: its times per op, or for a
// server row of the blocking section, whose op is a run of fixed length,
// its p99 latencies.
func compared(res *Result) []float64 {
	if res.Case.Workload == workload.BlockingServer {
		return res.Metric
	}
	return res.NsPerOp
}

// seqSpeedup is the row's speedup over the sequential row of its workload
// and size, NaN without one.
func (r *Report) seqSpeedup(res *Result) float64 {
	seq := r.find(res.Case.Workload, res.Case.Params, "seq", 1, "")
	if seq == nil || len(res.NsPerOp) == 0 {
		return math.NaN()
	}
	return speedup(median(seq.NsPerOp), median(res.NsPerOp))
}

// table renders the comparison.
func (c *Comparison) table() table {
	t := table{
		title: fmt.Sprintf("compare: %s (A) vs %s (B)", c.labelA, c.labelB),
		notes: []string{
			"A: " + c.a.Machine.String(),
			"B: " + c.b.Machine.String(),
			readingNote(),
			fmt.Sprintf("B speedup over A = A's median time / B's (above 1: B is faster), with the p-value of a Mann-Whitney U test (golang.org/x/perf/benchmath, as benchstat); "+
				"~ = no significant difference at p < %.2g", benchmath.DefaultThresholds.CompareAlpha),
			"speedup over seq = the sequential row's time / the row's, on its own machine: the figure that compares across machines",
			"an interval needs at least 6 repetitions a row (-count 6), a significant p at least 4 on each side",
			fmt.Sprintf("%d rows compared; %d only in A, %d only in B", len(c.rows), c.onlyA, c.onlyB),
		},
		header: []string{"row", "A time/op", "±", "B time/op", "±", "B speedup over A", "p", "A speedup over seq", "B speedup over seq"},
	}
	for _, r := range c.rows {
		if r.a.Case.Workload == workload.BlockingServer {
			t.notes = append(t.notes, "the blocking section's server rows, named with (p99), compare their p99 latency, not their time per op (a run of fixed length)")
			break
		}
	}
	for _, r := range c.rows {
		ratio := fmtRatio(r.speedup)
		if !r.significant {
			ratio = "~ " + ratio
		}
		t.rows = append(t.rows, []string{
			r.name, fmtNs(r.sumA.Center), "±" + r.sumA.PctRangeString(), fmtNs(r.sumB.Center), "±" + r.sumB.PctRangeString(),
			ratio, r.cmp.String(), fmtRatio(r.seqA), fmtRatio(r.seqB),
		})
	}
	return t
}

// WriteText prints the comparison as an aligned table.
func (c *Comparison) WriteText(w io.Writer) error {
	return writeTextTables(w, []table{c.table()})
}

// WriteMarkdown prints the comparison as a Markdown table.
func (c *Comparison) WriteMarkdown(w io.Writer) error {
	return writeMarkdownTables(w, []table{c.table()})
}
