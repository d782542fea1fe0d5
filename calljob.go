package blitz

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/blitz-go/blitz/sleep"
)

// callOwn runs fn inline on w, a worker of the pool that Run or Do was
// given: as a task submitted without a context would run (Worker.Context
// is Background in fn), under the calling task's labels, with Do's panic
// shape (callInline).
func callOwn[T any](w *Worker, fn func(*Worker) T) T {
	l := currentLabels()
	if w.runsAsIs(l) {
		return callInline(w, fn)
	}
	outer := w.enterLabels(l)
	defer w.leaveCtx(outer)
	return callInline(w, fn)
}

// callInline runs fn on w with Do's panic shape: a panic is re-raised as a
// *PanicError (recover returns nil for a Goexit, which goes on). callOwn
// uses it, and so does Do given a *Worker (route.go).
func callInline[T any](w *Worker, fn func(*Worker) T) T {
	ok := false
	defer func() {
		if !ok {
			if pe := unwinding(recover()); pe != nil {
				panic(pe)
			}
		}
	}()
	r := fn(w)
	ok = true
	return r
}

// doContextOwn is DoContext and TryDo (and their Sub forms, named name)
// called by a task of p, running on its worker w: fn runs on w, with ctx in
// force, on a goroutine the worker is lent to (Worker.runLent), so that a
// Goexit in fn ends that goroutine and not the caller's, as DoContext
// promises. It returns when fn returned: the caller's goroutine cannot go
// on while fn runs on its worker. It returns what a caller outside the pool
// gets: if ctx ended before fn did, an error wrapping ctx.Err() and not
// fn's outcome (an outside caller stops waiting then, and drops the outcome
// that comes later).
func doContextOwn[T any](ctx context.Context, w *Worker, fn func(w *Worker) T, name string) (T, error) {
	var (
		res    T
		pe     *PanicError
		normal bool
		ended  error // ctx's error when fn ended
	)
	l := currentLabels()
	w.runLent(func(w *Worker) {
		outer, d := w.enterTaskCtx(ctx, l), w.depth
		r := traceRegion(ctx)
		defer func() {
			ended = ctx.Err()
			if !normal {
				pe = unwinding(recover()) // nil for a Goexit, which goes on
				w.depth = d
			}
			endRegion(r)
			w.leaveCtx(outer)
		}()
		res = fn(w)
		normal = true
	})
	var zero T
	switch {
	case ended != nil:
		return zero, fmt.Errorf("blitz: %s: the context ended while the task ran: %w", name, ended)
	case normal:
		return res, nil
	case pe != nil:
		return zero, pe
	}
	return zero, ErrGoexit
}

// callJob is a submitted task whose caller waits: an outside goroutine
// blocked on done (Run, Do, DoContext, TryDo), or a worker of another pool
// (waiter) waiting on latch (Run, Do, DoContext, TryDo from a task of
// another pool).
//
// Its state machine, whole:
//
//	callQueued --start (the worker, in run)--------> callStarted
//	callQueued --withdraw (DoContext, ctx ended)---> callWithdrawn
//
// Both transitions are CASes from callQueued, so exactly one of them wins:
// a withdrawn job never runs (run finds callWithdrawn and returns, finish
// signals nobody) and a started one is never reported as withdrawn (its
// caller, losing the withdraw, waits for done or stops waiting on a
// running task). Only DoContext and TryDo ever withdraw.
//
// Every Run, Do and DoContext allocates one, so its fields are ordered to
// fit a small size class (64 bytes for a word-sized T): a Goexit is
// recorded as the goexitMark panic rather than in a field of its own.
type callJob[T any] struct {
	fn     func(*Worker) T
	result T // written by the worker before the signal
	// panicked is the task's panic, goexitMark for a Goexit, nil if fn
	// returned: written by the worker before the signal.
	panicked *PanicError
	done     chan struct{} // one send by the worker (signal), one receive by the caller (doneChans)
	waiter   *Worker
	ctx      context.Context // DoContext's and TryDo's; nil for Run and Do
	latch    sleep.CoreLatch

	// state: callQueued, then callStarted (start) or callWithdrawn
	// (withdraw), for good.
	state atomic.Uint32
}

// goexitMark is callJob.panicked for a task that called runtime.Goexit. It
// is never handed to anybody: the outcome turns it into a Goexit or
// ErrGoexit.
var goexitMark = &PanicError{}

const (
	callQueued = iota
	callStarted
	callWithdrawn
)

// start is the worker's transition: it reports whether the job may run
// (false: its caller withdrew it).
func (j *callJob[T]) start() bool { return j.state.CompareAndSwap(callQueued, callStarted) }

// withdraw is the waiting caller's transition: it reports whether the job
// was withdrawn before any worker started it (false: it started).
func (j *callJob[T]) withdraw() bool { return j.state.CompareAndSwap(callQueued, callWithdrawn) }

func (j *callJob[T]) run(w *Worker, l profLabels) {
	if !j.start() {
		return // withdrawn: its caller has gone, nobody waits
	}
	if j.ctx != nil || !w.runsAsIs(l) {
		j.runInCtx(w, l)
		return
	}
	j.result = j.fn(w)
}

// runInCtx runs fn with the job's context (none if it has none) and labels l
// in force (Worker.Context, labels.go), restoring what was in force however
// fn ends; with a context, in a trace region of it.
func (j *callJob[T]) runInCtx(w *Worker, l profLabels) {
	outer := w.enterTask(j.ctx, l)
	defer w.leaveCtx(outer)
	defer endRegion(traceRegion(j.ctx))
	j.result = j.fn(w)
}

// callFrom returns fn as a call from worker caller into another pool
// runs it: within the Group or Sub task the caller runs within, if any,
// since the caller waits for it (group.go: within, holds). Only those
// calls pay for the closure.
func callFrom[T any](caller *Worker, fn func(*Worker) T) func(*Worker) T {
	within := caller.groupTask
	if within == nil {
		return fn
	}
	return func(w *Worker) T {
		outer, below, pushed := w.enterJob(w.origin, within)
		defer w.leaveJob(outer, below, pushed)
		return fn(w)
	}
}

// finish hands the outcome to the waiting caller, unless the job was
// withdrawn (then run did nothing and nobody waits). state was written by
// this worker's own CAS in run or by the withdrawing caller's before it;
// either way start's failed or successful CAS ordered it before this load.
func (j *callJob[T]) finish(w *Worker, pe *PanicError, goexit bool) {
	if j.state.Load() == callWithdrawn {
		return
	}
	j.panicked = pe
	if goexit {
		j.panicked = goexitMark
	}
	outside := j.done != nil
	j.signal() // the caller may return and reuse done from here
	if !outside {
		return
	}
	if j.ctx == nil && w.pool.callerRuns {
		w.handOff(handoffToBorrower) // Run or Do: its next call may run on its caller
	} else {
		w.handOff(handoffToCaller)
	}
}

// handOff is called by worker w when the task it ran has just woken a
// goroutine waiting outside the pool for it (to says whom; handoffRounds,
// wait.go): the goroutine was made runnable on w's P, and the worker parks
// soon if nothing else is there.
func (w *Worker) handOff(to handoff) {
	if w.pool.backend.lockThread {
		// A locked worker never lends its P while it runs or sits in
		// a futex wait: without a hand-off the caller waits for sysmon
		// to retake the P (sysmon's period). Gosched gives the P to
		// another thread now.
		runtime.Gosched()
		return
	}
	w.handedOff = to
}

// signal wakes the waiting caller. For a cross-pool waiter it sets the
// latch and, if the waiter sleeps on it, wakes it through the waiter's own
// pool; the waiter's pool and index are read before the Set, after which the
// waiter may return and drop the job.
func (j *callJob[T]) signal() {
	if wt := j.waiter; wt != nil {
		s, idx := wt.pool.sleep, wt.index
		if j.latch.Set() {
			s.NotifyWorkerLatchIsSet(idx)
		}
		return
	}
	j.done <- struct{}{}
}

// doneChans recycles the done channels of Run, Do, DoContext and TryDo. A
// done channel has room for one signal: the worker's send (callJob.signal)
// fills it, never blocking, and the caller's receive empties it, after which
// the worker no longer touches it and the caller puts it back. A channel
// whose caller stopped waiting for a running task is left to the collector
// (the worker's send is still to come), and so is one whose caller panics
// out of Do. Recycling saves the channel's allocation, most of the bytes a
// round trip allocates (BenchmarkDo).
var doneChans = sync.Pool{New: func() any { return make(chan struct{}, 1) }}

// newDone returns an empty done channel with room for one signal.
func newDone() chan struct{} { return doneChans.Get().(chan struct{}) }

// outcomeErr returns the result, or the task's panic or Goexit as an error
// (DoContext's and TryDo's shape).
func (j *callJob[T]) outcomeErr() (T, error) {
	var zero T
	switch j.panicked {
	case nil:
		return j.result, nil
	case goexitMark:
		return zero, ErrGoexit
	}
	return zero, j.panicked
}

// outcome returns the result or re-raises the task's panic or Goexit.
func (j *callJob[T]) outcome() T {
	switch j.panicked {
	case nil:
		return j.result
	case goexitMark:
		runtime.Goexit()
	}
	panic(j.panicked)
}

// wait waits for the job's signal, as its caller: caller, a worker of
// another pool, on the latch (serving its own pool meanwhile: waitCall), a
// plain goroutine (caller nil) on done. It reports whether it stopped
// because stop closed first.
func (j *callJob[T]) wait(caller *Worker, stop <-chan struct{}) (stopped bool) {
	if caller != nil {
		return caller.waitCall(&j.latch, stop)
	}
	if stop == nil {
		<-j.done // Do and Run: one receive, as before the route, not a select
		return false
	}
	select {
	case <-j.done:
		return false
	case <-stop:
		return true
	}
}

// finished reports, for a caller that stopped waiting for a job that had
// started, whether the job finished meanwhile (and takes its signal): only
// a plain goroutine's job can tell without waiting. A worker of another
// pool returns once its worker is back (waitCall), not waiting for the
// job.
func (j *callJob[T]) finished() bool {
	if j.done == nil {
		return false
	}
	select {
	case <-j.done:
		return true
	default:
		return false
	}
}
