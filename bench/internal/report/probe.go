package report

import (
	"fmt"
	"math"
	"slices"
)

// Probe is one parking backend's probe results: what the backend costs
// around the work rather than on it (package runner measures them).
type Probe struct {
	Parking  string `json:"parking"`  // the -parking name
	Resolved string `json:"resolved"` // the backend it resolved to
	Workers  int    `json:"workers"`
	// WakeParkedNs are post-to-run latencies of tasks posted to a pool
	// whose workers had been idle a while (parked, except spin);
	// WakeYieldNs of tasks posted as soon as the previous one ran (the
	// workers still in their idle rounds).
	WakeParkedNs []float64 `json:"wake_parked_ns"`
	WakeYieldNs  []float64 `json:"wake_yield_ns"`
	// VCSW and IVCSW per wake, voluntary and involuntary context switches
	// of the whole process divided by the tasks posted.
	WakeParkedVCSW  float64 `json:"wake_parked_vcsw"`
	WakeParkedIVCSW float64 `json:"wake_parked_ivcsw"`
	WakeYieldVCSW   float64 `json:"wake_yield_vcsw"`
	WakeYieldIVCSW  float64 `json:"wake_yield_ivcsw"`
	// IdleCPU is the process's CPU time per second of wall time with the
	// pool idle (1 = one CPU busy), IdleVCSW/IdleIVCSW the context
	// switches per second then.
	IdleCPU   float64 `json:"idle_cpu"`
	IdleVCSW  float64 `json:"idle_vcsw_per_s"`
	IdleIVCSW float64 `json:"idle_ivcsw_per_s"`
	// GapCPU is the CPU time burnt per second of gap between bursts: the
	// CPU time of bursts with gaps minus that of the same bursts back to
	// back, over the total gap time. GapVCSW/GapIVCSW are context switches
	// per gap.
	GapCPU   float64 `json:"gap_cpu"`
	GapVCSW  float64 `json:"gap_vcsw"`
	GapIVCSW float64 `json:"gap_ivcsw"`
	Err      string  `json:"error,omitempty"`
}

// quantile is the q-quantile of xs (nearest rank), NaN when empty.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// fmtCPU writes a CPU-time fraction as a percentage of one CPU.
func fmtCPU(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}
