package server

import (
	"context"
	"errors"
	"time"

	"github.com/panjf2000/ants/v2"
)

// antsExecutor submits to an ants pool of capacity goroutines in
// non-blocking mode: when every goroutine is busy, Submit fails with
// ants.ErrPoolOverload and the request gets 503. There is no queue: the
// capacity is the number of tasks running at once, all sharing the CPUs.
type antsExecutor struct {
	pool *ants.Pool
}

func newAntsExecutor(capacity int) (*antsExecutor, error) {
	p, err := ants.NewPool(capacity, ants.WithNonblocking(true))
	if err != nil {
		return nil, err
	}
	return &antsExecutor{pool: p}, nil
}

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

// antsReleaseTimeout bounds how long Close waits for ants' goroutines.
// Handlers have returned by the time Close runs, so only tasks whose client
// went away can still be running, and they end within one work unit.
const antsReleaseTimeout = 10 * time.Second

func (e *antsExecutor) Close() error {
	return e.pool.ReleaseTimeout(antsReleaseTimeout)
}
