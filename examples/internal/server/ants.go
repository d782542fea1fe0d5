package server

import (
	"context"
	"errors"
	"runtime"

	"github.com/panjf2000/ants/v2"
)

// antsExecutor submits to an ants pool with the blitz executor's capacity
// semantics: workers goroutines run tasks, at most capacity submitters
// wait for one of them (ants' blocking mode, bounded by
// WithMaxBlockingTasks), and the next submitter is refused with
// ants.ErrPoolOverload, which the handler answers with 503.
//
// A non-blocking ants pool of capacity goroutines is not the same bound:
// it lets capacity tasks run at once and share the CPUs, and under
// overload it never fills, because the handlers queue on ants' pool mutex
// first (measured; see the package doc).
type antsExecutor struct {
	pool *ants.Pool
}

func newAntsExecutor(workers, capacity int) (*antsExecutor, error) {
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	p, err := ants.NewPool(workers, ants.WithMaxBlockingTasks(capacity))
	if err != nil {
		return nil, err
	}
	return &antsExecutor{pool: p}, nil
}

// Execute submits fn and waits for it. Submit itself may wait for a worker
// (ants has no context for that wait: a client that goes away while its
// request is queued still takes its turn); the wait for the result honours
// ctx.
func (e *antsExecutor) Execute(ctx context.Context, fn func()) error {
	done := make(chan struct{})
	var perr error // written by the task before close(done), read after
	err := e.pool.Submit(func() {
		defer close(done)
		perr = runGuarded(fn)
	})
	if errors.Is(err, ants.ErrPoolOverload) {
		return ErrBusy
	}
	if err != nil {
		return err
	}
	select {
	case <-done:
		return perr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Shutdown closes the pool, which wakes any submitter still waiting for a
// worker (it gets ants.ErrPoolClosed), and waits until ctx ends for the
// running tasks and ants' own goroutines. Handlers have returned by the
// time the server calls it, so only tasks whose client went away can still
// be running, and they end within one work unit.
func (e *antsExecutor) Shutdown(ctx context.Context) error {
	return e.pool.ReleaseContext(ctx)
}
