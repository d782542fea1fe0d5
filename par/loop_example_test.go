package par_test

import (
	"context"
	"fmt"
	"time"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

func ExampleFor() {
	p, _ := blitz.New(blitz.WithWorkers(2))
	defer p.Close()
	squares := make([]int, 10)
	p.Run(func(w *blitz.Worker) {
		par.For(w, 0, len(squares), 0, func(_ *blitz.Worker, lo, hi int) {
			for i := lo; i < hi; i++ {
				squares[i] = i * i
			}
		})
	})
	fmt.Println(squares)
	// Output: [0 1 4 9 16 25 36 49 64 81]
}

func ExampleMapReduce() {
	p, _ := blitz.New(blitz.WithWorkers(2))
	defer p.Close()
	sum := blitz.Do(p, func(w *blitz.Worker) int {
		return par.MapReduce(w, 1, 101, 16, 0,
			func(_ *blitz.Worker, lo, hi int) int {
				s := 0
				for i := lo; i < hi; i++ {
					s += i
				}
				return s
			},
			func(a, b int) int { return a + b })
	})
	fmt.Println(sum)
	// Output: 5050
}

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
