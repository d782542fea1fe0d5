package blitz

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blitz-go/blitz/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// verifyNone fails t if goroutines leaked.
func verifyNone(t *testing.T) { t.Helper(); testkit.VerifyNone(t) }

const watchdogTimeout = testkit.WatchdogTimeout

func dumpAll() string { return testkit.DumpAll() }

func within(t testing.TB, what string, f func()) { t.Helper(); testkit.Within(t, what, f) }

func waitOrDump(t testing.TB, done <-chan struct{}, what string) {
	t.Helper()
	testkit.WaitOrDump(t, done, what)
}

// withPool creates a pool with opts, runs f, closes the pool (under the
// watchdog) and checks that no goroutine leaked and no frame was left lazy.
func withPool(t *testing.T, opts []Option, f func(p *Pool)) {
	t.Helper()
	defer goleak.VerifyNone(t)
	p, err := New(opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	defer func() {
		within(t, "Close", func() {
			if err := p.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		requireNoLazyFrames(t, p)
	}()
	f(p)
}

// doW is Do under the watchdog.
func doW[T any](t testing.TB, p *Pool, fn func(w *Worker) T) T {
	t.Helper()
	var r T
	within(t, "Do", func() { r = Do(p, fn) })
	return r
}

// testParkings lists the backends this system has (ParkingAuto is
// ParkingPortable: TestResolveBackend).
func testParkings() []Parking {
	ks := []Parking{ParkingPortable, ParkingSpin}
	if runtime.GOOS == "linux" {
		ks = append(ks, ParkingFutex)
	}
	return ks
}

// testWorkerCounts are the pool sizes every API is checked at.
var testWorkerCounts = []int{1, 2, 8}

// eachConfig runs f as a subtest for every backend and worker count.
func eachConfig(t *testing.T, f func(t *testing.T, p *Pool)) {
	eachConfigWith(t, false, f)
}

// eachCappedConfig is eachConfig with every pool capped at its size
// (WithMaxWorkers), for tests that pin which workers run something: on a
// loaded machine the monitor may take a worker waiting for others (in a
// Broadcast, a join) for a blocked one and add a worker.
func eachCappedConfig(t *testing.T, f func(t *testing.T, p *Pool)) {
	eachConfigWith(t, true, f)
}

func eachConfigWith(t *testing.T, capped bool, f func(t *testing.T, p *Pool)) {
	for _, k := range testParkings() {
		for _, n := range testWorkerCounts {
			t.Run(fmt.Sprintf("parking=%v/workers=%d", k, n), func(t *testing.T) {
				opts := []Option{WithParking(k), WithWorkers(n)}
				if capped {
					opts = append(opts, WithMaxWorkers(n))
				}
				withPool(t, opts, func(p *Pool) { f(t, p) })
			})
		}
	}
}

func catchPanic(f func()) any { return testkit.CatchPanic(f) }

func exitsGoroutine(t testing.TB, f func()) bool { t.Helper(); return testkit.ExitsGoroutine(t, f) }

func seqFib(n int) int { return testkit.SeqFib(n) }

func runChild(t *testing.T, name string, env ...string) string {
	t.Helper()
	return testkit.RunChild(t, name, env...)
}

// requirePanicMessage asserts that f panics with exactly msg.
func requirePanicMessage(t *testing.T, msg string, f func()) {
	t.Helper()
	assert.PanicsWithValue(t, msg, f)
}

// requireTaskPanics runs f on a worker of p and requires it to panic with
// msg, which reaches the caller as the Value of a *PanicError.
func requireTaskPanics(t *testing.T, p *Pool, msg string, f func(w *Worker)) {
	t.Helper()
	v := catchPanic(func() { p.Run(f) })
	pe, ok := v.(*PanicError)
	require.True(t, ok, "panic %v (%T), want a *PanicError", v, v)
	assert.Equal(t, msg, pe.Value)
}

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
// counts, with opts added to the backend and worker options. The pool's cap
// is its size (WithMaxWorkers): the server tests hold workers with gates to
// fill queues to exact depths, which a pool that replaces blocked workers
// would drain (blocking_test.go tests the replacement); opts may raise it.
func eachServer(t *testing.T, counts []int, opts []Option, f func(t *testing.T, p *Pool, workers int)) {
	t.Helper()
	for _, k := range serverParkings() {
		for _, n := range counts {
			t.Run(fmt.Sprintf("parking=%v/workers=%d", k, n), func(t *testing.T) {
				all := append([]Option{WithParking(k), WithWorkers(n), WithMaxWorkers(n)}, opts...)
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

// queued is the pool's queue depth (submitted, not started).
func queued(p *Pool) int { return p.inj.len() }

// blockedIn reports whether a goroutine is blocked (not running, not
// runnable) with a frame whose function name contains fn. It tells that a
// goroutine got past everything it does before it blocks, where nothing
// announces that: a Do's caller has finished submitting (the sleep
// protocol's wake decision included) once it waits for its result.
func blockedIn(fn string) bool {
	for g := range strings.SplitSeq(dumpAll(), "\n\n") {
		head, frames, _ := strings.Cut(g, "\n")
		if strings.Contains(head, "[running]") || strings.Contains(head, "[runnable]") {
			continue
		}
		if strings.Contains(frames, fn) {
			return true
		}
	}
	return false
}

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

// leakCheck adapts goleak.VerifyNone to a deferred call with a leading
// function, for tests that manage their pools by hand.
func leakCheck(t *testing.T) func() {
	return func() { verifyNone(t) }
}

// together runs f(0), ..., f(n-1) on n goroutines released at once, and
// returns when all returned, failing the test with a goroutine dump if they
// take longer than the watchdog (within). f must not call t.FailNow.
func together(t testing.TB, what string, n int, f func(i int)) {
	t.Helper()
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			f(i)
		}()
	}
	close(start)
	within(t, what, wg.Wait)
}

// forRange calls body over pieces of [lo, hi) of at most grain indexes
// (grain > 0), halving the range with JoinArgs: a loop for the tests'
// workloads (the par package has the real one).
func forRange(w *Worker, lo, hi, grain int, body func(w *Worker, lo, hi int)) {
	mapReduceRange(w, lo, hi, grain, struct{}{}, func(w *Worker, lo, hi int) struct{} { body(w, lo, hi); return struct{}{} }, func(struct{}, struct{}) struct{} { return struct{}{} })
}

// mapReduceRange is forRange with results combined in index order.
func mapReduceRange[T any](w *Worker, lo, hi, grain int, identity T, mapper func(w *Worker, lo, hi int) T, reduce func(a, b T) T) T {
	if hi <= lo {
		return identity
	}
	if grain <= 0 {
		grain = max(1, (hi-lo)/(8*w.Pool().Workers()))
	}
	var rec func(w *Worker, r [2]int) T
	rec = func(w *Worker, r [2]int) T {
		if r[1]-r[0] <= grain {
			return mapper(w, r[0], r[1])
		}
		mid := r[0] + (r[1]-r[0])/2
		a, b := JoinArgs(w, rec, [2]int{r[0], mid}, rec, [2]int{mid, r[1]})
		return reduce(a, b)
	}
	return rec(w, [2]int{lo, hi})
}

// blockedBurst runs n tasks on p that all block until each has started (so
// the monitor adds workers for them, up to n), then releases them and waits
// until the added workers retired and p is back at workers active: a pool
// that grew for a server's burst and shrank back, its list of workers long.
func blockedBurst(tb testing.TB, p *Pool, n, workers int) {
	tb.Helper()
	release := make(chan struct{})
	var started, done sync.WaitGroup
	started.Add(n)
	done.Add(n)
	for range n {
		require.NoError(tb, p.Go(func(*Worker) { defer done.Done(); started.Done(); <-release }))
	}
	within(tb, "the blocking tasks starting", started.Wait)
	close(release)
	within(tb, "the blocking tasks", done.Wait)
	eventually(tb, "the added workers retiring", func() bool { return p.active.Load() == int32(workers) })
}
