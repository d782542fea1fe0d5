package blitz

import (
	"context"
	"fmt"
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
//	fire and forget     Pool.Go, Pool.TryGo, Pool.GoContext       goJob, ctxGoJob
//	submit and wait     Pool.Run, Do, DoContext, TryDo            callJob (route.go)
//	a handle            Submit                                    Future (future.go)
//
// Each entry point checks its arguments, panicking with its own name; the
// waiting ones take the route (route.go), which decides who calls. A task
// reaches Pool.submit (or Sub.submit, which passes it on), which queues it in the injector (injector.go)
// and tells the sleep protocol. A worker takes it from there and runs it
// with Worker.runTask (worker.go), which calls the task's run and then its
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
// taskctx.go), restored however it ends, in a trace region of the context.
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

// submit accepts a task from any goroutine, to run under labels l (its
// submitter's: taskctx.go). With a full bounded queue it refuses with
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
