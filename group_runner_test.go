package blitz_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/internal/testkit"
	"github.com/blitz-go/blitz/par"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Group's tests on the package's exported API, for both Runners a
// Group is made with: the pool, from a plain goroutine, and the *Worker of
// a task of it.

// groupRunner is one way of making a Group: on the pool p from the test
// goroutine, or on the *Worker of a task of p (onWorker).
type groupRunner struct {
	p        *blitz.Pool
	onWorker bool
}

func (gr groupRunner) String() string {
	if gr.onWorker {
		return "runner=worker"
	}
	return "runner=pool"
}

// eachGroupRunner runs f as a subtest for every parking backend, worker
// count (1, 2, 8) and Runner, each with its own pool, capped at its size,
// closed and checked for leaked goroutines afterwards.
func eachGroupRunner(t *testing.T, f func(t *testing.T, gr groupRunner)) {
	for _, k := range groupParkings() {
		for _, n := range []int{1, 2, 8} {
			t.Run(fmt.Sprintf("parking=%v/workers=%d", k, n), func(t *testing.T) {
				withGroupPool(t, []blitz.Option{blitz.WithParking(k), blitz.WithWorkers(n), blitz.WithMaxWorkers(n)}, func(p *blitz.Pool) {
					for _, gr := range []groupRunner{{p: p}, {p: p, onWorker: true}} {
						t.Run(gr.String(), func(t *testing.T) { f(t, gr) })
					}
				})
			})
		}
	}
}

// groupParkings lists the parking backends this system has.
func groupParkings() []blitz.Parking {
	ks := []blitz.Parking{blitz.ParkingPortable, blitz.ParkingSpin}
	if runtime.GOOS == "linux" {
		ks = append(ks, blitz.ParkingFutex)
	}
	return ks
}

// withGroupPool creates a pool with opts, runs f, closes the pool (under
// the watchdog) and checks that no goroutine leaked.
func withGroupPool(t *testing.T, opts []blitz.Option, f func(p *blitz.Pool)) {
	t.Helper()
	defer testkit.VerifyNone(t)
	p, err := blitz.New(opts...)
	require.NoError(t, err, "New")
	defer testkit.Within(t, "Close", func() { assert.NoError(t, p.Close(), "Close") })
	f(p)
}

// groupCall makes a Group on gr's Runner, with t's context, and returns
// what f returns, under the watchdog. f must not call t.FailNow (it may
// run on a worker).
func groupCall[T any](t *testing.T, gr groupRunner, f func(g *blitz.Group, ctx context.Context) T) T {
	t.Helper()
	run := func(r blitz.Runner) T {
		g, ctx := blitz.NewGroup(t.Context(), r)
		return f(g, ctx)
	}
	var res T
	testkit.Within(t, "group call", func() {
		if gr.onWorker {
			res = blitz.Do(gr.p, func(w *blitz.Worker) T { return run(w) })
		} else {
			res = run(gr.p)
		}
	})
	return res
}

// groupPanic runs f with gr's Runner, under the watchdog, and returns what
// it panicked with (nil if it returned).
func groupPanic(t *testing.T, gr groupRunner, f func(r blitz.Runner)) any {
	t.Helper()
	var v any
	testkit.Within(t, "group call", func() {
		v = testkit.CatchPanic(func() {
			if gr.onWorker {
				gr.p.Run(func(w *blitz.Worker) { f(w) })
			} else {
				f(gr.p)
			}
		})
	})
	return v
}

func TestGroupRunsEveryTask(t *testing.T) {
	eachGroupRunner(t, func(t *testing.T, gr groupRunner) {
		const n = 200
		hits := make([]atomic.Int32, n)
		var nested atomic.Int64
		err := groupCall(t, gr, func(g *blitz.Group, _ context.Context) error {
			for i := range n {
				g.Go(func(w *blitz.Worker) error {
					hits[i].Add(1)
					if i%10 == 0 {
						// A task adds a task, and runs nested parallel work.
						g.Go(func(w *blitz.Worker) error {
							nested.Add(int64(par.Sum(w, []int{1, 2, 3})))
							return nil
						})
					}
					return nil
				})
			}
			return g.Wait()
		})
		require.NoError(t, err)
		for i := range hits {
			require.EqualValues(t, 1, hits[i].Load(), "task %d ran other than once", i)
		}
		require.EqualValues(t, 6*n/10, nested.Load(), "tasks added by tasks")
	})
}

func TestGroupFirstErrorCancels(t *testing.T) {
	eachGroupRunner(t, func(t *testing.T, gr groupRunner) {
		errFirst := errors.New("first")
		type res struct {
			err, cause error
			sawCancel  bool
		}
		got := groupCall(t, gr, func(g *blitz.Group, ctx context.Context) res {
			g.Go(func(*blitz.Worker) error { return errFirst })
			// The second task runs after the first error was recorded
			// (it waits for the cancel), so the first error is errFirst.
			var saw atomic.Bool
			g.Go(func(*blitz.Worker) error {
				<-ctx.Done()
				saw.Store(true)
				return errors.New("second")
			})
			err := g.Wait()
			return res{err, context.Cause(ctx), saw.Load()}
		})
		assert.Same(t, errFirst, got.err)
		assert.Same(t, errFirst, got.cause, "the context's cause is the first error")
		assert.True(t, got.sawCancel)
	})
}

func TestGroupWaitCancelsContext(t *testing.T) {
	withGroupPool(t, []blitz.Option{blitz.WithWorkers(2)}, func(p *blitz.Pool) {
		g, ctx := blitz.NewGroup(t.Context(), p)
		g.Go(func(*blitz.Worker) error { return nil })
		require.NoError(t, g.Wait())
		require.ErrorIs(t, ctx.Err(), context.Canceled)
	})
}

func TestGroupPanicPropagatesOnWait(t *testing.T) {
	eachGroupRunner(t, func(t *testing.T, gr groupRunner) {
		var ran atomic.Int64
		v := groupPanic(t, gr, func(r blitz.Runner) {
			g, ctx := blitz.NewGroup(t.Context(), r)
			g.Go(func(*blitz.Worker) error { ran.Add(1); panic("task boom") })
			g.Go(func(*blitz.Worker) error {
				ran.Add(1)
				<-ctx.Done() // the panic cancels the context
				return ctx.Err()
			})
			_ = g.Wait()
		})
		pe, ok := v.(*blitz.PanicError)
		require.Truef(t, ok, "panic value %T (%v), want a *PanicError", v, v)
		assert.Equal(t, "task boom", pe.Value)
		assert.NotEmpty(t, pe.Stack)
		assert.EqualValues(t, 2, ran.Load(), "Wait returned before every task finished")
	})
}

func TestGroupGoexit(t *testing.T) {
	eachGroupRunner(t, func(t *testing.T, gr groupRunner) {
		var after atomic.Int64
		exited := testkit.ExitsGoroutine(t, func() {
			run := func(r blitz.Runner) {
				g, _ := blitz.NewGroup(t.Context(), r)
				g.Go(func(*blitz.Worker) error { runtime.Goexit(); return nil })
				g.Go(func(*blitz.Worker) error { after.Add(1); return nil })
				_ = g.Wait()
			}
			if gr.onWorker {
				gr.p.Run(func(w *blitz.Worker) { run(w) })
			} else {
				run(gr.p)
			}
		})
		assert.True(t, exited, "a task's Goexit did not end Wait's goroutine")
		assert.EqualValues(t, 1, after.Load(), "the other task did not run")
	})
}

// TestGroupOnOneWorkerRunsTasksInWait: a group bound to the only worker of
// a pool cannot count on another worker; Wait runs the tasks itself.
func TestGroupOnOneWorkerRunsTasksInWait(t *testing.T) {
	for _, k := range groupParkings() {
		withGroupPool(t, []blitz.Option{blitz.WithWorkers(1), blitz.WithParking(k)}, func(p *blitz.Pool) {
			var ran atomic.Int64
			var before int64
			testkit.Within(t, "Do", func() {
				before = blitz.Do(p, func(w *blitz.Worker) int64 {
					g, _ := blitz.NewGroup(t.Context(), w)
					for range 10 {
						g.Go(func(w *blitz.Worker) error { ran.Add(1); return nil })
					}
					// The only worker is running this task: nothing started.
					before := ran.Load()
					if err := g.Wait(); err != nil {
						panic(err)
					}
					return before
				})
			})
			assert.Zero(t, before, "parking=%v", k)
			assert.EqualValues(t, 10, ran.Load(), "parking=%v", k)
		})
	}
}

// TestGroupOnClosedPool: a closed pool refuses the group's tasks. Go
// records an error wrapping ErrClosed, which Wait returns; TryGo returns
// that error as well (not ErrQueueFull) and records it as Go does; no
// task runs.
func TestGroupOnClosedPool(t *testing.T) {
	p, err := blitz.New(blitz.WithWorkers(1))
	require.NoError(t, err)
	require.NoError(t, p.Close())
	var ran atomic.Bool
	task := func(*blitz.Worker) error { ran.Store(true); return nil }

	byGo, _ := blitz.NewGroup(t.Context(), p)
	byGo.Go(task)
	require.ErrorIs(t, byGo.Wait(), blitz.ErrClosed)

	g, ctx := blitz.NewGroup(t.Context(), p)
	g.SetLimit(1)
	err = g.TryGo(task)
	require.ErrorIs(t, err, blitz.ErrClosed)
	assert.EqualError(t, err, "blitz: Group.TryGo: blitz: pool is closed")
	assert.ErrorIs(t, context.Cause(ctx), blitz.ErrClosed, "the refusal cancels the group's context, as Go's does")
	// The refused task freed its slot: the next TryGo is refused by the
	// pool again, not by the limit.
	require.ErrorIs(t, g.TryGo(task), blitz.ErrClosed)
	require.Same(t, err, g.Wait(), "Wait returns TryGo's refusal, the first error")

	require.False(t, ran.Load())
	testkit.VerifyNone(t)
}

func TestGroupBadArguments(t *testing.T) {
	withGroupPool(t, []blitz.Option{blitz.WithWorkers(1)}, func(p *blitz.Pool) {
		g, _ := blitz.NewGroup(t.Context(), p)
		assert.PanicsWithValue(t, "blitz: Group.Go: nil function", func() { g.Go(nil) })
		assert.PanicsWithValue(t, "blitz: Group.TryGo: nil function", func() { _ = g.TryGo(nil) })
		require.NoError(t, g.Wait())
		assert.PanicsWithValue(t, "blitz: NewGroup: nil Runner", func() { blitz.NewGroup(t.Context(), nil) })
	})
}

func FuzzGroup(f *testing.F) {
	f.Add(uint8(0), uint8(0), uint8(0), false)
	f.Add(uint8(10), uint8(1), uint8(3), true)
	f.Add(uint8(100), uint8(2), uint8(99), false)
	var ps []*blitz.Pool
	for _, n := range []int{1, 2, 8} {
		p, err := blitz.New(blitz.WithWorkers(n))
		require.NoError(f, err)
		ps = append(ps, p)
	}
	f.Cleanup(func() {
		for _, p := range ps {
			require.NoError(f, p.Close())
		}
	})
	f.Fuzz(func(t *testing.T, n, pool, failAt uint8, onWorker bool) {
		p := ps[int(pool)%len(ps)]
		errFail := errors.New("fail")
		var ran atomic.Int64
		run := func(r blitz.Runner) error {
			g, _ := blitz.NewGroup(t.Context(), r)
			for i := range int(n) {
				g.Go(func(*blitz.Worker) error {
					ran.Add(1)
					if i == int(failAt) {
						return errFail
					}
					return nil
				})
			}
			return g.Wait()
		}
		var err error
		if onWorker {
			err = blitz.Do(p, func(w *blitz.Worker) error { return run(w) })
		} else {
			err = run(p)
		}
		require.EqualValues(t, n, ran.Load())
		if failAt < n {
			require.ErrorIs(t, err, errFail)
		} else {
			require.NoError(t, err)
		}
	})
}
