package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Blitz's table: every row of NerdMeNot/blitz's BENCHMARKS.md with its
// definition (its Rayon program), measured here on the pool and its
// data-parallel layer against Go's sequential code and the best plain-Go
// parallel version in the same run. The speedup over sequential is the
// figure that compares across machines and languages.

// blitzTableRow maps one row of Blitz's table to the rows of this suite.
type blitzTableRow struct {
	label            string
	workload, params string
	impl             string // the pool's impl the row quotes
	// published is Blitz's own speedup over sequential for the rows its
	// table gives both times of (Zig, 10 workers, Apple M3 Pro); 0 if none.
	published float64
}

// blitzTableRows lists Blitz's rows in its order, at the sizes s.
func blitzTableRows(s Sizes) []blitzTableRow {
	var out []blitzTableRow
	for _, d := range s.ForkJoin {
		out = append(out, blitzTableRow{fmt.Sprintf("Fork-Join (depth=%d)", d), "fork-join", fmt.Sprintf("depth=%d", d), "blitz-args", 0})
	}
	published := map[int]float64{35: 25.61 / 4.02, 40: 277.93 / 38.89}
	for _, n := range s.FibTable {
		out = append(out, blitzTableRow{fmt.Sprintf("fib(%d) parallel vs sequential", n), "fib", fmt.Sprintf("n=%d", n), "blitz-args-cutoff", published[n]})
	}
	var sumPub float64
	if s.SumN == 10_000_000 {
		sumPub = 7.89 / 1.62
	}
	out = append(out, blitzTableRow{fmt.Sprintf("Parallel vs sequential sum (%s)", sizeLabel(s.SumN)), "sum", fmt.Sprintf("n=%d", s.SumN), "blitz-sum", sumPub})
	for _, shape := range sortShapes {
		out = append(out, blitzTableRow{fmt.Sprintf("Sort %s (%s)", sizeLabel(s.TableSortN), shape), "sort-f64", fmt.Sprintf("input=%s/n=%s", shape, sizeLabel(s.TableSortN)), "blitz", 0})
	}
	n := sizeLabel(s.TableN)
	for _, op := range []struct{ label, name string }{
		{"find (early exit)", "find-early"}, {"position (early)", "position-early"}, {"position (middle)", "position-middle"},
		{"any (early exit)", "any-early"}, {"any (full scan)", "any-full"}, {"all (pass)", "all-pass"},
	} {
		out = append(out, blitzTableRow{op.label, "search", fmt.Sprintf("op=%s/n=%s", op.name, n), "blitz", 0})
	}
	out = append(out,
		blitzTableRow{fmt.Sprintf("minByKey (%s)", n), "by-key", fmt.Sprintf("op=min-by-key/n=%s", n), "blitz", 0},
		blitzTableRow{fmt.Sprintf("maxByKey (%s)", n), "by-key", fmt.Sprintf("op=max-by-key/n=%s", n), "blitz", 0},
		blitzTableRow{fmt.Sprintf("chunks(%d) + sum", s.ChunkLen), "chunks-sum", fmt.Sprintf("chunk=%d/n=%s", s.ChunkLen, n), "blitz", 0},
		blitzTableRow{"enumerate + forEach", "enumerate", "n=" + n, "blitz", 0},
		blitzTableRow{fmt.Sprintf("chain(2x%s) + sum", sizeLabel(s.ChainN)), "chain-sum", "n=2x" + sizeLabel(s.ChainN), "blitz", 0},
		blitzTableRow{"zip + dot product", "zip-dot", "n=" + sizeLabel(s.ChainN), "blitz", 0},
		blitzTableRow{fmt.Sprintf("flatten(%dx%s) + sum", s.FlattenOut, sizeLabel(s.FlattenIn)), "flatten-sum",
			fmt.Sprintf("n=%dx%s", s.FlattenOut, sizeLabel(s.FlattenIn)), "blitz", 0},
	)
	return out
}

// maxWorkers is the largest worker count of the run.
func (r *Report) maxWorkers() int { return slices.Max(r.Options.Workers) }

// bestPeerAt returns the fastest peer row of a workload and size at the
// given worker count, or nil.
func (r *Report) bestPeerAt(workload, params string, workers int) *Result {
	var best *Result
	for _, res := range r.Results {
		c := res.Case
		if c.Workload != workload || c.Params != params || c.Kind != KindPeer || c.Workers != workers || len(res.NsPerOp) == 0 {
			continue
		}
		if best == nil || median(res.NsPerOp) < median(best.NsPerOp) {
			best = res
		}
	}
	return best
}

// blitzTable is Blitz's table at the most workers: per row the sequential
// time, the best plain-Go version and the pool at each backend, with their
// speedups over sequential.
func (r *Report) blitzTable() table {
	w := r.maxWorkers()
	t := table{
		title: fmt.Sprintf("Blitz's table (NerdMeNot/blitz BENCHMARKS.md), %d workers", w),
		notes: []string{
			"rows and definitions of Blitz's table; speedup = seq time / impl time (above 1 is faster), same run",
			"best plain Go = the fastest of the goroutine + WaitGroup versions at the same GOMAXPROCS; blitz = the pool's join or its data-parallel layer",
			"Fork-Join rows are ns per fork (2^(depth+1)-1 per op, as in Blitz's table); the others time per op",
			"Blitz (Zig) = Blitz's own published speedup (10 workers, Apple M3 Pro) where its table gives both times",
			"find, position and any return any match, as Rayon's find_any and position_any: position (middle)'s match is where the first split starts the right half, so a parallel search finds it at once",
		},
		header: []string{"row", "seq", "best plain Go", "speedup"},
	}
	for _, p := range r.Options.Parkings {
		t.header = append(t.header, "blitz "+p, "speedup")
	}
	first := r.Options.Parkings[0]
	t.header = append(t.header, "vcsw/op ("+first+")", "ivcsw/op ("+first+")", "Blitz (Zig)")
	for _, br := range blitzTableRows(r.Sizes) {
		seq := r.find(br.workload, br.params, "seq", 1, "")
		if seq == nil {
			continue
		}
		perFork := br.workload == "fork-join"
		show := func(res *Result) string {
			if res == nil {
				return "-"
			}
			if perFork {
				return fmtNum(median(res.NsPerOp)/res.Case.PerOp) + "ns"
			}
			return fmtNs(median(res.NsPerOp))
		}
		speed := func(res *Result) string {
			if res == nil {
				return "-"
			}
			return fmtRatio(median(seq.NsPerOp) / median(res.NsPerOp))
		}
		peer := r.bestPeerAt(br.workload, br.params, w)
		peerCell := "-"
		if peer != nil {
			peerCell = fmt.Sprintf("%s (%s)", show(peer), peer.Case.Impl)
		}
		row := []string{br.label, show(seq), peerCell, speed(peer)}
		for _, p := range r.Options.Parkings {
			res := r.find(br.workload, br.params, br.impl, w, p)
			row = append(row, show(res), speed(res))
		}
		vcsw, ivcsw := "-", "-"
		if res := r.find(br.workload, br.params, br.impl, w, first); res != nil {
			vcsw, ivcsw = fmtNum(median(res.VCSW)), fmtNum(median(res.IVCSW))
		}
		pub := "-"
		if br.published > 0 {
			pub = fmtRatio(br.published)
		}
		t.rows = append(t.rows, append(row, vcsw, ivcsw, pub))
	}
	if r.PeakRSS > 0 {
		t.notes = append(t.notes, fmt.Sprintf("Peak Memory: %s RSS for the whole run; context switches over the rows: %d voluntary, %d involuntary (getrusage)",
			fmtBytesSI(r.PeakRSS), r.VCSW, r.IVCSW))
	}
	return t
}

// blitzTableVerdict counts, per backend, the rows of Blitz's table where
// the pool beats sequential code and where it beats the best plain-Go
// version.
func (r *Report) blitzTableVerdict() []string {
	w := r.maxWorkers()
	var out []string
	for _, p := range r.Options.Parkings {
		rows, beatSeq, beatGo := 0, 0, 0
		var lost []string
		for _, br := range blitzTableRows(r.Sizes) {
			seq, res := r.find(br.workload, br.params, "seq", 1, ""), r.find(br.workload, br.params, br.impl, w, p)
			if seq == nil || res == nil {
				continue
			}
			rows++
			if median(res.NsPerOp) < median(seq.NsPerOp) {
				beatSeq++
			}
			if peer := r.bestPeerAt(br.workload, br.params, w); peer == nil || median(res.NsPerOp) < median(peer.NsPerOp) {
				beatGo++
			} else {
				lost = append(lost, br.label)
			}
		}
		if rows == 0 {
			continue
		}
		line := fmt.Sprintf("Blitz's table at %d workers, parking %s: the pool is faster than sequential code on %d of %d rows and than the best plain-Go version on %d of %d",
			w, p, beatSeq, rows, beatGo, rows)
		if len(lost) > 0 {
			line += " (slower on: " + strings.Join(lost, "; ") + ")"
		}
		out = append(out, line)
	}
	return out
}

// parkingTables are the "futex vs condvar" section: the probes per backend,
// then each workload's pool rows at the most workers per backend.
func (r *Report) parkingTables() []table {
	var out []table
	if len(r.Probes) > 0 {
		t := table{
			title: "futex vs condvar: wake latency and idle cost",
			notes: []string{
				"wake = time from Go() to the task running, tasks posted one at a time; parked: after the workers idled a while, yielding: at once after the previous task ran",
				"idle CPU = process CPU per wall second with the pool idle (100% = one CPU); gap CPU = CPU burnt per second of the 1-20 ms gaps between bursts of par.Sum (bursts with gaps minus the same bursts back to back)",
				"context switches from getrusage, for the whole process",
			},
			header: []string{"parking", "workers", "parked p50", "parked p99", "vcsw/wake", "yielding p50", "yielding p99", "vcsw/wake",
				"idle CPU", "idle vcsw/s", "gap CPU", "vcsw/gap", "ivcsw/gap"},
		}
		for _, pr := range r.Probes {
			name := pr.Parking
			if pr.Resolved != "" && pr.Resolved != pr.Parking {
				name += " (= " + pr.Resolved + ")"
			}
			if pr.Err != "" {
				t.rows = append(t.rows, []string{name, fmt.Sprint(pr.Workers), "unavailable: " + pr.Err})
				continue
			}
			t.rows = append(t.rows, []string{name, fmt.Sprint(pr.Workers),
				fmtNs(quantile(pr.WakeParkedNs, 0.5)), fmtNs(quantile(pr.WakeParkedNs, 0.99)), fmtNum(pr.WakeParkedVCSW),
				fmtNs(quantile(pr.WakeYieldNs, 0.5)), fmtNs(quantile(pr.WakeYieldNs, 0.99)), fmtNum(pr.WakeYieldVCSW),
				fmtCPU(pr.IdleCPU), fmtNum(pr.IdleVCSW), fmtCPU(pr.GapCPU), fmtNum(pr.GapVCSW), fmtNum(pr.GapIVCSW)})
		}
		out = append(out, t)
	}
	if len(r.Options.Parkings) < 2 {
		return out
	}
	w := r.maxWorkers()
	t := table{
		title:  fmt.Sprintf("futex vs condvar: throughput per workload, %d workers", w),
		notes:  []string{"median ns/op of the pool's rows per backend; the last column is the second backend named over the first"},
		header: []string{"workload", "impl"},
	}
	ps := r.Options.Parkings
	a, b := ps[0], ps[1]
	if slices.Contains(ps, "futex") && slices.Contains(ps, "cond") {
		a, b = "futex", "cond"
	}
	t.header = append(t.header, ps...)
	t.header = append(t.header, b+" / "+a)
	seen := map[string]bool{}
	for _, res := range r.Results {
		c := res.Case
		key := c.Workload + "/" + c.Params + "/" + c.Impl
		if c.Kind != KindBlitz || c.Workers != w || c.Pool == poolWarm || seen[key] {
			continue
		}
		seen[key] = true
		row := []string{c.Workload + " " + c.Params, c.Impl}
		for _, p := range ps {
			cell := "-"
			if res := r.find(c.Workload, c.Params, c.Impl, w, p); res != nil {
				cell = fmtNs(median(res.NsPerOp))
			}
			row = append(row, cell)
		}
		ratio := "-"
		ra, rb := r.find(c.Workload, c.Params, c.Impl, w, a), r.find(c.Workload, c.Params, c.Impl, w, b)
		if ra != nil && rb != nil {
			ratio = fmtRatio(median(rb.NsPerOp) / median(ra.NsPerOp))
		}
		t.rows = append(t.rows, append(row, ratio))
	}
	return append(out, t)
}

// fmtBytesSI writes a byte count in MB (10^6), as Blitz's table does.
func fmtBytesSI(n int64) string {
	if n <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f MB", math.Round(float64(n)/1e5)/10)
}
