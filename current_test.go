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

// The tests of calls into a pool from its own tasks (current.go). Each form
// runs in tasks that hold every worker of the pool at once, so a call that
// queued itself and blocked would wait for a worker that never comes: the
// watchdog (within) then fails the test with a goroutine dump instead of
// hanging.

// treeSum sums s on r, halving it with JoinArgs: a stand-in for the par
// package's functions, which reach a worker through Do as it does.
func treeSum(r Runner, s []int) int {
	return Do(r, func(w *Worker) int { return sumHalves(w, s) })
}

func sumHalves(w *Worker, s []int) int {
	if len(s) <= 4096 {
		t := 0
		for _, x := range s {
			t += x
		}
		return t
	}
	a, b := JoinArgs(w, sumHalves, s[:len(s)/2], sumHalves, s[len(s)/2:])
	return a + b
}

// selfCallInput is the input of the summing calls: long enough to split.
func selfCallInput() ([]int, int) {
	n := 1 << 20
	if testing.Short() {
		n = 1 << 15
	}
	s := make([]int, n)
	want := 0
	for i := range s {
		s[i] = i % 1000
		want += s[i]
	}
	return s, want
}

// selfCalls makes every form of call into p, from a task running on w, and
// returns an error naming the first whose result is wrong.
func selfCalls(ctx context.Context, p *Pool, s []int, want int) error {
	if v := Do(p, func(*Worker) int { return 42 }); v != 42 {
		return fmt.Errorf("Do = %d", v)
	}
	ran := false
	p.Run(func(*Worker) { ran = true })
	if !ran {
		return errors.New("Run did not run fn")
	}
	if v, err := DoContext(ctx, p, func(*Worker) int { return 43 }); v != 43 || err != nil {
		return fmt.Errorf("DoContext = %d, %v", v, err)
	}
	if v, err := TryDo(ctx, p, func(*Worker) int { return 44 }); v != 44 || err != nil {
		return fmt.Errorf("TryDo = %d, %v", v, err)
	}
	if v := treeSum(p, s); v != want {
		return fmt.Errorf("treeSum = %d, want %d", v, want)
	}
	abc := Do(p, func(w *Worker) [3]int {
		a, b, c := Join3(w, func(*Worker) int { return 1 }, func(*Worker) int { return 2 }, func(*Worker) int { return 3 })
		return [3]int{a, b, c}
	})
	if abc != [3]int{1, 2, 3} {
		return fmt.Errorf("Join3 = %v", abc)
	}
	var all atomic.Int64
	p.Run(func(w *Worker) {
		JoinAll(w, func(*Worker) { all.Add(1) }, func(*Worker) { all.Add(1) }, func(*Worker) { all.Add(1) })
	})
	if all.Load() != 3 {
		return fmt.Errorf("JoinAll ran %d of 3", all.Load())
	}
	g, _ := NewGroup(ctx, p)
	var groupRan atomic.Int64
	for range 4 {
		g.Go(func(w *Worker) error {
			// A group of the same pool inside a task of a group.
			inner, _ := NewGroup(ctx, p)
			for range 3 {
				inner.Go(func(*Worker) error { groupRan.Add(1); return nil })
			}
			return inner.Wait()
		})
	}
	if err := g.Wait(); err != nil || groupRan.Load() != 12 {
		return fmt.Errorf("nested groups ran %d of 12 tasks: %v", groupRan.Load(), err)
	}
	return nil
}

// TestSelfCallForms makes every form of call into a pool from tasks that
// hold all its workers (twice as many tasks as workers, each making every
// call), on every backend and at 1, 2 and 8 workers, while goroutines outside
// the pool keep submitting: every result is checked.
func TestSelfCallForms(t *testing.T) {
	s, want := selfCallInput()
	eachConfig(t, func(t *testing.T, p *Pool) {
		ctx := context.Background()
		tasks := 2 * p.Workers()
		errs := make(chan error, tasks)
		stop := make(chan struct{})
		var outside sync.WaitGroup
		var outsideCalls atomic.Int64
		for i := range 2 {
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
					if v := Do(p, func(*Worker) int { return i*1000 + k }); v != i*1000+k {
						errs <- fmt.Errorf("outside Do = %d, want %d", v, i*1000+k)
						return
					}
					outsideCalls.Add(1)
				}
			}()
		}
		within(t, "self-calls from every worker", func() {
			var wg sync.WaitGroup
			for range tasks {
				wg.Add(1)
				require.NoError(t, p.Go(func(*Worker) {
					defer wg.Done()
					if err := selfCalls(ctx, p, s, want); err != nil {
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

// TestSelfCallScenarios replays the hangs seen before calls from a task ran
// on its worker, each once, at 1, 2 and 8 workers.
func TestSelfCallScenarios(t *testing.T) {
	s, want := selfCallInput()
	eachConfig(t, func(t *testing.T, p *Pool) {
		n := p.Workers()
		within(t, "Group tasks calling Sum on the pool", func() {
			g, _ := NewGroup(context.Background(), p)
			for range 2 * n {
				g.Go(func(*Worker) error {
					if v := treeSum(p, s); v != want {
						return fmt.Errorf("Sum = %d", v)
					}
					return nil
				})
			}
			require.NoError(t, g.Wait())
		})
		within(t, "Go tasks calling Do on the pool", func() {
			var wg sync.WaitGroup
			var got atomic.Int64
			for i := range 4 * n {
				wg.Add(1)
				require.NoError(t, p.Go(func(*Worker) {
					defer wg.Done()
					got.Add(int64(Do(p, func(*Worker) int { return i })))
				}))
			}
			wg.Wait()
			assert.Equal(t, int64(4*n*(4*n-1)/2), got.Load())
		})
		within(t, "joined halves calling Sum on the pool", func() {
			a, b := Do(p, func(w *Worker) int {
				x, y := Join(w, func(*Worker) int { return treeSum(p, s) }, func(*Worker) int { return treeSum(p, s) })
				return x + y
			}), 2*want
			assert.Equal(t, b, a)
		})
		within(t, "a Group on the pool waited for in a Group task", func() {
			outer, _ := NewGroup(context.Background(), p)
			var ran atomic.Int64
			for range n {
				outer.Go(func(*Worker) error {
					inner, _ := NewGroup(context.Background(), p)
					for range 2 * n {
						inner.Go(func(*Worker) error { ran.Add(1); return nil })
					}
					return inner.Wait()
				})
			}
			require.NoError(t, outer.Wait())
			assert.Equal(t, int64(2*n*n), ran.Load())
		})
	})
}

// defaultSelfCall (a scenario of TestDefault, in a child process) is the
// first hang reported: GOMAXPROCS x 2 Group tasks on Default(), each calling
// treeSum(Default(), s).
func defaultSelfCall(t *testing.T) {
	s, want := selfCallInput()
	within(t, "Group tasks calling Sum on Default()", func() {
		g, _ := NewGroup(context.Background(), Default())
		for range 2 * runtime.GOMAXPROCS(0) {
			g.Go(func(*Worker) error {
				if v := treeSum(Default(), s); v != want {
					return fmt.Errorf("Sum = %d", v)
				}
				return nil
			})
		}
		require.NoError(t, g.Wait())
	})
}

// TestSelfCallRules checks that a call run on the caller's worker keeps the
// rules of the same call from outside: Do's panic and Goexit reach the
// task, DoContext's come back as errors and the task goes on, DoContext's
// fn sees its context and Do's fn sees none.
func TestSelfCallRules(t *testing.T) {
	eachConfig(t, func(t *testing.T, p *Pool) {
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		type key struct{}
		ctx = context.WithValue(ctx, key{}, "outer")
		inner := context.WithValue(context.Background(), key{}, "inner")

		v, err := DoContext(ctx, p, func(*Worker) string {
			// Do's fn sees no context, as from outside.
			bg := Do(p, func(w *Worker) any { return w.Context().Value(key{}) })
			// DoContext's fn sees its own.
			own, err := DoContext(inner, p, func(w *Worker) any { return w.Context().Value(key{}) })
			if err != nil {
				return err.Error()
			}
			// A panic in Do re-panics in the task as a *PanicError.
			pv := catchPanic(func() { Do(p, func(*Worker) int { panic("boom") }) })
			pe, ok := pv.(*PanicError)
			if !ok || pe.Value != "boom" {
				return fmt.Sprintf("Do's panic reached the task as %v (%T)", pv, pv)
			}
			// DoContext returns it, and the task goes on.
			_, perr := DoContext(inner, p, func(*Worker) int { panic("bang") })
			if !errors.Is(perr, ErrPanic) {
				return fmt.Sprintf("DoContext's panic = %v, want ErrPanic", perr)
			}
			// A Goexit in DoContext's fn ends fn only.
			_, gerr := TryDo(inner, p, func(*Worker) int { runtime.Goexit(); return 0 })
			if !errors.Is(gerr, ErrGoexit) {
				return fmt.Sprintf("TryDo's Goexit = %v, want ErrGoexit", gerr)
			}
			// A panic deep in a join in DoContext's fn leaves the
			// worker's join depth as it was: a join afterwards works.
			_, jerr := DoContext(inner, p, func(w *Worker) int {
				Join(w, func(w *Worker) int {
					Join(w, func(*Worker) int { panic("deep") }, func(*Worker) int { return 1 })
					return 0
				}, func(*Worker) int { return 2 })
				return 0
			})
			if !errors.Is(jerr, ErrPanic) {
				return fmt.Sprintf("DoContext's deep panic = %v", jerr)
			}
			return fmt.Sprintf("%v/%v", bg, own)
		})
		require.NoError(t, err)
		assert.Equal(t, "<nil>/inner", v)

		// A Goexit in Do's fn ends the calling task, as Do from outside
		// ends its caller; the worker goes on.
		done := make(chan bool, 1)
		within(t, "Goexit through a self-call", func() {
			require.NoError(t, p.Go(func(*Worker) {
				returned := false
				defer func() { done <- returned }()
				Do(p, func(*Worker) int { runtime.Goexit(); return 0 })
				returned = true
			}))
			assert.False(t, <-done, "the task went on after a Goexit in Do")
			assert.Equal(t, 7, Do(p, func(*Worker) int { return Do(p, func(*Worker) int { return 7 }) }))
		})
	})
}

// TestSelfCallAfterRespawn checks that a worker's replacement goroutine
// (after a Goexit) is recognised: on one worker, a self-call that was not
// would wait for ever. The calls do not run on their caller: the Goexit
// must end a worker goroutine.
func TestSelfCallAfterRespawn(t *testing.T) {
	withPool(t, []Option{WithWorkers(1), WithCallerRuns(false)}, func(p *Pool) {
		for range 3 {
			assert.True(t, exitsGoroutine(t, func() { p.Run(func(*Worker) { runtime.Goexit() }) }))
			within(t, "self-call after a respawn", func() {
				assert.Equal(t, 5, Do(p, func(*Worker) int { return Do(p, func(*Worker) int { return 5 }) }))
			})
		}
		assert.Equal(t, uint64(3), p.respawns.Load())
	})
}

// TestCrossPoolCycle has pools of one worker call each other in a cycle:
// p's task calls into q, whose task calls back into p, with every form. p's
// only worker is blocked in its call, so the call back runs on the
// goroutine p's worker is lent to meanwhile: recognised as p's worker, it
// runs inline there.
func TestCrossPoolCycle(t *testing.T) {
	for _, k := range testParkings() {
		t.Run(fmt.Sprintf("parking=%v", k), func(t *testing.T) {
			withTwoPools(t, []Option{WithParking(k), WithWorkers(1)}, []Option{WithParking(k), WithWorkers(1)}, func(p, q *Pool) {
				ctx := context.Background()
				within(t, "Do cycle", func() {
					v := Do(p, func(*Worker) int {
						return Do(q, func(*Worker) int {
							return Do(p, func(*Worker) int { return treeSum(q, []int{1, 2, 3}) + treeSum(p, []int{4}) })
						})
					})
					assert.Equal(t, 10, v)
				})
				within(t, "DoContext cycle", func() {
					v, err := DoContext(ctx, p, func(*Worker) int {
						v, err := DoContext(ctx, q, func(*Worker) int {
							v, _ := TryDo(ctx, p, func(*Worker) int { return 11 })
							return v
						})
						if err != nil {
							return -1
						}
						return v
					})
					require.NoError(t, err)
					assert.Equal(t, 11, v)
				})
				within(t, "Group cycle", func() {
					err := Do(p, func(*Worker) error {
						g, _ := NewGroup(ctx, q)
						for i := range 4 {
							g.Go(func(*Worker) error {
								if Do(p, func(*Worker) int { return i }) != i {
									return errors.New("wrong result")
								}
								return nil
							})
						}
						return g.Wait()
					})
					require.NoError(t, err)
				})
			})
		})
	}
}

// TestDoContextFromOtherPoolStops checks DoContext from a task of another
// pool when its context ends: a task still queued is withdrawn and never
// runs; a running one is left to finish, and the caller gets its worker
// back and the context's error.
func TestDoContextFromOtherPoolStops(t *testing.T) {
	withTwoPools(t, []Option{WithWorkers(1)}, []Option{WithWorkers(1), WithMaxWorkers(1), WithCapacity(4)}, func(p, q *Pool) {
		g := newGate()
		defer g.open()
		g.occupy(t, q, 1) // q's only worker is held: a task given to q stays queued
		ctx, cancel := context.WithCancel(context.Background())
		var ran atomic.Bool
		errc := make(chan error, 1)
		require.NoError(t, p.Go(func(*Worker) {
			_, err := DoContext(ctx, q, func(*Worker) int { ran.Store(true); return 1 })
			errc <- err
		}))
		eventually(t, "the task queued in q", func() bool { return queued(q) == 1 })
		cancel()
		var err error
		within(t, "withdrawn", func() { err = <-errc })
		require.ErrorIs(t, err, context.Canceled)
		assert.Contains(t, err.Error(), "withdrawn")
		g.open()

		// Running: the task waits for a signal that comes after the
		// caller stopped waiting.
		ctx, cancel = context.WithCancel(context.Background())
		release, started := make(chan struct{}), make(chan struct{})
		require.NoError(t, p.Go(func(*Worker) {
			_, err := DoContext(ctx, q, func(*Worker) int { close(started); <-release; return 1 })
			errc <- err
		}))
		<-started
		cancel()
		within(t, "stopped waiting", func() { err = <-errc })
		require.ErrorIs(t, err, context.Canceled)
		assert.Contains(t, err.Error(), "stopped waiting")
		close(release)
		// p's worker is back: p serves again.
		assert.Equal(t, 3, doW(t, p, func(*Worker) int { return 3 }))
		assert.False(t, ran.Load(), "the withdrawn task ran")
	})
}

// TestSelfCallWhileLent checks that a goroutine a worker is lent to (while
// its own goroutine waits on a call into another pool) is recognised as that
// worker: p has one worker, blocked in a call into q, and a task of p that
// its lent goroutine runs calls into p.
func TestSelfCallWhileLent(t *testing.T) {
	withTwoPools(t, []Option{WithWorkers(1)}, []Option{WithWorkers(1)}, func(p, q *Pool) {
		release := make(chan struct{})
		first := make(chan int, 1)
		require.NoError(t, p.Go(func(*Worker) {
			first <- Do(q, func(*Worker) int { <-release; return 1 })
		}))
		within(t, "self-call on a lent worker", func() {
			assert.Equal(t, 9, Do(p, func(*Worker) int { return Do(p, func(*Worker) int { return 9 }) }))
		})
		close(release)
		within(t, "the first call", func() { assert.Equal(t, 1, <-first) })
	})
}

// TestGroupGoAfterWait checks that a Group may be reused, as errgroup's:
// a task given after its Wait returned runs, for a group made with the pool
// and for one made with a *Worker and waited for by its task, and a later
// Wait waits for it.
func TestGroupGoAfterWait(t *testing.T) {
	withPool(t, []Option{WithWorkers(2)}, func(p *Pool) {
		for _, r := range []Runner{p, nil} {
			g, _ := NewGroup(context.Background(), p)
			if r == nil {
				// A group made with a *Worker, waited for by its task.
				Do(p, func(w *Worker) int {
					g, _ = NewGroup(context.Background(), w)
					g.Go(func(*Worker) error { return nil })
					require.NoError(t, g.Wait())
					return 0
				})
			} else {
				g.Go(func(*Worker) error { return nil })
				require.NoError(t, g.Wait())
			}
			var ran atomic.Bool
			g.Go(func(*Worker) error { ran.Store(true); return nil })
			within(t, "Wait of the second batch", func() { require.NoError(t, g.Wait()) })
			assert.True(t, ran.Load(), "the task given after Wait ran")
		}
	})
}

// withTwoPools is withPool for two pools, closed in turn before the leak
// check.
func withTwoPools(t *testing.T, opts1, opts2 []Option, f func(p, q *Pool)) {
	t.Helper()
	defer verifyNone(t)
	p, err := New(opts1...)
	require.NoError(t, err)
	q, err := New(opts2...)
	require.NoError(t, err)
	defer within(t, "Close", func() {
		assert.NoError(t, q.Close())
		assert.NoError(t, p.Close())
	})
	f(p, q)
}

// TestGroupWaitFromOwnTask checks that a task of a group that waits for
// that group panics with a message naming the call, instead of waiting for
// itself, including when it does so from a task of another group nested
// in it; the panic reaches the group's Wait.
func TestGroupWaitFromOwnTask(t *testing.T) {
	eachConfig(t, func(t *testing.T, p *Pool) {
		const msg = "blitz: Group.Wait: called from a task of the same group, which would wait for itself"
		for _, nested := range []bool{false, true} {
			g, _ := NewGroup(context.Background(), p)
			g.Go(func(*Worker) error {
				if !nested {
					return g.Wait()
				}
				inner, _ := NewGroup(context.Background(), p)
				inner.Go(func(*Worker) error { return g.Wait() })
				return inner.Wait()
			})
			var v any
			within(t, "Wait", func() { v = catchPanic(func() { _ = g.Wait() }) })
			pe, ok := v.(*PanicError)
			require.True(t, ok, "Wait panicked with %v (%T), want a *PanicError", v, v)
			assert.Equal(t, msg, pe.Value)
		}
	})
}

// TestGroupWaitFromStolenWork checks that the rule holds wherever the
// waiting code runs: in the second half of a join that another worker
// stole, in a scope task that another worker took, in a Broadcast's share on
// every worker. Each of them runs within the group's task, as it would
// inline, so its Wait panics with the same message instead of waiting for
// itself (the task waits for it). The halves and scope tasks are made to
// run elsewhere: the first half or the body waits until they started. A
// storm of groups does it at once, from as many goroutines.
func TestGroupWaitFromStolenWork(t *testing.T) {
	const msg = "blitz: Group.Wait: called from a task of the same group, which would wait for itself"
	storm := 16
	if testing.Short() {
		storm = 4
	}
	shapes := map[string]func(g *Group, w *Worker){
		"join": func(g *Group, w *Worker) {
			started := make(chan struct{})
			w.Join(func(*Worker) { <-started }, func(*Worker) { close(started); _ = g.Wait() })
		},
		"scope": func(g *Group, w *Worker) {
			started := make(chan struct{})
			w.Scope(func(s *Scope) {
				s.Spawn(func(*Worker, *Scope) { close(started); _ = g.Wait() })
				<-started
			})
		},
		"broadcast": func(g *Group, w *Worker) {
			Broadcast(w, func(*Worker) error { return g.Wait() })
		},
	}
	eachConfig(t, func(t *testing.T, p *Pool) {
		if p.Workers() == 1 {
			t.Skip("nobody else to steal: TestGroupWaitFromOwnTask covers the inline form")
		}
		for name, shape := range shapes {
			t.Run(name, func(t *testing.T) {
				var wrong atomic.Int64
				var wg sync.WaitGroup
				for range storm {
					wg.Add(1)
					go func() {
						defer wg.Done()
						g, _ := NewGroup(context.Background(), p)
						g.Go(func(w *Worker) error { shape(g, w); return nil })
						v := catchPanic(func() { _ = g.Wait() })
						if pe, ok := v.(*PanicError); !ok || pe.Value != msg {
							wrong.Add(1)
							t.Errorf("Wait panicked with %v (%T), want a *PanicError of %q", v, v, msg)
						}
					}()
				}
				within(t, "the groups", wg.Wait)
				assert.Zero(t, wrong.Load())
			})
		}
	})
}

// TestSelfCallWhileClosing checks that a task that a closing pool still runs
// may call the pool's functions with the *Pool, as with its *Worker: the
// calls run on its worker, while the same calls from outside are refused;
// and that what would queue a task (Go, TryGo, GoContext) is refused with
// ErrClosed to the task too, as Pool.Closed says.
func TestSelfCallWhileClosing(t *testing.T) {
	for _, k := range testParkings() {
		for _, n := range testWorkerCounts {
			t.Run(fmt.Sprintf("parking=%v/workers=%d", k, n), func(t *testing.T) {
				defer verifyNone(t)
				p, err := New(WithParking(k), WithWorkers(n))
				require.NoError(t, err)
				closing, release := make(chan struct{}), make(chan struct{})
				results := make(chan int, 4)
				refusals := make(chan error, 3)
				var ran atomic.Int64
				require.NoError(t, p.Go(func(*Worker) {
					<-closing
					results <- treeSum(p, []int{1, 2, 3})
					results <- Do(p, func(*Worker) int { return 4 })
					v, _ := DoContext(context.Background(), p, func(*Worker) int { return 5 })
					results <- v
					v, _ = TryDo(context.Background(), p, func(*Worker) int { return 6 })
					results <- v
					task := func(*Worker) { ran.Add(1) }
					refusals <- p.Go(task)
					refusals <- p.TryGo(task)
					refusals <- p.GoContext(context.Background(), task)
					<-release
				}))
				closed := make(chan error, 1)
				go func() { closed <- p.Close() }()
				eventually(t, "Close began", func() bool { return p.Closed() })
				close(closing)
				within(t, "self-calls while closing", func() {
					assert.Equal(t, 6, <-results)
					assert.Equal(t, 4, <-results)
					assert.Equal(t, 5, <-results)
					assert.Equal(t, 6, <-results)
					for _, name := range []string{"Go", "TryGo", "GoContext"} {
						assert.ErrorIs(t, <-refusals, ErrClosed, "%s from a task of a closing pool", name)
					}
				})
				assert.ErrorIs(t, catchPanic(func() { treeSum(p, []int{1}) }).(error), ErrClosed, "Do from outside a closing pool")
				close(release)
				within(t, "Close", func() { require.NoError(t, <-closed) })
				assert.Zero(t, ran.Load(), "refused tasks ran")
			})
		}
	}
}

// TestSelfDoContextEndedContext checks that DoContext and TryDo (and
// DoContext, TryDo) called from a task of their own pool return what
// they return from outside when the context ends while fn runs: an error
// wrapping the context's, whatever fn's outcome, which is dropped; and fn's
// outcome when the context outlives fn.
func TestSelfDoContextEndedContext(t *testing.T) {
	eachConfig(t, func(t *testing.T, p *Pool) {
		s, err := p.Sub(1, 0)
		require.NoError(t, err)
		defer s.Close()
		calls := []struct {
			name string
			call func(ctx context.Context, fn func(*Worker) int) (int, error)
		}{
			{"DoContext", func(ctx context.Context, fn func(*Worker) int) (int, error) { return DoContext(ctx, p, fn) }},
			{"TryDo", func(ctx context.Context, fn func(*Worker) int) (int, error) { return TryDo(ctx, p, fn) }},
			{"DoContext", func(ctx context.Context, fn func(*Worker) int) (int, error) { return DoContext(ctx, s, fn) }},
			{"TryDo", func(ctx context.Context, fn func(*Worker) int) (int, error) { return TryDo(ctx, s, fn) }},
		}
		for _, c := range calls {
			outcomes := map[string]func(cancel context.CancelFunc) func(*Worker) int{
				"return": func(cancel context.CancelFunc) func(*Worker) int {
					return func(*Worker) int { cancel(); return 42 }
				},
				"panic": func(cancel context.CancelFunc) func(*Worker) int {
					return func(*Worker) int { cancel(); panic("late") }
				},
				"goexit": func(cancel context.CancelFunc) func(*Worker) int {
					return func(*Worker) int { cancel(); runtime.Goexit(); return 0 }
				},
			}
			for how, fn := range outcomes {
				got := Do(p, func(*Worker) error {
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					v, err := c.call(ctx, fn(cancel))
					if v != 0 {
						return fmt.Errorf("result %d delivered", v)
					}
					return err
				})
				require.ErrorIs(t, got, context.Canceled, "%s from a task, the context ended before fn's %s", c.name, how)
				assert.Contains(t, got.Error(), "blitz: "+c.name+": ")
				assert.NotErrorIs(t, got, ErrPanic)
				assert.NotErrorIs(t, got, ErrGoexit)
			}
			// The context outlives fn: fn's result.
			v := Do(p, func(*Worker) int {
				v, err := c.call(context.Background(), func(*Worker) int { return 7 })
				if err != nil {
					return -1
				}
				return v
			})
			assert.Equal(t, 7, v, c.name)
		}
	})
}
