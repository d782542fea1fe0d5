package blitz

import (
	"errors"
	"fmt"
)

// ErrClosed is returned (or, for the functions that return no error, panicked
// with, wrapped) when work is submitted to a pool after Close has begun.
// Test for it with errors.Is.
var ErrClosed = errors.New("blitz: pool is closed")

// ErrCloseInTask is returned by Close when it is called from a task running on
// a worker of the same pool. Close waits for every accepted task to finish,
// and the calling task is one of them, so waiting would deadlock; the pool is
// left open instead. To shut a pool down from one of its own tasks, call Close
// from a new goroutine (go p.Close()).
var ErrCloseInTask = errors.New("blitz: Close called from a task of the same pool")

// ErrQueueFull is returned by TryGo and TryDo when the pool has a capacity
// (WithCapacity) and that many tasks are already queued, by Sub's when the
// Sub's queue is full, and by Group.TryGo when the group has no free slot
// (Group.SetLimit).
var ErrQueueFull = errors.New("blitz: queue is full")

// ErrThreadLimit is wrapped by the error New returns when the pool's workers
// would hold more OS threads locked than the runtime can spare: workers that
// park on a futex or are pinned by a placement each keep a thread, and all
// such workers of the open pools may together hold at most half of the
// runtime's thread limit (debug.SetMaxThreads). See WithWorkers.
var ErrThreadLimit = errors.New("blitz: too many workers locked to OS threads")

// ErrPanic matches (errors.Is) every *PanicError: DoContext, TryDo and
// Future.Wait return one when the task panicked.
var ErrPanic = errors.New("blitz: task panicked")

// ErrGoexit is returned by DoContext, TryDo and Future.Wait when the task
// called runtime.Goexit.
var ErrGoexit = errors.New("blitz: task called runtime.Goexit")

// ErrDefaultStarted is returned by SetDefaultOptions when the default pool
// (Default) has already been created: its options can no longer change.
var ErrDefaultStarted = errors.New("blitz: the default pool has already started")

// ErrDefaultPool is returned by Close and Shutdown when called on the
// default pool (Default). That pool is shared by the whole program and never
// closed: closing it would make every later use of it, in any package,
// panic with ErrClosed. It is left open instead.
var ErrDefaultPool = errors.New("blitz: the default pool cannot be closed")

// ShutdownError is returned by Shutdown when its context ended before the
// pool shut down: before every accepted task finished and every worker
// goroutine exited. The pool keeps draining: every accepted task still
// runs, and the workers exit by themselves after the last one.
type ShutdownError struct {
	Queued  int   // tasks accepted and not yet started
	Running int   // tasks started and not yet finished
	Workers int   // worker goroutines not yet exited
	Err     error // the context's error
}

func (e *ShutdownError) Error() string {
	return fmt.Sprintf("blitz: shutdown: %v with %d tasks queued, %d running and %d workers not yet exited",
		e.Err, e.Queued, e.Running, e.Workers)
}

func (e *ShutdownError) Unwrap() error { return e.Err }

// ErrBadSize is returned (wrapped) by Pool.Resize for a worker count out of
// range.
var ErrBadSize = errors.New("blitz: worker count out of range")
