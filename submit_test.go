package blitz

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/blitz-go/blitz/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The submission tests: every entry point (Go, TryGo, GoContext, Run, Do,
// Run, Do, DoContext, TryDo), bounded submission over a capacity,
// results, panics and Goexit through the waiting forms, and the callJob state
// machine (a task withdrawn while queued never runs). Every test that needs a
// full queue builds it exactly: gate tasks hold every worker (so nothing
// drains the queue), then the queue is filled to its capacity. No test
// synchronises on a clock: a deadline in a context is either already past or
// its expiry is the expected outcome whenever it happens.

// TestSubmitNilFunction checks that every entry point panics naming itself
// on a nil function, before it queues anything.
func TestSubmitNilFunction(t *testing.T) {
	withPool(t, []Option{WithWorkers(2)}, func(p *Pool) {
		ctx := context.Background()
		for _, c := range []struct {
			name string
			f    func()
		}{
			{"Pool.Go", func() { p.Go(nil) }},
			{"Pool.TryGo", func() { p.TryGo(nil) }},
			{"Pool.GoContext", func() { p.GoContext(ctx, nil) }},
			{"Pool.Run", func() { p.Run(nil) }},
			{"Do", func() { Do[int](p, nil) }},
			{"DoContext", func() { DoContext[int](ctx, p, nil) }},
			{"TryDo", func() { TryDo[int](ctx, p, nil) }},
		} {
			requirePanicMessage(t, "blitz: "+c.name+": nil function", c.f)
		}
		assert.Zero(t, queued(p), "queue depth after nil-function calls")
	})
}

// TestSubmitClosedPanics checks that the waiting entry points, and the
// data-parallel functions that enter a pool, panic on a closed pool with an
// error that names the function the caller called and wraps ErrClosed.
func TestSubmitClosedPanics(t *testing.T) {
	p, err := New(WithWorkers(2))
	require.NoError(t, err)
	require.NoError(t, p.Close())
	other, err := New(WithWorkers(1))
	require.NoError(t, err)
	defer func() { require.NoError(t, other.Close()) }()
	big := make([]int, 1<<16) // long enough to split
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"Pool.Run", func() { p.Run(func(*Worker) {}) }},
		{"Do", func() { Do(p, func(*Worker) int { return 0 }) }},
		{"Do", func() { treeSum(p, big) }},
	} {
		v := catchPanic(c.f)
		err, ok := v.(error)
		require.True(t, ok, "%s on a closed pool: panic %v (%T), want an error", c.name, v, v)
		assert.ErrorIs(t, err, ErrClosed, c.name)
		assert.True(t, strings.HasPrefix(err.Error(), "blitz: "+c.name+": "), "%s: %q does not name it", c.name, err)
	}
	// From a worker of another pool.
	v := catchPanic(func() {
		other.Run(func(w *Worker) { Do(p, func(*Worker) int { return 0 }) })
	})
	var pe *PanicError
	require.True(t, errors.As(v.(error), &pe), "Do from another pool: %v", v)
	err, ok := pe.Value.(error)
	require.True(t, ok, "Do from another pool: panic value %v", pe.Value)
	assert.ErrorIs(t, err, ErrClosed)
	assert.True(t, strings.HasPrefix(err.Error(), "blitz: Do: "), "%q does not name Do", err)
}

// TestSubmitWaitForRoomNamesCaller checks that a submission whose context
// ends while it waits for room reports the entry point the caller called.
func TestSubmitWaitForRoomNamesCaller(t *testing.T) {
	withPool(t, []Option{WithWorkers(1), WithCapacity(1)}, func(p *Pool) {
		release := make(chan struct{})
		started := make(chan struct{})
		require.NoError(t, p.Go(func(*Worker) { close(started); <-release }))
		<-started
		require.NoError(t, p.Go(func(*Worker) {})) // the queue is full now
		for _, name := range []string{"Pool.GoContext", "DoContext"} {
			ctx, cancel := context.WithCancel(context.Background())
			wctx := watch(ctx)
			errc := make(chan error, 1)
			go func() {
				if name == "DoContext" {
					_, err := DoContext(wctx, p, func(*Worker) int { return 0 })
					errc <- err
					return
				}
				errc <- p.GoContext(wctx, func(*Worker) {})
			}()
			wctx.waitWatched(t, name+" waiting for room")
			cancel()
			err := <-errc
			assert.ErrorIs(t, err, context.Canceled, name)
			assert.Equal(t, "blitz: "+name+": waiting for room in the queue: context canceled", err.Error())
		}
		close(release)
	})
}

// TestTryGoQueueFull fills a bounded queue exactly and checks that TryGo and
// TryDo refuse with ErrQueueFull, that refused tasks never run, and that a
// closed pool refuses with ErrClosed, also while its queue is full.
func TestTryGoQueueFull(t *testing.T) {
	// 300 spans two blocks of the injector.
	for _, capacity := range []int{1, 5, 300} {
		t.Run(fmt.Sprintf("capacity=%d", capacity), func(t *testing.T) {
			eachServer(t, testWorkerCounts, []Option{WithCapacity(capacity)}, func(t *testing.T, p *Pool, workers int) {
				g := newGate()
				defer g.open()
				g.occupy(t, p, workers)
				var ran, refusedRan atomic.Int64
				fill(t, p, capacity, &ran)
				if q := queued(p); q != capacity {
					t.Errorf("queue depth %d after filling, want %d", q, capacity)
				}
				const refusals = 3
				for i := 0; i < refusals; i++ {
					err := p.TryGo(func(*Worker) { refusedRan.Add(1) })
					if !errors.Is(err, ErrQueueFull) || errors.Is(err, ErrClosed) {
						t.Errorf("TryGo on a full queue = %v, want ErrQueueFull", err)
					}
				}
				within(t, "TryDo on a full queue", func() {
					v, err := TryDo(context.Background(), p, func(*Worker) int { refusedRan.Add(1); return 7 })
					if !errors.Is(err, ErrQueueFull) || v != 0 {
						t.Errorf("TryDo on a full queue = %v, %v; want 0, ErrQueueFull", v, err)
					}
				})
				if q := queued(p); q != capacity {
					t.Errorf("queue depth %d after refusals, want %d", q, capacity)
				}
				checkServerStats(t, p, serverStats{queued: capacity, running: workers, rejected: refusals + 1})

				// Shutdown with a full queue: the refusal is now ErrClosed.
				err := shutdownW(t, p, cancelled())
				var se *ShutdownError
				if !errors.As(err, &se) || se.Queued != capacity || se.Running != workers {
					t.Errorf("Shutdown(cancelled) = %v, want a *ShutdownError with %d queued, %d running", err, capacity, workers)
				}
				checkRefusesClosed(t, p)

				g.open()
				assert.NoError(t, shutdownW(t, p, context.Background()), "Shutdown after the gate opened")
				if ran.Load() != int64(capacity) || g.done.Load() != int64(workers) {
					t.Errorf("after Shutdown: %d of %d queued tasks and %d of %d gate tasks ran",
						ran.Load(), capacity, g.done.Load(), workers)
				}
				if refusedRan.Load() != 0 {
					t.Errorf("%d refused tasks ran", refusedRan.Load())
				}
			})
		})
	}
}

// TestTryGoUnbounded checks that without a capacity (and with a huge one)
// TryGo never refuses, even with every worker held and thousands queued.
func TestTryGoUnbounded(t *testing.T) {
	n := 5000
	if testing.Short() {
		n = 1000
	}
	for _, capacity := range []int{0, 1 << 30, math.MaxInt} {
		t.Run(fmt.Sprintf("capacity=%d", capacity), func(t *testing.T) {
			eachServer(t, []int{1, 2}, []Option{WithCapacity(capacity)}, func(t *testing.T, p *Pool, workers int) {
				g := newGate()
				defer g.open()
				g.occupy(t, p, workers)
				var ran atomic.Int64
				for i := 0; i < n; i++ {
					if err := p.TryGo(func(*Worker) { ran.Add(1) }); err != nil {
						t.Fatalf("TryGo %d: %v", i, err)
					}
				}
				assert.EqualValues(t, n, queued(p), "queue depth")
				g.open()
				require.NoError(t, shutdownW(t, p, context.Background()), "Shutdown")
				if ran.Load() != int64(n) {
					t.Errorf("%d of %d tasks ran", ran.Load(), n)
				}
			})
		})
	}
}

// TestCapacityOne pushes many tasks through a queue of one slot from several
// goroutines on every submission path that waits for room: none is lost,
// none runs twice, and nothing deadlocks.
func TestCapacityOne(t *testing.T) {
	perPath := 100
	if testing.Short() {
		perPath = 20
	}
	eachServer(t, testWorkerCounts, []Option{WithCapacity(1)}, func(t *testing.T, p *Pool, workers int) {
		const paths = 4
		runs := make([]atomic.Int32, paths*perPath)
		together(t, "submitters", paths, func(path int) {
			for i := 0; i < perPath; i++ {
				id := path*perPath + i
				task := func(*Worker) { runs[id].Add(1) }
				switch path {
				case 0:
					assert.NoError(t, p.Go(task), "Go")
				case 1:
					assert.NoError(t, p.GoContext(context.Background(), task), "GoContext")
				case 2:
					if v, err := DoContext(context.Background(), p, func(w *Worker) int { task(w); return id }); err != nil || v != id {
						t.Errorf("DoContext = %v, %v; want %d", v, err, id)
					}
				case 3:
					p.Run(task)
				}
			}
		})
		require.NoError(t, shutdownW(t, p, context.Background()), "Shutdown")
		for id := range runs {
			if r := runs[id].Load(); r != 1 {
				t.Fatalf("task %d ran %d times", id, r)
			}
		}
	})
}

// TestSubmitNilContext checks that a nil context is a programmer error (a
// panic naming the function) on every path that takes one, refused before
// anything changes: Shutdown(nil) leaves the pool open and working, nothing
// is queued, and the pool still closes without leaking (withPool).
func TestSubmitNilContext(t *testing.T) {
	eachServer(t, []int{1, 2}, []Option{WithCapacity(4)}, func(t *testing.T, p *Pool, workers int) {
		var nilCtx context.Context
		var ran atomic.Int64
		task := func(*Worker) { ran.Add(1) }
		call := func(*Worker) int { ran.Add(1); return 1 }
		for _, c := range []struct {
			name string
			f    func()
		}{
			{"Pool.Shutdown", func() { p.Shutdown(nilCtx) }},
			{"Pool.GoContext", func() { p.GoContext(nilCtx, task) }},
			{"DoContext", func() { DoContext(nilCtx, p, call) }},
			{"TryDo", func() { TryDo(nilCtx, p, call) }},
		} {
			assert.Equal(t, "blitz: "+c.name+": nil context", catchPanic(c.f), "%s(nil, ...)", c.name)
		}
		assert.Zero(t, queued(p), "queue depth after nil-context calls")
		assert.Zero(t, ran.Load(), "tasks run by nil-context calls")
		// The refused Shutdown changed nothing: the pool still takes work.
		require.NoError(t, p.Go(task), "Go after Shutdown(nil)")
		assert.Equal(t, 1, doW(t, p, call), "Do after Shutdown(nil)")
		require.NoError(t, shutdownW(t, p, context.Background()), "Shutdown after Shutdown(nil)")
		assert.EqualValues(t, 2, ran.Load(), "tasks run before the pool closed")
	})
}

// TestGoContextCancelledWaitingForRoom checks the context paths of the
// submissions that wait for room: a context that ends (cancelled or past its
// deadline, before or during the wait) returns an error matching ctx.Err()
// and the task never runs.
func TestGoContextCancelledWaitingForRoom(t *testing.T) {
	eachServer(t, testWorkerCounts, []Option{WithCapacity(1)}, func(t *testing.T, p *Pool, workers int) {
		g := newGate()
		defer g.open()
		g.occupy(t, p, workers)
		var ran, refusedRan atomic.Int64
		fill(t, p, 1, &ran)
		refused := func(*Worker) { refusedRan.Add(1) }
		refusedDo := func(*Worker) int { refusedRan.Add(1); return 1 }

		within(t, "submissions with ended contexts", func() {
			// Already ended.
			if err := p.GoContext(cancelled(), refused); !errors.Is(err, context.Canceled) {
				t.Errorf("GoContext(cancelled) = %v, want context.Canceled", err)
			}
			if _, err := DoContext(cancelled(), p, refusedDo); !errors.Is(err, context.Canceled) {
				t.Errorf("DoContext(cancelled) = %v, want context.Canceled", err)
			}
			ctx, cancel := pastDeadline()
			defer cancel()
			if err := p.GoContext(ctx, refused); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("GoContext(past deadline) = %v, want context.DeadlineExceeded", err)
			}
			if _, err := DoContext(ctx, p, refusedDo); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("DoContext(past deadline) = %v, want context.DeadlineExceeded", err)
			}
			// A deadline that passes during the wait: the queue stays
			// full, so its expiry is the only way out.
			ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Millisecond)
			defer cancel2()
			if err := p.GoContext(ctx2, refused); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("GoContext(5ms) = %v, want context.DeadlineExceeded", err)
			}
			ctx3, cancel3 := context.WithTimeout(context.Background(), 5*time.Millisecond)
			defer cancel3()
			if _, err := DoContext(ctx3, p, refusedDo); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("DoContext(5ms) = %v, want context.DeadlineExceeded", err)
			}
		})

		// Cancelled while waiting: the cancel comes after the submitter
		// started watching its context.
		for _, path := range []string{"GoContext", "DoContext"} {
			ctx, cancel := context.WithCancel(context.Background())
			wctx := watch(ctx)
			errc := make(chan error, 1)
			go func() {
				if path == "GoContext" {
					errc <- p.GoContext(wctx, refused)
				} else {
					_, err := DoContext(wctx, p, refusedDo)
					errc <- err
				}
			}()
			wctx.waitWatched(t, path+" watching its context")
			cancel()
			within(t, path+" returning after cancel", func() {
				if err := <-errc; !errors.Is(err, context.Canceled) {
					t.Errorf("%s cancelled while waiting for room = %v, want context.Canceled", path, err)
				}
			})
		}
		if q := queued(p); q != 1 {
			t.Errorf("queue depth %d after the refused submissions, want 1", q)
		}
		// Those that waited gave up (two deadlines, two cancels); those
		// whose context had ended before they were called never waited.
		st := p.Stats()
		assert.Equal(t, uint64(4), st.Abandoned, "submissions that gave up waiting for room")
		assert.Zero(t, st.Rejected, "refusals")

		g.open()
		require.NoError(t, shutdownW(t, p, context.Background()), "Shutdown")
		if refusedRan.Load() != 0 {
			t.Errorf("%d tasks whose context ended while waiting for room ran", refusedRan.Load())
		}
		if ran.Load() != 1 {
			t.Errorf("the queued task ran %d times", ran.Load())
		}
	})
}

// TestSubmitRoomFreedAdmitsWaiters checks that submitters waiting for room
// on every waiting path (Go, GoContext, DoContext, Run, Do) are all admitted
// once the workers drain the queue: none lost, none run twice, every result
// right.
func TestSubmitRoomFreedAdmitsWaiters(t *testing.T) {
	for _, capacity := range []int{1, 3} {
		t.Run(fmt.Sprintf("capacity=%d", capacity), func(t *testing.T) {
			eachServer(t, testWorkerCounts, []Option{WithCapacity(capacity)}, func(t *testing.T, p *Pool, workers int) {
				g := newGate()
				defer g.open()
				g.occupy(t, p, workers)
				var ran atomic.Int64
				fill(t, p, capacity, &ran)

				const waiters = 20
				runs := make([]atomic.Int32, waiters)
				errs := make(chan error, waiters)
				var wg sync.WaitGroup
				for i := 0; i < waiters; i++ {
					wctx := watch(context.Background())
					task := func(*Worker) { runs[i].Add(1) }
					wg.Add(1)
					go func() {
						defer wg.Done()
						var err error
						switch i % 5 {
						case 0:
							err = p.Go(task)
						case 1:
							err = p.GoContext(wctx, task)
						case 2:
							var v int
							v, err = DoContext(wctx, p, func(w *Worker) int { task(w); return i })
							if err == nil && v != i {
								err = fmt.Errorf("DoContext result %d, want %d", v, i)
							}
						case 3:
							p.Run(task)
						case 4:
							if v := Do(p, func(w *Worker) int { task(w); return i }); v != i {
								err = fmt.Errorf("Do result %d, want %d", v, i)
							}
						}
						errs <- err
					}()
					if i%5 == 1 {
						wctx.waitWatched(t, "GoContext waiting for room")
					}
				}
				if q := queued(p); q != capacity {
					t.Errorf("queue depth %d with waiters, want %d (waiters are not queued)", q, capacity)
				}
				g.open()
				within(t, "waiters admitted", wg.Wait)
				close(errs)
				for err := range errs {
					assert.NoError(t, err, "waiter")
				}
				require.NoError(t, shutdownW(t, p, context.Background()), "Shutdown")
				for i := range runs {
					if r := runs[i].Load(); r != 1 {
						t.Errorf("waiter %d's task ran %d times", i, r)
					}
				}
				if ran.Load() != int64(capacity) {
					t.Errorf("%d of %d queued tasks ran", ran.Load(), capacity)
				}
			})
		})
	}
}

// TestSubmitFromTaskOverBound checks that a task of the pool that
// submits to its own full queue with a waiting path (Go, GoContext) is let in
// over the bound, never blocked (it would wait for its own worker: a
// deadlock at once with one worker), that TryGo refuses it like anyone else,
// its task never running, and that TryDo, which a task of the pool runs on
// its own worker without queueing it (current.go), runs it whatever the
// queue holds.
func TestSubmitFromTaskOverBound(t *testing.T) {
	eachServer(t, testWorkerCounts, []Option{WithCapacity(1)}, func(t *testing.T, p *Pool, workers int) {
		g := newGate()
		defer g.open()
		proceed := make(chan struct{})
		var innerRan, refusedRan atomic.Int64
		inner := func(*Worker) { innerRan.Add(1) }
		type result struct {
			path string
			err  error
		}
		results := make(chan result, 8)
		// The submitting task holds one worker, gate tasks the others.
		if err := p.Go(func(*Worker) {
			g.started <- struct{}{}
			<-proceed
			results <- result{"Go", p.Go(inner)}
			results <- result{"GoContext", p.GoContext(context.Background(), inner)}
			results <- result{"TryGo", p.TryGo(func(*Worker) { refusedRan.Add(1) })}
			v, err := TryDo(context.Background(), p, func(*Worker) int { innerRan.Add(1); return 7 })
			if err == nil && v != 7 {
				err = fmt.Errorf("result %d, want 7", v)
			}
			results <- result{"TryDo", err}
			close(results)
		}); err != nil {
			t.Fatal(err)
		}
		g.waitStarted(t, 1)
		g.occupy(t, p, workers-1)
		var ran atomic.Int64
		fill(t, p, 1, &ran)
		if err := p.TryGo(func(*Worker) {}); !errors.Is(err, ErrQueueFull) {
			t.Fatalf("TryGo from outside = %v; the queue should be full", err)
		}
		close(proceed)
		within(t, "submissions from a task over a full queue", func() {
			for r := range results {
				switch r.path {
				case "TryGo":
					if !errors.Is(r.err, ErrQueueFull) {
						t.Errorf("%s from a task of the pool with a full queue = %v, want ErrQueueFull", r.path, r.err)
					}
				default:
					if r.err != nil {
						t.Errorf("%s from a task of the pool with a full queue = %v, want nil (let in over the bound)", r.path, r.err)
					}
				}
			}
		})
		g.open()
		require.NoError(t, shutdownW(t, p, context.Background()), "Shutdown")
		if innerRan.Load() != 3 || ran.Load() != 1 || refusedRan.Load() != 0 {
			t.Errorf("%d of 3 tasks let in or run inline from the task, %d of 1 queued and %d refused ones ran", innerRan.Load(), ran.Load(), refusedRan.Load())
		}
	})
}

// TestDoContextResults checks DoContext and TryDo results, from one and from
// many callers.
func TestDoContextResults(t *testing.T) {
	eachServer(t, testWorkerCounts, []Option{WithCapacity(4)}, func(t *testing.T, p *Pool, workers int) {
		ctx := context.Background()
		within(t, "DoContext", func() {
			if v, err := DoContext(ctx, p, func(w *Worker) int { return fibArgs(w, 15) }); err != nil || v != seqFib(15) {
				t.Errorf("DoContext = %v, %v; want %d", v, err, seqFib(15))
			}
			if v, err := TryDo(ctx, p, func(w *Worker) string { return "ok" }); err != nil || v != "ok" {
				t.Errorf("TryDo = %q, %v", v, err)
			}
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			if v, err := DoContext(ctx, p, func(w *Worker) []int { return []int{w.Index()} }); err != nil || len(v) != 1 || v[0] < 0 || v[0] >= workers {
				t.Errorf("DoContext(cancellable) = %v, %v", v, err)
			}
		})
		const callers = 8
		var wg sync.WaitGroup
		var bad, full atomic.Int64
		for c := 0; c < callers; c++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 10; i++ {
					n := 8 + (c+i)%6
					v, err := DoContext(ctx, p, func(w *Worker) int { return fibArgs(w, n) })
					if err != nil || v != seqFib(n) {
						bad.Add(1)
					}
					v, err = TryDo(ctx, p, func(w *Worker) int { return fibArgs(w, n) })
					switch {
					case errors.Is(err, ErrQueueFull):
						full.Add(1) // eight callers, room for four
					case err != nil || v != seqFib(n):
						bad.Add(1)
					}
				}
			}()
		}
		within(t, "callers", wg.Wait)
		if bad.Load() != 0 {
			t.Errorf("%d wrong results or errors", bad.Load())
		}
		t.Logf("TryDo refusals: %d", full.Load())
	})
}

// TestDoContextCancelQueued checks that a DoContext (or TryDo) whose context
// ends while its task is still queued returns the context's error, and that
// the task is withdrawn: it never runs, and the pool still drains and closes.
func TestDoContextCancelQueued(t *testing.T) {
	for _, path := range []string{"DoContext", "TryDo"} {
		for _, capacity := range []int{0, 1} {
			t.Run(fmt.Sprintf("path=%s/capacity=%d", path, capacity), func(t *testing.T) {
				eachServer(t, testWorkerCounts, []Option{WithCapacity(capacity)}, func(t *testing.T, p *Pool, workers int) {
					g := newGate()
					defer g.open()
					g.occupy(t, p, workers)
					var withdrawnRan atomic.Int64
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					errc := make(chan error, 1)
					go func() {
						f := DoContext[int]
						if path == "TryDo" {
							f = TryDo[int]
						}
						_, err := f(ctx, p, func(*Worker) int { withdrawnRan.Add(1); return 1 })
						errc <- err
					}()
					eventually(t, path+"'s task queued", func() bool { return queued(p) == 1 })
					cancel()
					within(t, path+" returning after cancel", func() {
						if err := <-errc; !errors.Is(err, context.Canceled) {
							t.Errorf("%s cancelled while queued = %v, want context.Canceled", path, err)
						}
					})
					if capacity > 0 {
						// Not a contract: whether the withdrawn task
						// gives its slot back before a worker skips it.
						t.Logf("room right after the withdrawal: %v", p.TryGo(func(*Worker) {}))
					}
					g.open()
					require.NoError(t, shutdownW(t, p, context.Background()), "Shutdown")
					if withdrawnRan.Load() != 0 {
						t.Errorf("%d withdrawn tasks ran", withdrawnRan.Load())
					}
				})
			})
		}
	}
}

// TestDoContextCancelRunning checks that a DoContext whose context ends
// (cancelled, or its deadline passed) while its task runs returns at once
// with the context's error while the task goes on to its end, and that
// Shutdown waits for that task.
func TestDoContextCancelRunning(t *testing.T) {
	eachServer(t, testWorkerCounts, nil, func(t *testing.T, p *Pool, workers int) {
		var finished atomic.Int64
		for _, want := range []error{context.Canceled, context.DeadlineExceeded} {
			ctx := newEndable()
			started, release := make(chan struct{}), make(chan struct{})
			var done atomic.Bool
			errc := make(chan error, 1)
			go func() {
				_, err := DoContext(ctx, p, func(*Worker) int {
					close(started)
					<-release
					done.Store(true)
					finished.Add(1)
					return 1
				})
				errc <- err
			}()
			within(t, "task starting", func() { <-started })
			ctx.end(want)
			within(t, "DoContext returning while its task runs", func() {
				if err := <-errc; !errors.Is(err, want) {
					t.Errorf("DoContext with its context ended while running = %v, want %v", err, want)
				}
			})
			if done.Load() {
				t.Error("the task finished before it was released")
			}
			close(release)
		}
		// Shutdown waits for the abandoned tasks.
		require.NoError(t, shutdownW(t, p, context.Background()), "Shutdown")
		if finished.Load() != 2 {
			t.Errorf("Shutdown returned with %d of 2 abandoned tasks finished", finished.Load())
		}
	})
}

// TestDoContextPanicAndGoexit checks that a panic comes back as a
// *PanicError matching ErrPanic (and the panic value, when it is an error)
// with the stack of the panic, that Goexit comes back as ErrGoexit without
// ending the caller's goroutine, that neither reaches the pool's panic
// handler, and that the pool goes on working.
func TestDoContextPanicAndGoexit(t *testing.T) {
	var handled atomic.Int64
	handler := WithPanicHandler(func(any, []byte) { handled.Add(1) })
	eachServer(t, testWorkerCounts, []Option{handler, WithCapacity(2)}, func(t *testing.T, p *Pool, workers int) {
		ctx := context.Background()
		for _, path := range []string{"DoContext", "TryDo"} {
			f := DoContext[int]
			if path == "TryDo" {
				f = TryDo[int]
			}
			var err error
			within(t, path, func() { _, err = f(ctx, p, func(*Worker) int { panicInTask("boom"); return 0 }) })
			var pe *PanicError
			switch {
			case !errors.Is(err, ErrPanic):
				t.Errorf("%s panic = %v, want an error matching ErrPanic", path, firstLine(err))
			case !errors.As(err, &pe):
				t.Errorf("%s panic = %T, want a *PanicError", path, err)
			case pe.Value != "boom":
				t.Errorf("%s panic value = %v", path, pe.Value)
			case !strings.Contains(string(pe.Stack), "panicInTask"):
				t.Errorf("%s panic stack lacks the panicking function:\n%s", path, pe.Stack)
			}
			within(t, path, func() { _, err = f(ctx, p, func(*Worker) int { panic(io.ErrUnexpectedEOF) }) })
			if !errors.Is(err, ErrPanic) || !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("%s panic with an error = %v, want it to match ErrPanic and the value", path, firstLine(err))
			}
			var v int
			if exitsGoroutine(t, func() { v, err = f(ctx, p, func(*Worker) int { runtime.Goexit(); return 1 }) }) {
				t.Fatalf("%s with a Goexit ended the caller's goroutine", path)
			}
			if !errors.Is(err, ErrGoexit) || v != 0 {
				t.Errorf("%s Goexit = %v, %v; want 0, ErrGoexit", path, v, err)
			}
			if got := doW(t, p, func(w *Worker) int { return fibArgs(w, 12) }); got != seqFib(12) {
				t.Errorf("after %s's panics and Goexit: %d", path, got)
			}
		}
		// Every worker still serves: one task held on each at once.
		g := newGate()
		defer g.open()
		g.occupy(t, p, workers)
		g.open()
		if handled.Load() != 0 {
			t.Errorf("the panic handler got %d DoContext/TryDo panics", handled.Load())
		}
	})
}

func TestRunDoGo(t *testing.T) {
	eachConfig(t, func(t *testing.T, p *Pool) {
		var ran atomic.Bool
		within(t, "Run", func() { p.Run(func(w *Worker) { ran.Store(w.Pool() == p) }) })
		if !ran.Load() {
			t.Error("Run did not run fn on a worker of the pool")
		}
		assert.EqualValues(t, "ok", doW(t, p, func(w *Worker) string { return "ok" }), "Do")
		const n = 500
		var wg sync.WaitGroup
		var count atomic.Int64
		wg.Add(n)
		for i := 0; i < n; i++ {
			if err := p.Go(func(w *Worker) { count.Add(int64(fibArgs(w, 5))); wg.Done() }); err != nil {
				t.Fatalf("Go: %v", err)
			}
		}
		within(t, "Go tasks", wg.Wait)
		assert.EqualValues(t, n*5, count.Load(), "Go tasks summed")
	})
}

// TestGoFIFO checks that injected tasks start in submission order on a
// one-worker pool.
func TestGoFIFO(t *testing.T) {
	withPool(t, []Option{WithWorkers(1)}, func(p *Pool) {
		const n = 1000
		var mu sync.Mutex
		order := make([]int, 0, n)
		var wg sync.WaitGroup
		wg.Add(n)
		for i := 0; i < n; i++ {
			if err := p.Go(func(*Worker) { mu.Lock(); order = append(order, i); mu.Unlock(); wg.Done() }); err != nil {
				t.Fatal(err)
			}
		}
		within(t, "tasks", wg.Wait)
		for i, v := range order {
			if v != i {
				t.Fatalf("task %d ran at position %d: injection is not FIFO", v, i)
			}
		}
	})
}

func TestManyOutsideCallers(t *testing.T) {
	callers := 64
	if testing.Short() {
		callers = 16
	}
	for _, workers := range testWorkerCounts {
		withPool(t, []Option{WithWorkers(workers)}, func(p *Pool) {
			var bad atomic.Int64
			together(t, "callers", callers, func(c int) {
				for i := 0; i < 20; i++ {
					n := 10 + (c+i)%8
					if Do(p, func(w *Worker) int { return fibArgs(w, n) }) != seqFib(n) {
						bad.Add(1)
					}
				}
			})
			if bad.Load() != 0 {
				t.Errorf("workers=%d: %d wrong results", workers, bad.Load())
			}
		})
	}
}

func TestRunFromSamePoolIsInline(t *testing.T) {
	withPool(t, []Option{WithWorkers(1)}, func(p *Pool) {
		// On a one-worker pool, a blocking Run from the task would
		// deadlock; Run runs inline.
		got := doW(t, p, func(w *Worker) int {
			return Do(p, func(w2 *Worker) int {
				if w2 != w {
					t.Error("Do on the same pool did not run inline")
				}
				return fibArgs(w2, 10)
			})
		})
		assert.EqualValues(t, 55, got, "Do")
		v := catchPanic(func() { Do(p, func(w *Worker) int { return Do(p, func(*Worker) int { panic("inline") }) }) })
		if pe, ok := v.(*PanicError); !ok || pe.Value != "inline" {
			t.Errorf("inline Do panic = %v", v)
		}
	})
}

// TestCrossPool calls between two pools in both directions, nested, from
// one-worker pools (where a blocked worker would deadlock at once), and
// checks that the waiting worker served its own pool meanwhile.
func TestCrossPool(t *testing.T) {
	defer leakCheck(t)()
	a, err := New(WithWorkers(1), WithName("a"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(WithWorkers(1), WithName("b"))
	if err != nil {
		t.Fatal(err)
	}
	defer within(t, "Close", func() { a.Close(); b.Close() })

	// a's only worker calls into b, whose task submits to a and waits for
	// it: a's worker must run that task while it waits for b.
	got := doW(t, a, func(w *Worker) int {
		return Do(b, func(wb *Worker) int {
			x := Do(a, func(wa *Worker) int { return fibArgs(wa, 12) })
			return x + fibArgs(wb, 10)
		})
	})
	if want := seqFib(12) + seqFib(10); got != want {
		t.Errorf("nested cross-pool = %d, want %d", got, want)
	}
	// Many concurrent cross calls in both directions.
	var wg sync.WaitGroup
	var bad atomic.Int64
	for i := 0; i < 16; i++ {
		from, to := a, b
		if i%2 == 1 {
			from, to = b, a
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := Do(from, func(w *Worker) int {
				return Do(to, func(w *Worker) int { return fibArgs(w, 14) })
			})
			if r != seqFib(14) {
				bad.Add(1)
			}
		}()
	}
	within(t, "cross calls", wg.Wait)
	if bad.Load() != 0 {
		t.Errorf("%d wrong cross-pool results", bad.Load())
	}
	// Panics and Goexit cross pools too.
	v := catchPanic(func() {
		Do(a, func(w *Worker) int { return Do(b, func(*Worker) int { panic("in b") }) })
	})
	if pe, ok := v.(*PanicError); !ok || pe.Value != "in b" {
		t.Errorf("cross-pool panic = %v", v)
	}
	if !exitsGoroutine(t, func() {
		Do(a, func(w *Worker) int { b.Run(func(*Worker) { runtime.Goexit() }); return 0 })
	}) {
		t.Error("cross-pool Goexit did not reach the caller")
	}
	assert.EqualValues(t, 55, doW(t, a, func(w *Worker) int { return fibArgs(w, 10) }), "a after cross-pool panic")
}

func TestDoPanicAndGoexit(t *testing.T) {
	withPool(t, []Option{WithWorkers(2)}, func(p *Pool) {
		v := catchPanic(func() { Do(p, func(*Worker) int { panic("boom") }) })
		if pe, ok := v.(*PanicError); !ok || pe.Value != "boom" || !strings.Contains(string(pe.Stack), "TestDoPanicAndGoexit") {
			t.Errorf("Do panic = %#v", v)
		}
		if !exitsGoroutine(t, func() { p.Run(func(*Worker) { runtime.Goexit() }) }) {
			t.Error("Run with a Goexit returned")
		}
		assert.EqualValues(t, 55, doW(t, p, func(w *Worker) int { return fibArgs(w, 10) }), "after")
	})
}

func TestGoPanicHandler(t *testing.T) {
	type report struct {
		v     any
		stack string
	}
	reports := make(chan report, 10)
	opts := []Option{WithWorkers(2), WithPanicHandler(func(v any, stack []byte) { reports <- report{v, string(stack)} })}
	withPool(t, opts, func(p *Pool) {
		p.Go(func(*Worker) { panic("fire and forget") })
		var r report
		within(t, "handler", func() { r = <-reports })
		if r.v != "fire and forget" || !strings.Contains(r.stack, "TestGoPanicHandler") {
			t.Errorf("handler got %v with stack\n%s", r.v, r.stack)
		}
		// Goexit ends the task only; the worker is replaced.
		done := make(chan struct{})
		p.Go(func(*Worker) { defer close(done); runtime.Goexit() })
		within(t, "Goexit task", func() { <-done })
		assert.EqualValues(t, 55, doW(t, p, func(w *Worker) int { return fibArgs(w, 10) }), "after")
	})
}

// syncBuffer is a bytes.Buffer safe for concurrent writers, for a log
// output that workers write to.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestPanicHandlerPanics runs a storm of panicking Go tasks, submitted from
// several goroutines at once, on a pool whose panic handler itself panics
// for every other task. The pool survives: the handler saw every task's
// panic, every panic of the handler is counted in Stats.HandlerPanics and
// logged (standard logger) with its value, its stack and the task panic it
// was handling, and the pool still runs work afterwards.
func TestPanicHandlerPanics(t *testing.T) {
	var logged syncBuffer
	defer log.SetOutput(log.Writer())
	defer log.SetFlags(log.Flags())
	log.SetOutput(&logged)
	log.SetFlags(0)
	const submitters = 4
	perSubmitter := 250
	if testing.Short() {
		perSubmitter = 50
	}
	total := submitters * perSubmitter
	for _, workers := range []int{1, 2, 8} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			start := len(logged.String())
			seen := make([]atomic.Int32, total)
			handler := func(v any, _ []byte) {
				i := v.(int)
				seen[i].Add(1)
				if i%2 == 0 {
					panic(fmt.Sprintf("handler panic %d", i))
				}
			}
			defer verifyNone(t)
			p, err := New(WithWorkers(workers), WithPanicHandler(handler))
			require.NoError(t, err)
			together(t, "submitters", submitters, func(s int) {
				for k := range perSubmitter {
					i := s*perSubmitter + k
					if err := p.Go(func(*Worker) { panicInTask(i) }); err != nil {
						t.Errorf("Go: %v", err)
					}
				}
			})
			assert.EqualValues(t, 55, doW(t, p, func(w *Worker) int { return fibArgs(w, 10) }), "during the storm")
			require.NoError(t, shutdownW(t, p, context.Background()))
			// Close waited for every accepted task: the counts are final.
			st := p.Stats()
			assert.EqualValues(t, total+1, st.Completed+st.CallerRuns, "tasks completed (the Do perhaps on its caller)")
			assert.EqualValues(t, total, st.Panics, "task panics")
			assert.EqualValues(t, total/2, st.HandlerPanics, "handler panics")
			for i := range seen {
				require.EqualValues(t, 1, seen[i].Load(), "the handler saw task panic %d other than once", i)
			}
			out := logged.String()[start:]
			assert.Equal(t, total/2, strings.Count(out, "the panic handler panicked"), "handler panics logged")
			for _, i := range []int{0, total - 2} {
				assert.Contains(t, out, fmt.Sprintf("the panic handler panicked: handler panic %d\n", i))
				assert.Contains(t, out, fmt.Sprintf("while handling the panic of a task: %d\n", i))
			}
			assert.Contains(t, out, "TestPanicHandlerPanics", "the handler's stack")
			assert.Contains(t, out, "panicInTask", "the task's stack")
			assert.NotContains(t, out, "the panic handler panicked: handler panic 1\n", "an odd task's handler did not panic")
		})
	}
}

// TestPanicHandlerGoexits runs panicking Go tasks on a pool whose panic
// handler calls runtime.Goexit: like a Goexit in a task, it ends the
// handler's goroutine, whose worker is replaced, and each task still counts
// as finished, so Close returns and the pool works meanwhile.
func TestPanicHandlerGoexits(t *testing.T) {
	tasks := 200
	if testing.Short() {
		tasks = 50
	}
	for _, workers := range []int{1, 2, 8} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			defer verifyNone(t)
			var handled atomic.Int64
			p, err := New(WithWorkers(workers), WithPanicHandler(func(any, []byte) {
				handled.Add(1)
				runtime.Goexit()
			}))
			require.NoError(t, err)
			for i := range tasks {
				require.NoError(t, p.Go(func(*Worker) { panicInTask(i) }))
			}
			assert.EqualValues(t, 55, doW(t, p, func(w *Worker) int { return fibArgs(w, 10) }), "during the storm")
			require.NoError(t, shutdownW(t, p, context.Background()))
			st := p.Stats()
			assert.EqualValues(t, tasks, handled.Load(), "handler calls")
			assert.EqualValues(t, tasks+1, st.Completed+st.CallerRuns, "tasks completed (the Do perhaps on its caller)")
			assert.EqualValues(t, tasks, st.Panics, "task panics")
			assert.EqualValues(t, tasks, st.Respawns, "workers replaced")
			assert.Zero(t, st.HandlerPanics, "a Goexit is no panic")
		})
	}
}

// TestGoPanicCrashes checks the default: a panic in a Go task without a
// handler crashes the program and reports the task's stack. The crash runs in
// a child process.
func TestGoPanicCrashes(t *testing.T) {
	if os.Getenv("BLITZ_CRASH_CHILD") == "1" {
		p, _ := New(WithWorkers(1))
		p.Go(func(*Worker) { crashingTask() })
		select {} // the crash ends the process
	}
	testkit.SkipIfEmulated(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestGoPanicCrashes$")
	cmd.Env = append(os.Environ(), "BLITZ_CRASH_CHILD=1")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Skipf("cannot run the test binary as a child (emulated?): %v", err)
	}
	if ee == nil || ee.ExitCode() != 2 {
		t.Fatalf("child: err %v, want exit status 2; output:\n%s", err, out)
	}
	if !strings.Contains(string(out), "crash me") || !strings.Contains(string(out), "crashingTask") {
		t.Errorf("crash report lacks the value or the task's stack:\n%s", out)
	}
}

func crashingTask() { panic("crash me") }

// TestJoinPanicCrashReport checks that a program dying of a join's panic,
// re-panicked in a caller that does not recover it, reports where the task
// panicked: the re-panicking goroutine's own trace does not show it, so
// PanicError.Error adds the stack for the crash report. The crash runs in a
// child process.
func TestJoinPanicCrashReport(t *testing.T) {
	if os.Getenv("BLITZ_CRASH_CHILD") == "1" {
		p, _ := New(WithWorkers(2))
		p.Run(func(w *Worker) {
			Join(w, func(*Worker) int { return 1 }, func(*Worker) int { return crashingHalf() })
		})
		return
	}
	testkit.SkipIfEmulated(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestJoinPanicCrashReport$")
	cmd.Env = append(os.Environ(), "BLITZ_CRASH_CHILD=1")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Skipf("cannot run the test binary as a child (emulated?): %v", err)
	}
	require.NotNil(t, ee, "child: err %v, want exit status 2; output:\n%s", err, out)
	require.Equal(t, 2, ee.ExitCode(), "output:\n%s", out)
	assert.Contains(t, string(out), "panic: blitz: task panicked: half down")
	assert.Contains(t, string(out), "original stack:")
	assert.Contains(t, string(out), "crashingHalf", "the crash report shows where the task panicked")
}

func crashingHalf() int { panic("half down") }

func TestClosedPool(t *testing.T) {
	withPool(t, []Option{WithWorkers(2)}, func(p *Pool) {
		within(t, "Close", func() {
			assert.NoError(t, p.Close(), "Close")
			assert.NoError(t, p.Close(), "second Close")
		})
		if err := p.Go(func(*Worker) {}); !errors.Is(err, ErrClosed) {
			t.Errorf("Go after Close = %v, want ErrClosed", err)
		}
		v := catchPanic(func() { p.Run(func(*Worker) {}) })
		if err, ok := v.(error); !ok || !errors.Is(err, ErrClosed) {
			t.Errorf("Run after Close panicked with %v, want ErrClosed", v)
		}
		if v := catchPanic(func() { Do(p, func(*Worker) int { return 1 }) }); v == nil {
			t.Error("Do after Close did not panic")
		}
	})
}

// TestAbandonedDoneChannelNotReused: a DoContext that stops waiting for its
// running task keeps its done channel out of reuse (doneChans), so the
// task's late signal cannot wake a later caller. Do calls made while the
// abandoned task still runs, queued behind it on the only worker, each
// return their own result, after their own task ran.
func TestAbandonedDoneChannelNotReused(t *testing.T) {
	rounds := 20
	if testing.Short() {
		rounds = 5
	}
	eachServer(t, []int{1}, nil, func(t *testing.T, p *Pool, _ int) {
		for range rounds {
			ctx, cancel := context.WithCancel(context.Background())
			started, release := make(chan struct{}), make(chan struct{})
			errc := make(chan error, 1)
			go func() {
				_, err := DoContext(ctx, p, func(*Worker) int { close(started); <-release; return -1 })
				errc <- err
			}()
			within(t, "task starting", func() { <-started })
			cancel()
			require.ErrorIs(t, <-errc, context.Canceled)
			const callers = 4
			results := make(chan [2]int, callers)
			for i := 1; i <= callers; i++ {
				go func() { results <- [2]int{i, Do(p, func(*Worker) int { return i })} }()
			}
			eventually(t, "the callers' tasks queued", func() bool { return queued(p) == callers })
			close(release)
			for range callers {
				r := <-results
				require.Equal(t, r[0], r[1], "a Do returned another call's result")
			}
		}
	})
}

// TestCallJobSize pins the size of the job every Run, Do and DoContext
// allocates: 64 bytes with a word-sized result, the allocator's size class
// below 80 (a Goexit is kept in panicked, not in a field of its own).
func TestCallJobSize(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) == 8 {
		assert.EqualValues(t, 64, unsafe.Sizeof(callJob[int]{}), "callJob[int]")
		assert.EqualValues(t, 56, unsafe.Sizeof(callJob[struct{}]{}), "callJob[struct{}]")
	} else { // 32-bit words: within the 48-byte size class
		assert.LessOrEqual(t, unsafe.Sizeof(callJob[int]{}), uintptr(48), "callJob[int]")
		assert.LessOrEqual(t, unsafe.Sizeof(callJob[struct{}]{}), uintptr(48), "callJob[struct{}]")
	}
	// The submission path; a call that runs on its caller allocates
	// nothing (TestCallerRunsAllocatesNothing).
	p, err := New(WithWorkers(1), WithCallerRuns(false))
	require.NoError(t, err)
	defer p.Close()
	fn := func(*Worker) int { return 1 }
	Do(p, fn) // the done channel pool warm
	// The job; the injector's ring is reused (TestInjectorRingReused).
	want := 1.0
	if unsafe.Sizeof(uintptr(0)) != 8 {
		want = 2 // 32-bit builds make one more allocation per Do, not examined yet
	}
	assert.Equal(t, want, testing.AllocsPerRun(100, func() { Do(p, fn) }), "allocations per Do")
}
