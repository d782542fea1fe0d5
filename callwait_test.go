package blitz

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The waits of a task on another pool (waitCall): the worker blocks and is
// replaced, so a caller resumes as soon as its call is done, whatever its
// pool ran meanwhile; a pool at its cap lends its worker instead.

// eachPoolRing runs f for every backend on n pools of one worker each, made
// with opts, closed under the watchdog.
func eachPoolRing(t *testing.T, n int, opts []Option, f func(t *testing.T, pools []*Pool)) {
	for _, k := range serverParkings() {
		t.Run(fmt.Sprint("parking=", k), func(t *testing.T) {
			defer verifyNone(t)
			pools := make([]*Pool, n)
			for i := range pools {
				p, err := New(append([]Option{WithParking(k), WithWorkers(1)}, opts...)...)
				require.NoError(t, err)
				pools[i] = p
			}
			defer within(t, "Close", func() {
				for _, p := range pools {
					assert.NoError(t, p.Close())
				}
			})
			f(t, pools)
		})
	}
}

// TestGroupsAcrossPoolsInACycle: pools of one worker in a cycle, each level
// a Group on its own pool with two tasks that each Do into the next pool,
// which does the same one level down, then Wait. With loans it hung at
// depth 6: a worker's goroutine whose call was done waited for the worker,
// lent to a goroutine that ran a sibling task waiting in a call of its own.
//
// Depth 8 also under -short. There, on ParkingSpin with GOMAXPROCS 1, a
// search that looks at the injector first (worker.go: findWork, in a pool
// grown past its sweep) left in half the runs every worker of a pool
// blocked in a call or waiting in Group.Wait while calls queued, and the
// monitor took the waiters' spinning parks for running goroutines: it
// added nobody (blocking.go: spinParked).
func TestGroupsAcrossPoolsInACycle(t *testing.T) {
	const depth = 8
	for _, n := range []int{2, 3} {
		t.Run(fmt.Sprint("pools=", n), func(t *testing.T) {
			eachPoolRing(t, n, nil, func(t *testing.T, pools []*Pool) {
				var leaves atomic.Int64
				var level func(i, d int)
				level = func(i, d int) {
					if d == 0 {
						leaves.Add(1)
						return
					}
					g, _ := NewGroup(context.Background(), pools[i])
					next := (i + 1) % n
					for range 2 {
						g.Go(func(*Worker) error {
							Do(pools[next], func(*Worker) struct{} { level(next, d-1); return struct{}{} })
							return nil
						})
					}
					assert.NoError(t, g.Wait())
				}
				within(t, "the groups", func() { level(0, depth) })
				assert.Equal(t, int64(1)<<depth, leaves.Load())
			})
		})
	}
}

// TestLockAcrossACallIntoAnotherPool: a task of p holds a lock across a call
// into q, which submits to p a task that takes the lock. The task waits for
// the lock on a worker of its own, the call returns, the caller releases the
// lock and the task runs; a storm of such callers does it at once. With a
// loan the task could run on the caller's lent worker, and the caller, its
// call done, would wait for the worker forever (TestDeadlockLockAcrossACall
// IntoAnotherPool shows that case, left to pools at their cap).
func TestLockAcrossACallIntoAnotherPool(t *testing.T) {
	callers := 8
	if testing.Short() {
		callers = 3
	}
	eachPoolRing(t, 2, nil, func(t *testing.T, pools []*Pool) {
		p, q := pools[0], pools[1]
		var ran atomic.Int64
		var wg sync.WaitGroup
		within(t, "the callers", func() {
			var callersWG sync.WaitGroup
			for range callers {
				callersWG.Add(1)
				go func() {
					defer callersWG.Done()
					var mu sync.Mutex
					Do(p, func(*Worker) struct{} {
						mu.Lock()
						defer mu.Unlock()
						return Do(q, func(*Worker) struct{} {
							wg.Add(1)
							require.NoError(t, p.Go(func(*Worker) {
								defer wg.Done()
								mu.Lock()
								ran.Add(1)
								mu.Unlock()
							}))
							return struct{}{}
						})
					})
				}()
			}
			callersWG.Wait()
			wg.Wait()
		})
		assert.Equal(t, int64(callers), ran.Load())
	})
}

// TestBoundedPoolsSubmittingToEachOther: two pools of one worker with a
// queue of one, whose tasks each submit a task to the other with Go, which
// waits for room: each waiting worker is replaced, as in a call, so the
// queues drain. Tasks of the same pool are let in over the bound; these
// come from the other pool.
func TestBoundedPoolsSubmittingToEachOther(t *testing.T) {
	rounds := 64
	if testing.Short() {
		rounds = 16
	}
	eachPoolRing(t, 2, []Option{WithCapacity(1)}, func(t *testing.T, pools []*Pool) {
		var ran atomic.Int64
		var wg sync.WaitGroup
		var bounce func(i, left int) func(*Worker)
		bounce = func(i, left int) func(*Worker) {
			return func(*Worker) {
				defer wg.Done()
				ran.Add(1)
				if left == 0 {
					return
				}
				wg.Add(1)
				assert.NoError(t, pools[1-i].Go(bounce(1-i, left-1)))
			}
		}
		within(t, "the bouncing tasks", func() {
			for r := range rounds {
				wg.Add(1)
				require.NoError(t, pools[r%2].Go(bounce(r%2, 8)))
			}
			wg.Wait()
		})
		assert.Equal(t, int64(rounds*9), ran.Load())
	})
}

// TestCallFromAGroupTaskWaitsWithin: Group.Wait from a call that a task of
// the group made into another pool panics (the task waits for the call),
// as it would run inline.
func TestCallFromAGroupTaskWaitsWithin(t *testing.T) {
	const msg = "blitz: Group.Wait: called from a task of the same group, which would wait for itself"
	eachPoolRing(t, 2, nil, func(t *testing.T, pools []*Pool) {
		g, _ := NewGroup(context.Background(), pools[0])
		g.Go(func(*Worker) error {
			return Do(pools[1], func(*Worker) error { return g.Wait() })
		})
		var v any
		within(t, "Wait", func() { v = catchPanic(func() { _ = g.Wait() }) })
		pe, ok := v.(*PanicError)
		require.True(t, ok, "Wait panicked with %v (%T), want a *PanicError", v, v)
		assert.Equal(t, msg, pe.Value)
	})
}
