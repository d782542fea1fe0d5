package blitz

import (
	"fmt"
	"testing"

	"github.com/blitz-go/blitz/topology"
)

// BenchmarkPlacement compares the topology's tiered steal order with one
// flat tier (uniform random victims), pinned by compact placement or left
// to the OS (policy=none keeps the tiers computed for compact CPUs, without
// pinning), at 2 workers, on fib (a join at every level) and a parallel
// loop. steals/op and retries/op come from Stats (a steal attempt that
// finds every victim empty is not counted anywhere, so a hit rate per
// attempt is not available; steals/op is the rate that matters to run time).
// Each row runs on a new pool (pool=fresh) and on a long-lived one
// (pool=warm: warmFib's fork-join work of several sizes first).
//
// On a machine whose two workers share one tier (the 2-vCPU development VM:
// each worker's only victim is the other) tiered and flat are the same order
// and any difference is noise; the comparison means something on a machine
// where compact placement puts 2 workers on SMT siblings with farther cores
// behind them (run with -cpu and WithWorkers raised there).
func BenchmarkPlacement(b *testing.B) {
	const workers = 2
	topo := topology.Detect()
	compact, err := topo.Place(workers, topology.PolicyCompact)
	if err != nil {
		b.Fatal(err)
	}
	orders := []struct {
		name  string
		tiers [][][]int
	}{{"tiered", topo.StealTiers(compact.CPUs)}, {"flat", flatTiers(workers)}}
	policies := []topology.Policy{topology.PolicyCompact, topology.PolicyNone}
	buf := make([]float64, 1<<16)
	works := []struct {
		name string
		run  func(w *Worker)
	}{
		{"fib", func(w *Worker) { sink = fibArgs(w, 25) }},
		{"for", func(w *Worker) {
			forRange(w, 0, len(buf), 256, func(_ *Worker, lo, hi int) {
				for i := lo; i < hi; i++ {
					buf[i] = buf[i]*0.5 + float64(i)
				}
			})
		}},
	}
	for _, work := range works {
		for _, order := range orders {
			for _, pol := range policies {
				for _, warm := range []bool{false, true} {
					b.Run(fmt.Sprintf("work=%s/order=%s/policy=%v/pool=%s", work.name, order.name, pol, poolAge(warm)), func(b *testing.B) {
						p, err := New(WithWorkers(workers), WithStealTiers(order.tiers), WithPlacement(pol))
						if err != nil {
							b.Fatal(err)
						}
						defer p.Close()
						if warm {
							warmFib(p, warmUpRuns())
						}
						if pol != topology.PolicyNone {
							for _, wp := range p.Stats().Placement {
								if !wp.Pinned {
									b.Fatalf("not pinned: %v", wp)
								}
							}
						}
						b.ReportAllocs()
						var before, after Stats
						Do(p, func(w *Worker) int {
							work.run(w) // warm up
							before = p.Stats()
							for b.Loop() {
								work.run(w)
							}
							after = p.Stats()
							return 0
						})
						b.ReportMetric(float64(after.Steals-before.Steals)/float64(b.N), "steals/op")
						b.ReportMetric(float64(after.StealRetries-before.StealRetries)/float64(b.N), "retries/op")
					})
				}
			}
		}
	}
}

// poolAge names a benchmark's pool: fresh, or warm (a long-lived pool that
// ran warmFib's fork-join work of several sizes first).
func poolAge(warm bool) string {
	if warm {
		return "warm"
	}
	return "fresh"
}
