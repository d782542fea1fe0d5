package blitz

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// The server API's tests: bounded submission (TryGo, GoContext, DoContext,
// TryDo, Go over a capacity), results, panics and Goexit through DoContext,
// and Shutdown. Every test that needs a full queue builds it exactly: gate
// tasks hold every worker (so nothing drains the queue), then the queue is
// filled to its capacity. No test synchronises on a clock: a deadline in a
// context is either already past or its expiry is the expected outcome
// whenever it happens, and the one pause (TestServerStatsLatencyBounds) only
// lengthens a duration whose bounds hold whatever its length.

// serverParkings lists the parking backends the server API is checked on:
// each real backend once (ParkingAuto resolves to one of them).
func serverParkings() []Parking {
	ks := []Parking{ParkingPortable, ParkingSpin}
	if runtime.GOOS == "linux" {
		ks = append([]Parking{ParkingFutex}, ks...)
	}
	return ks
}

// eachServer runs f as a subtest on a fresh pool (withPool: closed under the
// watchdog and checked for leaks) for every backend and each worker count in
// counts, with opts added to the backend and worker options.
func eachServer(t *testing.T, counts []int, opts []Option, f func(t *testing.T, p *Pool, workers int)) {
	t.Helper()
	for _, k := range serverParkings() {
		for _, n := range counts {
			t.Run(fmt.Sprintf("parking=%v/workers=%d", k, n), func(t *testing.T) {
				all := append([]Option{WithParking(k), WithWorkers(n)}, opts...)
				withPool(t, all, func(p *Pool) { f(t, p, n) })
			})
		}
	}
}

// A gate holds workers. Each of its tasks announces that it started, then
// blocks until the gate opens; with every worker holding one, nothing drains
// the queue, so a test can fill it to an exact depth.
type gate struct {
	started chan struct{}
	release chan struct{}
	once    sync.Once
	done    atomic.Int64 // gate tasks that finished
}

func newGate() *gate {
	return &gate{started: make(chan struct{}, 64), release: make(chan struct{})}
}

func (g *gate) task(*Worker) {
	g.started <- struct{}{}
	<-g.release
	g.done.Add(1)
}

// occupy submits n gate tasks with Go and waits until all n have started:
// each holds its own worker, and none is left in the queue.
func (g *gate) occupy(t *testing.T, p *Pool, n int) {
	t.Helper()
	var err error
	within(t, "submitting gate tasks", func() {
		for i := 0; i < n && err == nil; i++ {
			err = p.Go(g.task)
		}
	})
	if err != nil {
		t.Fatalf("Go(gate task): %v", err)
	}
	g.waitStarted(t, n)
}

// waitStarted waits until n more gate tasks have started.
func (g *gate) waitStarted(t *testing.T, n int) {
	t.Helper()
	within(t, "gate tasks starting", func() {
		for i := 0; i < n; i++ {
			<-g.started
		}
	})
}

// open lets every gate task (present and future) finish. Idempotent: tests
// defer it so that a failing test never leaves Close waiting on a gate.
func (g *gate) open() { g.once.Do(func() { close(g.release) }) }

// fill submits capacity counting tasks with TryGo into a queue that nothing
// drains, failing the test if one is refused.
func fill(t *testing.T, p *Pool, capacity int, ran *atomic.Int64) {
	t.Helper()
	for i := 0; i < capacity; i++ {
		if err := p.TryGo(func(*Worker) { ran.Add(1) }); err != nil {
			t.Fatalf("TryGo %d of %d into a queue with room: %v", i+1, capacity, err)
		}
	}
}

// serverStats are the server gauges and counters a test expects.
type serverStats struct {
	queued, running int
	rejected        uint64
}

// checkServerStats compares the pool's queue gauges and refusal count with
// want, and checks that the snapshot adds up.
func checkServerStats(t *testing.T, p *Pool, want serverStats) {
	t.Helper()
	st := p.Stats()
	if st.Queued != want.queued || st.Running != want.running || st.Rejected != want.rejected {
		t.Errorf("Stats: %d queued, %d running, %d rejected; want %d, %d, %d",
			st.Queued, st.Running, st.Rejected, want.queued, want.running, want.rejected)
	}
	if st.Injected != uint64(st.Queued+st.Running)+st.Completed {
		t.Errorf("Stats: Injected %d != Queued %d + Running %d + Completed %d", st.Injected, st.Queued, st.Running, st.Completed)
	}
}

// queued is the pool's queue depth (submitted, not started).
func queued(p *Pool) int { return p.inj.len() }

// eventually polls cond until it holds, failing the test with a goroutine
// dump after watchdogTimeout. It is for states that no channel announces
// (a queue depth, the pool having closed); the poll backs off so that it does
// not starve the goroutines it waits for at GOMAXPROCS=1.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(watchdogTimeout)
	for i := 0; !cond(); i++ {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not reached after %v\n%s", what, watchdogTimeout, dumpAll())
		}
		if i < 100 {
			runtime.Gosched()
		} else {
			time.Sleep(100 * time.Microsecond)
		}
	}
}

// waitClosed waits until the pool refuses new work with ErrClosed (a
// Shutdown started on another goroutine got that far). Probes that are
// accepted before that run a counting task and are added to *accepted.
func waitClosed(t *testing.T, p *Pool, ran, accepted *atomic.Int64) {
	t.Helper()
	eventually(t, "the pool refusing work after Shutdown began", func() bool {
		err := p.TryGo(func(*Worker) { ran.Add(1) })
		switch {
		case err == nil:
			accepted.Add(1)
		case errors.Is(err, ErrClosed):
			return true
		case errors.Is(err, ErrQueueFull):
		default:
			t.Errorf("TryGo while shutting down: %v", err)
			return true
		}
		return false
	})
}

// watchedCtx is a context that reports, once, that something called its Done
// method: a submission got as far as watching it (waiting for room or for a
// result). It is a hint that makes the intended interleaving likely; every
// test that uses it checks an outcome that holds whichever way the race went.
type watchedCtx struct {
	context.Context
	once    sync.Once
	watched chan struct{}
}

func watch(ctx context.Context) *watchedCtx {
	return &watchedCtx{Context: ctx, watched: make(chan struct{})}
}

func (c *watchedCtx) Done() <-chan struct{} {
	c.once.Do(func() { close(c.watched) })
	return c.Context.Done()
}

func (c *watchedCtx) waitWatched(t *testing.T, what string) {
	t.Helper()
	within(t, what, func() { <-c.watched })
}

// pastDeadline returns a context whose deadline has passed.
func pastDeadline() (context.Context, context.CancelFunc) {
	return context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
}

// cancelled returns a cancelled context.
func cancelled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// shutdownW is Shutdown under the watchdog.
func shutdownW(t testing.TB, p *Pool, ctx context.Context) error {
	t.Helper()
	var err error
	within(t, "Shutdown", func() { err = p.Shutdown(ctx) })
	return err
}

// checkRefusesClosed checks that every submission path refuses a closed pool
// with ErrClosed and never runs the task.
func checkRefusesClosed(t *testing.T, p *Pool) {
	t.Helper()
	var ran atomic.Int64
	task := func(*Worker) { ran.Add(1) }
	ctx := context.Background()
	within(t, "submitting to a closed pool", func() {
		if err := p.Go(task); !errors.Is(err, ErrClosed) {
			t.Errorf("Go on a closed pool = %v, want ErrClosed", err)
		}
		if err := p.TryGo(task); !errors.Is(err, ErrClosed) {
			t.Errorf("TryGo on a closed pool = %v, want ErrClosed", err)
		}
		if err := p.GoContext(ctx, task); !errors.Is(err, ErrClosed) {
			t.Errorf("GoContext on a closed pool = %v, want ErrClosed", err)
		}
		if _, err := DoContext(ctx, p, func(*Worker) int { ran.Add(1); return 1 }); !errors.Is(err, ErrClosed) {
			t.Errorf("DoContext on a closed pool = %v, want ErrClosed", err)
		}
		if _, err := TryDo(ctx, p, func(*Worker) int { ran.Add(1); return 1 }); !errors.Is(err, ErrClosed) {
			t.Errorf("TryDo on a closed pool = %v, want ErrClosed", err)
		}
		v := catchPanic(func() { p.Run(task) })
		if err, ok := v.(error); !ok || !errors.Is(err, ErrClosed) {
			t.Errorf("Run on a closed pool panicked with %v, want ErrClosed", v)
		}
	})
	if ran.Load() != 0 {
		t.Errorf("%d tasks refused by a closed pool ran", ran.Load())
	}
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
				if err := shutdownW(t, p, context.Background()); err != nil {
					t.Errorf("Shutdown after the gate opened: %v", err)
				}
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
				if q := queued(p); q != n {
					t.Errorf("queue depth %d, want %d", q, n)
				}
				g.open()
				if err := shutdownW(t, p, context.Background()); err != nil {
					t.Fatalf("Shutdown: %v", err)
				}
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
		var wg sync.WaitGroup
		start := make(chan struct{})
		for path := 0; path < paths; path++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for i := 0; i < perPath; i++ {
					id := path*perPath + i
					task := func(*Worker) { runs[id].Add(1) }
					switch path {
					case 0:
						if err := p.Go(task); err != nil {
							t.Errorf("Go: %v", err)
						}
					case 1:
						if err := p.GoContext(context.Background(), task); err != nil {
							t.Errorf("GoContext: %v", err)
						}
					case 2:
						if v, err := DoContext(context.Background(), p, func(w *Worker) int { task(w); return id }); err != nil || v != id {
							t.Errorf("DoContext = %v, %v; want %d", v, err, id)
						}
					case 3:
						p.Run(task)
					}
				}
			}()
		}
		close(start)
		within(t, "submitters", wg.Wait)
		if err := shutdownW(t, p, context.Background()); err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
		for id := range runs {
			if r := runs[id].Load(); r != 1 {
				t.Fatalf("task %d ran %d times", id, r)
			}
		}
	})
}

// TestBadServerOptions checks that negative capacities and sampling
// intervals are constructor errors, and that the valid extremes construct.
func TestBadServerOptions(t *testing.T) {
	defer verifyNone(t)
	for _, c := range []struct {
		opt  Option
		want string
	}{
		{WithCapacity(-1), "WithCapacity(-1)"},
		{WithCapacity(math.MinInt), "WithCapacity("},
		{WithLatencySampling(-1), "WithLatencySampling(-1)"},
	} {
		p, err := New(c.opt)
		if err == nil {
			p.Close()
			t.Errorf("New with a bad option: no error, want one naming %q", c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("New: %v; want it to name %q", err, c.want)
		}
	}
	for _, opts := range [][]Option{
		{WithCapacity(0)}, {WithCapacity(1)}, {WithCapacity(math.MaxInt)},
		{WithLatencySampling(0)}, {WithLatencySampling(1)}, {WithLatencySampling(math.MaxInt)},
	} {
		p, err := New(append(opts, WithWorkers(1))...)
		if err != nil {
			t.Errorf("New: %v", err)
			continue
		}
		if got := doW(t, p, func(w *Worker) int { return fibArgs(w, 10) }); got != 55 {
			t.Errorf("Do = %d", got)
		}
		within(t, "Close", func() {
			if err := p.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
}

// TestServerNilFunc checks that a nil function is a programmer error (a
// panic) on every new path, and never queued.
func TestServerNilFunc(t *testing.T) {
	withPool(t, []Option{WithWorkers(1), WithCapacity(4)}, func(p *Pool) {
		ctx := context.Background()
		for name, f := range map[string]func(){
			"TryGo":     func() { p.TryGo(nil) },
			"GoContext": func() { p.GoContext(ctx, nil) },
			"DoContext": func() { DoContext[int](ctx, p, nil) },
			"TryDo":     func() { TryDo[int](ctx, p, nil) },
		} {
			if catchPanic(f) == nil {
				t.Errorf("%s(nil) did not panic", name)
			}
		}
		if q := queued(p); q != 0 {
			t.Errorf("queue depth %d after nil submissions", q)
		}
	})
}

// TestServerNilContext checks that a nil context is a programmer error (a
// panic naming the function) on every path that takes one, refused before
// anything changes: Shutdown(nil) leaves the pool open and working, nothing
// is queued, and the pool still closes without leaking (withPool).
func TestServerNilContext(t *testing.T) {
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

		g.open()
		if err := shutdownW(t, p, context.Background()); err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
		if refusedRan.Load() != 0 {
			t.Errorf("%d tasks whose context ended while waiting for room ran", refusedRan.Load())
		}
		if ran.Load() != 1 {
			t.Errorf("the queued task ran %d times", ran.Load())
		}
	})
}

// TestServerRoomFreedAdmitsWaiters checks that submitters waiting for room
// on every waiting path (Go, GoContext, DoContext, Run, Do) are all admitted
// once the workers drain the queue: none lost, none run twice, every result
// right.
func TestServerRoomFreedAdmitsWaiters(t *testing.T) {
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
					if err != nil {
						t.Errorf("waiter: %v", err)
					}
				}
				if err := shutdownW(t, p, context.Background()); err != nil {
					t.Fatalf("Shutdown: %v", err)
				}
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

// TestServerSubmitFromTaskOverBound checks that a task of the pool that
// submits to its own full queue with a waiting path (Go, GoContext) is let in
// over the bound, never blocked (it would wait for its own worker: a
// deadlock at once with one worker), and that TryGo and TryDo refuse it like
// anyone else (WithCapacity: telling a task from another goroutine is too
// slow for the refusal path), their tasks never running.
func TestServerSubmitFromTaskOverBound(t *testing.T) {
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
			_, err := TryDo(context.Background(), p, func(*Worker) int { refusedRan.Add(1); return 1 })
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
				case "TryGo", "TryDo":
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
		if err := shutdownW(t, p, context.Background()); err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
		if innerRan.Load() != 2 || ran.Load() != 1 || refusedRan.Load() != 0 {
			t.Errorf("%d of 2 tasks let in from the task, %d of 1 queued and %d refused ones ran", innerRan.Load(), ran.Load(), refusedRan.Load())
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
					if err := shutdownW(t, p, context.Background()); err != nil {
						t.Fatalf("Shutdown: %v", err)
					}
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
		if err := shutdownW(t, p, context.Background()); err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
		if finished.Load() != 2 {
			t.Errorf("Shutdown returned with %d of 2 abandoned tasks finished", finished.Load())
		}
	})
}

// endableCtx is a context the test ends by hand, with the error it chooses:
// context.DeadlineExceeded stands for a deadline that passed at exactly the
// moment the test wants, with no clock involved.
type endableCtx struct {
	context.Context // Background: no deadline, no values
	done            chan struct{}
	mu              sync.Mutex
	err             error
}

func newEndable() *endableCtx {
	return &endableCtx{Context: context.Background(), done: make(chan struct{})}
}

func (c *endableCtx) Done() <-chan struct{} { return c.done }

func (c *endableCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *endableCtx) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
		close(c.done)
	}
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

// firstLine is an error's message up to its first line break (a
// *PanicError's message goes on with the whole stack).
func firstLine(err error) string {
	if err == nil {
		return "<nil>"
	}
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// panicInTask panics with v from a named frame, for the stack check.
//
//go:noinline
func panicInTask(v any) { panic(v) }

// TestShutdownIdle checks Shutdown on an idle pool, twice, then Close.
func TestShutdownIdle(t *testing.T) {
	eachServer(t, []int{1, 2}, nil, func(t *testing.T, p *Pool, workers int) {
		if err := shutdownW(t, p, context.Background()); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := shutdownW(t, p, context.Background()); err != nil {
			t.Errorf("second Shutdown: %v", err)
		}
		// A finished pool reports success even to an ended context.
		if err := shutdownW(t, p, cancelled()); err != nil {
			t.Errorf("Shutdown(cancelled) after the pool closed: %v", err)
		}
		checkRefusesClosed(t, p)
		// withPool's Close follows: Close after Shutdown.
	})
}

// TestShutdownIdleEndedContext checks Shutdown with an ended context on a
// pool that has nothing left to run: there is nothing to report, so it
// returns nil (as http.Server.Shutdown does with no open connections), never
// a *ShutdownError saying 0 tasks were queued and 0 running.
func TestShutdownIdleEndedContext(t *testing.T) {
	eachServer(t, []int{1, 2}, nil, func(t *testing.T, p *Pool, workers int) {
		if v := doW(t, p, func(w *Worker) int { return fibArgs(w, 10) }); v != 55 {
			t.Fatalf("Do = %d", v)
		}
		// Do returns as soon as the result is in; the worker counts the
		// task finished just after.
		eventually(t, "the Do task counted finished", func() bool { return p.completed() == 1 })
		err := shutdownW(t, p, cancelled())
		var se *ShutdownError
		if errors.As(err, &se) && se.Queued == 0 && se.Running == 0 {
			t.Errorf("Shutdown(cancelled) of an idle pool = %v, want nil: nothing was left", err)
		} else if err != nil {
			t.Errorf("Shutdown(cancelled) of an idle pool = %v, want nil", err)
		}
	})
}

// TestShutdownDrains checks that Shutdown stops accepting at once, then
// returns only after every accepted task ran.
func TestShutdownDrains(t *testing.T) {
	eachServer(t, testWorkerCounts, nil, func(t *testing.T, p *Pool, workers int) {
		g := newGate()
		defer g.open()
		g.occupy(t, p, workers)
		var ran, accepted atomic.Int64
		const queuedTasks = 20
		for i := 0; i < queuedTasks; i++ {
			if err := p.Go(func(*Worker) { ran.Add(1) }); err != nil {
				t.Fatal(err)
			}
		}
		accepted.Add(queuedTasks)
		type outcome struct {
			err       error
			ran, gate int64
		}
		done := make(chan outcome, 1)
		go func() {
			err := p.Shutdown(context.Background())
			done <- outcome{err, ran.Load(), g.done.Load()}
		}()
		waitClosed(t, p, &ran, &accepted)
		checkRefusesClosed(t, p)
		g.open()
		within(t, "Shutdown", func() {
			o := <-done
			if o.err != nil {
				t.Errorf("Shutdown: %v", o.err)
			}
			if o.ran != accepted.Load() || o.gate != int64(workers) {
				t.Errorf("Shutdown returned with %d of %d tasks and %d of %d gate tasks run",
					o.ran, accepted.Load(), o.gate, workers)
			}
		})
	})
}

// TestShutdownContextEnds checks Shutdown whose context ends before the pool
// drained: a *ShutdownError with the exact numbers of queued and running
// tasks, matching the context's error; then the pool goes on draining, runs
// every accepted task, and releases its goroutines, whether the test then
// waits for that with Shutdown, Close, or not at all.
func TestShutdownContextEnds(t *testing.T) {
	for _, then := range []string{"nothing", "shutdown", "close"} {
		t.Run("then="+then, func(t *testing.T) {
			eachServer(t, testWorkerCounts, nil, func(t *testing.T, p *Pool, workers int) {
				g := newGate()
				defer g.open()
				g.occupy(t, p, workers)
				var ran atomic.Int64
				var tasks sync.WaitGroup
				const queuedTasks = 7
				for i := 0; i < queuedTasks; i++ {
					tasks.Add(1)
					if err := p.Go(func(*Worker) { ran.Add(1); tasks.Done() }); err != nil {
						t.Fatal(err)
					}
				}
				check := func(what string, err error, want error) {
					t.Helper()
					var se *ShutdownError
					switch {
					case !errors.As(err, &se):
						t.Errorf("%s = %v, want a *ShutdownError", what, err)
					case se.Queued != queuedTasks || se.Running != workers:
						t.Errorf("%s: %d queued, %d running; want %d, %d", what, se.Queued, se.Running, queuedTasks, workers)
					case !errors.Is(err, want) || se.Err != want:
						t.Errorf("%s = %v, want it to match %v", what, err, want)
					case !strings.Contains(err.Error(), fmt.Sprint(queuedTasks)):
						t.Errorf("%s: the message %q does not give the queued count", what, err)
					}
				}
				ctx, cancel := pastDeadline()
				defer cancel()
				check("Shutdown(past deadline)", shutdownW(t, p, ctx), context.DeadlineExceeded)
				// A deadline that passes while Shutdown waits.
				ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Millisecond)
				defer cancel2()
				check("Shutdown(5ms)", shutdownW(t, p, ctx2), context.DeadlineExceeded)
				check("Shutdown(cancelled)", shutdownW(t, p, cancelled()), context.Canceled)
				checkRefusesClosed(t, p)

				g.open()
				switch then {
				case "nothing":
					within(t, "accepted tasks", tasks.Wait)
					// Nobody calls Close: the pool must let its workers
					// go by itself.
					eventually(t, "the workers exiting by themselves", func() bool { return goleak.Find() == nil })
				case "shutdown":
					if err := shutdownW(t, p, context.Background()); err != nil {
						t.Errorf("Shutdown after the gate opened: %v", err)
					}
					if ran.Load() != queuedTasks {
						t.Errorf("Shutdown returned with %d of %d tasks run", ran.Load(), queuedTasks)
					}
				case "close":
					within(t, "Close", func() {
						if err := p.Close(); err != nil {
							t.Errorf("Close after a Shutdown that timed out: %v", err)
						}
					})
					if ran.Load() != queuedTasks {
						t.Errorf("Close returned with %d of %d tasks run", ran.Load(), queuedTasks)
					}
				}
				if g.done.Load() != int64(workers) {
					t.Errorf("%d of %d gate tasks finished", g.done.Load(), workers)
				}
			})
		})
	}
}

// TestShutdownConcurrent starts Shutdown and Close from several goroutines at
// once: the ones without a deadline all return nil, each only after every
// accepted task ran; one with an ended context reports the exact counts.
func TestShutdownConcurrent(t *testing.T) {
	eachServer(t, testWorkerCounts, nil, func(t *testing.T, p *Pool, workers int) {
		g := newGate()
		defer g.open()
		g.occupy(t, p, workers)
		var ran atomic.Int64
		const queuedTasks = 5
		for i := 0; i < queuedTasks; i++ {
			if err := p.Go(func(*Worker) { ran.Add(1) }); err != nil {
				t.Fatal(err)
			}
		}
		start := make(chan struct{})
		type outcome struct {
			who  string
			err  error
			ran  int64
			gate int64
		}
		const waiters = 6
		outcomes := make(chan outcome, waiters)
		for i := 0; i < waiters; i++ {
			go func() {
				<-start
				var err error
				who := "Close"
				if i%2 == 0 {
					who = "Shutdown"
					err = p.Shutdown(context.Background())
				} else {
					err = p.Close()
				}
				outcomes <- outcome{who, err, ran.Load(), g.done.Load()}
			}()
		}
		ended := make(chan error, 1)
		go func() {
			<-start
			ended <- p.Shutdown(cancelled())
		}()
		close(start)
		within(t, "Shutdown(cancelled)", func() {
			err := <-ended
			var se *ShutdownError
			if !errors.As(err, &se) || se.Queued != queuedTasks || se.Running != workers || !errors.Is(err, context.Canceled) {
				t.Errorf("Shutdown(cancelled) racing the others = %v, want %d queued, %d running, Canceled", err, queuedTasks, workers)
			}
		})
		g.open()
		within(t, "Shutdown and Close callers", func() {
			for i := 0; i < waiters; i++ {
				o := <-outcomes
				if o.err != nil {
					t.Errorf("%s: %v", o.who, o.err)
				}
				if o.ran != queuedTasks || o.gate != int64(workers) {
					t.Errorf("%s returned with %d of %d tasks and %d of %d gate tasks run", o.who, o.ran, queuedTasks, o.gate, workers)
				}
			}
		})
	})
}

// TestShutdownFromTask checks that Shutdown from a task of the pool is
// refused (it would wait for itself) and leaves the pool open.
func TestShutdownFromTask(t *testing.T) {
	eachServer(t, []int{1, 2}, nil, func(t *testing.T, p *Pool, workers int) {
		err := doW(t, p, func(*Worker) error { return p.Shutdown(context.Background()) })
		if !errors.Is(err, ErrCloseInTask) {
			t.Errorf("Shutdown from a task = %v, want ErrCloseInTask", err)
		}
		if got := doW(t, p, func(w *Worker) int { return fibArgs(w, 10) }); got != 55 {
			t.Errorf("after the refused Shutdown: %d", got)
		}
	})
}

// TestShutdownWakesRoomWaiters checks that submitters waiting for room in a
// full queue are refused with ErrClosed once Shutdown begins, while the
// queue is still full (the pool will accept nothing more, so waiting on
// would only delay them), and that their tasks never run.
func TestShutdownWakesRoomWaiters(t *testing.T) {
	eachServer(t, testWorkerCounts, []Option{WithCapacity(1)}, func(t *testing.T, p *Pool, workers int) {
		g := newGate()
		defer g.open()
		g.occupy(t, p, workers)
		var ran, waiterRan atomic.Int64
		fill(t, p, 1, &ran)
		const waiters = 4
		errs := make(chan error, waiters)
		for i := 0; i < waiters; i++ {
			wctx := watch(context.Background())
			task := func(*Worker) { waiterRan.Add(1) }
			go func() {
				var err error
				switch i {
				case 0:
					err = p.Go(task)
				case 1:
					err = p.GoContext(wctx, task)
				case 2:
					_, err = DoContext(wctx, p, func(w *Worker) int { task(w); return 0 })
				case 3:
					if v := catchPanic(func() { p.Run(task) }); v != nil {
						err, _ = v.(error)
						if err == nil {
							err = fmt.Errorf("Run panicked with %v", v)
						}
					}
				}
				errs <- err
			}()
			if i == 1 || i == 2 {
				wctx.waitWatched(t, "a submitter waiting for room")
			}
		}
		shut := make(chan error, 1)
		go func() { shut <- p.Shutdown(context.Background()) }()
		within(t, "room waiters refused by Shutdown", func() {
			for i := 0; i < waiters; i++ {
				if err := <-errs; !errors.Is(err, ErrClosed) {
					t.Errorf("a submitter waiting for room when Shutdown began = %v, want ErrClosed", err)
				}
			}
		})
		g.open()
		within(t, "Shutdown", func() {
			if err := <-shut; err != nil {
				t.Errorf("Shutdown: %v", err)
			}
		})
		if waiterRan.Load() != 0 || ran.Load() != 1 {
			t.Errorf("%d refused waiters' tasks ran; the queued task ran %d times", waiterRan.Load(), ran.Load())
		}
	})
}

// TestServerStats follows the server counters through a deterministic run:
// the gauges with every worker held and the queue full, refusals, then
// completions, panics (handled and returned) and a Goexit, and with
// WithLatencySampling(1) a queue-wait and run-time sample for every task.
func TestServerStats(t *testing.T) {
	handled := make(chan any, 1)
	opts := []Option{WithCapacity(3), WithLatencySampling(1), WithPanicHandler(func(v any, _ []byte) { handled <- v })}
	eachServer(t, []int{1, 2}, opts, func(t *testing.T, p *Pool, workers int) {
		if st := p.Stats(); st.Queued != 0 || st.Running != 0 || st.Completed != 0 || st.Rejected != 0 || st.Panics != 0 ||
			st.Injected != 0 || st.QueueWait.Count != 0 || st.RunTime.Count != 0 {
			t.Errorf("a new pool's Stats: %+v", st)
		}
		g := newGate()
		defer g.open()
		g.occupy(t, p, workers)
		checkServerStats(t, p, serverStats{running: workers})
		var ran atomic.Int64
		fill(t, p, 3, &ran)
		checkServerStats(t, p, serverStats{queued: 3, running: workers})
		for i := 0; i < 2; i++ {
			if err := p.TryGo(func(*Worker) {}); !errors.Is(err, ErrQueueFull) {
				t.Fatalf("TryGo = %v, want ErrQueueFull", err)
			}
		}
		if _, err := TryDo(context.Background(), p, func(*Worker) int { return 0 }); !errors.Is(err, ErrQueueFull) {
			t.Fatalf("TryDo = %v, want ErrQueueFull", err)
		}
		checkServerStats(t, p, serverStats{queued: 3, running: workers, rejected: 3})
		if st := p.Stats(); st.Completed != 0 || st.Injected != uint64(workers+3) {
			t.Errorf("with the gate shut: Completed %d, Injected %d; want 0, %d", st.Completed, st.Injected, workers+3)
		}

		g.open()
		accepted := uint64(workers + 3)
		// A Go task that panics (to the handler), a DoContext that
		// panics (to the caller), a Go task that calls Goexit.
		if err := p.Go(func(*Worker) { panic("handled") }); err != nil {
			t.Fatal(err)
		}
		within(t, "the panic handler", func() {
			if v := <-handled; v != "handled" {
				t.Errorf("handler got %v", v)
			}
		})
		if _, err := DoContext(context.Background(), p, func(*Worker) int { panic("returned") }); !errors.Is(err, ErrPanic) {
			t.Errorf("DoContext panic = %v", firstLine(err))
		}
		exited := make(chan struct{})
		if err := p.Go(func(*Worker) { defer close(exited); runtime.Goexit() }); err != nil {
			t.Fatal(err)
		}
		within(t, "the Goexit task", func() { <-exited })
		accepted += 3
		// The worker counts a task finished just after the task's own
		// last action (the caller's wake-up, the handler, a deferred
		// close), so the final counts are awaited.
		var st Stats
		eventually(t, "every task counted finished and sampled", func() bool {
			st = p.Stats()
			return st.Completed == accepted && st.QueueWait.Count == accepted && st.RunTime.Count == accepted
		})
		if st.Queued != 0 || st.Running != 0 || st.Injected != accepted || st.Panics != 2 || st.Rejected != 3 {
			t.Errorf("after the drain: %d queued, %d running, %d injected, %d panics, %d rejected; want 0, 0, %d, 2, 3",
				st.Queued, st.Running, st.Injected, st.Panics, st.Rejected, accepted)
		}
		if ran.Load() != 3 {
			t.Errorf("%d of 3 queued tasks ran", ran.Load())
		}
	})
}

// TestServerStatsSampling checks that the default sampling times some tasks
// but not every one.
func TestServerStatsSampling(t *testing.T) {
	withPool(t, []Option{WithWorkers(1)}, func(p *Pool) {
		const n = 4 * DefaultLatencySampling
		for i := 0; i < n; i++ {
			if err := p.Go(func(*Worker) {}); err != nil {
				t.Fatal(err)
			}
		}
		var st Stats
		eventually(t, "every task counted finished", func() bool { st = p.Stats(); return st.Completed == n })
		if st.QueueWait.Count == 0 || st.QueueWait.Count >= n || st.RunTime.Count != st.QueueWait.Count {
			t.Errorf("%d tasks with the default sampling: %d queue waits and %d run times sampled; want some, not all",
				n, st.QueueWait.Count, st.RunTime.Count)
		}
	})
}

// TestShutdownLastTaskEndsOddly checks that Shutdown returns when the last
// accepted tasks end abnormally: a Goexit (the worker goroutine is replaced),
// a panic sent to the handler, a panic and a Goexit returned by DoContext.
// Drain detection must count each of them finished.
func TestShutdownLastTaskEndsOddly(t *testing.T) {
	handler := WithPanicHandler(func(any, []byte) {})
	for _, last := range []string{"goexit", "panic", "DoContext-panic", "DoContext-goexit"} {
		t.Run("last="+last, func(t *testing.T) {
			eachServer(t, testWorkerCounts, []Option{handler}, func(t *testing.T, p *Pool, workers int) {
				g := newGate()
				defer g.open()
				g.occupy(t, p, workers)
				errc := make(chan error, 1)
				switch last {
				case "goexit":
					if err := p.Go(func(*Worker) { runtime.Goexit() }); err != nil {
						t.Fatal(err)
					}
				case "panic":
					if err := p.Go(func(*Worker) { panic("last") }); err != nil {
						t.Fatal(err)
					}
				default:
					go func() {
						_, err := DoContext(context.Background(), p, func(*Worker) int {
							if last == "DoContext-panic" {
								panic("last")
							}
							runtime.Goexit()
							return 0
						})
						errc <- err
					}()
					eventually(t, "the DoContext task queued", func() bool { return queued(p) == 1 })
				}
				shut := make(chan error, 1)
				go func() { shut <- p.Shutdown(context.Background()) }()
				g.open()
				within(t, "Shutdown after an abnormal last task", func() {
					if err := <-shut; err != nil {
						t.Errorf("Shutdown: %v", err)
					}
				})
				if strings.HasPrefix(last, "DoContext") {
					within(t, "DoContext", func() {
						want := ErrPanic
						if last == "DoContext-goexit" {
							want = ErrGoexit
						}
						if err := <-errc; !errors.Is(err, want) {
							t.Errorf("DoContext = %v, want %v", firstLine(err), want)
						}
					})
				}
				if st := p.Stats(); st.Completed != uint64(workers+1) || st.Running != 0 || st.Queued != 0 {
					t.Errorf("after Shutdown: %d completed (want %d), %d running, %d queued", st.Completed, workers+1, st.Running, st.Queued)
				}
			})
		})
	}
}

// TestServerStatsLatencyBounds checks the sampled durations against the
// test's own clock, with bounds that causality guarantees whatever the
// scheduling: a task held by the gate ran at least from when the test saw it
// start to when the test opened the gate; a task queued behind it waited at
// least from its submission's return to the opening; no duration exceeds the
// whole run. The pause before the opening is not synchronisation: it only
// makes the lower bounds large enough (milliseconds) to catch a duration
// recorded in the wrong unit or from the wrong clock reading.
func TestServerStatsLatencyBounds(t *testing.T) {
	withPool(t, []Option{WithWorkers(1), WithLatencySampling(1)}, func(p *Pool) {
		t0 := time.Now()
		g := newGate()
		defer g.open()
		g.occupy(t, p, 1)
		tStarted := time.Now()
		done := make(chan struct{})
		if err := p.Go(func(*Worker) { close(done) }); err != nil {
			t.Fatal(err)
		}
		tSubmitted := time.Now()
		time.Sleep(2 * time.Millisecond)
		tOpen := time.Now()
		g.open()
		within(t, "the queued task", func() { <-done })
		var st Stats
		eventually(t, "both tasks counted", func() bool {
			st = p.Stats()
			return st.Completed == 2 && st.QueueWait.Count == 2 && st.RunTime.Count == 2
		})
		span := time.Since(t0)
		if lo := tOpen.Sub(tStarted); st.RunTime.Max < lo || st.RunTime.Max > span {
			t.Errorf("RunTime.Max = %v; the gate task ran at least %v, and the run took %v", st.RunTime.Max, lo, span)
		}
		if lo := tOpen.Sub(tSubmitted); st.QueueWait.Max < lo || st.QueueWait.Max > span {
			t.Errorf("QueueWait.Max = %v; the queued task waited at least %v, and the run took %v", st.QueueWait.Max, lo, span)
		}
		if st.RunTime.Sum < st.RunTime.Max || st.QueueWait.Sum < st.QueueWait.Max || st.RunTime.Sum > 2*span || st.QueueWait.Sum > 2*span {
			t.Errorf("sums out of range: QueueWait %v, RunTime %v (max %v, %v; run %v)", st.QueueWait.Sum, st.RunTime.Sum, st.QueueWait.Max, st.RunTime.Max, span)
		}
	})
}
