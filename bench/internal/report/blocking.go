package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/blitz-go/blitz/bench/internal/workload"
)

// The blocking section (issue 32): tasks that block, the pool beside the
// peers. Batches of sleeping tasks and of tasks waiting on later tasks are
// compared with goroutines and a WaitGroup (go-wg), the goal being the pool
// within 1.2x of them; the open-loop server is compared by latency
// percentiles, the goal being the pool's p99 at or below the best peer's at
// every load, and the pool's request forking its CPU part inside the task
// within 1.2x of its p99 without the fork at 95% load, every request served.
// A row stopped at its guard's deadline shows as timed out.

// Goals of the blocking section.
const (
	blockingWithin = 1.2 // the pool's batch time at most this times go-wg's; the fork's p99 at most this times the unforked one's
	forkLoad       = 95  // the load of the fork comparison
)

// blockingTables is the blocking section: a table per batch size, then
// the server's rows and its side-by-side p99 table.
func (r *Report) blockingTables() []table {
	var out []table
	var server *group
	for _, g := range r.groups() {
		switch g.workload {
		case workload.BlockingSleep, workload.BlockingWait:
			out = append(out, r.batchTable(g))
		case workload.BlockingServer:
			if server == nil {
				server = &group{workload: g.workload}
			}
			server.rows = append(server.rows, g.rows...)
		}
	}
	if server != nil {
		out = append(out, r.serverTable(server), r.serverSideBySide(server))
	}
	return out
}

// timedOut is what a row stopped at its deadline shows in its cells, and
// the note under the table's title that says why.
const timedOut = "TIMED OUT"

func timedOutNote(r *Report, res *Result) string {
	name := res.Case.Label()
	if r.showParking() && res.Case.Parking != "" {
		name += " (" + res.Case.Parking + ")"
	}
	if res.Case.Workload == workload.BlockingServer {
		name += " at " + loadLabel(res.Case.Params)
	}
	return fmt.Sprintf("%s timed out: %s", name, res.TimedOut)
}

// baselineRow is the go-wg row of a batch group, or nil.
func (g *group) baselineRow() *Result {
	for _, res := range g.rows {
		if res.Case.Impl == workload.BlockingBaseline && len(res.NsPerOp) > 0 {
			return res
		}
	}
	return nil
}

// batchTable is the table of one batch workload at one size.
func (r *Report) batchTable(g *group) table {
	t := table{title: fmt.Sprintf("blocking: %s %s", g.workload, g.params)}
	t.notes = append(t.notes, workload.Note(g.workload, r.Sizes))
	base, best := g.baselineRow(), g.bestPeer()
	if base != nil {
		t.notes = append(t.notes, fmt.Sprintf("baseline = %s (goroutines and a WaitGroup, %s/op); goal: the pool within %.1fx of it (a speedup of at least %s)",
			base.Case.Impl, fmtNs(median(base.NsPerOp)), blockingWithin, fmtRatio(1/blockingWithin)))
	}
	if best != nil {
		t.notes = append(t.notes, fmt.Sprintf("best peer = %s (%s/op), the fastest of the peer rows", best.Case.Impl, fmtNs(median(best.NsPerOp))))
	}
	t.header = []string{"impl", "workers"}
	if r.showParking() {
		t.header = append(t.header, "parking")
	}
	t.header = append(t.header, "time/op", "±", "ns/task", "allocs/op", "speedup over "+workload.BlockingBaseline, "speedup over best peer", "runs")
	for _, res := range g.rows {
		c := res.Case
		row := []string{c.Label(), fmt.Sprint(c.Workers)}
		if r.showParking() {
			row = append(row, dash(c.Parking))
		}
		switch {
		case res.Err != "":
			t.rows = append(t.rows, append(row, "FAILED: "+res.Err))
			continue
		case res.TimedOut != "":
			t.rows = append(t.rows, append(row, timedOut))
			t.notes = append(t.notes, timedOutNote(r, res))
			continue
		case len(res.NsPerOp) == 0:
			continue
		}
		ns := median(res.NsPerOp)
		vsBase, vsBest := "-", "-"
		if base != nil {
			vsBase = fmtRatio(speedup(median(base.NsPerOp), ns))
		}
		if best != nil {
			vsBest = fmtRatio(speedup(median(best.NsPerOp), ns))
		}
		t.rows = append(t.rows, append(row, fmtNs(ns), fmtCI(res.NsPerOp), fmtNum(ns/c.PerOp), fmtNum(median(res.Allocs)),
			vsBase, vsBest, fmt.Sprint(len(res.NsPerOp))))
	}
	return t
}

// extra is the median of a row's metric of that unit (NaN without one).
func (res *Result) extra(unit string) float64 {
	if unit == res.Case.Unit && len(res.Metric) > 0 {
		return median(res.Metric)
	}
	return median(res.Extra[unit])
}

// fmtPercentile writes a latency percentile q (0.99) of a server row:
// marked "≥" when the row served less than that share, so the percentile
// falls among the unserved requests and is a lower bound.
func fmtPercentile(res *Result, unit string, q float64) string {
	v := res.extra(unit)
	s := fmtNs(v)
	if served := res.extra(workload.MetricServed); !math.IsNaN(v) && served < 100*q {
		s = "≥" + s
	}
	return s
}

// serverLoads groups server rows by their load parameter, in row order.
func serverLoads(rows []*Result) (params []string, by map[string][]*Result) {
	by = map[string][]*Result{}
	for _, res := range rows {
		p := res.Case.Params
		if _, ok := by[p]; !ok {
			params = append(params, p)
		}
		by[p] = append(by[p], res)
	}
	return params, by
}

// bestServerPeer is the peer row with the lowest median p99 among rows,
// or nil.
func bestServerPeer(rows []*Result) *Result {
	var best *Result
	for _, res := range rows {
		if res.Case.Kind != workload.KindPeer || res.Err != "" || res.TimedOut != "" || len(res.Metric) == 0 {
			continue
		}
		if best == nil || res.extra(workload.MetricP99) < best.extra(workload.MetricP99) {
			best = res
		}
	}
	return best
}

// loadLabel writes a load parameter ("load=90") as "90%".
func loadLabel(params string) string { return strings.TrimPrefix(params, "load=") + "%" }

// serverTable lists every server row: percentiles, served share,
// completions per second, and the p99 speedup over the best peer at its
// load.
func (r *Report) serverTable(g *group) table {
	w := 0
	if len(g.rows) > 0 {
		w = g.rows[0].Case.Workers
	}
	t := table{title: fmt.Sprintf("blocking: server under open-loop load at %s", fmtWorkers(w))}
	t.notes = append(t.notes, workload.Note(g.workload, r.Sizes),
		"percentiles over every offered request (medians of the repetitions' percentiles), ± the p99's confidence interval; ≥ marks a percentile "+
			"beyond the served share, a lower bound; served = share of offered requests done by the deadline; done/s = completions during the window; "+
			"lag = the load generator's largest delay behind its schedule (the latencies count it)",
		"p99 speedup over best peer = the best peer's p99 at that load / this row's p99: above 1, a lower tail; goal: the pool's (blitz) at least 1.00x at every load")
	t.header = []string{"load", "offered/s", "impl"}
	if r.showParking() {
		t.header = append(t.header, "parking")
	}
	t.header = append(t.header, "p50", "p99", "±", "p99.9", "served", "done/s", "lag", "p99 speedup over best peer", "runs")
	params, by := serverLoads(g.rows)
	for _, p := range params {
		best := bestServerPeer(by[p])
		for _, res := range by[p] {
			c := res.Case
			row := []string{loadLabel(p), fmtNum(res.extra(workload.MetricOffered)), c.Label()}
			if r.showParking() {
				row = append(row, dash(c.Parking))
			}
			switch {
			case res.Err != "":
				t.rows = append(t.rows, append(row, "FAILED: "+res.Err))
				continue
			case res.TimedOut != "":
				t.rows = append(t.rows, append(row, timedOut))
				t.notes = append(t.notes, timedOutNote(r, res))
				continue
			case len(res.Metric) == 0:
				continue
			}
			vs := "-"
			if best != nil {
				vs = fmtRatio(speedup(best.extra(workload.MetricP99), res.extra(workload.MetricP99)))
			}
			t.rows = append(t.rows, append(row,
				fmtPercentile(res, workload.MetricP50, 0.5), fmtPercentile(res, workload.MetricP99, 0.99), fmtCI(res.Metric),
				fmtPercentile(res, workload.MetricP999, 0.999), fmtPct(res.extra(workload.MetricServed)),
				fmtNum(res.extra(workload.MetricDone)), fmtNs(res.extra(workload.MetricLag)), vs, fmt.Sprint(len(res.Metric))))
		}
	}
	return t
}

// serverSideBySide is the server's p99 per load (rows) and impl (columns).
func (r *Report) serverSideBySide(g *group) table {
	t := table{
		title: "blocking: server p99 by load, side by side",
		notes: []string{"median p99 latency per load and impl (≥: a lower bound, the impl served less than 99%)"},
	}
	var cols []string
	label := func(c workload.Case) string {
		if r.showParking() && c.Parking != "" {
			return c.Label() + " " + c.Parking
		}
		return c.Label()
	}
	for _, res := range g.rows {
		if l := label(res.Case); !slices.Contains(cols, l) {
			cols = append(cols, l)
		}
	}
	t.header = append([]string{"load", "offered/s"}, cols...)
	params, by := serverLoads(g.rows)
	for _, p := range params {
		cells := make([]string, len(cols))
		for i := range cells {
			cells[i] = "-"
		}
		offered := math.NaN()
		for _, res := range by[p] {
			i := slices.Index(cols, label(res.Case))
			switch {
			case res.Err != "":
				cells[i] = "FAILED"
			case res.TimedOut != "":
				cells[i] = timedOut
			case len(res.Metric) > 0:
				cells[i] = fmtPercentile(res, workload.MetricP99, 0.99)
				offered = res.extra(workload.MetricOffered)
			}
		}
		t.rows = append(t.rows, append([]string{loadLabel(p), fmtNum(offered)}, cells...))
	}
	return t
}

// fmtPct writes a share in percent: "100%", "97.3%".
func fmtPct(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	if v >= 99.95 {
		return fmt.Sprintf("%.0f%%", v)
	}
	return fmt.Sprintf("%.1f%%", v)
}

// blockingTargets are the verdict's rows of the blocking section for one
// backend.
func (r *Report) blockingTargets(parking string) [][]string {
	var rows [][]string
	goal := fmt.Sprintf("at least %s (within %.1fx)", fmtRatio(1/blockingWithin), blockingWithin)
	for _, g := range r.groups() {
		switch g.workload {
		case workload.BlockingSleep, workload.BlockingWait:
			base := g.baselineRow()
			for _, res := range g.rows {
				c := res.Case
				if c.Kind != workload.KindBlitz || c.Parking != parking || res.Err != "" {
					continue
				}
				what := fmt.Sprintf("%s %s: %s speedup over %s", g.workload, g.params, c.Impl, workload.BlockingBaseline)
				switch {
				case res.TimedOut != "":
					rows = append(rows, targetRow(what, parking, goal, "timed out", false))
				case base != nil && len(res.NsPerOp) > 0:
					v := speedup(median(base.NsPerOp), median(res.NsPerOp))
					rows = append(rows, targetRow(what, parking, goal, fmtRatio(v), v >= 1/blockingWithin))
				}
			}
		case workload.BlockingServer:
			best := bestServerPeer(g.rows)
			var plain *Result
			for _, res := range g.rows {
				if res.Case.Impl == "blitz" && res.Case.Parking == parking {
					plain = res
				}
			}
			for _, res := range g.rows {
				c := res.Case
				if c.Kind != workload.KindBlitz || c.Parking != parking || res.Err != "" {
					continue
				}
				load := loadLabel(g.params)
				switch {
				case c.Impl == "blitz" && best != nil:
					what := fmt.Sprintf("server at %s load: p99 speedup over the best peer (%s)", load, best.Case.Impl)
					if res.TimedOut != "" || len(res.Metric) == 0 {
						rows = append(rows, targetRow(what, parking, "at least 1.00x", "timed out", false))
						continue
					}
					v := speedup(best.extra(workload.MetricP99), res.extra(workload.MetricP99))
					rows = append(rows, targetRow(what, parking, "at least 1.00x", fmtRatio(v), v >= 1))
				case c.Impl != "blitz" && g.params == fmt.Sprintf("load=%d", forkLoad) && plain != nil:
					what := fmt.Sprintf("server at %s load: %s p99, speedup over blitz (no fork), and served", load, c.Impl)
					fgoal := fmt.Sprintf("at least %s, 100%%", fmtRatio(1/blockingWithin))
					if res.TimedOut != "" || len(res.Metric) == 0 || len(plain.Metric) == 0 {
						rows = append(rows, targetRow(what, parking, fgoal, "timed out", false))
						continue
					}
					v := speedup(plain.extra(workload.MetricP99), res.extra(workload.MetricP99))
					served := res.extra(workload.MetricServed)
					rows = append(rows, targetRow(what, parking, fgoal, fmtRatio(v)+", "+fmtPct(served), v >= 1/blockingWithin && served >= 100))
				}
			}
		}
	}
	return rows
}
