package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/blitz-go/blitz"
)

// blitzExecutor submits to a blitz Pool built with WithCapacity and waits
// for the task with TryDo: at most capacity tasks wait for a worker, one
// more runs per worker, and a request that finds the queue full is refused
// at once (503) instead of joining it.
type blitzExecutor struct {
	pool *blitz.Pool
}

func newBlitzExecutor(workers, capacity, maxWorkers int, parking blitz.Parking) (*blitzExecutor, error) {
	opts := []blitz.Option{
		blitz.WithName("server"),
		blitz.WithParking(parking),
		blitz.WithCapacity(capacity),
	}
	if workers > 0 {
		opts = append(opts, blitz.WithWorkers(workers))
	}
	if maxWorkers > 0 {
		opts = append(opts, blitz.WithMaxWorkers(maxWorkers))
	}
	p, err := blitz.New(opts...)
	if err != nil {
		return nil, err
	}
	return &blitzExecutor{pool: p}, nil
}

// Execute runs fn on the pool and waits for it. The pool does what the
// other executors do by hand: TryDo refuses with ErrQueueFull when the
// queue is full, returns a *blitz.PanicError (errors.Is ErrPanic, with the
// value and the stack) when fn panics, and returns at once with ctx's error
// when the client goes away (a queued task is withdrawn and never runs; a
// running one finishes and its result is dropped).
func (e *blitzExecutor) Execute(ctx context.Context, fn func()) error {
	_, err := blitz.TryDo(ctx, e.pool, func(*blitz.Worker) struct{} {
		fn()
		return struct{}{}
	})
	switch {
	case err == nil:
		return nil
	case errors.Is(err, blitz.ErrQueueFull):
		return ErrBusy
	case errors.Is(err, blitz.ErrPanic):
		return fmt.Errorf("%w: %w", ErrWorkPanicked, err)
	}
	return err // ctx's error, blitz.ErrClosed or blitz.ErrGoexit
}

// Shutdown stops the pool taking work and waits for what it accepted; if ctx
// ends first the *blitz.ShutdownError says how much was left, and the pool
// goes on draining by itself.
func (e *blitzExecutor) Shutdown(ctx context.Context) error { return e.pool.Shutdown(ctx) }

// Stats returns the pool's counters (the server publishes them through
// expvar and Prometheus).
func (e *blitzExecutor) Stats() blitz.Stats { return e.pool.Stats() }
