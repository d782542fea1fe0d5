package par

import (
	"fmt"

	"github.com/blitz-go/blitz"
)

// Getting onto a worker. Every function of the package takes a Runner and
// reaches a worker through blitz.Do alone, which decides who calls: on a
// *Worker the work runs right there, on a *Pool it runs on one of the
// pool's workers (on the caller's own worker when the caller is a task of
// that pool), on a *Sub as one task of it.

// checkRunner panics, naming the function the user called, if r is nil
// (the nil interface, or a nil *Pool or *Worker), or a *Pool that Close or
// Shutdown has begun to close, given by a goroutine that is not one of its
// tasks (an error wrapping blitz.ErrClosed). Every function checks its
// Runner before anything else, even for an input it answers without
// entering the pool (an empty one, or one short enough for the caller:
// inlineOnCaller), so that a closed pool fails at every size alike. An open
// pool costs one atomic load. The tasks that a closing pool still runs may
// use their *Worker or the *Pool. A Runner of MinLen is checked as the one
// it wraps.
func checkRunner(name string, r blitz.Runner) {
	switch r := unwrap(r).(type) {
	case *blitz.Worker:
		if r != nil {
			return
		}
	case *blitz.Pool:
		if r != nil {
			if r.Closed() && r.Current() == nil {
				panicClosed(name)
			}
			return
		}
	case *blitz.Sub:
		if r != nil {
			if r.Closed() && r.Pool().Current() == nil {
				panicClosed(name)
			}
			return
		}
	}
	panic("par: " + name + ": nil Runner")
}

// panicClosed is the panic of function name given a closed pool.
func panicClosed(name string) {
	panic(fmt.Errorf("par: %s: %w", name, blitz.ErrClosed))
}

// enter checks r and runs fn on it (blitz.Do): a panic in fn, or in the
// work it forks, reaches the caller as a *blitz.PanicError, and a Goexit
// passes through.
func enter(name string, r blitz.Runner, fn func(w *blitz.Worker)) {
	checkRunner(name, r)
	blitz.Do(unwrap(r), func(w *blitz.Worker) struct{} { fn(w); return struct{}{} })
}

// doOn is enter with a result.
func doOn[T any](name string, r blitz.Runner, fn func(w *blitz.Worker) T) T {
	checkRunner(name, r)
	return blitz.Do(unwrap(r), fn)
}

// onCaller runs f, work too short to enter the pool, on the calling
// goroutine, and raises a panic of f as the *blitz.PanicError the same work
// would raise through the pool (blitz.Catch).
func onCaller(f func()) {
	if pe := blitz.Catch(f); pe != nil {
		panic(pe)
	}
}
