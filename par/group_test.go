package par

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// groupCall runs f with a Group bound to lr's Runner: the pool, from the
// test goroutine, or the worker of a task. f must not call t.FailNow.
func groupCall[T any](t *testing.T, lr layerRunner, f func(g *blitz.Group, ctx context.Context) T) T {
	t.Helper()
	return layerCall(t, lr, func(r blitz.Runner) T {
		g, ctx := blitz.NewGroup(t.Context(), r)
		return f(g, ctx)
	})
}

func TestGroupRunsEveryTask(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		const n = 200
		hits := make([]atomic.Int32, n)
		var nested atomic.Int64
		err := groupCall(t, lr, func(g *blitz.Group, _ context.Context) error {
			for i := range n {
				g.Go(func(w *blitz.Worker) error {
					hits[i].Add(1)
					if i%10 == 0 {
						// A task adds a task, and runs nested parallel work.
						g.Go(func(w *blitz.Worker) error {
							nested.Add(int64(Sum(w, []int{1, 2, 3})))
							return nil
						})
					}
					return nil
				})
			}
			return g.Wait()
		})
		require.NoError(t, err)
		require.Equal(t, -1, firstNot(hits, 1), "a task ran other than once")
		require.EqualValues(t, 6*n/10, nested.Load(), "tasks added by tasks")
	})
}

func TestGroupFirstErrorCancels(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		errFirst := errors.New("first")
		type res struct {
			err, cause error
			sawCancel  bool
		}
		got := groupCall(t, lr, func(g *blitz.Group, ctx context.Context) res {
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
	withPool(t, []blitz.Option{blitz.WithWorkers(2)}, func(p *blitz.Pool) {
		g, ctx := blitz.NewGroup(t.Context(), p)
		g.Go(func(*blitz.Worker) error { return nil })
		require.NoError(t, g.Wait())
		require.ErrorIs(t, ctx.Err(), context.Canceled)
	})
}

func TestGroupPanicPropagatesOnWait(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		var ran atomic.Int64
		v := layerPanic(t, lr, func(r blitz.Runner) {
			g, ctx := blitz.NewGroup(t.Context(), r)
			g.Go(func(*blitz.Worker) error { ran.Add(1); panic("task boom") })
			g.Go(func(*blitz.Worker) error {
				ran.Add(1)
				<-ctx.Done() // the panic cancels the context
				return ctx.Err()
			})
			g.Wait()
		})
		requirePanicError(t, v, "task boom")
		assert.EqualValues(t, 2, ran.Load(), "Wait returned before every task finished")
	})
}

func TestGroupGoexit(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		var after atomic.Int64
		exited := exitsGoroutine(t, func() {
			run := func(r blitz.Runner) {
				g, _ := blitz.NewGroup(t.Context(), r)
				g.Go(func(*blitz.Worker) error { runtime.Goexit(); return nil })
				g.Go(func(*blitz.Worker) error { after.Add(1); return nil })
				_ = g.Wait()
			}
			if lr.onWorker {
				lr.p.Run(f2w(run))
			} else {
				run(lr.p)
			}
		})
		assert.True(t, exited, "a task's Goexit did not end Wait's goroutine")
		assert.EqualValues(t, 1, after.Load(), "the other task did not run")
	})
}

// TestGroupOnOneWorkerRunsTasksInWait: a group bound to the only worker of
// a pool cannot count on another worker; Wait runs the tasks itself.
func TestGroupOnOneWorkerRunsTasksInWait(t *testing.T) {
	for _, k := range testParkings() {
		withPool(t, []blitz.Option{blitz.WithWorkers(1), blitz.WithParking(k)}, func(p *blitz.Pool) {
			var ran atomic.Int64
			before := doW(t, p, func(w *blitz.Worker) int64 {
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
			assert.Zero(t, before, "parking=%v", k)
			assert.EqualValues(t, 10, ran.Load(), "parking=%v", k)
		})
	}
}

func TestGroupOnClosedPool(t *testing.T) {
	p, err := blitz.New(blitz.WithWorkers(1))
	require.NoError(t, err)
	require.NoError(t, p.Close())
	g, _ := blitz.NewGroup(t.Context(), p)
	var ran atomic.Bool
	g.Go(func(*blitz.Worker) error { ran.Store(true); return nil })
	require.ErrorIs(t, g.Wait(), blitz.ErrClosed)
	require.False(t, ran.Load())
	verifyNone(t)
}

func TestGroupBadArguments(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(1)}, func(p *blitz.Pool) {
		g, _ := blitz.NewGroup(t.Context(), p)
		requirePanicMessage(t, "blitz: Group.Go: nil function", func() { g.Go(nil) })
		require.NoError(t, g.Wait())
		requirePanicMessage(t, "blitz: NewGroup: nil Runner", func() { blitz.NewGroup(t.Context(), nil) })
	})
}

func FuzzGroup(f *testing.F) {
	f.Add(uint8(0), uint8(0), uint8(0), false)
	f.Add(uint8(10), uint8(1), uint8(3), true)
	f.Add(uint8(100), uint8(2), uint8(99), false)
	ps := fuzzPools(f)
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
