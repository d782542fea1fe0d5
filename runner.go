package blitz

import "fmt"

// A Runner says where a function that takes one runs (DoOn, NewGroup, and
// every function of package par): on a *Pool, entered from a
// plain goroutine — the call injects the work, blocks without burning CPU
// and returns when it is done — or on the *Worker handed to the calling
// task, where the work runs directly, without re-entering the pool. Default
// returns the pool a program shares when it has no pool of its own.
//
// A closed pool is refused at every input size: given a *Pool on which
// Close or Shutdown has begun, a function that takes a Runner panics with
// an error wrapping ErrClosed and naming the function, and runs none of its
// callbacks. NewGroup is the exception: its Group reports the closed pool
// from Go and Wait. A task that a closing pool still runs may go on using
// its *Worker, or the *Pool itself (which then runs the call on the task's
// worker).
//
// Runner is sealed: only *Pool and *Worker implement it, and types that
// embed one, such as the Runner par.MinLen returns, which the functions
// here run on the embedded runner's pool. A task that passes
// its own pool (or Default(), when it runs there) instead of its *Worker
// gets the same: the call runs on the task's worker (see "Calls from inside
// a task" in the package documentation).
type Runner interface {
	// runnerPool returns the pool the runner belongs to (nil for a nil
	// *Pool or *Worker). It also seals the interface.
	runnerPool() *Pool
}

func (p *Pool) runnerPool() *Pool { return p }

func (w *Worker) runnerPool() *Pool {
	if w == nil {
		return nil
	}
	return w.pool
}

// DoOn runs fn on r and returns its result: the one way onto a worker for
// code that takes a Runner (the par package's functions and functions of
// your own). On a *Worker, fn runs right there, as fn(w);
// on a *Pool, DoOn is Do(p, fn), which also runs fn on the caller's worker
// when the caller is a task of p. Either way a panic in fn reaches the
// caller as a *PanicError carrying the original value and stack, and a
// Goexit in fn ends the caller's goroutine. A closed *Pool, given by a
// goroutine that is not one of its tasks, makes DoOn panic with an error
// wrapping ErrClosed; a nil r or fn panics.
func DoOn[T any](r Runner, fn func(w *Worker) T) T {
	if fn == nil {
		panic("blitz: DoOn: nil function")
	}
	return doOn(r, fn, "DoOn")
}

// doOn is DoOn for a caller named name, for the panics of a nil Runner and
// of a closed pool.
func doOn[T any](r Runner, fn func(w *Worker) T, name string) T {
	checkRunner(r, name)
	if w, ok := r.(*Worker); ok {
		return callInline(w, fn)
	}
	if p, ok := r.(*Pool); ok {
		return do(p, fn, name)
	}
	// A Runner that embeds a *Pool or *Worker (par.MinLen's) runs on its
	// pool: from a task of that pool, on the task's worker.
	return do(r.runnerPool(), fn, name)
}

// checkRunner panics, naming the function name, if r is nil (the nil
// interface, or a nil *Pool or *Worker), or a *Pool (or a Runner that
// embeds one) on which Close or Shutdown has begun, given by a goroutine
// that is not one of its tasks (an error wrapping ErrClosed, whatever the
// input: the check comes first).
func checkRunner(r Runner, name string) {
	var p *Pool
	if r != nil {
		p = r.runnerPool()
	}
	if p == nil {
		panic("blitz: " + name + ": nil Runner")
	}
	if _, ok := r.(*Worker); !ok && p.closeStarted.Load() && !p.inTask() {
		panic(fmt.Errorf("blitz: %s: %w", name, ErrClosed))
	}
}
