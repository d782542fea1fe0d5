package blitz_test

import (
	"fmt"
	"strings"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

func ExampleJoin3() {
	text := "the pool runs the layer and the layer runs on the pool"
	// From outside a task, Do enters the pool and hands over a worker.
	summary := blitz.Do(blitz.Default(), func(w *blitz.Worker) string {
		words, lines, upper := blitz.Join3(w,
			func(*blitz.Worker) int { return len(strings.Fields(text)) },
			func(*blitz.Worker) int { return strings.Count(text, "\n") + 1 },
			func(*blitz.Worker) string { return strings.ToUpper(text[:8]) })
		return fmt.Sprintf("%d %d %s", words, lines, upper)
	})
	fmt.Println(summary)
	// Output: 12 1 THE POOL
}

func ExampleJoinAll() {
	parts := make([]int, 4)
	blitz.Default().Run(func(w *blitz.Worker) {
		blitz.JoinAll(w,
			func(*blitz.Worker) { parts[0] = 1 },
			func(*blitz.Worker) { parts[1] = 2 },
			func(w *blitz.Worker) { parts[2] = par.Sum(w, []int{1, 2}) }, // nested parallel work
			func(*blitz.Worker) { parts[3] = 4 },
		)
	})
	fmt.Println(parts)
	// Output: [1 2 3 4]
}
