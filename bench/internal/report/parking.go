package report

import (
	"fmt"

	"github.com/blitz-go/blitz/bench/internal/workload"
)

// The futex vs condvar section: the parking probes per backend, then each
// workload's pool rows per backend. It needs both backends in the run
// (-parking all, or a list naming futex and cond); a run without one of
// them gets one line saying how to get the section instead.

// parkingRun is how to run the report with every backend.
const parkingRun = "cd bench && go run . -parking all"

// backendName returns the -parking name of the run that resolved to the
// backend (the name itself first), or "".
func (r *Report) backendName(backend string) string {
	found := ""
	for _, name := range r.Parkings {
		got, ok := r.Resolved[name]
		if !ok {
			got = name // a report without the resolution: take the name at its word
		}
		if got != backend {
			continue
		}
		if name == backend {
			return name
		}
		if found == "" {
			found = name
		}
	}
	return found
}

// parkingTables is the futex vs condvar section, or its one line.
func (r *Report) parkingTables() []table {
	futex, cond := r.backendName("futex"), r.backendName("cond")
	if futex == "" || cond == "" {
		return []table{{title: fmt.Sprintf("futex vs condvar: not in this run, which parked with %s only; `%s` runs every backend and adds the section",
			r.parkingLine(), parkingRun)}}
	}
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
	w := r.maxWorkers()
	t := table{
		title: fmt.Sprintf("futex vs condvar: throughput per workload at %s", fmtWorkers(w)),
		notes: []string{"median time per op of the pool's rows per backend; the last column is the cond backend's speedup over the futex backend " +
			"(futex time / cond time): above 1, cond is faster"},
		header: append(append([]string{"workload", "impl"}, r.Parkings...),
			fmt.Sprintf("speedup of %s over %s", cond, futex)),
	}
	seen := map[string]bool{}
	for _, res := range r.Results {
		c := res.Case
		key := c.Workload + "/" + c.Params + "/" + c.Impl
		if c.Kind != workload.KindBlitz || c.Workers != w || c.Pool == workload.PoolWarm || c.Workload == workload.BlockingServer || seen[key] {
			continue
		}
		seen[key] = true
		row := []string{c.Workload + " " + c.Params, c.Impl}
		for _, p := range r.Parkings {
			cell := "-"
			if res := r.find(c.Workload, c.Params, c.Impl, w, p); res != nil {
				cell = fmtNs(median(res.NsPerOp))
			}
			row = append(row, cell)
		}
		ratio := "-"
		ra, rb := r.find(c.Workload, c.Params, c.Impl, w, futex), r.find(c.Workload, c.Params, c.Impl, w, cond)
		if ra != nil && rb != nil {
			ratio = fmtRatio(speedup(median(ra.NsPerOp), median(rb.NsPerOp)))
		}
		t.rows = append(t.rows, append(row, ratio))
	}
	return append(out, t)
}
