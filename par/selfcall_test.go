package par

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// layerSelfCalls calls the package's functions with the *Pool p from a task
// of p, and returns an error naming the first whose result is wrong.
func layerSelfCalls(ctx context.Context, p *blitz.Pool, s []int, want int) error {
	if v := Sum(p, s); v != want {
		return fmt.Errorf("Sum = %d, want %d", v, want)
	}
	if i := IndexFunc(p, s, func(x int) bool { return x == 999 }); i != 999 {
		return fmt.Errorf("IndexFunc = %d", i)
	}
	if !ContainsFunc(p, s, func(x int) bool { return x == 998 }) {
		return fmt.Errorf("ContainsFunc found nothing")
	}
	var covered atomic.Int64
	For(p, 0, len(s), 0, func(_ *blitz.Worker, lo, hi int) { covered.Add(int64(hi - lo)) })
	if err := ForContext(ctx, p, 0, len(s), 1024, func(_ *blitz.Worker, lo, hi int) { covered.Add(int64(hi - lo)) }); err != nil || covered.Load() != 2*int64(len(s)) {
		return fmt.Errorf("For and ForContext covered %d of %d: %v", covered.Load(), 2*len(s), err)
	}
	sum, err := MapReduceContext(ctx, p, 0, len(s), 1024, 0, func(_ *blitz.Worker, lo, hi int) int {
		t := 0
		for _, x := range s[lo:hi] {
			t += x
		}
		return t
	}, func(a, b int) int { return a + b })
	if err != nil || sum != want {
		return fmt.Errorf("MapReduceContext = %d, %v; want %d", sum, err, want)
	}
	sorted := append([]int(nil), s[:8192]...)
	SortFunc(p, sorted, func(a, b int) int { return b - a })
	if !IsSortedFunc(p, sorted, func(a, b int) int { return b - a }) {
		return fmt.Errorf("SortFunc did not sort")
	}
	SortStableFunc(p, sorted, func(a, b int) int { return a - b })
	if !IsSorted(p, sorted) {
		return fmt.Errorf("SortStableFunc did not sort")
	}
	dst := make([]int, len(s))
	if total := InclusiveScan(p, dst, s, 0, func(a, b int) int { return a + b }); total != want {
		return fmt.Errorf("InclusiveScan = %d, want %d", total, want)
	}
	n := 0
	var mu sync.Mutex
	ForEachSeq(p, func(yield func(int) bool) {
		for i := range 1000 {
			if !yield(i) {
				return
			}
		}
	}, func(int) { mu.Lock(); n++; mu.Unlock() })
	if n != 1000 {
		return fmt.Errorf("ForEachSeq saw %d of 1000", n)
	}
	return nil
}

// TestSelfCallLayer gives the *Pool, not the task's *Worker, to the
// package's functions from tasks that hold every worker of the pool (twice
// as many tasks as workers), on every backend at 1, 2 and 8 workers, while
// goroutines outside the pool keep calling Sum on it: every call runs on
// the calling task's worker, never queued behind it, and every result is
// checked. Before calls from a task ran on its worker this hung.
func TestSelfCallLayer(t *testing.T) {
	n := 1 << 18
	if testing.Short() {
		n = 1 << 14
	}
	s := make([]int, n)
	want := 0
	for i := range s {
		s[i] = i % 1000
		want += s[i]
	}
	eachConfig(t, func(t *testing.T, p *blitz.Pool) {
		ctx := context.Background()
		tasks := 2 * p.Workers()
		errs := make(chan error, tasks+2)
		stop := make(chan struct{})
		var outside sync.WaitGroup
		var outsideCalls atomic.Int64
		for range 2 {
			outside.Add(1)
			go func() {
				defer outside.Done()
				for k := 0; ; k++ {
					select {
					case <-stop:
						if k > 0 {
							return
						}
					default:
					}
					if v := Sum(p, s); v != want {
						errs <- fmt.Errorf("outside Sum = %d, want %d", v, want)
						return
					}
					outsideCalls.Add(1)
				}
			}()
		}
		within(t, "layer self-calls from every worker", func() {
			var wg sync.WaitGroup
			for range tasks {
				wg.Add(1)
				require.NoError(t, p.Go(func(*blitz.Worker) {
					defer wg.Done()
					if err := layerSelfCalls(ctx, p, s, want); err != nil {
						errs <- err
					}
				}))
			}
			wg.Wait()
			close(stop)
			outside.Wait()
		})
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		assert.Positive(t, outsideCalls.Load(), "no outside call ran beside the self-calls")
	})
}
