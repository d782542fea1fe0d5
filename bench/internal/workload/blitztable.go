package workload

import "fmt"

// Blitz's table: every row of NerdMeNot/blitz's BENCHMARKS.md with its
// definition (its Rayon program), measured here on the pool and its
// data-parallel layer against Go's sequential code and the best plain-Go
// parallel version in the same run. The speedup over sequential is the
// figure that compares across machines and languages.

// BlitzRow maps one row of Blitz's table to the rows of this suite that
// measure it.
type BlitzRow struct {
	Label            string // Blitz's name for the row, at this suite's size
	Workload, Params string // the rows of this suite: the sequential baseline, the peers, the pool's
	Impl             string // the pool's impl the row quotes
	// Published is Blitz's own speedup over sequential (Zig, 10 workers on
	// an Apple M3 Pro) for the rows its table gives both times of, at
	// Blitz's sizes; 0 if none or at other sizes.
	Published float64
}

// BlitzRows lists Blitz's rows in its order, at the sizes s.
func BlitzRows(s Sizes) []BlitzRow {
	var out []BlitzRow
	for _, d := range s.ForkJoin {
		out = append(out, BlitzRow{fmt.Sprintf("Fork-Join (depth=%d)", d), "fork-join", fmt.Sprintf("depth=%d", d), "blitz-args", 0})
	}
	published := map[int]float64{35: 25.61 / 4.02, 40: 277.93 / 38.89}
	for _, n := range s.FibTable {
		out = append(out, BlitzRow{fmt.Sprintf("fib(%d) parallel vs sequential", n), "fib", fmt.Sprintf("n=%d", n), "blitz-args-cutoff", published[n]})
	}
	var sumPub float64
	if s.SumN == 10_000_000 {
		sumPub = 7.89 / 1.62
	}
	out = append(out, BlitzRow{fmt.Sprintf("Parallel vs sequential sum (%s)", sizeLabel(s.SumN)), "sum", fmt.Sprintf("n=%d", s.SumN), "blitz-sum", sumPub})
	for _, shape := range sortShapes {
		out = append(out, BlitzRow{fmt.Sprintf("Sort %s (%s)", sizeLabel(s.TableSortN), shape), "sort-f64", fmt.Sprintf("input=%s/n=%s", shape, sizeLabel(s.TableSortN)), "blitz", 0})
	}
	n := sizeLabel(s.TableN)
	for _, op := range []struct{ label, name string }{
		{"find (early exit)", "find-early"}, {"position (early)", "position-early"}, {"position (middle)", "position-middle"},
		{"any (early exit)", "any-early"}, {"any (full scan)", "any-full"}, {"all (pass)", "all-pass"},
	} {
		out = append(out, BlitzRow{op.label, "search", fmt.Sprintf("op=%s/n=%s", op.name, n), "blitz", 0})
	}
	out = append(out,
		BlitzRow{fmt.Sprintf("minByKey (%s)", n), "by-key", fmt.Sprintf("op=min-by-key/n=%s", n), "blitz", 0},
		BlitzRow{fmt.Sprintf("maxByKey (%s)", n), "by-key", fmt.Sprintf("op=max-by-key/n=%s", n), "blitz", 0},
		BlitzRow{fmt.Sprintf("chunks(%d) + sum", s.ChunkLen), "chunks-sum", fmt.Sprintf("chunk=%d/n=%s", s.ChunkLen, n), "blitz", 0},
		BlitzRow{"enumerate + forEach", "enumerate", "n=" + n, "blitz", 0},
		BlitzRow{fmt.Sprintf("chain(2x%s) + sum", sizeLabel(s.ChainN)), "chain-sum", "n=2x" + sizeLabel(s.ChainN), "blitz", 0},
		BlitzRow{"zip + dot product", "zip-dot", "n=" + sizeLabel(s.ChainN), "blitz", 0},
		BlitzRow{fmt.Sprintf("flatten(%dx%s) + sum", s.FlattenOut, sizeLabel(s.FlattenIn)), "flatten-sum",
			fmt.Sprintf("n=%dx%s", s.FlattenOut, sizeLabel(s.FlattenIn)), "blitz", 0},
	)
	return out
}
