package blitz

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSubStorm: under Go, TryGo, DoContext and TryDo from several
// goroutines, Go from the Sub's own tasks and plain tasks of the parent
// beside them, no more than the limit of the Sub's tasks ever run at once
// and the limit is reached; every accepted task runs exactly once; the
// refusals are counted; the counters add up after Close.
func TestSubStorm(t *testing.T) {
	eachServer(t, []int{1, 2, 4}, nil, func(t *testing.T, p *Pool, workers int) {
		for _, limit := range []int{1, workers} {
			t.Run(fmt.Sprintf("limit=%d", limit), func(t *testing.T) {
				producers, each := 4, 200
				if testing.Short() {
					each = 40
				}
				s, err := p.Sub(limit, 4)
				require.NoError(t, err)
				var gauge peakGauge
				var ran, accepted, refused, other atomic.Int64
				full := make(chan struct{})
				var fullOnce sync.Once
				body := func(w *Worker) {
					if gauge.enter() == int64(limit) {
						fullOnce.Do(func() { close(full) })
					}
					if ran.Load() < int64(limit) {
						<-full // the first ones hold until the limit is reached
					}
					ran.Add(1)
					gauge.leave()
				}
				nested := func(w *Worker) {
					if s.Go(body) == nil { // from a task: over the bound, never waits
						accepted.Add(1)
					}
					body(w)
				}
				within(t, "storm", func() {
					var wg sync.WaitGroup
					for i := range producers {
						wg.Add(1)
						go func() {
							defer wg.Done()
							for j := range each {
								var err error
								switch (i + j) % 6 {
								case 0:
									err = s.TryGo(body)
								case 1:
									_, err = TryDo(context.Background(), s, func(w *Worker) int { body(w); return 0 })
								case 2:
									_, err = DoContext(context.Background(), s, func(w *Worker) int { body(w); return 0 })
								case 3:
									err = s.Go(nested)
								case 4:
									err = p.Go(func(*Worker) { other.Add(1) })
									accepted.Add(-1) // not the Sub's
								default:
									err = s.Go(body)
								}
								switch {
								case err == nil:
									accepted.Add(1)
								case errors.Is(err, ErrQueueFull):
									refused.Add(1)
								default:
									t.Errorf("submission: %v", err)
								}
							}
						}()
					}
					wg.Wait()
					require.NoError(t, s.Close())
				})
				st := s.Stats()
				assert.LessOrEqual(t, gauge.peak.Load(), int64(limit), "more tasks ran at once than the limit")
				assert.Equal(t, int64(limit), gauge.peak.Load(), "the limit was never reached: the test checks nothing")
				assert.Equal(t, accepted.Load(), ran.Load(), "accepted tasks that did not run exactly once")
				assert.Equal(t, uint64(ran.Load()), st.Submitted)
				assert.Equal(t, st.Submitted, st.Completed)
				assert.Equal(t, uint64(refused.Load()), st.Rejected)
				assert.Zero(t, st.Queued)
				assert.Zero(t, st.Running)
				assert.Positive(t, other.Load())
				assert.ErrorIs(t, s.Go(body), ErrClosed)
			})
		}
	})
}

// holdSub takes every slot of s with tasks that block until release is
// closed, and waits until they all run.
func holdSub(t *testing.T, s *Sub, n int, release chan struct{}) {
	t.Helper()
	started := make(chan struct{}, n)
	for range n {
		require.NoError(t, s.Go(func(*Worker) { started <- struct{}{}; <-release }))
	}
	for range n {
		<-started
	}
}

// TestSubRefusals: with every slot taken and the queue full, TryGo and
// TryDo refuse with ErrQueueFull, counted in Rejected; Queued and
// Running say where the tasks are; a DoContext whose context ends while
// it waits for room gives up (Abandoned), and one whose context ends while
// queued is withdrawn, never runs, and frees its place in the queue.
func TestSubRefusals(t *testing.T) {
	eachServer(t, []int{2}, nil, func(t *testing.T, p *Pool, _ int) {
		s, err := p.Sub(1, 2)
		require.NoError(t, err)
		release := make(chan struct{})
		holdSub(t, s, 1, release)
		var ran atomic.Int64
		require.NoError(t, s.Go(func(*Worker) { ran.Add(1) }))
		ctx, cancel := context.WithCancel(context.Background())
		withdrawn := make(chan error, 1)
		go func() {
			_, err := DoContext(ctx, s, func(*Worker) int { ran.Add(100); return 0 })
			withdrawn <- err
		}()
		for s.Stats().Queued < 2 {
			runtime.Gosched()
		}
		assert.ErrorIs(t, s.TryGo(func(*Worker) {}), ErrQueueFull)
		_, err = TryDo(context.Background(), s, func(*Worker) int { return 0 })
		assert.ErrorIs(t, err, ErrQueueFull)
		// Waiting for room, and giving up.
		ctx2, cancel2 := context.WithCancel(context.Background())
		abandoned := make(chan error, 1)
		go func() {
			_, err := DoContext(ctx2, s, func(*Worker) int { ran.Add(1000); return 0 })
			abandoned <- err
		}()
		cancel2()
		assert.ErrorIs(t, <-abandoned, context.Canceled)
		st := s.Stats()
		assert.Equal(t, SubStats{Limit: 1, Capacity: 2, Queued: 2, Running: 1, Submitted: 3, Rejected: 2, Abandoned: st.Abandoned}, st)
		cancel()
		err = <-withdrawn
		assert.ErrorIs(t, err, context.Canceled)
		assert.Contains(t, err.Error(), "withdrawn")
		assert.Equal(t, 1, s.Stats().Queued, "the withdrawn task left the queue")
		require.NoError(t, s.TryGo(func(*Worker) { ran.Add(1) }), "room after the withdrawal")
		close(release)
		within(t, "Close", func() { require.NoError(t, s.Close()) })
		assert.Equal(t, int64(2), ran.Load())
		st = s.Stats()
		assert.Equal(t, st.Submitted, st.Completed)
		assert.LessOrEqual(t, st.Abandoned, uint64(1))
	})
}

// TestSubNestedNoDeadlock: on a parent of one worker, with a limit of 1 and
// no queue room, tasks of the parent and of the Sub call Go, Do,
// DoContext and TryDo on the Sub (the slot held by the caller, or by a
// task queued behind it), and a task of another pool of one worker calls
// Do while the slot's holder calls into that pool. All finish.
func TestSubNestedNoDeadlock(t *testing.T) {
	for _, k := range serverParkings() {
		t.Run(fmt.Sprint("parking=", k), func(t *testing.T) {
			withPool(t, []Option{WithParking(k), WithWorkers(1)}, func(p *Pool) {
				q, err := New(WithParking(k), WithWorkers(1))
				require.NoError(t, err)
				defer within(t, "Close q", func() { assert.NoError(t, q.Close()) })
				s, err := p.Sub(1, 0)
				require.NoError(t, err)
				var ran atomic.Int64
				inner := func(w *Worker) int {
					ran.Add(1)
					require.NoError(t, s.Go(func(*Worker) { ran.Add(1) }))
					n := Do(s, func(*Worker) int { return 1 })
					m, err := TryDo(context.Background(), s, func(*Worker) int { return 1 })
					assert.NoError(t, err)
					return n + m + Do(p, func(*Worker) int { return 1 })
				}
				within(t, "nested", func() {
					got := Do(p, func(w *Worker) int {
						require.NoError(t, s.Go(func(w *Worker) { inner(w) })) // takes the slot, queued behind this task
						require.NoError(t, s.Go(func(w *Worker) { inner(w) })) // over the bound
						r, err := DoContext(context.Background(), s, inner)
						assert.NoError(t, err)
						return r + Do(s, inner)
					})
					assert.Equal(t, 6, got)
					for s.Stats().Completed < 6 {
						runtime.Gosched()
					}
					require.NoError(t, s.Close())
				})
				assert.Equal(t, int64(8), ran.Load())
				assert.Equal(t, SubStats{Limit: 1, Submitted: 6, Completed: 6, Inline: 10}, s.Stats())

				// Another pool's task waits for the slot, whose holder calls
				// into that pool: its worker serves q meanwhile.
				s2, err := p.Sub(1, 0)
				require.NoError(t, err)
				holding := make(chan struct{})
				require.NoError(t, s2.Go(func(*Worker) {
					close(holding)
					Do(q, func(*Worker) int { return 0 })
				}))
				<-holding
				within(t, "cross-pool Do", func() {
					assert.Equal(t, 7, Do(q, func(*Worker) int { return Do(s2, func(*Worker) int { return 7 }) }))
					require.NoError(t, s2.Close())
				})
			})
		})
	}
}

// TestSubCallBackIntoHeldSlot: a task of a Sub of limit 1 calls into
// other pools (one or two, each of one worker), whose tasks call the Sub
// again, with Do, DoContext, TryDo and Go: the calls run in the slot
// the waiting task holds (they would otherwise wait for it forever), and
// counted in Inline; the Sub's work never runs two at once, since the
// holder waits while the call runs. A storm of callers does it at once,
// the Sub's queue holding them.
func TestSubCallBackIntoHeldSlot(t *testing.T) {
	callers := 8
	if testing.Short() {
		callers = 3
	}
	forms := []string{"Do", "DoContext", "TryDo", "Go"}
	for _, k := range serverParkings() {
		for _, hops := range []int{1, 2} {
			t.Run(fmt.Sprintf("parking=%v/hops=%d", k, hops), func(t *testing.T) {
				withPool(t, []Option{WithParking(k), WithWorkers(1)}, func(p *Pool) {
					others := make([]*Pool, hops)
					for i := range others {
						q, err := New(WithParking(k), WithWorkers(1))
						require.NoError(t, err)
						others[i] = q
					}
					defer within(t, "Close the others", func() {
						for _, q := range others {
							assert.NoError(t, q.Close())
						}
					})
					s, err := p.Sub(1, 2*callers)
					require.NoError(t, err)
					var inSub, most atomic.Int64
					enter := func() {
						n := inSub.Add(1)
						for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
						}
					}
					var leaves atomic.Int64
					var wg sync.WaitGroup
					leaf := func(form string) {
						body := func(*Worker) int { enter(); defer inSub.Add(-1); leaves.Add(1); return 1 }
						switch form {
						case "Do":
							Do(s, body)
						case "DoContext":
							_, err := DoContext(context.Background(), s, body)
							assert.NoError(t, err)
						case "TryDo":
							_, err := TryDo(context.Background(), s, body)
							assert.NoError(t, err)
						default:
							wg.Add(1)
							assert.NoError(t, s.Go(func(w *Worker) { defer wg.Done(); body(w) }))
						}
					}
					// through calls the task into others[i], which calls on.
					var through func(i int, form string) int
					through = func(i int, form string) int {
						if i == len(others) {
							leaf(form)
							return 1
						}
						return Do(others[i], func(*Worker) int { return through(i+1, form) })
					}
					within(t, "the callers", func() {
						var callersWG sync.WaitGroup
						for c := range callers {
							callersWG.Add(1)
							go func() {
								defer callersWG.Done()
								form := forms[c%len(forms)]
								Do(s, func(*Worker) int {
									enter()
									inSub.Add(-1) // the holder waits while its call runs
									r := through(0, form)
									enter()
									inSub.Add(-1)
									return r
								})
							}()
						}
						callersWG.Wait()
						wg.Wait()
					})
					assert.Equal(t, int64(callers), leaves.Load(), "every leaf ran")
					assert.Equal(t, int64(1), most.Load(), "the Sub's work at once")
					st := s.Stats()
					assert.GreaterOrEqual(t, st.Inline, uint64(callers-callers/len(forms)), "calls in the held slot")
					require.NoError(t, s.Close())
				})
			})
		}
	}
}

// TestSubShutdownUnderLoad: a Sub closed while producers submit to it runs
// every task it accepted, refuses the rest with ErrClosed, and leaves the
// parent running; the parent's Close closes its Subs, and runs what they
// had queued (more than the queue's compaction threshold).
func TestSubShutdownUnderLoad(t *testing.T) {
	eachServer(t, []int{1, 2, 4}, nil, func(t *testing.T, p *Pool, workers int) {
		each := 300
		if testing.Short() {
			each = 60
		}
		s, err := p.Sub(workers, 8)
		require.NoError(t, err)
		var ran, accepted, closed atomic.Int64
		half := make(chan struct{})
		within(t, "load and Close", func() {
			var wg sync.WaitGroup
			for i := range 3 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					// Each submitter goes on past each submissions until
					// the Sub refuses one: every one meets the Close.
					for j := 0; ; j++ {
						if i == 0 && j == each/2 {
							close(half)
						}
						switch err := s.Go(func(*Worker) { ran.Add(1) }); {
						case err == nil:
							accepted.Add(1)
						case errors.Is(err, ErrClosed):
							closed.Add(1)
							if j >= each/2 {
								return
							}
						default:
							t.Errorf("Go: %v", err)
							return
						}
					}
				}()
			}
			<-half
			require.NoError(t, s.Close())
			wg.Wait()
		})
		assert.Equal(t, accepted.Load(), ran.Load())
		assert.GreaterOrEqual(t, closed.Load(), int64(3), "a submitter did not meet the closed Sub")
		assert.Equal(t, 1, Do(p, func(*Worker) int { return 1 }), "the parent goes on")

		// The parent's Close with tasks queued in a Sub.
		s, err = p.Sub(1, 100)
		require.NoError(t, err)
		release := make(chan struct{})
		holdSub(t, s, 1, release)
		ran.Store(0)
		for range 100 { // enough for the queue's compaction to run
			require.NoError(t, s.Go(func(*Worker) { ran.Add(1) }))
		}
		closing := make(chan error, 1)
		go func() { closing <- p.Close() }()
		for !p.Closed() {
			runtime.Gosched()
		}
		within(t, "Sub.Go after the parent closed", func() {
			for s.Go(func(*Worker) {}) == nil {
				runtime.Gosched() // Closed is set just before the Subs are
			}
		})
		close(release)
		within(t, "parent Close", func() { require.NoError(t, <-closing) })
		assert.Equal(t, int64(100), ran.Load())
		require.NoError(t, s.Close())
		_, err = p.Sub(1, 1)
		assert.ErrorIs(t, err, ErrClosed)
	})
}

// TestSubPanicGoexit: a panic in a Sub's Go task goes to the parent's
// panic handler and counts in Panics; DoContext returns panics and
// Goexits as errors; a Goexit in a task with tasks queued behind it loses
// none of them.
func TestSubPanicGoexit(t *testing.T) {
	var handled atomic.Int64
	h := WithPanicHandler(func(any, []byte) { handled.Add(1) })
	eachServer(t, []int{1, 2}, []Option{h}, func(t *testing.T, p *Pool, _ int) {
		handled.Store(0)
		s, err := p.Sub(1, 100)
		require.NoError(t, err)
		release := make(chan struct{})
		holdSub(t, s, 1, release)
		var ran atomic.Int64
		require.NoError(t, s.Go(func(*Worker) { panic("boom") }))
		require.NoError(t, s.Go(func(*Worker) { ran.Add(1); runtime.Goexit() }))
		require.NoError(t, s.Go(func(*Worker) { ran.Add(1); runtime.Goexit() }))
		require.NoError(t, s.Go(func(*Worker) { ran.Add(1) }))
		type res struct {
			err error
		}
		out := make(chan res, 2)
		go func() {
			_, err := DoContext(context.Background(), s, func(*Worker) int { panic("boom2") })
			out <- res{err}
		}()
		go func() {
			_, err := DoContext(context.Background(), s, func(*Worker) int { runtime.Goexit(); return 0 })
			out <- res{err}
		}()
		for s.Stats().Queued < 6 {
			runtime.Gosched()
		}
		close(release)
		within(t, "Close", func() { require.NoError(t, s.Close()) })
		var errs []error
		errs = append(errs, (<-out).err, (<-out).err)
		var pe, ge int
		for _, err := range errs {
			if errors.Is(err, ErrPanic) {
				pe++
			}
			if errors.Is(err, ErrGoexit) {
				ge++
			}
		}
		assert.Equal(t, 1, pe)
		assert.Equal(t, 1, ge)
		assert.Equal(t, int64(3), ran.Load())
		assert.Equal(t, int64(1), handled.Load())
		st := s.Stats()
		assert.Equal(t, uint64(2), st.Panics)
		assert.Equal(t, uint64(7), st.Completed)
	})
}

// TestSubBadInput: bad bounds are errors, nil functions and contexts
// panic with the entry point's name.
func TestSubBadInput(t *testing.T) {
	withPool(t, nil, func(p *Pool) {
		_, err := p.Sub(0, 1)
		assert.ErrorContains(t, err, "limit 0")
		_, err = p.Sub(1, -1)
		assert.ErrorContains(t, err, "capacity -1")
		s, err := p.Sub(1, 1)
		require.NoError(t, err)
		requirePanicMessage(t, "blitz: Sub.Go: nil function", func() { _ = s.Go(nil) })
		requirePanicMessage(t, "blitz: Sub.TryGo: nil function", func() { _ = s.TryGo(nil) })
		requirePanicMessage(t, "blitz: Do: nil function", func() { Do[int](s, nil) })
		var nilCtx context.Context
		requirePanicMessage(t, "blitz: TryDo: nil context", func() { _, _ = TryDo(nilCtx, s, func(*Worker) int { return 0 }) })
		requirePanicMessage(t, "blitz: DoContext: nil context", func() { _, _ = DoContext(nilCtx, s, func(*Worker) int { return 0 }) })
		requirePanicMessage(t, "blitz: Sub.Shutdown: nil context", func() { _ = s.Shutdown(nilCtx) })
		requirePanicMessage(t, "blitz: Do: nil Runner", func() { Do((*Sub)(nil), func(*Worker) int { return 0 }) })
		var nilSub *Sub
		requirePanicMessage(t, "blitz: Sub.Go: nil *Sub", func() { _ = nilSub.Go(func(*Worker) {}) })
		requirePanicMessage(t, "blitz: Sub.Close: nil *Sub", func() { _ = nilSub.Close() })
		requirePanicMessage(t, "blitz: Sub.Stats: nil *Sub", func() { nilSub.Stats() })
		assert.Equal(t, ErrCloseInTask, Do(p, func(*Worker) error { return s.Close() }))
		require.NoError(t, s.Close())
		v := catchPanic(func() { Do(s, func(*Worker) int { return 0 }) })
		require.IsType(t, fmt.Errorf("%w", ErrClosed), v)
		assert.ErrorIs(t, v.(error), ErrClosed)
	})
}

// TestSubWithdrawStorm: DoContext calls whose contexts end at random
// points while a storm keeps the Sub's slots and queue busy: a call that
// reports its task withdrawn never runs it, and every other accepted call
// runs its task exactly once; the Sub's counters add up.
func TestSubWithdrawStorm(t *testing.T) {
	eachServer(t, []int{1, 2}, nil, func(t *testing.T, p *Pool, workers int) {
		each := 200
		if testing.Short() {
			each = 50
		}
		s, err := p.Sub(workers, 8)
		require.NoError(t, err)
		type call struct {
			runs      atomic.Int32
			withdrawn bool
			accepted  bool
		}
		calls := make([][]*call, 4)
		var withdrawn atomic.Int64
		within(t, "storm", func() {
			var wg sync.WaitGroup
			for i := range calls {
				calls[i] = make([]*call, each)
				wg.Add(1)
				go func() {
					defer wg.Done()
					for j := range each {
						c := &call{}
						calls[i][j] = c
						ctx, cancel := context.WithCancel(context.Background())
						if j%2 == 0 {
							go cancel()
						}
						_, err := DoContext(ctx, s, func(*Worker) int { c.runs.Add(1); runtime.Gosched(); return 0 })
						cancel()
						switch {
						case err == nil:
							c.accepted = true
						case errors.Is(err, context.Canceled):
							// Withdrawn while queued; or ended while the task
							// ran (which then runs to its end); or ended before
							// the call, or while it waited for room: refused.
							c.withdrawn = strings.Contains(err.Error(), "withdrawn before it started")
							c.accepted = strings.Contains(err.Error(), "stopped waiting for the running task")
							if c.withdrawn {
								withdrawn.Add(1)
							}
						default:
							t.Errorf("DoContext: %v", err)
						}
					}
				}()
			}
			wg.Wait()
			require.NoError(t, s.Close())
		})
		for _, cs := range calls {
			for _, c := range cs {
				switch {
				case c.withdrawn:
					assert.Zero(t, c.runs.Load(), "a withdrawn task ran")
				case c.accepted:
					assert.Equal(t, int32(1), c.runs.Load(), "an accepted task did not run exactly once")
				}
			}
		}
		st := s.Stats()
		assert.Equal(t, st.Submitted, st.Completed)
		assert.Positive(t, withdrawn.Load(), "no task was withdrawn: the test checks nothing")
	})
}

// TestSubCapacityBound: the Sub's capacity is an exact count of waiting
// tasks, whatever the parent's bound: with its slot held, a Sub accepts
// capacity TryGo and refuses the next, and one of capacity math.MaxInt
// accepts as many as it is given (the queue memory alone bounds, as
// Pool.Sub says) on a parent whose own queue holds one task. Every
// accepted task runs.
func TestSubCapacityBound(t *testing.T) {
	n := 5000
	if testing.Short() {
		n = 500
	}
	eachServer(t, []int{1, 2}, []Option{WithCapacity(1)}, func(t *testing.T, p *Pool, _ int) {
		for _, capacity := range []int{0, 3, n - 1, math.MaxInt} {
			s, err := p.Sub(1, capacity)
			require.NoError(t, err)
			release := make(chan struct{})
			holdSub(t, s, 1, release)
			var ran atomic.Int64
			accepted, refused := 0, false
			for range n {
				if err := s.TryGo(func(*Worker) { ran.Add(1) }); err != nil {
					require.ErrorIs(t, err, ErrQueueFull, "capacity %d", capacity)
					refused = true
					break
				}
				accepted++
			}
			want := min(capacity, n)
			assert.Equal(t, want, accepted, "capacity %d: tasks accepted", capacity)
			assert.Equal(t, capacity < n, refused, "capacity %d: refused", capacity)
			st := s.Stats()
			assert.Equal(t, want, st.Queued, "capacity %d", capacity)
			assert.Equal(t, capacity, st.Capacity)
			close(release)
			within(t, "Sub.Close", func() { require.NoError(t, s.Close()) })
			assert.EqualValues(t, want, ran.Load(), "capacity %d: accepted tasks run", capacity)
		}
		assert.Zero(t, p.Stats().Rejected, "the parent refused a task of a Sub")
	})
}
