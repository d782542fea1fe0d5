package runner

import (
	"time"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/bench/internal/report"
	"github.com/blitz-go/blitz/bench/internal/rusage"
	"github.com/blitz-go/blitz/bench/internal/workload"
	"github.com/blitz-go/blitz/par"
)

// The parking probes measure what a backend costs around the work rather
// than on it: how long a task posted to an idle pool waits before it runs
// (its workers parked, or still in their yielding idle rounds), how much CPU
// idle workers burn (steady idle, and in the gaps between bursts of
// parallel work 1-20 ms apart, the shape of a server's load), and the
// context switches getrusage counts for each. They feed the report's
// "futex vs condvar" section and compare's wake.png; throughput on each
// workload comes from the rows themselves.

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
func runProbe(parking string, workers int, sz probeSizes) report.Probe {
	pr := report.Probe{Parking: parking, Workers: workers}
	p, err := workload.OpenPool(workers, parking)
	if err != nil {
		pr.Err = err.Error()
		return pr
	}
	defer p.Close()
	pr.Resolved = p.Parking().String()
	sink(blitz.Do(p, func(w *blitz.Worker) int { return joins(w, 15) })) // start every worker

	var u0, u1 rusage.Usage
	u0 = rusage.Read()
	pr.WakeParkedNs = wakeLatencies(p, sz.wakes, sz.parkGap)
	u1 = rusage.Read()
	pr.WakeParkedVCSW, pr.WakeParkedIVCSW = perUnit(u0, u1, float64(sz.wakes))

	u0 = rusage.Read()
	pr.WakeYieldNs = wakeLatencies(p, sz.wakes, 0)
	u1 = rusage.Read()
	pr.WakeYieldVCSW, pr.WakeYieldIVCSW = perUnit(u0, u1, float64(sz.wakes))

	time.Sleep(sz.parkGap) // let the workers go idle before the window opens
	u0 = rusage.Read()
	start := time.Now()
	time.Sleep(sz.idle)
	wall := time.Since(start)
	u1 = rusage.Read()
	pr.IdleCPU = float64(u1.CPU-u0.CPU) / float64(wall) // 0 without getrusage
	pr.IdleVCSW, pr.IdleIVCSW = perUnit(u0, u1, wall.Seconds())

	xs := make([]float64, sz.burstLen)
	for i := range xs {
		xs[i] = float64(i % 1000)
	}
	burst := func() { sink(par.Sum(p, xs)) }
	u0 = rusage.Read()
	for i := 0; i < sz.bursts; i++ {
		burst()
	}
	u1 = rusage.Read()
	backToBack := u1.CPU - u0.CPU
	var gaps time.Duration
	u0 = rusage.Read()
	for i := 0; i < sz.bursts; i++ {
		burst()
		g := time.Now()
		time.Sleep(burstGap(i))
		gaps += time.Since(g)
	}
	u1 = rusage.Read()
	pr.GapCPU = float64(u1.CPU-u0.CPU-backToBack) / float64(gaps)
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
func perUnit(u0, u1 rusage.Usage, units float64) (vcsw, ivcsw float64) {
	if !u0.OK || !u1.OK || units <= 0 {
		return 0, 0
	}
	return float64(u1.VCSW-u0.VCSW) / units, float64(u1.IVCSW-u0.IVCSW) / units
}

// joins is fib(n) with a join at every level, to start every worker of a
// pool before its probes.
func joins(w *blitz.Worker, n int) int {
	if n < 2 {
		return n
	}
	x, y := blitz.JoinArgs(w, joins, n-1, joins, n-2)
	return x + y
}
