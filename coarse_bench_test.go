package blitz

import (
	"fmt"
	"testing"
)

// spinWork burns about n iterations of integer work, a leaf that neither
// allocates nor forks.
//
//go:noinline
func spinWork(n int) int {
	x := 1
	for i := 0; i < n; i++ {
		x = x*1664525 + 1013904223
	}
	return x
}

type coarseJob struct{ depth, work int }

// coarseTree is a complete tree of joins, depth levels deep, whose leaves
// each run spinWork(work): the shape where lazy offering can cost (offer.go),
// since a worker deep in the tree sees a request only at its next fork,
// after its current leaf.
func coarseTree(w *Worker, j coarseJob) int {
	if j.depth == 0 {
		return spinWork(j.work)
	}
	c := coarseJob{j.depth - 1, j.work}
	a, b := JoinArgs(w, coarseTree, c, coarseTree, c)
	return a + b
}

// BenchmarkCoarseLeaves runs coarse trees at 1 and 2 workers: 2^depth
// leaves of about 20 µs (work 20000, on the 2-vCPU machine) under 4 and 12
// levels of joins, so that the leaves sit above eagerDepth (offered at once)
// or below it (offered on request). The 1 -> 2 speedup of the deep tree
// against the shallow one's says what waiting for a fork costs when leaves
// are long. At 2 workers each row runs on a new pool (pool=fresh) and on a
// long-lived one (pool=warm: benchWarmPool).
func BenchmarkCoarseLeaves(b *testing.B) {
	const work = 20000
	warm := benchWarmPool(b, 2)
	for _, depth := range []int{4, 12} {
		leaves := 1 << depth
		run := func(b *testing.B, p *Pool) {
			Do(p, func(w *Worker) int {
				coarseTree(w, coarseJob{depth, work})
				for b.Loop() {
					// The same total work at both depths: 4096
					// leaves, as 256 trees of depth 4 or one of 12.
					for range 4096 / leaves {
						sink = coarseTree(w, coarseJob{depth, work})
					}
				}
				return 0
			})
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/4096, "ns/leaf")
		}
		for _, workers := range []int{1, 2} {
			name := fmt.Sprintf("depth=%d/workers=%d", depth, workers)
			fresh := func(b *testing.B) {
				p, err := New(WithWorkers(workers))
				if err != nil {
					b.Fatal(err)
				}
				defer p.Close()
				run(b, p)
			}
			if workers == 1 {
				b.Run(name, fresh)
				continue
			}
			b.Run(name+"/pool=fresh", fresh)
			b.Run(name+"/pool=warm", func(b *testing.B) { run(b, warm(b)) })
		}
	}
}
