package blitz_test

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/blitz-go/blitz"
)

// fib forks at every level with JoinArgs: no closure, so no allocation.
func fib(w *blitz.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := blitz.JoinArgs(w, fib, n-1, fib, n-2)
	return a + b
}

func Example() {
	p, err := blitz.New()
	if err != nil {
		panic(err)
	}
	defer p.Close()
	fmt.Println(blitz.Do(p, func(w *blitz.Worker) int { return fib(w, 20) }))
	// Output: 6765
}

func ExampleNew() {
	p, err := blitz.New(blitz.WithWorkers(4), blitz.WithName("render"))
	if err != nil {
		panic(err)
	}
	defer p.Close()
	fmt.Println(p.Name(), p.Workers())

	_, err = blitz.New(blitz.WithWorkers(0))
	fmt.Println(err)
	// Output:
	// render 4
	// blitz: WithWorkers(0): the worker count must be between 1 and 65535
}

func ExampleJoinArgs() {
	p, _ := blitz.New(blitz.WithWorkers(2))
	defer p.Close()
	n := blitz.Do(p, func(w *blitz.Worker) int { return fib(w, 25) })
	fmt.Println(n)
	// Output: 75025
}

func ExampleJoin() {
	p, _ := blitz.New(blitz.WithWorkers(2))
	defer p.Close()
	words := []string{"fork", "join", "steal", "sleep"}
	blitz.Do(p, func(w *blitz.Worker) int {
		total, longest := blitz.Join(w,
			func(*blitz.Worker) int {
				n := 0
				for _, s := range words {
					n += len(s)
				}
				return n
			},
			func(*blitz.Worker) string {
				best := ""
				for _, s := range words {
					if len(s) > len(best) {
						best = s
					}
				}
				return best
			})
		fmt.Println(total, longest)
		return 0
	})
	// Output: 18 steal
}

func ExampleWorker_Scope() {
	p, _ := blitz.New(blitz.WithWorkers(2))
	defer p.Close()
	var files atomic.Int64
	p.Run(func(w *blitz.Worker) {
		w.Scope(func(s *blitz.Scope) {
			for dir := 0; dir < 3; dir++ {
				s.Spawn(func(w *blitz.Worker, s *blitz.Scope) {
					for f := 0; f < 4; f++ {
						// Tasks may spawn more tasks into the same scope.
						s.Spawn(func(*blitz.Worker, *blitz.Scope) { files.Add(1) })
					}
				})
			}
		})
		// Every task, nested ones included, has finished here.
		fmt.Println(files.Load())
	})
	// Output: 12
}

func ExamplePool_Go() {
	p, _ := blitz.New(blitz.WithWorkers(2))
	var wg sync.WaitGroup
	var done atomic.Int64
	for i := 0; i < 100; i++ {
		wg.Add(1)
		if err := p.Go(func(*blitz.Worker) { done.Add(1); wg.Done() }); err != nil {
			wg.Done()
		}
	}
	wg.Wait()
	p.Close()
	fmt.Println(done.Load(), p.Go(func(*blitz.Worker) {}))
	// Output: 100 blitz: pool is closed
}

func ExamplePool_Run() {
	p, _ := blitz.New(blitz.WithWorkers(2))
	defer p.Close()
	p.Run(func(w *blitz.Worker) {
		fmt.Println("on worker of", w.Pool().Name())
	})
	// Output: on worker of blitz
}

func ExampleDo() {
	p, _ := blitz.New(blitz.WithWorkers(2))
	defer p.Close()
	defer func() {
		// A panic in the task comes back to the caller, with its stack.
		pe := recover().(*blitz.PanicError)
		fmt.Println("recovered:", pe.Value)
	}()
	blitz.Do(p, func(*blitz.Worker) int { panic("bad input") })
	// Output: recovered: bad input
}

// Pools that call each other: Do from a task of another pool.
func ExampleDo_pools() {
	compute, _ := blitz.New(blitz.WithWorkers(1), blitz.WithName("compute"))
	defer compute.Close()
	io, _ := blitz.New(blitz.WithWorkers(1), blitz.WithName("io"))
	defer io.Close()
	// A task of io calls into compute; io's worker keeps serving io while it
	// waits, so compute can call back into io without deadlock.
	r := blitz.Do(io, func(*blitz.Worker) int {
		return blitz.Do(compute, func(cw *blitz.Worker) int {
			return fib(cw, 10) + blitz.Do(io, func(*blitz.Worker) int { return 1 })
		})
	})
	fmt.Println(r)
	// Output: 56
}

func ExampleWithPanicHandler() {
	got := make(chan any, 1)
	p, _ := blitz.New(blitz.WithWorkers(1), blitz.WithPanicHandler(func(v any, stack []byte) { got <- v }))
	defer p.Close()
	p.Go(func(*blitz.Worker) { panic("lost connection") })
	fmt.Println(<-got)
	// Output: lost connection
}

// A lock held around a fork-join is safe: while the holder waits for a
// stolen half, its worker runs only parts of that same fork-join, never the
// other tasks queued behind it that take the same lock.
func Example_mutexAroundJoin() {
	p, _ := blitz.New(blitz.WithWorkers(4))
	defer p.Close()

	var (
		mu    sync.Mutex
		table = map[int]int{} // guarded by mu
		wg    sync.WaitGroup
	)
	for n := 20; n < 24; n++ {
		wg.Add(2)
		// A writer computes under the lock, in parallel.
		_ = p.Go(func(w *blitz.Worker) {
			defer wg.Done()
			mu.Lock()
			defer mu.Unlock()
			table[n] = fib(w, n)
		})
		// A reader of the same table takes the same lock.
		_ = p.Go(func(*blitz.Worker) {
			defer wg.Done()
			mu.Lock()
			_ = len(table)
			mu.Unlock()
		})
	}
	wg.Wait()
	fmt.Println(table[20], table[23])
	// Output: 6765 28657
}
