package blitz_test

import (
	"fmt"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
	"github.com/blitz-go/blitz/topology"
)

// A pool pinned by compact placement: neighbouring workers share caches and
// steal from each other first. Stats.Placement says where each worker runs
// (for example "worker 1: cpu 8 pinned"), or why it could not be pinned.
func ExampleWithPlacement() {
	p, err := blitz.New(blitz.WithWorkers(2), blitz.WithPlacement(topology.PolicyCompact))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	sum := blitz.Do(p, func(w *blitz.Worker) int {
		return par.MapReduce(w, 0, 1000, 100, 0,
			func(_ *blitz.Worker, lo, hi int) int {
				s := 0
				for i := lo; i < hi; i++ {
					s += i
				}
				return s
			},
			func(a, b int) int { return a + b })
	})
	fmt.Println(sum, len(p.Stats().Placement))
	// Output: 499500 2
}
