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

// A handleTarget is where a handle test submits: the pool, or a Sub of it.
type handleTarget struct {
	p *Pool
	s *Sub
}

// submitOn is Submit on h's Sub, or on its pool.
func submitOn[T any](h handleTarget, fn func(w *Worker) (T, error)) *Future[T] {
	if h.s != nil {
		return Submit(h.s, fn)
	}
	return Submit(h.p, fn)
}

// eachTarget runs f as a subtest on p itself and on a Sub of p that admits
// limit tasks at once and queues any number.
func eachTarget(t *testing.T, p *Pool, limit int, f func(t *testing.T, h handleTarget)) {
	t.Run("target=pool", func(t *testing.T) { f(t, handleTarget{p: p}) })
	t.Run("target=sub", func(t *testing.T) {
		s, err := p.Sub(limit, 1<<20)
		require.NoError(t, err)
		defer func() { within(t, "Sub.Close", func() { assert.NoError(t, s.Close()) }) }()
		f(t, handleTarget{p: p, s: s})
	})
}

// waitW is Future.Wait under the watchdog.
func waitW[T any](t testing.TB, f *Future[T]) (T, error) {
	t.Helper()
	var (
		v   T
		err error
	)
	within(t, "Future.Wait", func() { v, err = f.Wait() })
	return v, err
}

var errHandle = errors.New("handle test error")

// newOther makes the other pool a handle test waits from.
func newOther(t *testing.T) *Pool {
	t.Helper()
	other, err := New(WithWorkers(2))
	require.NoError(t, err)
	return other
}

// closeOther closes the other pool under the watchdog.
func closeOther(t *testing.T, other *Pool) {
	t.Helper()
	within(t, "closing the other pool", func() { assert.NoError(t, other.Close()) })
}

// The kinds of task in TestFutureStorm, by id%handleKinds.
const (
	kindValue = iota
	kindError
	kindPanic
	kindGoexit
	kindBlock // waits on a channel closed once every submitter submitted
	handleKinds
)

// The ways a submitter of TestFutureStorm waits, by id%handleWaits.
const (
	waitOutside = iota
	waitContext
	waitOwnTask   // from a task of the pool that runs fn
	waitOtherPool // from a task of another pool
	waitDone      // on Done, then Wait
	handleWaits
)

// TestFutureStorm: submitters on several goroutines submit tasks that
// return, fail, panic, call runtime.Goexit or block on a channel, and wait
// for them in every way (from outside, with a context, from a task of the
// same pool, from a task of another pool, on Done) while other tasks are
// still blocked; every Future reports its own task's outcome: its result
// and error, a panic as a *PanicError with the value, a Goexit as
// ErrGoexit. Without a panic handler, a panic reaching the pool's handler
// path would crash the test binary.
func TestFutureStorm(t *testing.T) {
	eachConfig(t, func(t *testing.T, p *Pool) {
		other := newOther(t)
		defer closeOther(t, other)
		eachTarget(t, p, 3, func(t *testing.T, h handleTarget) {
			submitters, each := 4, 60
			if testing.Short() {
				each = 25
			}
			// In a Sub, the tasks queued behind a Goexit run nested in
			// the exiting goroutine's deferred call (sub.go), one level
			// per Goexit: past 100 frames goleak fails to parse the
			// stack of a worker still exiting. A Sub's tasks exit less.
			goexitEvery := 1
			if h.s != nil {
				goexitEvery = 4
			}
			kind := func(id int) int {
				k := id % handleKinds
				if k == kindGoexit && (id/handleKinds)%goexitEvery != 0 {
					return kindValue
				}
				return k
			}
			release := make(chan struct{})
			var submitted sync.WaitGroup
			submitted.Add(submitters)
			var ran, checked atomic.Int64
			within(t, "storm", func() {
				var wg sync.WaitGroup
				for g := range submitters {
					wg.Add(1)
					go func() {
						defer wg.Done()
						fs := make([]*Future[int], each)
						for i := range each {
							id := g*each + i
							fs[i] = submitOn(h, func(*Worker) (int, error) {
								ran.Add(1)
								switch kind(id) {
								case kindError:
									return id, fmt.Errorf("task %d: %w", id, errHandle)
								case kindPanic:
									panic(id)
								case kindGoexit:
									runtime.Goexit()
								case kindBlock:
									<-release
								}
								return id, nil
							})
						}
						submitted.Done()
						for i, f := range fs {
							id := g*each + i
							checkStormOutcome(t, id, kind(id), waitStorm(t, p, other, f, id))
							checked.Add(1)
						}
					}()
				}
				submitted.Wait()
				close(release)
				wg.Wait()
			})
			assert.Equal(t, int64(submitters*each), ran.Load(), "tasks run")
			assert.Equal(t, int64(submitters*each), checked.Load(), "outcomes checked")
		})
	})
}

// outcome is what a wait in TestFutureStorm got.
type outcome struct {
	v   int
	err error
}

// waitStorm waits for f in the way id picks.
func waitStorm(t *testing.T, p, other *Pool, f *Future[int], id int) outcome {
	var o outcome
	switch id % handleWaits {
	case waitOutside:
		o.v, o.err = f.Wait()
	case waitContext:
		o.v, o.err = f.WaitContext(context.Background())
	case waitOwnTask:
		p.Run(func(*Worker) { o.v, o.err = f.Wait() })
	case waitOtherPool:
		other.Run(func(*Worker) { o.v, o.err = f.Wait() })
	case waitDone:
		<-f.Done()
		o.v, o.err = f.Wait()
	}
	return o
}

// checkStormOutcome checks what task id, of the kind given, reported.
func checkStormOutcome(t *testing.T, id, kind int, o outcome) {
	switch kind {
	case kindValue, kindBlock:
		assert.NoError(t, o.err, "task %d", id)
		assert.Equal(t, id, o.v, "task %d", id)
	case kindError:
		assert.ErrorIs(t, o.err, errHandle, "task %d", id)
		assert.Equal(t, id, o.v, "task %d: the result returned with the error", id)
	case kindPanic:
		var pe *PanicError
		if assert.ErrorAs(t, o.err, &pe, "task %d", id) {
			assert.Equal(t, id, pe.Value, "task %d", id)
			assert.ErrorIs(t, o.err, ErrPanic)
		}
		assert.Zero(t, o.v, "task %d", id)
	case kindGoexit:
		assert.ErrorIs(t, o.err, ErrGoexit, "task %d", id)
		assert.Zero(t, o.v, "task %d", id)
	}
}

// TestFutureManyWaiters: any number of goroutines and tasks, of the pool
// and of another, wait for one Future at once, and each gets its outcome.
func TestFutureManyWaiters(t *testing.T) {
	eachConfig(t, func(t *testing.T, p *Pool) {
		other := newOther(t)
		defer closeOther(t, other)
		eachTarget(t, p, 1, func(t *testing.T, h handleTarget) {
			release := make(chan struct{})
			started := make(chan struct{})
			f := submitOn(h, func(*Worker) (string, error) {
				close(started)
				<-release
				return "done", errHandle
			})
			waitOrDump(t, started, "the task starting")
			const waiters = 12
			got := make(chan outcomeS, waiters)
			for i := range waiters {
				go func() {
					var o outcomeS
					switch i % 3 {
					case 0:
						o.v, o.err = f.Wait()
					case 1:
						p.Run(func(*Worker) { o.v, o.err = f.Wait() })
					case 2:
						other.Run(func(*Worker) { o.v, o.err = f.Wait() })
					}
					got <- o
				}()
			}
			close(release)
			within(t, "the waiters", func() {
				for range waiters {
					o := <-got
					assert.Equal(t, "done", o.v)
					assert.ErrorIs(t, o.err, errHandle)
				}
			})
		})
	})
}

type outcomeS struct {
	v   string
	err error
}

// TestFutureWaitInTaskRunsIt: a task that waits for a Future no worker has
// started runs its function itself, on its own worker: on a pool of one
// worker capped at one, and in a Sub of limit 1 whose slot the waiting task
// holds, where waiting for a worker or a slot would wait for good. A panic
// or a Goexit of the function comes back as an error and leaves the
// waiting task running; the queued entry runs nothing later.
func TestFutureWaitInTaskRunsIt(t *testing.T) {
	withPool(t, []Option{WithWorkers(1), WithMaxWorkers(1)}, func(p *Pool) {
		s, err := p.Sub(1, 16)
		require.NoError(t, err)
		defer s.Close()
		for _, h := range []handleTarget{{p: p}, {p: p, s: s}} {
			var runs atomic.Int64
			type res struct {
				same     bool
				v        int
				err      error
				pe, exit error
				after    bool
			}
			body := func(w *Worker) res {
				var r res
				f := submitOn(h, func(fw *Worker) (int, error) {
					runs.Add(1)
					r.same = fw == w
					return 7, nil
				})
				r.v, r.err = f.Wait()
				_, r.pe = submitOn(h, func(*Worker) (int, error) { runs.Add(1); panic("boom") }).Wait()
				_, r.exit = submitOn(h, func(*Worker) (int, error) { runs.Add(1); runtime.Goexit(); return 0, nil }).Wait()
				r.after = true // the Goexit ended the function, not this task
				return r
			}
			var r res
			if h.s != nil {
				within(t, "Do", func() { r = Do(s, body) })
			} else {
				r = doW(t, p, body)
			}
			assert.True(t, r.same, "the function ran on the waiting task's worker")
			assert.Equal(t, 7, r.v)
			assert.NoError(t, r.err)
			var pe *PanicError
			if assert.ErrorAs(t, r.pe, &pe) {
				assert.Equal(t, "boom", pe.Value)
			}
			assert.ErrorIs(t, r.exit, ErrGoexit)
			assert.True(t, r.after)
			doW(t, p, func(*Worker) int { return 0 }) // the queued entries were taken
			assert.Equal(t, int64(3), runs.Load(), "each function ran once")
		}
		assert.Equal(t, SubStats{Limit: 1, Capacity: 16, Submitted: 4, Completed: 4}, s.Stats())
	})
}

// TestFutureWaitInTaskBlocks: a task that waits for a Future another worker
// runs waits as for a call into another pool: below the pool's cap its
// worker counts as blocked and the pool replaces it; at the cap the worker
// is lent to a goroutine that serves the pool. Either way a third task runs
// while both workers are taken, one by the running Future, one by the
// waiting task; it would wait for good if the waiting task held its worker.
func TestFutureWaitInTaskBlocks(t *testing.T) {
	for _, capped := range []bool{false, true} {
		t.Run(fmt.Sprintf("capped=%v", capped), func(t *testing.T) {
			opts := []Option{WithWorkers(2)}
			if capped {
				opts = append(opts, WithMaxWorkers(2))
			}
			withPool(t, opts, func(p *Pool) {
				eachTarget(t, p, 2, func(t *testing.T, h handleTarget) {
					release, started := make(chan struct{}), make(chan struct{})
					f := submitOn(h, func(*Worker) (int, error) {
						close(started)
						<-release
						return 1, nil
					})
					waitOrDump(t, started, "the Future starting")
					waiting := Submit(p, func(*Worker) (int, error) { return f.Wait() })
					if !capped {
						eventually(t, "the waiting task's worker counted blocked", func() bool {
							return p.blockedNow.Load() == 1
						})
					}
					v, err := waitW(t, Submit(p, func(*Worker) (int, error) { return 2, nil }))
					assert.NoError(t, err)
					assert.Equal(t, 2, v)
					close(release)
					v, err = waitW(t, waiting)
					assert.NoError(t, err)
					assert.Equal(t, 1, v)
					assert.Zero(t, p.blockedNow.Load())
				})
			})
		})
	}
}

// TestFutureWaitContext: WaitContext returns ctx.Err() when ctx ends first,
// from outside, from a task of another pool and from a task of the same
// pool, and the task still runs: a later Wait gets its outcome. A context
// already ended returns at once, unless the outcome is there.
func TestFutureWaitContext(t *testing.T) {
	withPool(t, []Option{WithWorkers(2)}, func(p *Pool) {
		other := newOther(t)
		defer closeOther(t, other)
		eachTarget(t, p, 2, func(t *testing.T, h handleTarget) {
			for _, from := range []string{"outside", "other-pool", "own-pool"} {
				t.Run("from="+from, func(t *testing.T) {
					release, started := make(chan struct{}), make(chan struct{})
					f := submitOn(h, func(*Worker) (int, error) {
						close(started)
						<-release
						return 5, nil
					})
					waitOrDump(t, started, "the Future starting")
					_, err := f.WaitContext(cancelled())
					assert.ErrorIs(t, err, context.Canceled, "an ended context")

					ctx, cancel := context.WithCancel(context.Background())
					wctx := watch(ctx)
					got := make(chan error, 1)
					wait := func() {
						_, err := f.WaitContext(wctx)
						got <- err
					}
					switch from {
					case "outside":
						go wait()
					case "other-pool":
						go other.Run(func(*Worker) { wait() })
					case "own-pool":
						go p.Run(func(*Worker) { wait() })
					}
					wctx.waitWatched(t, "WaitContext watching its context")
					cancel()
					within(t, "WaitContext returning", func() {
						assert.ErrorIs(t, <-got, context.Canceled)
					})
					select {
					case <-f.Done():
						t.Fatal("the Future completed before its task was released")
					default:
					}
					close(release)
					v, err := waitW(t, f)
					assert.NoError(t, err)
					assert.Equal(t, 5, v)
					v, err = f.WaitContext(cancelled())
					assert.NoError(t, err, "an ended context, with the outcome there")
					assert.Equal(t, 5, v)
				})
			}
		})
	})
}

// TestFutureWaitContextRunsIt: a task of the pool whose WaitContext runs
// the function itself (on a pool of one worker, nobody else can) returns
// ctx.Err() if ctx ended while the function ran, and Wait the outcome.
func TestFutureWaitContextRunsIt(t *testing.T) {
	withPool(t, []Option{WithWorkers(1), WithMaxWorkers(1)}, func(p *Pool) {
		eachTarget(t, p, 1, func(t *testing.T, h handleTarget) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var f *Future[int]
			var err error
			doW(t, p, func(*Worker) int {
				f = submitOn(h, func(*Worker) (int, error) {
					cancel() // the context ends while the waiting task runs it
					return 9, nil
				})
				_, err = f.WaitContext(ctx)
				return 0
			})
			assert.ErrorIs(t, err, context.Canceled)
			v, err := waitW(t, f)
			assert.NoError(t, err)
			assert.Equal(t, 9, v)
		})
	})
}

// TestFutureClosed: Submit to a closed pool, a closed Sub, or a Sub of a
// closed pool returns a Future that is already complete, with an error
// wrapping ErrClosed and the zero result, and never runs the function.
// A Future accepted before Close completes with its task's outcome.
func TestFutureClosed(t *testing.T) {
	var ran atomic.Int64
	fn := func(*Worker) (int, error) { ran.Add(1); return 1, nil }
	check := func(t *testing.T, f *Future[int]) {
		t.Helper()
		select {
		case <-f.Done():
		default:
			t.Fatal("a refused Future is not complete")
		}
		v, err := f.Wait()
		assert.ErrorIs(t, err, ErrClosed)
		assert.Zero(t, v)
	}

	p, err := New(WithWorkers(1))
	require.NoError(t, err)
	s, err := p.Sub(1, 1)
	require.NoError(t, err)
	s2, err := p.Sub(1, 1)
	require.NoError(t, err)
	release, started := make(chan struct{}), make(chan struct{})
	accepted := Submit(p, func(*Worker) (int, error) {
		close(started)
		<-release
		return 3, nil
	})
	waitOrDump(t, started, "the accepted task starting")

	require.NoError(t, s.Close())
	t.Run("sub", func(t *testing.T) { check(t, Submit(s, fn)) })

	closed := make(chan error, 1)
	go func() { closed <- p.Close() }()
	eventually(t, "the pool refusing work", func() bool { return errors.Is(p.TryGo(func(*Worker) {}), ErrClosed) })
	t.Run("pool", func(t *testing.T) { check(t, Submit(p, fn)) })
	t.Run("sub-of-closed-pool", func(t *testing.T) { check(t, Submit(s2, fn)) })

	close(release)
	v, err := waitW(t, accepted)
	assert.NoError(t, err)
	assert.Equal(t, 3, v)
	within(t, "Close", func() { assert.NoError(t, <-closed) })
	assert.Zero(t, ran.Load(), "a refused function never runs")
}

// TestFutureBadInput: a nil target or function panics in Submit, naming
// it, and so do a nil or zero Future's methods and a nil context: none of
// them hands back a Future or a wait that never completes.
func TestFutureBadInput(t *testing.T) {
	withPool(t, []Option{WithWorkers(1)}, func(p *Pool) {
		s, err := p.Sub(1, 1)
		require.NoError(t, err)
		defer s.Close()
		fn := func(*Worker) (int, error) { return 0, nil }
		requirePanicMessage(t, "blitz: Submit: nil Runner", func() { Submit((*Pool)(nil), fn) })
		requirePanicMessage(t, "blitz: Submit: nil Runner", func() { Submit((*Sub)(nil), fn) })
		requirePanicMessage(t, "blitz: Submit: nil function", func() { Submit[int](p, nil) })
		requirePanicMessage(t, "blitz: Submit: nil function", func() { Submit[int](s, nil) })

		var zero Future[int]
		requirePanicMessage(t, "blitz: Future.Wait: zero Future (a Future comes from Submit)", func() { zero.Wait() })
		requirePanicMessage(t, "blitz: Future.WaitContext: zero Future (a Future comes from Submit)", func() {
			zero.WaitContext(context.Background())
		})
		requirePanicMessage(t, "blitz: Future.Done: zero Future (a Future comes from Submit)", func() { zero.Done() })
		var nilF *Future[int]
		requirePanicMessage(t, "blitz: Future.Wait: nil *Future", func() { nilF.Wait() })
		f := Submit(p, fn)
		var nilCtx context.Context
		requirePanicMessage(t, "blitz: Future.WaitContext: nil context", func() {
			f.WaitContext(nilCtx)
		})
		_, err = waitW(t, f)
		assert.NoError(t, err)
	})
}
