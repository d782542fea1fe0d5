package blitz_test

import (
	"context"
	"fmt"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

// A task may call into its own pool with the *Pool it was given (here a
// pool of one worker, the strictest case): the calls run on the task's own
// worker instead of waiting behind it in the queue.
func Example_callFromTask() {
	p, err := blitz.New(blitz.WithWorkers(1))
	if err != nil {
		panic(err)
	}
	defer p.Close()

	xs := make([]int, 100_000)
	for i := range xs {
		xs[i] = i % 10
	}
	g, ctx := blitz.NewGroup(context.Background(), p)
	sums := make([]int, 4)
	for i := range sums {
		g.Go(func(*blitz.Worker) error {
			sums[i] = par.Sum(p, xs) // the *Pool, not the task's *Worker: fine
			n, err := blitz.DoContext(ctx, p, func(*blitz.Worker) int { return i })
			sums[i] += n
			return err
		})
	}
	if err := g.Wait(); err != nil {
		panic(err)
	}
	fmt.Println(sums)
	// Output: [450000 450001 450002 450003]
}
