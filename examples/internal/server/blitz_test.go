package server

import (
	"context"
	"errors"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/blitz-go/blitz"
)

// newTestBlitz returns a blitz executor with one worker and a queue of
// capacity, and a function that occupies the worker with a task that
// blocks until the returned release function is called.
func newTestBlitz(t *testing.T, capacity int) (e *blitzExecutor, occupy func() (release func())) {
	t.Helper()
	e, err := newBlitzExecutor(1, capacity, 1, blitz.ParkingPortable) // max 1: no worker added for the blocked one
	if err != nil {
		t.Fatal(err)
	}
	occupy = func() func() {
		started, release := make(chan struct{}), make(chan struct{})
		if err := e.pool.TryGo(func(*blitz.Worker) { close(started); <-release }); err != nil {
			t.Fatalf("TryGo of the blocking task: %v", err)
		}
		select {
		case <-started:
		case <-time.After(watchdog):
			dumpFail(t, "the blocking task to start")
		}
		return func() { close(release) }
	}
	return e, occupy
}

func shutdownExec(t *testing.T, e executor) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	if err := e.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}

// waitResult waits for an Execute running in another goroutine.
func waitResult(t *testing.T, res <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-res:
		return err
	case <-time.After(watchdog):
		dumpFail(t, what)
	}
	return nil
}

// TestBlitzExecutorBusyWhenQueueFull: with the worker busy and the queue
// full (both filled through the pool directly, so the state is known),
// Execute refuses with ErrBusy at once and never runs fn; the pool counts
// the refusal; after the queue drains, Execute runs fn again.
func TestBlitzExecutorBusyWhenQueueFull(t *testing.T) {
	for _, capacity := range []int{1, 4} {
		t.Run("capacity="+strconv.Itoa(capacity), func(t *testing.T) {
			defer goleak.VerifyNone(t)
			e, occupy := newTestBlitz(t, capacity)
			release := occupy()
			queuedRan := make(chan struct{}, capacity)
			for i := 0; i < capacity; i++ {
				if err := e.pool.TryGo(func(*blitz.Worker) { queuedRan <- struct{}{} }); err != nil {
					t.Fatalf("filling the queue, task %d: %v", i, err)
				}
			}
			ran := false
			if err := e.Execute(context.Background(), func() { ran = true }); !errors.Is(err, ErrBusy) {
				t.Errorf("Execute with a full queue: %v, want ErrBusy", err)
			}
			if st := e.Stats(); st.Rejected != 1 || st.Queued != capacity {
				t.Errorf("Stats: Rejected %d, Queued %d; want 1, %d", st.Rejected, st.Queued, capacity)
			}
			release()
			for i := 0; i < capacity; i++ {
				select {
				case <-queuedRan:
				case <-time.After(watchdog):
					dumpFail(t, "the queued tasks to run")
				}
			}
			if err := e.Execute(context.Background(), func() { ran = true }); err != nil || !ran {
				t.Errorf("Execute after the queue drained: %v, ran %v; want nil, true", err, ran)
			}
			shutdownExec(t, e)
		})
	}
}

// TestBlitzExecutorMapsPanics: a panic in fn comes back as an error that
// matches both ErrWorkPanicked (the handler's 500) and blitz.ErrPanic, and
// carries the panic value; the worker survives and runs the next request.
func TestBlitzExecutorMapsPanics(t *testing.T) {
	defer goleak.VerifyNone(t)
	e, _ := newTestBlitz(t, 2)
	err := e.Execute(context.Background(), func() { panic("boom 42") })
	if !errors.Is(err, ErrWorkPanicked) || !errors.Is(err, blitz.ErrPanic) {
		t.Errorf("Execute of a panicking fn: %v; want ErrWorkPanicked and blitz.ErrPanic", err)
	}
	var pe *blitz.PanicError
	if !errors.As(err, &pe) || pe.Value != "boom 42" {
		t.Errorf("errors.As *blitz.PanicError: %v (%#v); want the value \"boom 42\"", err, pe)
	}
	ran := false
	if err := e.Execute(context.Background(), func() { ran = true }); err != nil || !ran {
		t.Errorf("Execute after a panic: %v, ran %v", err, ran)
	}
	shutdownExec(t, e)
	if st := e.Stats(); st.Panics != 1 || st.Completed != 2 {
		t.Errorf("Stats: Panics %d, Completed %d; want 1, 2", st.Panics, st.Completed)
	}
}

// TestBlitzExecutorContextEndsWhileRunning: the client goes away while its
// work runs. Execute returns ctx's error at once; the work finishes later
// and Shutdown waits for it.
func TestBlitzExecutorContextEndsWhileRunning(t *testing.T) {
	defer goleak.VerifyNone(t)
	e, _ := newTestBlitz(t, 1)
	started, release, finished := make(chan struct{}), make(chan struct{}), make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	res := make(chan error, 1)
	go func() {
		res <- e.Execute(ctx, func() { close(started); <-release; close(finished) })
	}()
	select {
	case <-started:
	case <-time.After(watchdog):
		dumpFail(t, "the work to start")
	}
	cancel()
	if err := waitResult(t, res, "Execute to return after cancel"); !errors.Is(err, context.Canceled) {
		t.Errorf("Execute: %v, want context.Canceled", err)
	}
	close(release)
	shutdownExec(t, e)
	select {
	case <-finished:
	default:
		t.Error("Shutdown returned before the running work finished")
	}
}

// TestBlitzExecutorContextEndsWhileQueued: the client goes away while its
// work waits behind a busy worker. Execute returns ctx's error and the work
// never runs, even after the worker frees up.
func TestBlitzExecutorContextEndsWhileQueued(t *testing.T) {
	defer goleak.VerifyNone(t)
	e, occupy := newTestBlitz(t, 1)
	release := occupy()
	ctx, cancel := context.WithCancel(context.Background())
	var ran atomic.Bool
	res := make(chan error, 1)
	go func() { res <- e.Execute(ctx, func() { ran.Store(true) }) }()
	// Wait until the task is in the queue, so that the cancel withdraws
	// it from there (the path under test), not before submission.
	deadline := time.After(watchdog)
	for e.Stats().Queued != 1 {
		select {
		case <-deadline:
			dumpFail(t, "the task to queue")
		default:
			runtime.Gosched()
		}
	}
	cancel()
	if err := waitResult(t, res, "Execute to return after cancel"); !errors.Is(err, context.Canceled) {
		t.Errorf("Execute: %v, want context.Canceled", err)
	}
	release()
	shutdownExec(t, e)
	if ran.Load() {
		t.Error("the withdrawn task ran")
	}
}

// TestBlitzExecutorShutdown: Shutdown waits for queued work, then Execute
// is refused with blitz.ErrClosed (the handler's 503) and never runs fn. A
// Shutdown whose context ends first says how much work was left, and the
// pool still finishes it.
func TestBlitzExecutorShutdown(t *testing.T) {
	t.Run("drains", func(t *testing.T) {
		defer goleak.VerifyNone(t)
		e, occupy := newTestBlitz(t, 3)
		release := occupy()
		var ran atomic.Int32
		for i := 0; i < 3; i++ {
			if err := e.pool.TryGo(func(*blitz.Worker) { ran.Add(1) }); err != nil {
				t.Fatal(err)
			}
		}
		release()
		shutdownExec(t, e)
		if n := ran.Load(); n != 3 {
			t.Errorf("%d queued tasks ran before Shutdown returned, want 3", n)
		}
		called := false
		if err := e.Execute(context.Background(), func() { called = true }); !errors.Is(err, blitz.ErrClosed) || called {
			t.Errorf("Execute after Shutdown: %v, ran %v; want blitz.ErrClosed, false", err, called)
		}
	})
	t.Run("context ends first", func(t *testing.T) {
		defer goleak.VerifyNone(t)
		e, occupy := newTestBlitz(t, 2)
		release := occupy()
		var ran atomic.Int32
		if err := e.pool.TryGo(func(*blitz.Worker) { ran.Add(1) }); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		err := e.Shutdown(ctx)
		var se *blitz.ShutdownError
		if !errors.As(err, &se) || !errors.Is(err, context.Canceled) || se.Running != 1 || se.Queued != 1 {
			t.Errorf("Shutdown with an ended context: %v (%+v); want a *blitz.ShutdownError, 1 running, 1 queued, context.Canceled", err, se)
		}
		release()
		// The pool drains by itself; a second Shutdown waits for it.
		shutdownExec(t, e)
		if n := ran.Load(); n != 1 {
			t.Errorf("the queued task ran %d times, want 1", n)
		}
	})
}
