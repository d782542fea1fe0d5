package blitz

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/blitz-go/blitz/sleep"
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
//     runs it itself as a sleeping worker (callOnCaller) when the pool is idle.
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
	switch r := r.(type) {
	case *Pool:
		d.p = r // the common case, without the indirect call
	case nil:
	default:
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
	// The caller waits in await, called from here, not from submitCall:
	// a handler on a fresh goroutine (2 KB of stack) that waited one
	// frame deeper grew its stack at every call, a copy in the select's
	// lock or in the job's allocation (BenchmarkRoundTrip's
	// api=docontext-fresh).
	j, st, err := submitCall(ctx, d, fn, mode, name, cw, l)
	if err != nil {
		return zero, err
	}
	return j.await(ctx, st, cw, mode, name)
}

// submitCall is call's last step but the wait: fn goes to a worker as a
// callJob, queued in the Sub or the pool, for the caller (cw, nil for a
// plain goroutine, as currentWorker returned it; l its labels) to wait for
// as mode says (callJob.await). It is a function of its own so that the
// calls that run at once, above, pay for none of its frame. It returns the
// job and its Sub task (nil outside a Sub), or the submission's error, or,
// for callPanics, panics with it.
func submitCall[T any](ctx context.Context, d dest, fn func(*Worker) T, mode callMode, name string, cw *Worker, l profLabels) (*callJob[T], *subTask, error) {
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
		return nil, nil, err
	}
	return j, st, nil
}

// await waits for the queued job j (st its Sub task, nil outside a Sub) as
// mode says, cw being the caller's worker (nil for a plain goroutine), and
// returns its outcome: withdrawn or left running if ctx ends first.
func (j *callJob[T]) await(ctx context.Context, st *subTask, cw *Worker, mode callMode, name string) (T, error) {
	var zero T
	if j.wait(cw, ctx.Done()) {
		if j.withdraw() {
			if st != nil {
				st.s.unqueue(st)
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

// Calls that run on their caller.
//
// Run and Do from a goroutine outside the pool hand fn to a worker and block
// until it is done: a push on the injector, a wake of a sleeping worker, the
// worker's run, and the signal back, two hand-offs between goroutines and,
// on two Ps, a wake of the other P. When a worker sleeps and no submitted
// task waits in the queue, the caller instead borrows that worker
// (sleep.Borrow), runs fn as it on its own goroutine, and gives it back
// (sleep.Return). The sleep package tells why the protocol stays sound
// (sleep/borrow.go); here is what the pool adds.
//
//   - Who may borrow. Only a goroutine that runs no worker (do checks
//     currentWorker first), only a worker asleep in its idle loop (on its
//     terminate latch; a retired worker or one in an isolated wait sleeps
//     elsewhere), and only while the queue is empty: a call does not pass
//     tasks submitted before it.
//   - Becoming the worker. The caller registers itself as running the worker
//     (current.go) for the borrow, so that Run, Do and the data-parallel
//     calls inside fn run inline on it, and a Close from fn is refused as
//     from a task. The worker's owner-only fields are the caller's until it
//     gives the worker back: the sleep lock that Borrow and Return take
//     orders them between the worker's goroutine and the caller.
//   - Giving it back. Whatever fn leaves on the worker's deque is run first
//     (a join or a scope leaves nothing: this is belt and braces), then the
//     registration is dropped, and Return is the last touch of the worker:
//     Close, which waits for the worker's goroutine to exit, waits for it.
//   - Close. A call on its caller is accepted work: Close's drain waits
//     until no worker is borrowed (checkDrained: lent), as it waits for
//     submitted tasks, so the other workers still serve fn's forks. The
//     handshake is a Dekker pair: a borrower loads closing after its Borrow
//     took the sleep lock, and Close stores closing before its drain check
//     takes each worker's sleep lock (sleep.Borrowed). Either the check
//     sees the borrow, and the borrower, which then sees closing after its
//     Return, checks the drain again; or the borrower sees closing, gives
//     the worker back at once and checks the drain, and the call takes the
//     submission path, which panics with ErrClosed. In that second case
//     Close may already have stopped the workers: its Set of the borrowed
//     worker's latch woke nobody (the worker was not blocked), and Return,
//     which probes that latch, wakes the worker's goroutine to exit (the
//     spin model's NO_RETURN_PROBE mutant deadlocks there).
//   - Resize, Broadcast. A shrink kicks the worker (its latch), which
//     Return sees. A Broadcast pokes it: the poke wakes the caller where it
//     waits in a join or a scope (fn may be what the Broadcast's caller
//     waits for), which runs its requests there, and Return also wakes the
//     worker's goroutine for it.
//
// Borrowing is off where fn may rely on the worker's thread (workers locked
// to threads: the futex backend, a placement) or on its hooks (WithWorkerStart,
// WithWorkerExit), where a parked worker's goroutine still runs (ParkingSpin),
// and for DoContext and TryDo, which must not let a Goexit in fn end their
// caller.

// callOnCaller runs fn on the calling goroutine as a sleeping worker of p,
// if p has one and its queue is empty, and reports whether it did. A panic in
// fn comes out as Do's *PanicError, and a Goexit ends the caller; the worker
// is given back either way. l are the caller's labels, which fn runs under
// where it is: a record carries them to the workers that take what fn forks
// (taskctx.go).
func callOnCaller[T any](p *Pool, fn func(*Worker) T, l profLabels) (r T, ok bool) {
	w := p.borrow()
	if w == nil {
		return r, false
	}
	defer w.giveBack()
	if l != nil {
		return callLabelled(w, fn, l), true
	}
	return callInline(w, fn), true
}

// callLabelled is callInline under a record of labels l, left however fn
// ends.
func callLabelled[T any](w *Worker, fn func(*Worker) T, l profLabels) T {
	outer := w.enterLabels(l)
	defer w.leaveCtx(outer)
	return callInline(w, fn)
}

// borrow takes a worker of p asleep in its idle loop for the calling
// goroutine, or returns nil. The tests cost one load of the sleep counters
// when no worker sleeps (a busy pool), and the injector's two positions
// when one does.
func (p *Pool) borrow() *Worker {
	if !p.callerRuns || !p.sleep.HasSleepers() || p.inj.len() > 0 || p.closing.Load() {
		return nil
	}
	ws := p.workerList()
	n := min(int(p.active.Load()), len(ws))
	for i, w := range ws[:n] {
		if !p.sleep.Borrow(i, &w.terminate, w.guest) {
			continue
		}
		if p.closing.Load() {
			// Close began: its drain check may have seen this borrow.
			p.sleep.Return(i, p.hasInjectedJobs)
			p.checkDrained()
			return nil
		}
		running.Set(w)
		w.refreshAlone() // as the idle loop does before a job
		p.woke()         // as a woken worker does: follow.go, blocking.go
		w.stats.bump(&w.stats.callerRuns)
		return w
	}
	return nil
}

// giveBack ends the caller's borrow of w: it runs what is left on w's deque,
// drops the caller's registration, and returns w to its sleep, however a
// leftover job ends.
func (w *Worker) giveBack() {
	defer w.endBorrow()
	w.runLeftovers()
}

// endBorrow is giveBack's last step: after it the caller never touches w.
func (w *Worker) endBorrow() {
	p := w.pool
	w.stats.bump(&w.stats.finished) // the borrow's busy mark ends (blocking.go)
	running.Clear()
	p.sleep.Return(w.index, p.hasInjectedJobs)
	if p.closing.Load() {
		p.checkDrained()
	}
}

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
// uses it, and so does Do given a *Worker (call).
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
// in force (Worker.Context, taskctx.go), restoring what was in force however
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
