package blitz

import (
	"context"
	"fmt"
	"log"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/blitz-go/blitz/sleep"
)

// Entering the pool.
//
// Submission goes through the injector (injector.go): a lock-free FIFO of
// blocks of slots indexed by two ever-growing positions, which any number of
// goroutines fill and the workers drain with one atomic operation each (the
// first version's mutex cost 88-200 ns per task in lock-line traffic). A
// capacity (WithCapacity) bounds it exactly: a bounded claim is a CAS that
// refuses when tail-head reached it. TryGo and TryDo then answer
// ErrQueueFull; Go, GoContext, Run, Do and DoContext wait for room (one
// waiter woken per task taken); a waiting submission from a task of the pool
// itself is let in over the bound instead, since it could be waiting for
// itself. DoContext can withdraw a job that has not started (one CAS decides
// between the worker starting it and the caller withdrawing it). An outside
// caller of Run, Do or DoContext blocks on its job's own channel without
// burning CPU; callers share nothing, so any number can wait at once. Each
// of them first asks which worker the calling goroutine runs, if any
// (current.go: a table from goroutine identities to workers, a few
// nanoseconds). A worker of the same pool runs the function inline. A
// worker of another pool queues a job that carries a CoreLatch owned by the
// waiting worker, which sleeps on it as a blocked worker that its pool
// replaces (wait.go: waitCall; at the pool's cap it is lent to a goroutine
// that serves the pool instead), so that pools calling each other never
// deadlock; the target pool's worker Sets the latch and, if the waiter
// sleeps, wakes it through the waiter's pool.
//
// A task submitted with a context (GoContext, DoContext, TryDo) reads it as
// Worker.Context, and so does everything it forks on any worker: each worker
// keeps a chain of immutable context records with the join depth where each
// began, and a thief running a join half at depth d takes the owner's
// innermost record at depth <= d (taskctx.go). Joins themselves never touch
// it.

// Submission: every way into a pool from outside its fork-join trees.
//
//	fire and forget     Pool.Go, Pool.TryGo, Pool.GoContext       goJob
//	submit and wait     Pool.Run, Do, DoContext, TryDo            callJob, done channel
//	from another pool   Pool.RunFrom, DoFrom                      callJob, latch
//
// Each entry point checks its arguments, panicking with its own name, then
// hands a task to Pool.submit, which queues it in the injector (injector.go)
// and tells the sleep protocol. A worker takes it from there and runs it
// with Worker.runTask (job.go), which calls the task's run and then its
// finish, however run ended. The waiting forms wait for finish's signal;
// DoContext and TryDo may instead withdraw a task still queued (the callJob
// state machine below).

// Go submits fn to run once on some worker, and returns without waiting.
// Submission is FIFO with respect to other submissions and is safe from any
// goroutine, including tasks of the pool. It returns an error matching
// ErrClosed once Close has begun, and then fn never runs; if it returns nil,
// fn will run before Close returns. With a capacity (WithCapacity) and a full
// queue, Go waits for room (TryGo refuses instead, GoContext can stop
// waiting); a Go from a task of the pool itself never waits.
//
// A panic in fn goes to the panic handler (WithPanicHandler), and the worker
// goes on; without a handler it crashes the program, as a panic in a plain
// goroutine does, reporting fn's own stack. A Goexit in fn ends fn only. A
// nil fn panics.
func (p *Pool) Go(fn func(w *Worker)) error {
	if p == nil {
		panic("blitz: Pool.Go: nil *Pool")
	}
	if fn == nil {
		panic("blitz: Pool.Go: nil function")
	}
	return p.submit(context.Background(), goJob(fn), currentLabels(), true, "Pool.Go")
}

// TryGo submits fn like Go but never blocks: when the pool has a capacity
// (WithCapacity) and the queue is full it returns ErrQueueFull at once, fn
// never runs, and Stats.Rejected counts the refusal. It returns ErrClosed
// once Close has begun. Without a capacity TryGo is Go. A nil fn panics.
func (p *Pool) TryGo(fn func(w *Worker)) error {
	if p == nil {
		panic("blitz: Pool.TryGo: nil *Pool")
	}
	if fn == nil {
		panic("blitz: Pool.TryGo: nil function")
	}
	return p.submit(context.Background(), goJob(fn), currentLabels(), false, "Pool.TryGo")
}

// GoContext submits fn like Go, waiting for room in a full queue until ctx
// ends; then it returns an error wrapping ctx.Err() and fn never runs. A
// GoContext from a task of the pool itself never waits (it is let in over
// the bound, as Go is). fn and everything it forks see ctx as
// w.Context(). A nil fn or a nil ctx panics.
func (p *Pool) GoContext(ctx context.Context, fn func(w *Worker)) error {
	if p == nil {
		panic("blitz: Pool.GoContext: nil *Pool")
	}
	if fn == nil {
		panic("blitz: Pool.GoContext: nil function")
	}
	if ctx == nil {
		panic("blitz: Pool.GoContext: nil context")
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("blitz: Pool.GoContext: %w", err)
	}
	return p.submit(ctx, &ctxGoJob{fn: fn, ctx: ctx}, currentLabels(), true, "Pool.GoContext")
}

// ctxGoJob is a task submitted with GoContext: a goJob that runs with its
// context in force (Worker.Context).
type ctxGoJob struct {
	fn  goJob
	ctx context.Context
}

// run runs the task with its context and labels in force (Worker.Context,
// labels.go), restored however it ends, in a trace region of the context.
func (g *ctxGoJob) run(w *Worker, l profLabels) {
	outer := w.enterTaskCtx(g.ctx, l)
	defer w.leaveCtx(outer)
	defer endRegion(traceRegion(g.ctx))
	g.fn(w)
}

func (g *ctxGoJob) finish(w *Worker, pe *PanicError, goexit bool) { g.fn.finish(w, pe, goexit) }

// goJob is a submitted fire-and-forget task. A func is pointer-shaped, so
// converting it to a task interface allocates nothing.
type goJob func(*Worker)

// run runs the task under its submitter's labels l. A task without a
// context normally starts where none is in force (a worker's idle loop),
// under the worker's own labels; one with labels, or one on a worker lent
// out while one of its tasks with a context waits (Worker.lend), which it
// must not see, pushes a record of its own.
func (g goJob) run(w *Worker, l profLabels) {
	if !w.runsAsIs(l) {
		runAsTask(w, l, g)
		return
	}
	g(w)
}

// runAsTask runs f as a task submitted without a context under labels l
// (Worker.Context is Background), restoring what was in force however f
// ends.
func runAsTask(w *Worker, l profLabels, f func(*Worker)) {
	outer := w.enterLabels(l)
	defer w.leaveCtx(outer)
	f(w)
}

// finish hands a panic to the panic handler, or crashes the program as an
// unrecovered panic in a goroutine of its own would, with the task's stack
// in the report (re-panicking here instead would unwind into joins this
// worker was helping and be caught by them). A Goexit needs nothing.
func (g goJob) finish(w *Worker, pe *PanicError, _ bool) { reportTaskPanic(w, pe) }

// reportTaskPanic is goJob.finish for any task whose panic nobody waits
// for: it goes to the panic handler, or crashes the program; nil does
// nothing.
func reportTaskPanic(w *Worker, pe *PanicError) {
	if pe == nil {
		return
	}
	if h := w.pool.panicHandler; h != nil {
		callHandler(w.pool, h, pe)
	} else {
		go crash(pe)
	}
}

// callHandler gives a task's panic to p's handler h. A panic in the handler
// itself must not unwind into the joins this worker may be helping (which
// would report it as theirs), and a server's pool must not die of it: it is
// recovered here, counted (Stats.HandlerPanics) and written to the standard
// logger with its stack and the task's panic it was handling, which would
// otherwise be lost too (WithPanicHandler). A Goexit in the handler goes
// on, as a Goexit in the task would (runTask still counts the task).
func callHandler(p *Pool, h func(any, []byte), pe *PanicError) {
	ok := false
	defer func() {
		if !ok {
			if hpe := unwinding(recover()); hpe != nil {
				p.handlerPanics.Add(1)
				log.Printf("blitz: pool %q: the panic handler panicked: %v\n%s\nwhile handling the panic of a task: %v\n%s",
					p.name, hpe.Value, hpe.Stack, pe.Value, pe.Stack)
			}
		}
	}()
	h(pe.Value, pe.Stack)
	ok = true
}

// crash ends the program with an unrecovered panic.
func crash(pe *PanicError) { panic(pe) }

// Run runs fn on a worker of p and waits for it. The calling goroutine blocks
// without burning CPU; any number of goroutines may call Run at once. With a
// capacity and a full queue, Run first waits for room. When a worker sleeps
// and no task is queued, the calling goroutine instead runs fn itself as
// that worker, which saves the wake and the hand-offs (WithCallerRuns says
// when, and how to turn it off).
//
// Called from a task of p, Run runs fn on the task's own worker, without
// queueing it; called from a task of another pool, it queues fn in p and the
// task's pool replaces the task's waiting worker meanwhile, as in RunFrom (see
// "Calls from inside a task" in the package documentation).
//
// A panic in fn (or in work it forks) is re-panicked in the caller as a
// *PanicError carrying the original stack; a Goexit in fn makes the caller's
// goroutine exit too. After Close has begun, Run panics with an error
// wrapping ErrClosed. A nil fn panics. DoContext is the form that returns
// these as errors and honours a context.
func (p *Pool) Run(fn func(w *Worker)) {
	if p == nil {
		panic("blitz: Pool.Run: nil *Pool")
	}
	if fn == nil {
		panic("blitz: Pool.Run: nil function")
	}
	p.run("Pool.Run", fn)
}

// run is Run for a caller named name (Pool.Run, or a data-parallel function
// entering the pool: Runner.enter).
func (p *Pool) run(name string, fn func(w *Worker)) {
	do(p, func(w *Worker) struct{} { fn(w); return struct{}{} }, name)
}

// Do runs fn on a worker of p, waits for it and returns its result. It is Run
// with a result; the same rules apply. A nil p panics.
func Do[T any](p *Pool, fn func(w *Worker) T) T {
	if p == nil {
		panic("blitz: Do: nil *Pool")
	}
	if fn == nil {
		panic("blitz: Do: nil function")
	}
	return do(p, fn, "Do")
}

// do is Do for a caller named name, for the panic of a closed pool. A
// caller that runs a worker (of p or of another pool) takes doFrom's path
// (current.go).
func do[T any](p *Pool, fn func(w *Worker) T, name string) T {
	if w := currentWorker(); w != nil {
		return doFrom(w, p, fn, name)
	}
	l := currentLabels()
	if r, ok := callOnCaller(p, fn, l); ok {
		return r
	}
	done := newDone()
	j := &callJob[T]{fn: fn, done: done}
	if err := p.submit(context.Background(), j, l, true, name); err != nil {
		panic(fmt.Errorf("blitz: %s: %w", name, err))
	}
	<-done
	doneChans.Put(done)
	return j.outcome()
}

// RunFrom runs fn on a worker of p and waits for it, called by code running
// on worker w (of any pool): Run with the caller's worker named instead of
// looked up (Run finds it by itself). If w belongs to p, fn runs inline on
// w. Otherwise fn is injected into p, and while the caller waits, w's pool
// goes on serving: w blocks and the pool adds a worker in its place unless
// one sleeps (at its cap, w is lent to a goroutine that serves the pool) —
// so pools can call each other, in any direction and nesting, without
// deadlock. A nil w makes RunFrom the same as Run. Panic and Goexit rules
// are Run's (see "Panics and Goexit" in the package documentation); on a
// pool at its cap, do not hold a lock across RunFrom that tasks of w's pool
// take ("Locks").
func (p *Pool) RunFrom(w *Worker, fn func(w *Worker)) {
	if p == nil {
		panic("blitz: Pool.RunFrom: nil *Pool")
	}
	if fn == nil {
		panic("blitz: Pool.RunFrom: nil function")
	}
	doFrom(w, p, func(w *Worker) struct{} { fn(w); return struct{}{} }, "Pool.RunFrom")
}

// DoFrom is RunFrom with a result. A nil p panics.
func DoFrom[T any](w *Worker, p *Pool, fn func(w *Worker) T) T {
	if p == nil {
		panic("blitz: DoFrom: nil *Pool")
	}
	if fn == nil {
		panic("blitz: DoFrom: nil function")
	}
	return doFrom(w, p, fn, "DoFrom")
}

// doFrom is DoFrom for a caller named name.
func doFrom[T any](w *Worker, p *Pool, fn func(w *Worker) T, name string) T {
	if w == nil {
		return do(p, fn, name)
	}
	w.checkLive(name)
	if w.pool == p {
		return callOwn(w, fn)
	}
	j := &callJob[T]{fn: callFrom(w, fn), waiter: w}
	if err := p.submit(context.Background(), j, currentLabels(), true, name); err != nil {
		panic(fmt.Errorf("blitz: %s: %w", name, err))
	}
	w.waitCall(&j.latch, nil)
	return j.outcome()
}

// callOwn runs fn inline on w, a worker of the pool that Run, Do or DoFrom
// was given: as a task submitted without a context would run (Worker.Context
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
// *PanicError (recover returns nil for a Goexit, which goes on). DoFrom on
// the caller's own pool uses it, and so does DoOn on a *Worker (runner.go).
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

// DoContext runs fn on a worker of p and returns its result: the
// submit-and-wait form for request handlers. It waits for room in a full
// queue and then for the result, until ctx ends:
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
//   - the pool is closed: ErrClosed.
//
// Unlike Do, DoContext never panics for these and never exits the caller's
// goroutine. Called from a task of p, fn runs on the task's own worker (on
// another goroutine, so that a Goexit in fn ends fn only), neither a full
// queue nor a closing pool refuses it (it queues nothing), and DoContext
// returns when fn returns, with what it returns from outside: fn's result,
// panic or Goexit, or, if ctx ended before fn returned, an error wrapping
// ctx.Err() (fn's outcome is dropped). From a task of another pool, the
// task's worker serves its own pool while it waits, and an ended ctx
// returns once that worker has finished the job it is running. A nil p, fn
// or ctx panics.
func DoContext[T any](ctx context.Context, p *Pool, fn func(w *Worker) T) (T, error) {
	if p == nil {
		panic("blitz: DoContext: nil *Pool")
	}
	return doContext(ctx, p, fn, true, "DoContext")
}

// TryDo is DoContext that does not wait for room: with a full queue it
// returns ErrQueueFull at once (Stats.Rejected counts it) and fn never runs.
// A server answers that with 503 Service Unavailable. Called from a task of
// p, TryDo runs fn on the task's own worker as DoContext does: that takes no
// room in the queue, so a full queue never refuses it. A nil p, fn or ctx
// panics.
func TryDo[T any](ctx context.Context, p *Pool, fn func(w *Worker) T) (T, error) {
	if p == nil {
		panic("blitz: TryDo: nil *Pool")
	}
	return doContext(ctx, p, fn, false, "TryDo")
}

// checkCall panics, naming the function name, for a nil fn or ctx, and
// returns ctx's error, wrapped and named, if ctx has already ended: the
// checks DoContext, TryDo and their Sub forms make before anything else.
func checkCall[T any](ctx context.Context, fn func(*Worker) T, name string) error {
	if fn == nil {
		panic("blitz: " + name + ": nil function")
	}
	if ctx == nil {
		panic("blitz: " + name + ": nil context")
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("blitz: %s: %w", name, err)
	}
	return nil
}

// doContext is DoContext (wait true) and TryDo (wait false); name is the
// function the caller called, for panic messages and errors.
func doContext[T any](ctx context.Context, p *Pool, fn func(w *Worker) T, wait bool, name string) (T, error) {
	var zero T
	if err := checkCall(ctx, fn, name); err != nil {
		return zero, err
	}
	if w := currentWorker(); w != nil {
		if w.pool == p {
			return doContextOwn(ctx, w, fn, name)
		}
		return doContextFrom(ctx, w, p, fn, wait, name)
	}
	done := newDone()
	j := &callJob[T]{fn: fn, done: done, ctx: ctx}
	if err := p.submit(ctx, j, currentLabels(), wait, name); err != nil {
		doneChans.Put(done)
		return zero, err
	}
	select {
	case <-done:
	case <-ctx.Done():
		if j.withdraw() {
			doneChans.Put(done) // a withdrawn job is never signalled
			return zero, fmt.Errorf("blitz: %s: withdrawn before it started: %w", name, ctx.Err())
		}
		select {
		case <-done: // finished meanwhile: the result is here
		default:
			// The worker will still signal done: it is not reused.
			return zero, fmt.Errorf("blitz: %s: stopped waiting for the running task: %w", name, ctx.Err())
		}
	}
	doneChans.Put(done)
	return j.outcomeErr()
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

// doContextFrom is DoContext and TryDo called by a task running on w, a
// worker of another pool than p: the task is queued in p like one from
// outside, and w's pool goes on serving while the caller waits, as in
// DoFrom. If ctx ends first, the caller withdraws the task if it has not
// started, and stops waiting (once its worker is back, if it was lent).
func doContextFrom[T any](ctx context.Context, w *Worker, p *Pool, fn func(w *Worker) T, wait bool, name string) (T, error) {
	var zero T
	j := &callJob[T]{fn: fn, waiter: w, ctx: ctx}
	if w != nil {
		j.fn = callFrom(w, fn)
	}
	if err := p.submit(ctx, j, currentLabels(), wait, name); err != nil {
		return zero, err
	}
	if w.waitCall(&j.latch, ctx.Done()) {
		if j.withdraw() {
			return zero, fmt.Errorf("blitz: %s: withdrawn before it started: %w", name, ctx.Err())
		}
		return zero, fmt.Errorf("blitz: %s: stopped waiting for the running task: %w", name, ctx.Err())
	}
	return j.outcomeErr()
}

// callJob is a submitted task whose caller waits: an outside goroutine
// blocked on done (Run, Do, DoContext, TryDo), or a worker of another pool
// (waiter) waiting on latch (RunFrom, DoFrom).
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

// submit accepts a task from any goroutine, to run under labels l (its
// submitter's: labels.go). With a full bounded queue it refuses with
// ErrQueueFull (wait false) or waits for room until ctx ends (wait true).
// It refuses with ErrClosed once Close has begun. name is the entry point
// the caller called, for the error of a wait that ctx ended.
func (p *Pool) submit(ctx context.Context, t task, l profLabels, wait bool, name string) error {
	pos, b, r := p.inj.tryClaim()
	if r == claimFull {
		if !wait {
			p.rejected.Add(1)
			return ErrQueueFull
		}
		var err error
		if pos, b, r, err = p.waitClaim(ctx, name); err != nil {
			return err
		}
	}
	if r == claimClosed {
		return ErrClosed
	}
	var enq int64
	if pos&p.sampleMask == 0 {
		enq = p.now()
	}
	if l != nil {
		t = newLabelled(t, l)
	}
	p.inj.publish(pos, b, injTask{job: t, enq: enq})
	// Whether the queue was empty is asked only if a worker sleeps: it
	// loads head, a line the consumers write on every pop.
	p.sleep.NewInjectedJobsLazy(1, p.queueWasEmpty)
	return nil
}

// waitClaim waits for room in the full bounded queue and claims a position,
// or returns ctx's error. A submission from a task of the pool is let in
// over the bound at once: it would otherwise wait for work that its own
// worker must run (with one worker, a certain deadlock). Any other caller
// waits as a waiter (gate.go): a task of another pool with its worker
// serving its own pool meanwhile.
func (p *Pool) waitClaim(ctx context.Context, name string) (uint64, *injRing, claimResult, error) {
	if p.inTask() {
		pos, b, r := p.inj.claim()
		return pos, b, r, nil
	}
	w := currentWorker()
	for {
		wt := newWaiter(w)
		p.inj.room.add(wt)
		pos, b, r := p.inj.tryClaim()
		if r != claimFull {
			p.inj.room.cancel(wt)
			return pos, b, r, nil
		}
		if wt.wait(ctx.Done()) {
			p.inj.room.cancel(wt)
			p.abandoned.Add(1)
			return 0, nil, claimFull, fmt.Errorf("blitz: %s: waiting for room in the queue: %w", name, ctx.Err())
		}
	}
}
