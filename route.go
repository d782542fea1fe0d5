package blitz

import (
	"context"
	"fmt"
)

// The route into a pool.
//
// Every call that hands work to a pool and waits for it (Do, DoContext,
// TryDo, Pool.Run, Sub.Run, and through Do every function of package par)
// takes one path, call, which decides three things once, in this order:
//
//  1. Where the work goes: the Runner it was given, resolved to a dest (a
//     pool; a Sub of it, whose bounds admit the work; or the *Worker
//     handed to the calling task, where the work runs right there).
//  2. Who calls (current.go): a worker of that pool, which runs the work
//     itself and queues nothing (waiting for a worker would wait for
//     itself, with one worker for good); a worker of another pool, which
//     queues the work and serves its own pool while it waits
//     (Worker.waitCall), so pools that call each other never run out of
//     workers; or a plain goroutine, which queues the work and blocks, or
//     runs it itself as a sleeping worker (borrow.go) when the pool is idle.
//     A call that a task of a Sub makes into the same Sub through another
//     pool runs in the slot that task holds (Sub.heldBy).
//  3. How it reports (callMode): Do's panics, or DoContext's errors.
//
// The calls that do not wait (Pool.Go and Sub.Go and their Try and Context
// forms, Submit, Group.Go) queue their task through the same two doors,
// Pool.submit and Sub.submit, and ask who calls only where a full queue
// makes them wait.

// A Runner says where work runs: on a *Pool; on a *Sub of one, whose limit
// and queue admit the work; or on the *Worker handed to the calling task,
// where the work runs right there, without re-entering the pool. Every
// function that takes work and a place to run it takes a Runner: Do,
// DoContext, TryDo, Submit, NewGroup, NewResultGroup, Broadcast and the
// functions of package par. Default returns the pool a program shares
// when it has no pool of its own.
//
// Given a *Pool or a *Sub, a call from a task of the same pool runs on
// the task's own worker (see "Calls from inside a task" in the package
// documentation); from a task of another pool, that task's worker serves
// its own pool while the call waits.
//
// Runner is sealed: only *Pool, *Sub and *Worker implement it, and types
// that embed one, such as the Runner par.MinLen returns, which run work
// where the embedded one does.
type Runner interface {
	// dest returns where the runner sends work. It also seals the
	// interface.
	dest() dest
}

// dest is a Runner resolved: the pool p; the Sub s whose bounds admit the
// work, nil for the pool's own queue; and w, the worker the caller was
// handed, nil unless the Runner is a *Worker. A nil *Pool, *Sub or
// *Worker resolves to the zero dest.
type dest struct {
	p *Pool
	s *Sub
	w *Worker
}

func (p *Pool) dest() dest { return dest{p: p} }

func (s *Sub) dest() dest {
	if s == nil {
		return dest{}
	}
	return dest{p: s.p, s: s}
}

func (w *Worker) dest() dest {
	if w == nil {
		return dest{}
	}
	return dest{p: w.pool, w: w}
}

// destOf resolves r for the function name, and panics if r is nil (the
// nil interface, or a nil *Pool, *Sub or *Worker).
func destOf(r Runner, name string) dest {
	var d dest
	if r != nil {
		d = r.dest()
	}
	if d.p == nil {
		panic("blitz: " + name + ": nil Runner")
	}
	return d
}

// callMode is how a call waits and reports what happened.
type callMode uint8

const (
	// callPanics is Do's and Run's: the call waits for room in a full
	// queue; a panic in fn is re-panicked in the caller as a *PanicError,
	// a Goexit in fn exits the caller's goroutine, and a closed pool makes
	// the call panic with an error wrapping ErrClosed.
	callPanics callMode = iota
	// callWaits is DoContext's: the call waits for room and then for fn
	// until ctx ends, and returns every outcome as an error.
	callWaits
	// callTries is TryDo's: DoContext that refuses a full queue at once.
	callTries
)

// call runs fn on d's pool (within d's Sub, if any) and returns its result,
// by the route the top of the file tells; name is the function the user
// called, for panics and errors. ctx is Background for callPanics.
func call[T any](ctx context.Context, d dest, fn func(*Worker) T, mode callMode, name string) (T, error) {
	var zero T
	if fn == nil {
		panic("blitz: " + name + ": nil function")
	}
	if mode != callPanics {
		if ctx == nil {
			panic("blitz: " + name + ": nil context")
		}
		if err := ctx.Err(); err != nil {
			return zero, fmt.Errorf("blitz: %s: %w", name, err)
		}
	}
	if d.w != nil {
		// Handed its worker: the caller is the task that worker runs.
		d.w.checkLive(name)
		if mode == callPanics {
			return callInline(d.w, fn), nil
		}
		return doContextOwn(ctx, d.w, fn, name)
	}
	cw := currentWorker()
	if cw != nil && cw.pool == d.p {
		if d.s != nil {
			d.s.countInline()
		}
		if mode == callPanics {
			return callOwn(cw, fn), nil
		}
		return doContextOwn(ctx, cw, fn, name)
	}
	if d.s != nil && d.s.heldBy(cw) {
		// The caller's task holds a slot of the Sub: the call runs in
		// it, through the parent's queue (waiting for another slot could
		// wait for itself).
		d.s.countInline()
		d.s = nil
	}
	l := currentLabels()
	if cw == nil && d.s == nil && mode == callPanics {
		if r, ok := callOnCaller(d.p, fn, l); ok {
			return r, nil
		}
	}
	j := &callJob[T]{fn: fn}
	if mode != callPanics {
		j.ctx = ctx
	}
	if cw != nil {
		j.fn, j.waiter = callFrom(cw, fn), cw
	} else {
		j.done = newDone()
	}
	var st *subTask
	var err error
	if d.s != nil {
		st = &subTask{s: d.s, t: j}
		err = d.s.submit(ctx, st, mode != callTries, name)
	} else {
		err = d.p.submit(ctx, j, l, mode != callTries, name)
	}
	if err != nil {
		if j.done != nil {
			doneChans.Put(j.done)
		}
		if mode == callPanics {
			panic(fmt.Errorf("blitz: %s: %w", name, err))
		}
		return zero, err
	}
	if j.wait(cw, ctx.Done()) {
		if j.withdraw() {
			if st != nil {
				d.s.unqueue(st)
			}
			if j.done != nil {
				doneChans.Put(j.done) // a withdrawn job is never signalled
			}
			return zero, fmt.Errorf("blitz: %s: withdrawn before it started: %w", name, ctx.Err())
		}
		if !j.finished() {
			// Its worker will still signal the job: it is not reused.
			return zero, fmt.Errorf("blitz: %s: stopped waiting for the running task: %w", name, ctx.Err())
		}
	}
	if j.done != nil {
		doneChans.Put(j.done)
	}
	if mode == callPanics {
		return j.outcome(), nil
	}
	return j.outcomeErr()
}

// Do runs fn on r and returns its result, waiting for it: on a worker of
// the *Pool, within the bounds of the *Sub (at most its limit of tasks
// under way, the rest queued in order), or right there on the *Worker.
// The calling goroutine blocks without burning CPU; any number of
// goroutines may call Do at once. With a capacity and a full queue, Do
// first waits for room. When a worker sleeps and no task is queued, a
// plain goroutine's Do on a *Pool runs fn itself as that worker, which
// saves the wake and the hand-offs (WithCallerRuns says when, and how to
// turn it off).
//
// Called from a task of r's pool, Do runs fn on the task's own worker,
// without queueing it; called from a task of another pool, it queues fn and
// the task's pool replaces the task's waiting worker meanwhile (see "Calls
// from inside a task" in the package documentation).
//
// A panic in fn (or in work it forks) is re-panicked in the caller as a
// *PanicError carrying the original stack; a Goexit in fn makes the
// caller's goroutine exit too. Once the pool's or the Sub's Close has
// begun, Do panics with an error wrapping ErrClosed (a task that the
// closing pool still runs may go on calling it). A nil r or fn panics.
// DoContext is the form that returns these as errors and honours a context.
func Do[T any](r Runner, fn func(w *Worker) T) T {
	v, _ := call(context.Background(), destOf(r, "Do"), fn, callPanics, "Do")
	return v
}

// Run runs fn on a worker of p and waits for it: Do without a result.
func (p *Pool) Run(fn func(w *Worker)) {
	if p == nil {
		panic("blitz: Pool.Run: nil *Pool")
	}
	p.run("Pool.Run", fn)
}

// run is Run for a caller named name.
func (p *Pool) run(name string, fn func(w *Worker)) {
	if fn == nil {
		panic("blitz: " + name + ": nil function")
	}
	call(context.Background(), dest{p: p}, func(w *Worker) struct{} { fn(w); return struct{}{} }, callPanics, name)
}

// Run runs fn within s and waits for it: Do without a result.
func (s *Sub) Run(fn func(w *Worker)) {
	if s == nil {
		panic("blitz: Sub.Run: nil *Sub")
	}
	if fn == nil {
		panic("blitz: Sub.Run: nil function")
	}
	call(context.Background(), s.dest(), func(w *Worker) struct{} { fn(w); return struct{}{} }, callPanics, "Sub.Run")
}

// DoContext runs fn on r and returns its result: the submit-and-wait form
// for request handlers. It waits for room in a full queue (the pool's, or
// the Sub's) and then for the result, until ctx ends:
//
//   - ctx ends while waiting for room, or while the task is still queued:
//     the task is withdrawn and never runs; the error wraps ctx.Err().
//   - ctx ends while the task runs: DoContext returns at once with an error
//     wrapping ctx.Err(); the task runs to its end and its result is
//     dropped. fn and everything it forks see ctx as w.Context(), so
//     compute can stop early (par.ForContext(w.Context(), ...)).
//   - fn panics: a *PanicError (errors.Is(err, ErrPanic)) with the panic
//     value and the stack where it happened; the worker and the pool go on.
//   - fn calls runtime.Goexit: ErrGoexit.
//   - the pool or the Sub is closed: ErrClosed.
//
// Unlike Do, DoContext never panics for these and never exits the caller's
// goroutine. Given a *Worker, or called from a task of r's pool, fn runs on
// the task's own worker (on another goroutine, so that a Goexit in fn ends
// fn only), neither a full queue nor a closing pool refuses it (it queues
// nothing), and DoContext returns when fn returns, with what it returns
// from outside: fn's result, panic or Goexit, or, if ctx ended before fn
// returned, an error wrapping ctx.Err() (fn's outcome is dropped). From a
// task of another pool, the task's worker serves its own pool while it
// waits, and an ended ctx returns once that worker has finished the job it
// is running. A nil r, fn or ctx panics.
func DoContext[T any](ctx context.Context, r Runner, fn func(w *Worker) T) (T, error) {
	return call(ctx, destOf(r, "DoContext"), fn, callWaits, "DoContext")
}

// TryDo is DoContext that does not wait for room: with a full queue it
// returns ErrQueueFull at once (Stats.Rejected, or SubStats.Rejected,
// counts it) and fn never runs. A server answers that with 503 Service
// Unavailable. Called from a task of r's pool, TryDo runs fn on the task's
// own worker as DoContext does: that takes no room in the queue, so a full
// queue never refuses it. A nil r, fn or ctx panics.
func TryDo[T any](ctx context.Context, r Runner, fn func(w *Worker) T) (T, error) {
	return call(ctx, destOf(r, "TryDo"), fn, callTries, "TryDo")
}
