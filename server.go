package blitz

import (
	"context"
	"errors"
	"expvar"
	"fmt"
)

// ErrQueueFull is returned by TryGo and TryDo when the pool has a capacity
// (WithCapacity) and that many tasks are already queued.
var ErrQueueFull = errors.New("blitz: queue is full")

// ErrPanic matches (errors.Is) every *PanicError: DoContext and TryDo return
// one when the task panicked.
var ErrPanic = errors.New("blitz: task panicked")

// ErrGoexit is returned by DoContext and TryDo when the task called
// runtime.Goexit.
var ErrGoexit = errors.New("blitz: task called runtime.Goexit")

// ShutdownError is returned by Shutdown when its context ended before the
// pool drained. The pool keeps draining: every accepted task still runs.
type ShutdownError struct {
	Queued  int   // tasks accepted and not yet started
	Running int   // tasks started and not yet finished
	Err     error // the context's error
}

func (e *ShutdownError) Error() string {
	return fmt.Sprintf("blitz: shutdown: %v with %d tasks queued and %d running", e.Err, e.Queued, e.Running)
}

func (e *ShutdownError) Unwrap() error { return e.Err }

var errNotYet = errors.New("blitz: not implemented yet")

// TryGo submits fn like Go but never blocks: with a full queue it returns
// ErrQueueFull at once and fn never runs.
func (p *Pool) TryGo(fn func(w *Worker)) error { return errNotYet }

// GoContext submits fn like Go, waiting for room in a full queue until ctx
// ends; then it returns an error wrapping ctx.Err() and fn never runs.
func (p *Pool) GoContext(ctx context.Context, fn func(w *Worker)) error { return errNotYet }

// DoContext runs fn on a worker and returns its result, waiting for room in
// a full queue and for the result until ctx ends.
func DoContext[T any](ctx context.Context, p *Pool, fn func(w *Worker) T) (T, error) {
	var zero T
	return zero, errNotYet
}

// TryDo is DoContext that refuses with ErrQueueFull instead of waiting for
// room.
func TryDo[T any](ctx context.Context, p *Pool, fn func(w *Worker) T) (T, error) {
	var zero T
	return zero, errNotYet
}

// Shutdown stops accepting work and waits for the accepted work to finish,
// or for ctx to end (a *ShutdownError).
func (p *Pool) Shutdown(ctx context.Context) error { return errNotYet }

// Expvar returns the pool's Stats as an expvar.Var (JSON).
func (p *Pool) Expvar() expvar.Var { return expvar.Func(func() any { return p.Stats() }) }
