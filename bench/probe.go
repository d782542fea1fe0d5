package main

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

// The parking probes measure what a backend costs around the work rather
// than on it: how long a task posted to an idle pool waits before it runs
// (its workers parked, or still in their yielding idle rounds), how much CPU
// idle workers burn (steady idle, and in the gaps between bursts of
// parallel work 1-20 ms apart, the shape of a server's load), and the
// context switches getrusage counts for each. They feed the report's
// "futex vs condvar" section; throughput on each workload comes from the
// rows themselves.

// ParkProbe is one backend's probe results.
type ParkProbe struct {
	Parking  string `json:"parking"`  // the -parking name
	Resolved string `json:"resolved"` // the backend it resolved to
	Workers  int    `json:"workers"`
	// WakeParkedNs are post-to-run latencies of tasks posted to a pool
	// whose workers had been idle for parkGap (parked, except spin);
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

// probeSizes are the sample counts of one probe.
type probeSizes struct {
	wakes    int           // tasks per wake latency distribution
	parkGap  time.Duration // idle time before each from-parked wake
	idle     time.Duration // steady idle window
	bursts   int           // bursts in the gap phase; gaps cycle 1..20 ms
	burstLen int           // float64 summed by each burst
}

func fullProbeSizes() probeSizes {
	return probeSizes{wakes: 300, parkGap: 2 * time.Millisecond, idle: 300 * time.Millisecond, bursts: 40, burstLen: 1 << 20}
}

func quickProbeSizes() probeSizes {
	return probeSizes{wakes: 10, parkGap: time.Millisecond, idle: 10 * time.Millisecond, bursts: 3, burstLen: 1 << 12}
}

// burstGap is the gap after burst i: 1, 2, ..., 20 ms, then again.
func burstGap(i int) time.Duration { return time.Duration(1+i%20) * time.Millisecond }

// runProbe measures one backend with a pool of workers workers.
func runProbe(parking string, workers int, sz probeSizes) ParkProbe {
	pr := ParkProbe{Parking: parking, Workers: workers}
	p, err := openPool(workers, parking)
	if err != nil {
		pr.Err = err.Error()
		return pr
	}
	defer p.Close()
	pr.Resolved = p.Parking().String()
	keep(blitz.Do(p, func(w *blitz.Worker) int { return fibArgs(w, 15) })) // start every worker

	var u0, u1 usage
	u0 = readUsage()
	pr.WakeParkedNs = wakeLatencies(p, sz.wakes, sz.parkGap)
	u1 = readUsage()
	pr.WakeParkedVCSW, pr.WakeParkedIVCSW = perUnit(u0, u1, float64(sz.wakes))

	u0 = readUsage()
	pr.WakeYieldNs = wakeLatencies(p, sz.wakes, 0)
	u1 = readUsage()
	pr.WakeYieldVCSW, pr.WakeYieldIVCSW = perUnit(u0, u1, float64(sz.wakes))

	time.Sleep(sz.parkGap) // let the workers go idle before the window opens
	u0 = readUsage()
	start := time.Now()
	time.Sleep(sz.idle)
	wall := time.Since(start)
	u1 = readUsage()
	pr.IdleCPU = float64(u1.cpu-u0.cpu) / float64(wall) // 0 without getrusage
	pr.IdleVCSW, pr.IdleIVCSW = perUnit(u0, u1, wall.Seconds())

	xs := sumInput(sz.burstLen)
	burst := func() { keep(par.Sum(p, xs)) }
	u0 = readUsage()
	for i := 0; i < sz.bursts; i++ {
		burst()
	}
	u1 = readUsage()
	backToBack := u1.cpu - u0.cpu
	var gaps time.Duration
	u0 = readUsage()
	for i := 0; i < sz.bursts; i++ {
		burst()
		g := time.Now()
		time.Sleep(burstGap(i))
		gaps += time.Since(g)
	}
	u1 = readUsage()
	pr.GapCPU = float64(u1.cpu-u0.cpu-backToBack) / float64(gaps)
	pr.GapVCSW, pr.GapIVCSW = perUnit(u0, u1, float64(sz.bursts))
	return pr
}

// wakeLatencies posts n tasks to p one at a time, each after the previous
// ran and gap passed, and returns their post-to-run latencies in ns.
func wakeLatencies(p *blitz.Pool, n int, gap time.Duration) []float64 {
	lat := make([]float64, 0, n)
	ran := make(chan time.Duration, 1)
	for i := 0; i < n; i++ {
		if gap > 0 {
			time.Sleep(gap)
		}
		posted := time.Now()
		if err := p.Go(func(*blitz.Worker) { ran <- time.Since(posted) }); err != nil {
			break
		}
		lat = append(lat, float64((<-ran).Nanoseconds()))
	}
	return lat
}

// perUnit divides the context switches between two usages by units; 0
// where getrusage does not exist (JSON has no NaN).
func perUnit(u0, u1 usage, units float64) (vcsw, ivcsw float64) {
	if !u0.ok || !u1.ok || units <= 0 {
		return 0, 0
	}
	return float64(u1.nvcsw-u0.nvcsw) / units, float64(u1.nivcsw-u0.nivcsw) / units
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
