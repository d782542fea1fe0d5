package blitz

import (
	"context"
	"fmt"
)

// TryGo submits fn like Go but never blocks: when the pool has a capacity
// (WithCapacity) and the queue is full it returns ErrQueueFull at once, fn
// never runs, and Stats.Rejected counts the refusal. It returns ErrClosed
// once Close has begun. Without a capacity TryGo is Go. A nil fn panics.
func (p *Pool) TryGo(fn func(w *Worker)) error {
	if fn == nil {
		panic("blitz: TryGo with a nil function")
	}
	return p.submit(context.Background(), goJob(fn), false)
}

// GoContext submits fn like Go, waiting for room in a full queue until ctx
// ends; then it returns an error wrapping ctx.Err() and fn never runs. A
// GoContext from a task of the pool itself never waits (it is let in over
// the bound, as Go is). A nil fn or a nil ctx panics.
func (p *Pool) GoContext(ctx context.Context, fn func(w *Worker)) error {
	if fn == nil {
		panic("blitz: GoContext with a nil function")
	}
	if ctx == nil {
		panic("blitz: GoContext with a nil context")
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("blitz: GoContext: %w", err)
	}
	return p.submit(ctx, goJob(fn), true)
}

// DoContext runs fn on a worker of p and returns its result: the
// submit-and-wait form for request handlers. It waits for room in a full
// queue and then for the result, until ctx ends:
//
//   - ctx ends while waiting for room, or while the task is still queued:
//     the task is withdrawn and never runs; the error wraps ctx.Err().
//   - ctx ends while the task runs: DoContext returns at once with an error
//     wrapping ctx.Err(); the task runs to its end and its result is
//     dropped (pass ctx into fn if it should stop early).
//   - fn panics: a *PanicError (errors.Is(err, ErrPanic)) with the panic
//     value and the stack where it happened; the worker and the pool go on.
//   - fn calls runtime.Goexit: ErrGoexit.
//   - the pool is closed: ErrClosed.
//
// Unlike Do, DoContext never panics for these and never exits the caller's
// goroutine. A nil fn or a nil ctx panics.
func DoContext[T any](ctx context.Context, p *Pool, fn func(w *Worker) T) (T, error) {
	return doContext(ctx, p, fn, true, "DoContext")
}

// TryDo is DoContext that does not wait for room: with a full queue it
// returns ErrQueueFull at once (Stats.Rejected counts it) and fn never runs.
// A server answers that with 503 Service Unavailable. A nil fn or a nil ctx
// panics.
func TryDo[T any](ctx context.Context, p *Pool, fn func(w *Worker) T) (T, error) {
	return doContext(ctx, p, fn, false, "TryDo")
}

// doContext is DoContext (wait true) and TryDo (wait false); name is the
// function the caller called, for panic messages and errors.
func doContext[T any](ctx context.Context, p *Pool, fn func(w *Worker) T, wait bool, name string) (T, error) {
	var zero T
	if fn == nil {
		panic("blitz: " + name + " with a nil function")
	}
	if ctx == nil {
		panic("blitz: " + name + " with a nil context")
	}
	if err := ctx.Err(); err != nil {
		return zero, fmt.Errorf("blitz: %s: %w", name, err)
	}
	j := &callJob[T]{fn: fn, done: make(chan struct{})}
	if err := p.submit(ctx, j, wait); err != nil {
		return zero, err
	}
	select {
	case <-j.done:
	case <-ctx.Done():
		if j.state.CompareAndSwap(callQueued, callWithdrawn) {
			return zero, fmt.Errorf("blitz: %s: withdrawn before it started: %w", name, ctx.Err())
		}
		select {
		case <-j.done: // finished meanwhile: the result is here
		default:
			return zero, fmt.Errorf("blitz: %s: stopped waiting for the running task: %w", name, ctx.Err())
		}
	}
	switch {
	case j.panicked != nil:
		return zero, j.panicked
	case j.goexit:
		return zero, ErrGoexit
	}
	return j.result, nil
}
