package par_test

import (
	"context"
	"fmt"
	"time"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

func ExampleForContext() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out := make([]int, 1000)
	err := par.ForContext(ctx, blitz.Default(), 0, len(out), 100, func(_ *blitz.Worker, lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = i * i
		}
	})
	// nil: the context did not end, so every index was visited.
	fmt.Println(err, out[999])
	// Output: <nil> 998001
}

func ExampleMapReduceContext() {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // a request whose client has gone: nothing runs
	n, err := par.MapReduceContext(ctx, blitz.Default(), 0, 1_000_000, 0, 0,
		func(_ *blitz.Worker, lo, hi int) int { return hi - lo },
		func(a, b int) int { return a + b })
	fmt.Println(n, err)
	// Output: 0 context canceled
}
