package blitz

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newResultGroupOn is NewResultGroup on h's Sub, or on its pool.
func newResultGroupOn[T any](h handleTarget) (*ResultGroup[T], context.Context) {
	if h.s != nil {
		return NewResultGroup[T](context.Background(), h.s)
	}
	return NewResultGroup[T](context.Background(), h.p)
}

// rgWait is ResultGroup.Wait under the watchdog.
func rgWait[T any](t testing.TB, r *ResultGroup[T]) ([]T, error) {
	t.Helper()
	var (
		res []T
		err error
	)
	within(t, "ResultGroup.Wait", func() { res, err = r.Wait() })
	return res, err
}

// TestResultGroupOrder: the results come in the order of Go while the tasks
// finish in the reverse order (each waits on a channel that the next one
// closes as it returns), on a pool and on a Sub.
func TestResultGroupOrder(t *testing.T) {
	const n = 16
	eachConfig(t, func(t *testing.T, p *Pool) {
		eachTarget(t, p, n, func(t *testing.T, h handleTarget) {
			r, _ := newResultGroupOn[int](h)
			var finished []int
			var mu sync.Mutex
			done := make([]chan struct{}, n+1)
			for i := range done {
				done[i] = make(chan struct{})
			}
			close(done[n])
			for i := range n {
				r.Go(func(*Worker) (int, error) {
					defer close(done[i])
					<-done[i+1]
					mu.Lock()
					finished = append(finished, i)
					mu.Unlock()
					return i * i, nil
				})
			}
			res, err := rgWait(t, r)
			require.NoError(t, err)
			want := make([]int, n)
			for i := range want {
				want[i] = i * i
			}
			assert.Equal(t, want, res)
			assert.Equal(t, n-1, finished[0], "the last task finished first")
			assert.Equal(t, 0, finished[n-1], "the first task finished last")
		})
	})
}

// TestResultGroupStorm: several goroutines call Go at once, with tasks that
// return, fail or block on a channel until every Go was made; Wait returns
// every result exactly once, each goroutine's in the order of its Go calls.
// By default the error is one of the tasks'; after JoinErrors it holds
// every error, in the order of their results.
func TestResultGroupStorm(t *testing.T) {
	eachConfig(t, func(t *testing.T, p *Pool) {
		for _, join := range []bool{false, true} {
			t.Run(fmt.Sprintf("join=%v", join), func(t *testing.T) {
				eachTarget(t, p, 3, func(t *testing.T, h handleTarget) {
					submitters, each := 4, 100
					if testing.Short() {
						each = 25
					}
					r, _ := newResultGroupOn[int](h)
					if join {
						r.JoinErrors()
					}
					release := make(chan struct{})
					var wg sync.WaitGroup
					for g := range submitters {
						wg.Add(1)
						go func() {
							defer wg.Done()
							for j := range each {
								id := g<<16 | j
								r.Go(func(*Worker) (int, error) {
									switch j % 4 {
									case 1:
										return id, &idError{id}
									case 2:
										<-release
									}
									return id, nil
								})
							}
						}()
					}
					within(t, "the Go calls", wg.Wait)
					close(release)
					res, err := rgWait(t, r)
					require.Len(t, res, submitters*each)
					next := make([]int, submitters)
					var failed []int
					for _, v := range res {
						g, j := v>>16, v&0xffff
						require.Equal(t, next[g], j, "submitter %d's results out of order", g)
						next[g]++
						if j%4 == 1 {
							failed = append(failed, v)
						}
					}
					var ie *idError
					require.ErrorAs(t, err, &ie)
					assert.Contains(t, failed, ie.id)
					if join {
						errs := err.(interface{ Unwrap() []error }).Unwrap()
						got := make([]int, len(errs))
						for i, e := range errs {
							got[i] = e.(*idError).id
						}
						assert.Equal(t, failed, got, "every error, in the order of Go")
					}
				})
			})
		}
	})
}

type idError struct{ id int }

func (e *idError) Error() string { return fmt.Sprintf("task %#x failed", e.id) }

// TestResultGroupErrors: a task that returns an error keeps its result in
// place; Wait returns the first error, or all of them joined in the order
// of Go after JoinErrors; the first error cancels the context with itself
// as the cause; a task the pool refuses (closing) has the zero result and
// an error wrapping ErrClosed.
func TestResultGroupErrors(t *testing.T) {
	withPool(t, []Option{WithWorkers(2)}, func(p *Pool) {
		errA, errB := errors.New("a"), errors.New("b")
		for _, join := range []bool{false, true} {
			t.Run(fmt.Sprintf("join=%v", join), func(t *testing.T) {
				r, ctx := NewResultGroup[string](context.Background(), p)
				if join {
					r.JoinErrors()
				}
				// x fails after y: the first error cancels the context.
				r.Go(func(*Worker) (string, error) { <-ctx.Done(); return "x", errB })
				r.Go(func(*Worker) (string, error) { return "y", errA })
				r.Go(func(*Worker) (string, error) { return "z", nil })
				res, err := rgWait(t, r)
				assert.Equal(t, []string{"x", "y", "z"}, res)
				if join {
					assert.Equal(t, errors.Join(errB, errA).Error(), err.Error())
					assert.ErrorIs(t, err, errA)
					assert.ErrorIs(t, err, errB)
				} else {
					assert.Equal(t, errA, err, "the first error")
				}
				assert.Equal(t, errA, context.Cause(ctx))
			})
		}
	})
	t.Run("closed", func(t *testing.T) {
		for _, join := range []bool{false, true} {
			p, err := New(WithWorkers(1))
			require.NoError(t, err)
			s, err := p.Sub(1, 1)
			require.NoError(t, err)
			require.NoError(t, p.Close())
			for _, h := range []handleTarget{{p: p}, {p: p, s: s}} {
				r, _ := newResultGroupOn[int](h)
				if join {
					r.JoinErrors()
				}
				var ran atomic.Int64
				for range 3 {
					r.Go(func(*Worker) (int, error) { ran.Add(1); return 1, nil })
				}
				res, err := rgWait(t, r)
				assert.Equal(t, []int{0, 0, 0}, res)
				assert.ErrorIs(t, err, ErrClosed)
				if join {
					assert.Len(t, err.(interface{ Unwrap() []error }).Unwrap(), 3)
				}
				assert.Zero(t, ran.Load())
			}
		}
	})
}

// TestResultGroupBatches: each Wait returns the batch given to Go since the
// previous Wait returned; a Wait with no new task returns no result; the
// first error is the group's for good, while JoinErrors joins the batch's.
// A batch whose Wait panicked (a task panicked) keeps its results, and the
// next Wait returns them with its own; a Goexit in a task ends the Wait's
// goroutine, as in a Group.
func TestResultGroupBatches(t *testing.T) {
	withPool(t, []Option{WithWorkers(2)}, func(p *Pool) {
		errFirst := errors.New("first")
		for _, join := range []bool{false, true} {
			t.Run(fmt.Sprintf("join=%v", join), func(t *testing.T) {
				r, _ := NewResultGroup[int](context.Background(), p)
				if join {
					r.JoinErrors()
				}
				r.Go(func(*Worker) (int, error) { return 1, errFirst })
				r.Go(func(*Worker) (int, error) { return 2, nil })
				res, err := rgWait(t, r)
				assert.Equal(t, []int{1, 2}, res)
				assert.ErrorIs(t, err, errFirst)

				r.Go(func(*Worker) (int, error) { return 3, nil })
				res, err = rgWait(t, r)
				assert.Equal(t, []int{3}, res)
				if join {
					assert.NoError(t, err, "the batch's errors")
				} else {
					assert.Equal(t, errFirst, err, "the first error, for good")
				}

				res, _ = rgWait(t, r)
				assert.Nil(t, res)

				r.Go(func(*Worker) (int, error) { return 4, nil })
				r.Go(func(*Worker) (int, error) { panic("boom") })
				v := catchPanic(func() { _, _ = r.Wait() })
				pe, ok := v.(*PanicError)
				require.True(t, ok, "Wait panicked with %v, want a *PanicError", v)
				assert.Equal(t, "boom", pe.Value)
				r.Go(func(*Worker) (int, error) { return 5, nil })
				res, _ = rgWait(t, r)
				assert.Equal(t, []int{4, 0, 5}, res, "the panicked batch's results, then the next")

				r.Go(func(*Worker) (int, error) { runtime.Goexit(); return 0, nil })
				assert.True(t, exitsGoroutine(t, func() { _, _ = r.Wait() }))
				r.Go(func(*Worker) (int, error) { return 6, nil })
				res, _ = rgWait(t, r)
				assert.Equal(t, []int{0, 6}, res)
			})
		}
	})
}

// TestResultGroupWaitRacesGo: while one goroutine calls Go without pause,
// another calls Wait again and again; the batches the Waits return, put
// end to end, are every result exactly once, in the order of Go, though
// tasks finish out of order. A Wait returns only tasks that finished: the
// race detector sees no write to a result after Wait returned it.
func TestResultGroupWaitRacesGo(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 300
	}
	withPool(t, []Option{WithWorkers(2)}, func(p *Pool) {
		eachTarget(t, p, 2, func(t *testing.T, h handleTarget) {
			r, _ := newResultGroupOn[int](h)
			stop := make(chan struct{})
			go func() {
				defer close(stop)
				for i := range n {
					r.Go(func(*Worker) (int, error) {
						if i%2 == 0 {
							runtime.Gosched() // finish after the next task, at times
						}
						return i, nil
					})
				}
			}()
			var all []int
			within(t, "the Waits", func() {
				for {
					select {
					case <-stop:
						res, err := r.Wait()
						require.NoError(t, err)
						all = append(all, res...)
						want := make([]int, n)
						for i := range want {
							want[i] = i
						}
						require.Equal(t, want, all)
						return
					default:
					}
					res, err := r.Wait()
					require.NoError(t, err)
					for i := range res {
						res[i] += 0 // the caller's: writing them races with nothing
					}
					all = append(all, res...)
				}
			})
		})
	})
}

// TestResultGroupLimit: with SetLimit(2), no more than 2 tasks run at once
// while tasks that block on a channel fill the queue, 2 do, and the
// results still come in the order of Go.
func TestResultGroupLimit(t *testing.T) {
	eachServer(t, []int{1, 4}, []Option{WithMaxWorkers(8)}, func(t *testing.T, p *Pool, _ int) {
		eachTarget(t, p, 4, func(t *testing.T, h handleTarget) {
			const n, limit = 24, 2
			r, _ := newResultGroupOn[int](h)
			r.SetLimit(limit)
			var gauge peakGauge
			both := make(chan struct{})
			var once sync.Once
			for i := range n {
				r.Go(func(*Worker) (int, error) {
					if gauge.enter() == limit {
						once.Do(func() { close(both) })
					}
					defer gauge.leave()
					<-both // the first ones hold until the limit is reached
					return i, nil
				})
			}
			res, err := rgWait(t, r)
			require.NoError(t, err)
			for i, v := range res {
				require.Equal(t, i, v)
			}
			assert.Len(t, res, n)
			assert.Equal(t, int64(limit), gauge.peak.Load())
		})
	})
}

// TestResultGroupInTask: a task of the pool makes a ResultGroup on its pool
// (or on a Sub of limit 1 whose slot it holds) and waits for it, on a pool
// of one worker capped at one: Wait runs the group's tasks itself, as
// Group.Wait does, where waiting for a worker or a slot would wait for good.
func TestResultGroupInTask(t *testing.T) {
	withPool(t, []Option{WithWorkers(1), WithMaxWorkers(1)}, func(p *Pool) {
		s, err := p.Sub(1, 16)
		require.NoError(t, err)
		defer s.Close()
		body := func(h handleTarget) func(*Worker) []int {
			return func(*Worker) []int {
				r, _ := newResultGroupOn[int](h)
				for i := range 5 {
					r.Go(func(*Worker) (int, error) { return i, nil })
				}
				res, err := r.Wait()
				assert.NoError(t, err)
				return res
			}
		}
		assert.Equal(t, []int{0, 1, 2, 3, 4}, doW(t, p, body(handleTarget{p: p})))
		var res []int
		within(t, "Do", func() { res = Do(s, body(handleTarget{p: p, s: s})) })
		assert.Equal(t, []int{0, 1, 2, 3, 4}, res)
	})
}

// zeroResultGroupChildEnv makes TestResultGroupZero run its body in a
// child process: Default() is never closed (see TestGroupZeroValue).
const zeroResultGroupChildEnv = "BLITZ_TEST_ZERO_RESULT_GROUP"

// TestResultGroupZero: the zero ResultGroup runs its tasks on Default() and
// has no context; a Wait with no task returns no result and no error.
func TestResultGroupZero(t *testing.T) {
	if os.Getenv(zeroResultGroupChildEnv) == "" {
		runChild(t, "TestResultGroupZero", zeroResultGroupChildEnv+"=1")
		return
	}
	var r ResultGroup[string]
	res, err := rgWait(t, &r)
	assert.Nil(t, res)
	assert.NoError(t, err)
	var pool *Pool
	r.Go(func(w *Worker) (string, error) { pool = w.Pool(); return "a", nil })
	r.Go(func(w *Worker) (string, error) { return "b", nil })
	res, err = rgWait(t, &r)
	assert.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, res)
	assert.Same(t, Default(), pool)
}

// TestResultGroupBadInput: nil arguments panic, naming the call, and so
// does a Wait from a task of the same group (it would wait for itself).
func TestResultGroupBadInput(t *testing.T) {
	withPool(t, []Option{WithWorkers(2)}, func(p *Pool) {
		s, err := p.Sub(1, 1)
		require.NoError(t, err)
		defer s.Close()
		var nilCtx context.Context
		requirePanicMessage(t, "blitz: NewResultGroup: nil context", func() { NewResultGroup[int](nilCtx, p) })
		requirePanicMessage(t, "blitz: NewResultGroup: nil Runner", func() {
			NewResultGroup[int](context.Background(), (*Pool)(nil))
		})
		requirePanicMessage(t, "blitz: NewResultGroup: nil Runner", func() {
			NewResultGroup[int](context.Background(), (*Sub)(nil))
		})
		r, _ := NewResultGroup[int](context.Background(), p)
		requirePanicMessage(t, "blitz: ResultGroup.Go: nil function", func() { r.Go(nil) })
		var v any
		r.Go(func(*Worker) (int, error) {
			v = catchPanic(func() { _, _ = r.Wait() })
			return 0, nil
		})
		_, err = rgWait(t, r)
		assert.NoError(t, err)
		assert.Equal(t, "blitz: ResultGroup.Wait: called from a task of the same group, which would wait for itself", v)
	})
}
