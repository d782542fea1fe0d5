package blitz

import (
	"fmt"
	"testing"
)

// BenchmarkCallIntoAnotherPool times a call from a task of pool a (two
// workers) into pool b (two workers): an empty function, and a fork-join
// (fib 15) in b, with the caller's worker blocked and replaced (block) or
// lent to a goroutine that serves a meanwhile (lend), on a fresh pair of
// pools and on a long-lived one (after a burst of other calls). ns/op is
// per call.
func BenchmarkCallIntoAnotherPool(b *testing.B) {
	for _, mode := range []string{"block", "lend"} {
		for _, work := range []string{"empty", "fib15"} {
			for _, life := range []string{"fresh", "long-lived"} {
				b.Run(fmt.Sprintf("mode=%s/work=%s/pool=%s", mode, work, life), func(b *testing.B) {
					lendCalls.Store(mode == "lend")
					defer lendCalls.Store(false)
					a, err := New(WithWorkers(2))
					if err != nil {
						b.Fatal(err)
					}
					defer a.Close()
					c, err := New(WithWorkers(2))
					if err != nil {
						b.Fatal(err)
					}
					defer c.Close()
					fn := func(*Worker) int { return 1 }
					if work == "fib15" {
						fn = func(w *Worker) int { return fibJoin(w, 15) }
					}
					if life == "long-lived" {
						a.Run(func(w *Worker) {
							for range 2000 {
								Do(c, fn)
							}
						})
					}
					b.ResetTimer()
					a.Run(func(w *Worker) {
						for range b.N {
							Do(c, fn)
						}
					})
				})
			}
		}
	}
}
