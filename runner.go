package blitz

// A Runner is where a data-parallel function of this package runs (Sum,
// SortFunc, IndexFunc, ...): a *Pool, entered from a plain goroutine — the
// call injects the work, blocks without burning CPU and returns when it is
// done — or the *Worker handed to the calling task, on which the work runs
// directly, without re-entering the pool. Default returns the pool a
// program shares when it has no pool of its own.
//
// A closed pool is refused at every input size: given a *Pool on which
// Close or Shutdown has begun, a function that takes a Runner panics with
// an error wrapping ErrClosed and naming the function (errors.Is(err,
// ErrClosed)), runs none of its callbacks, and does so even for an input it
// would have answered on the calling goroutine (an empty one, or a Sum or
// Sort short enough not to enter the pool). NewGroup is the exception: its
// Group reports the closed pool from Go and Wait. A task that a closing pool
// still runs may go on using the pool's functions with its *Worker, or with
// the *Pool itself (which then runs the call on the task's worker).
//
// Runner is sealed: only *Pool and *Worker implement it. A task that passes
// its own pool (or Default(), when it runs there) instead of its *Worker
// gets the same: the call runs on the task's worker (see "Calls from inside
// a task" in the package documentation).
type Runner interface {
	// enter runs fn on a worker of the runner's pool and returns when fn
	// returned; a panic or Goexit in fn reaches the caller as Pool.Run
	// and Join describe. name is the function the user called, for the
	// panic of a closed pool.
	enter(name string, fn func(w *Worker))
}

func (p *Pool) enter(name string, fn func(w *Worker)) { p.run(name, fn) }

func (w *Worker) enter(_ string, fn func(w *Worker)) { fn(w) }
