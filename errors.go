package blitz

import "errors"

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
