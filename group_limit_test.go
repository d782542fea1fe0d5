package blitz

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// peakGauge counts the tasks under way and keeps the most seen at once.
type peakGauge struct{ now, peak atomic.Int64 }

func (g *peakGauge) enter() int64 {
	n := g.now.Add(1)
	for {
		p := g.peak.Load()
		if n <= p || g.peak.CompareAndSwap(p, n) {
			return n
		}
	}
}

func (g *peakGauge) leave() { g.now.Add(-1) }

// TestGroupLimitStorm: with SetLimit(L), no more than L tasks of the group
// ever run at once, and L do (the first L hold until all L are in), under
// Go from several goroutines, TryGo and Go from the group's own tasks;
// every task given to Go runs exactly once, and every TryGo that returned
// nil too; a TryGo that refused returned ErrQueueFull.
func TestGroupLimitStorm(t *testing.T) {
	eachServer(t, []int{1, 2, 4}, nil, func(t *testing.T, p *Pool, workers int) {
		for _, limit := range []int{1, workers} {
			t.Run(fmt.Sprintf("limit=%d", limit), func(t *testing.T) {
				producers, each := 4, 200
				if testing.Short() {
					each = 40
				}
				g, _ := NewGroup(context.Background(), p)
				g.SetLimit(limit)
				var gauge peakGauge
				var ran, accepted, refused atomic.Int64
				full := make(chan struct{})
				var fullOnce sync.Once
				body := func(w *Worker) error {
					if gauge.enter() == int64(limit) {
						fullOnce.Do(func() { close(full) })
					}
					// The first tasks hold until the limit is reached, so
					// that the peak is the limit and not less.
					if ran.Load() < int64(limit) {
						<-full
					}
					ran.Add(1)
					gauge.leave()
					return nil
				}
				nested := func(w *Worker) error {
					g.Go(body) // from a task of the group: queued, never waits
					return body(w)
				}
				within(t, "storm", func() {
					var wg sync.WaitGroup
					for i := range producers {
						wg.Add(1)
						go func() {
							defer wg.Done()
							for j := range each {
								switch {
								case j%10 == 0:
									if err := g.TryGo(body); err == nil {
										accepted.Add(1)
									} else {
										assert.ErrorIs(t, err, ErrQueueFull)
										refused.Add(1)
									}
								case (i+j)%7 == 0:
									g.Go(nested)
									accepted.Add(2)
								default:
									g.Go(body)
									accepted.Add(1)
								}
							}
						}()
					}
					wg.Wait()
					require.NoError(t, g.Wait())
				})
				assert.LessOrEqual(t, gauge.peak.Load(), int64(limit), "more tasks under way than the limit")
				assert.Equal(t, int64(limit), gauge.peak.Load(), "the limit was never reached: the test checks nothing")
				assert.Equal(t, accepted.Load(), ran.Load(), "accepted tasks that did not run exactly once")
			})
		}
	})
}

// TestGroupTryGoRefuses: TryGo returns ErrQueueFull, and does not run fn,
// while every slot is taken, and nil once one is free again; a limit of 0
// refuses all, and SetLimit(-1) removes the limit. A refusal leaves the
// group as it was: Wait reports nothing of it.
func TestGroupTryGoRefuses(t *testing.T) {
	eachServer(t, []int{2}, nil, func(t *testing.T, p *Pool, _ int) {
		g, _ := NewGroup(context.Background(), p)
		g.SetLimit(1)
		started, release := make(chan struct{}), make(chan struct{})
		require.NoError(t, g.TryGo(func(*Worker) error { close(started); <-release; return nil }))
		<-started
		var ran atomic.Bool
		assert.ErrorIs(t, g.TryGo(func(*Worker) error { ran.Store(true); return nil }), ErrQueueFull)
		close(release)
		within(t, "Wait", func() { assert.NoError(t, g.Wait()) })
		assert.False(t, ran.Load())

		g, _ = NewGroup(context.Background(), p)
		g.SetLimit(0)
		assert.ErrorIs(t, g.TryGo(func(*Worker) error { return nil }), ErrQueueFull)
		g.SetLimit(-1)
		n := 0
		for range 100 {
			if g.TryGo(func(*Worker) error { return nil }) == nil {
				n++
			}
		}
		within(t, "Wait", func() { assert.NoError(t, g.Wait()) })
		assert.Equal(t, 100, n)
	})
}

// TestGroupSetLimitWhileRunning: the limit may change while tasks run;
// raising it admits the queued tasks at once (here from 0, where none
// started), and Go, which waited for a slot, returns.
func TestGroupSetLimitWhileRunning(t *testing.T) {
	eachServer(t, []int{1, 2}, nil, func(t *testing.T, p *Pool, _ int) {
		g, _ := NewGroup(context.Background(), p)
		g.SetLimit(0)
		var ran atomic.Int64
		returned := make(chan struct{})
		go func() {
			for range 5 {
				g.Go(func(*Worker) error { ran.Add(1); return nil })
			}
			close(returned)
		}()
		// The first Go waits for a slot; none can start.
		g.SetLimit(2)
		within(t, "Go after SetLimit", func() { <-returned })
		within(t, "Wait", func() { assert.NoError(t, g.Wait()) })
		assert.Equal(t, int64(5), ran.Load())
	})
}

// TestGroupLimitNestedNoDeadlock: on a pool of one worker, with a limit of
// 1, tasks of the pool that are not in the group and tasks of the group
// itself call Go (the slot is held by the caller, or by a task queued
// behind it) and Wait, and tasks of another pool of one worker call Go and
// wait for a slot whose holder calls back into their pool. All finish.
func TestGroupLimitNestedNoDeadlock(t *testing.T) {
	for _, k := range serverParkings() {
		t.Run(fmt.Sprint("parking=", k), func(t *testing.T) {
			withPool(t, []Option{WithParking(k), WithWorkers(1)}, func(p *Pool) {
				q, err := New(WithParking(k), WithWorkers(1))
				require.NoError(t, err)
				defer within(t, "Close q", func() { assert.NoError(t, q.Close()) })
				func() {
					depth := 6
					if testing.Short() {
						depth = 4
					}
					var ran atomic.Int64
					// A task of p makes a limited group and fills it from
					// its own tasks, recursively, then waits for it.
					var tree func(g *Group, d int) func(*Worker) error
					tree = func(g *Group, d int) func(*Worker) error {
						return func(w *Worker) error {
							ran.Add(1)
							if d > 0 {
								g.Go(tree(g, d-1))
								g.Go(tree(g, d-1))
							}
							return nil
						}
					}
					within(t, "nested", func() {
						err := Do(p, func(w *Worker) error {
							g, _ := NewGroup(context.Background(), w)
							g.SetLimit(1)
							// The slot goes to the first task, queued behind
							// this one on the only worker.
							g.Go(tree(g, depth))
							g.Go(tree(g, depth))
							// A plain Go from this task, over the limit.
							g.Go(func(*Worker) error { ran.Add(1); return nil })
							return g.Wait()
						})
						require.NoError(t, err)
					})
					assert.Equal(t, int64(2*(1<<(depth+1)-1)+1), ran.Load())

					// Another pool's task waits for a slot whose holder
					// calls into that pool: its worker serves q meanwhile.
					g, _ := NewGroup(context.Background(), p)
					g.SetLimit(1)
					holding := make(chan struct{})
					g.Go(func(w *Worker) error {
						close(holding)
						return DoContextOf(q, func(*Worker) error { return nil })
					})
					<-holding
					within(t, "cross-pool Go", func() {
						q.Run(func(w *Worker) {
							g.Go(func(*Worker) error { ran.Add(1); return nil })
						})
						require.NoError(t, g.Wait())
					})
				}()
			})
		})
	}
}

// DoContextOf runs fn on q with DoContext and returns its error or fn's.
func DoContextOf(q *Pool, fn func(*Worker) error) error {
	err, err2 := DoContext(context.Background(), q, fn)
	return errors.Join(err, err2)
}

// TestGroupLimitPanicGoexitFreeSlot: a task that panics or calls
// runtime.Goexit frees its slot: the tasks waiting for it still run, and
// Wait reports the panic.
func TestGroupLimitPanicGoexitFreeSlot(t *testing.T) {
	eachServer(t, []int{1, 2}, nil, func(t *testing.T, p *Pool, _ int) {
		g, _ := NewGroup(context.Background(), p)
		g.SetLimit(1)
		var ran atomic.Int64
		g.Go(func(*Worker) error { panic("boom") })
		g.Go(func(*Worker) error { ran.Add(1); return nil })
		g.Go(func(*Worker) error { ran.Add(1); return nil })
		var v any
		within(t, "Wait", func() { v = catchPanic(func() { _ = g.Wait() }) })
		require.IsType(t, &PanicError{}, v)
		assert.Equal(t, "boom", v.(*PanicError).Value)
		assert.Equal(t, int64(2), ran.Load())

		g, _ = NewGroup(context.Background(), p)
		g.SetLimit(1)
		ran.Store(0)
		g.Go(func(*Worker) error { runtime.Goexit(); return nil })
		g.Go(func(*Worker) error { ran.Add(1); return nil })
		assert.True(t, exitsGoroutine(t, func() { _ = g.Wait() }))
		assert.Equal(t, int64(1), ran.Load())
	})
}

// TestGroupSetLimitStorm: SetLimit moves between 0 and L while goroutines
// and the group's own tasks call Go: no more than L tasks ever run at
// once, and every task runs exactly once (the last SetLimit, to L, admits
// whatever a limit of 0 held back).
func TestGroupSetLimitStorm(t *testing.T) {
	eachServer(t, []int{1, 2, 4}, nil, func(t *testing.T, p *Pool, workers int) {
		each := 200
		if testing.Short() {
			each = 50
		}
		limit := workers
		g, _ := NewGroup(context.Background(), p)
		g.SetLimit(limit)
		var gauge peakGauge
		var ran, accepted atomic.Int64
		body := func(*Worker) error { gauge.enter(); ran.Add(1); gauge.leave(); return nil }
		within(t, "storm", func() {
			wg := goStorm(g, each, 5, body, &accepted)
			stop := make(chan struct{})
			var tw sync.WaitGroup
			tw.Add(1)
			go func() {
				defer tw.Done()
				for n := 0; ; n++ {
					select {
					case <-stop:
						return
					default:
					}
					g.SetLimit(n % (limit + 1))
					runtime.Gosched()
				}
			}()
			wg.Wait()
			close(stop)
			tw.Wait()
			g.SetLimit(limit)
			require.NoError(t, g.Wait())
		})
		assert.LessOrEqual(t, gauge.peak.Load(), int64(limit))
		assert.Equal(t, accepted.Load(), ran.Load())
	})
}

// TestGroupLimitSetWhileUnlimitedTasksFinish: a group's tasks finish
// without its lock while it has no limit (Group.release), and SetLimit may
// set one meanwhile. A storm of Go from three goroutines, some tasks going
// again from inside, while a fourth sets limits of 0, 1 and the worker
// count over tasks in flight: each time it lifts the limit, starts a task
// that holds until the new limit is set, and sets it. Every task runs once,
// Wait returns (a task left waiting at the gate by a release that missed
// the new limit would hang it), and the gate's count of slots taken ends
// at 0.
func TestGroupLimitSetWhileUnlimitedTasksFinish(t *testing.T) {
	eachServer(t, []int{1, 2, 4}, nil, func(t *testing.T, p *Pool, workers int) {
		each := 300
		if testing.Short() {
			each = 60
		}
		g, _ := NewGroup(context.Background(), p)
		var ran, accepted, overInFlight atomic.Int64
		body := func(*Worker) error { ran.Add(1); return nil }
		within(t, "storm", func() {
			wg := goStorm(g, each, 7, body, &accepted)
			stop := make(chan struct{})
			var tw sync.WaitGroup
			tw.Add(1)
			go func() {
				defer tw.Done()
				limits := []int{0, 1, workers}
				for n := 0; ; n++ {
					if n >= 6 {
						select {
						case <-stop:
							return
						default:
						}
					}
					g.SetLimit(-1)
					started, hold := make(chan struct{}), make(chan struct{})
					accepted.Add(1)
					g.Go(func(w *Worker) error { close(started); <-hold; return body(w) })
					<-started // in flight: the holder at least
					g.SetLimit(limits[n%len(limits)])
					overInFlight.Add(1)
					close(hold)
				}
			}()
			wg.Wait()
			close(stop)
			tw.Wait()
			// A limit to the end: the tasks still at the gate are let in
			// by releases alone.
			g.SetLimit(workers)
			require.NoError(t, g.Wait())
		})
		assert.Equal(t, accepted.Load(), ran.Load(), "tasks run")
		g.mu.Lock()
		g.syncGate()
		active, queued := g.gate.active, g.gate.queued
		g.mu.Unlock()
		assert.Zero(t, active, "slots taken after Wait")
		assert.Zero(t, queued, "tasks waiting at the gate after Wait")
		assert.GreaterOrEqual(t, overInFlight.Load(), int64(6), "limits set over tasks in flight")
	})
}

// goStorm gives g each tasks of body from each of three goroutines, every
// every-th of them a task that gives g one more before it runs body, and
// counts them all in accepted. Wait on the result for the three to return.
func goStorm(g *Group, each, every int, body func(*Worker) error, accepted *atomic.Int64) *sync.WaitGroup {
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range each {
				if j%every == 0 {
					accepted.Add(2)
					g.Go(func(w *Worker) error { g.Go(body); return body(w) })
				} else {
					accepted.Add(1)
					g.Go(body)
				}
			}
		}()
	}
	return &wg
}
