package server

import (
	"context"
	"errors"
)

// ErrBusy is returned by an Executor that refused a task because it is at
// capacity; the handler answers 503.
var ErrBusy = errors.New("server: at capacity")

// An executor runs a request's work somewhere and waits for it.
type executor interface {
	// Execute runs fn once and returns nil when it has returned; or
	// returns ErrBusy (or a closed-pool error) without running it; or
	// returns ctx's error when ctx ends first, in which case fn may still
	// run later and its result must be ignored.
	Execute(ctx context.Context, fn func()) error
	// Close waits for every accepted fn to finish and releases the
	// executor's goroutines.
	Close() error
}

// inlineExecutor runs fn in the calling (handler) goroutine.
type inlineExecutor struct{}

func (inlineExecutor) Execute(_ context.Context, fn func()) error { fn(); return nil }
func (inlineExecutor) Close() error                               { return nil }
