package server

import (
	"context"
	"sync/atomic"

	"github.com/blitz-go/blitz"
)

// blitzExecutor submits to a blitz Pool and waits for the task.
type blitzExecutor struct {
	pool *blitz.Pool

	// STAND-IN for the pool's capacity option (see the package doc).
	// inFlight counts requests admitted and not yet finished (queued in the
	// pool or running). Execute increments it to admit and decrements it
	// on refusal; the task decrements it when it ends. All accesses are
	// atomic read-modify-writes; the count never exceeds capacity for
	// longer than one refused Execute's increment-and-undo.
	inFlight atomic.Int64
	capacity int64
}

func newBlitzExecutor(workers, capacity int, parking blitz.Parking) (*blitzExecutor, error) {
	opts := []blitz.Option{blitz.WithName("server"), blitz.WithParking(parking)}
	if workers > 0 {
		opts = append(opts, blitz.WithWorkers(workers))
	}
	// When the pool has a capacity option, pass it here:
	//   opts = append(opts, blitz.WithCapacity(capacity))
	p, err := blitz.New(opts...)
	if err != nil {
		return nil, err
	}
	return &blitzExecutor{pool: p, capacity: int64(capacity)}, nil
}

// Execute is the one function to change when the pool gains its bounded
// API. Then it becomes, in full:
//
//	err := e.pool.TryGoWait(ctx, func(*blitz.Worker) { fn() }) // or the final name
//	if errors.Is(err, blitz.ErrQueueFull) {
//		return ErrBusy
//	}
//	return err // a *blitz.PanicError when fn panicked: map it to ErrWorkPanicked
//
// and the inFlight/capacity fields go away. Until then the counter below
// admits at most capacity requests, and Pool.Go plus a per-request channel
// does submit-and-wait (BenchmarkSubmitAndWait compares it with blitz.Do:
// Go+channel is used because it returns ErrClosed instead of panicking and
// lets the handler stop waiting when the client goes away).
func (e *blitzExecutor) Execute(ctx context.Context, fn func()) error {
	// --- stand-in admission control: begin ---
	if e.inFlight.Add(1) > e.capacity {
		e.inFlight.Add(-1)
		return ErrBusy
	}
	// --- stand-in admission control: end ---
	done := make(chan struct{})
	var perr error // written by the task before close(done), read after
	err := e.pool.Go(func(*blitz.Worker) {
		defer close(done)
		defer e.inFlight.Add(-1) // stand-in: the slot is free before the handler answers
		perr = runGuarded(fn)
	})
	if err != nil {
		e.inFlight.Add(-1) // stand-in
		return err
	}
	select {
	case <-done:
		return perr
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (e *blitzExecutor) Close() error { return e.pool.Close() }
