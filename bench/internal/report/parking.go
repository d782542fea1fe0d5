package report

import (
	"fmt"
	"slices"

	"github.com/blitz-go/blitz/bench/internal/workload"
)

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
	if len(r.Parkings) < 2 {
		return out
	}
	w := r.maxWorkers()
	t := table{
		title:  fmt.Sprintf("futex vs condvar: throughput per workload, %d workers", w),
		notes:  []string{"median ns/op of the pool's rows per backend; the last column is the second backend named over the first"},
		header: []string{"workload", "impl"},
	}
	ps := r.Parkings
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
		if c.Kind != workload.KindBlitz || c.Workers != w || c.Pool == workload.PoolWarm || seen[key] {
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
