package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchmath"
)

// compare puts two JSON reports side by side (two machines, or two commits
// on one machine): for every row both measured, each side's median ns/op
// with its confidence interval, the ratio B/A with the p-value of a
// Mann-Whitney U test (benchmath's AssumeNothing, as benchstat), and each
// side's speedup over its own sequential baseline, the figure that compares
// across machines. It also writes the charts (charts.go).

// compareConfidence is the confidence level of the intervals.
const compareConfidence = 0.95

// runCompare is `bench compare [flags] A.json B.json`.
func runCompare(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: go run . compare [flags] A.json B.json\n\n"+
			"Compares two JSON reports (-json): every row both have, with confidence\n"+
			"intervals and p-values from golang.org/x/perf/benchmath, and writes charts.\n\nflags:\n")
		fs.PrintDefaults()
	}
	nameA := fs.String("a", "", "label of the first report (default: its file name)")
	nameB := fs.String("b", "", "label of the second report (default: its file name)")
	charts := fs.String("charts", "", "write speedup.png and wake.png into this directory")
	md := fs.Bool("md", false, "print Markdown tables instead of aligned text")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 2 {
		fmt.Fprintf(stderr, "bench compare: want two JSON reports, got %d arguments\n", fs.NArg())
		return 2
	}
	a, err := readJSONFile(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "bench compare: %v\n", err)
		return 2
	}
	b, err := readJSONFile(fs.Arg(1))
	if err != nil {
		fmt.Fprintf(stderr, "bench compare: %v\n", err)
		return 2
	}
	la, lb := *nameA, *nameB
	if la == "" {
		la = strings.TrimSuffix(filepath.Base(fs.Arg(0)), ".json")
	}
	if lb == "" {
		lb = strings.TrimSuffix(filepath.Base(fs.Arg(1)), ".json")
	}
	if la == lb {
		la, lb = "A: "+la, "B: "+lb
	}
	cmp := Compare(a, b, la, lb)
	write := cmp.WriteText
	if *md {
		write = cmp.WriteMarkdown
	}
	if err := write(stdout); err != nil {
		fmt.Fprintf(stderr, "bench compare: %v\n", err)
		return 1
	}
	if *charts != "" {
		if err := writeCharts(*charts, cmp); err != nil {
			fmt.Fprintf(stderr, "bench compare: %v\n", err)
			return 1
		}
	}
	return 0
}

// Comparison is two reports matched row by row.
type Comparison struct {
	A, B           *Report
	LabelA, LabelB string
	Rows           []comparedRow
	OnlyA, OnlyB   int // rows measured on one side only
}

// comparedRow is one row both reports measured.
type comparedRow struct {
	Name             string
	A, B             *Result
	SumA, SumB       benchmath.Summary
	Cmp              benchmath.Comparison
	SpeedA, SpeedB   float64 // seq time / row time on each side; NaN without a seq row
	SeqA, SeqB       *Result
	Significant      bool
	Ratio            float64 // median B / median A
	WorkloadAndParam string
}

// Compare matches b's rows to a's by benchmark name.
func Compare(a, b *Report, labelA, labelB string) *Comparison {
	c := &Comparison{A: a, B: b, LabelA: labelA, LabelB: labelB}
	byName := map[string]*Result{}
	for _, res := range b.Results {
		byName[res.Case.FullName()] = res
	}
	matched := map[string]bool{}
	th := benchmath.DefaultThresholds
	for _, ra := range a.Results {
		name := ra.Case.FullName()
		rb, ok := byName[name]
		if !ok || len(ra.NsPerOp) == 0 || len(rb.NsPerOp) == 0 {
			c.OnlyA++
			continue
		}
		matched[name] = true
		sa, sb := benchmath.NewSample(ra.NsPerOp, &th), benchmath.NewSample(rb.NsPerOp, &th)
		row := comparedRow{
			Name: name, A: ra, B: rb,
			SumA:  benchmath.AssumeNothing.Summary(sa, compareConfidence),
			SumB:  benchmath.AssumeNothing.Summary(sb, compareConfidence),
			Cmp:   benchmath.AssumeNothing.Compare(sa, sb),
			Ratio: median(rb.NsPerOp) / median(ra.NsPerOp),
		}
		row.Significant = row.Cmp.P < row.Cmp.Alpha
		row.SpeedA, row.SpeedB = speedup(a, ra), speedup(b, rb)
		c.Rows = append(c.Rows, row)
	}
	for _, rb := range b.Results {
		if !matched[rb.Case.FullName()] {
			c.OnlyB++
		}
	}
	return c
}

// speedup is the row's sequential time over its own, NaN without a seq row.
func speedup(r *Report, res *Result) float64 {
	seq := r.find(res.Case.Workload, res.Case.Params, "seq", 1, "")
	if seq == nil || len(res.NsPerOp) == 0 {
		return math.NaN()
	}
	return median(seq.NsPerOp) / median(res.NsPerOp)
}

// table renders the comparison.
func (c *Comparison) table() table {
	t := table{
		title: fmt.Sprintf("compare: %s (A) vs %s (B)", c.LabelA, c.LabelB),
		notes: []string{
			"A: " + c.A.Machine.String(),
			"B: " + c.B.Machine.String(),
			fmt.Sprintf("medians with their %.0f%% confidence interval and B/A with the p-value of a Mann-Whitney U test (golang.org/x/perf/benchmath, as benchstat); ~ = no significant difference", 100*compareConfidence),
			"speedup = the row's sequential time / its time, on its own machine: the figure that compares across machines",
			"an interval needs at least 6 repetitions a row (-count 6; ∞ below), a significant p at least 4 on each side",
			fmt.Sprintf("%d rows compared; %d only in A, %d only in B", len(c.Rows), c.OnlyA, c.OnlyB),
		},
		header: []string{"row", "A ns/op", "±", "B ns/op", "±", "B/A", "p", "A speedup", "B speedup"},
	}
	for _, r := range c.Rows {
		ratio := fmtRatio(r.Ratio)
		if !r.Significant {
			ratio = "~ " + ratio
		}
		t.rows = append(t.rows, []string{
			r.Name, fmtNs(r.SumA.Center), r.SumA.PctRangeString(), fmtNs(r.SumB.Center), r.SumB.PctRangeString(),
			ratio, r.Cmp.String(), fmtRatio(r.SpeedA), fmtRatio(r.SpeedB),
		})
	}
	return t
}

// WriteText prints the comparison as an aligned table.
func (c *Comparison) WriteText(w io.Writer) error {
	t := c.table()
	fmt.Fprintf(w, "== %s\n", t.title)
	for _, n := range t.notes {
		fmt.Fprintf(w, "   %s\n", n)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\t\n", strings.Join(t.header, "\t"))
	for _, row := range t.rows {
		fmt.Fprintf(tw, "%s\t\n", strings.Join(row, "\t"))
	}
	return tw.Flush()
}

// WriteMarkdown prints the comparison as a Markdown table.
func (c *Comparison) WriteMarkdown(w io.Writer) error {
	return writeMarkdownTables(w, []table{c.table()})
}
