package server

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
)

// ErrBusy is returned by an Executor that refused a task because it is at
// capacity; the handler answers 503.
var ErrBusy = errors.New("server: at capacity")

// ErrWorkPanicked is wrapped by the error an executor returns when the
// request's work panicked; the handler answers 500 and the server goes on.
var ErrWorkPanicked = errors.New("server: work panicked")

// runGuarded runs fn and turns a panic into an error wrapping
// ErrWorkPanicked, with the value and the stack. Every executor runs the
// work through it, so a panic in one request fails that request only, in
// every mode, instead of crashing the process (blitz without a panic
// handler), being logged and answered 200 (ants), or dropping the
// connection (net/http's handler recovery).
func runGuarded(fn func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%w: %v\n%s", ErrWorkPanicked, v, debug.Stack())
		}
	}()
	fn()
	return nil
}

// An executor runs a request's work somewhere and waits for it.
type executor interface {
	// Execute runs fn once and returns nil when it has returned; or
	// returns ErrBusy (or a closed-pool error) without running it; or
	// returns ctx's error when ctx ends first, in which case fn may still
	// run later and its result must be ignored.
	Execute(ctx context.Context, fn func()) error
	// Shutdown refuses new work, waits for every accepted fn to finish
	// and releases the executor's goroutines; if ctx ends first it returns
	// an error and the accepted work still finishes, in the background.
	Shutdown(ctx context.Context) error
}

// inlineExecutor runs fn in the calling (handler) goroutine.
type inlineExecutor struct{}

func (inlineExecutor) Execute(_ context.Context, fn func()) error { return runGuarded(fn) }
func (inlineExecutor) Shutdown(context.Context) error             { return nil }
