package blitz

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/blitz-go/blitz/sleep"
)

// Result handles.
//
// Submit queues a function as Pool.Go or Sub.Go does and returns a Future,
// which is itself the task: the pool runs it with Worker.runTask (or a Sub
// with runOne), which calls run and then finish however run ended, and
// finish completes the Future with what fn returned, its panic as a
// *PanicError or its Goexit as ErrGoexit. A refused submission completes it
// at once with the refusal. So every Future completes, exactly once, and
// completion is what every waiter waits for:
//
//	futureQueued --start (a worker, in run)----------> futureStarted
//	futureQueued --claim (a Wait on a task of the pool)-> futureClaimed
//
// Both are CASes from futureQueued, as callJob's start and withdraw are:
// exactly one runs fn. A Wait called on a worker of the pool that runs fn
// (the Sub's parent, for a Sub) claims a Future that no worker has started
// and runs fn itself, on its own worker, as Group.Wait runs the group's
// tasks that nobody started: a task that waits for a Future it submitted
// does not wait for a worker, and a task of a Sub at its limit does not
// wait for the slot it holds. The queued entry stays where it is, and the
// worker that takes it finds it claimed and skips it (a Sub's queue drops
// it at once: Sub.unqueue).
//
// Completion wakes every waiter that registered before it: a Wait on a
// worker of any pool sleeps on a latch as a call into another pool does
// (Worker.waitCall), its pool replacing it or lending it to a goroutine
// that serves the pool, as Group.Wait does on a task of another pool;
// completion Sets the latch. Any other goroutine waits on a channel that
// completion signals, recycled as a Do caller's is (doneChans): a Future
// allocates no channel of its own unless Done asks for one. Whether anyone
// registered is a word of its own, phase, so that a Future that nobody
// waits for yet completes with one CAS and no lock (a batch of Futures,
// most of which are complete when their Wait comes):
//
//	futureOpen --watch (a waiter, under mu)-------> futureWatched
//	futureOpen --complete (no waiter)-------------> futureComplete
//	futureWatched --complete (under mu, wakes them)-> futureComplete
//
// watch and the lock-free complete are CASes from futureOpen, so one wins:
// a waiter that lost sees futureComplete and does not wait; a complete
// that lost takes mu, which the waiter holds until it has registered, and
// wakes it.
//
// Where it runs. Submit takes a Runner, as every function that takes work
// and a place to run it does (route.go): a *Pool, a *Sub of one, or a
// *Worker, whose pool the Future's function is queued in (it is a task, not
// a fork: it does not run on the given worker).

// Why Future. It is the name Go programmers know for a result to come, and
// it does not clash with the package's own words: a task is what a pool
// queues (job.go), and a Result would read as the value itself.

// A Future is the handle of a function submitted with Submit: its result,
// or why there is none, once it has run. Wait returns them; WaitContext
// stops waiting when a context ends; Done is closed once they are there.
// Any number of goroutines may wait for one Future, each getting the same
// result.
//
// A Future comes from Submit only: the zero Future is not one, and its
// methods panic, as they do on a nil *Future.
type Future[T any] struct {
	fn   func(*Worker) (T, error)
	pool *Pool    // the pool whose workers run fn: Submit's, or the Sub's parent
	st   *subTask // fn's entry in a Sub, nil for a pool
	// labels are Submit's caller's profiler labels (taskctx.go), which fn
	// runs under, also when a Wait runs it. Written by Submit.
	labels profLabels

	// state is futureQueued until a worker starts fn (futureStarted) or
	// a Wait claims it (futureClaimed), each with a CAS; loaded by finish.
	state atomic.Uint32

	// val and err are the outcome: written once, by whoever completes
	// the Future, before phase becomes futureComplete; read after it is
	// seen so.
	val T
	err error
	// phase is futureOpen, futureWatched (watch, under mu) and
	// futureComplete (complete, for good): CAS or store by both, under mu
	// but for complete's CAS from futureOpen; loaded by the waiters,
	// without mu on their fast path. sync/atomic.
	phase atomic.Uint32

	mu sync.Mutex
	// done is Done's channel, made by the first Done and closed by
	// complete; nil until then. first and more are the waits that
	// complete must wake: the first one to register in first (its zero
	// value for none), saving an allocation, the others in more. All
	// under mu.
	done  chan struct{}
	first futureWaiter
	more  []futureWaiter
}

// A futureWaiter is a Wait that sleeps until complete wakes it: on the
// latch l, for a Wait on worker w (as in a call, Worker.waitCall), or on
// ch, a channel of doneChans, for any other goroutine.
type futureWaiter struct {
	ch chan struct{}
	l  *sleep.CoreLatch
	w  *Worker
}

// wake wakes the waiter.
func (fw futureWaiter) wake() {
	if fw.ch != nil {
		fw.ch <- struct{}{} // room for one: never blocks
		return
	}
	if fw.l.Set() {
		fw.w.pool.sleep.NotifyWorkerLatchIsSet(fw.w.index)
	}
}

// closedChan is Done's channel for a Future already complete.
var closedChan = func() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}()

const (
	futureQueued = iota
	futureStarted
	futureClaimed
)

const (
	futureOpen = iota
	futureWatched
	futureComplete
)

// completed reports whether the outcome is there.
func (f *Future[T]) completed() bool { return f.phase.Load() == futureComplete }

// watch marks f watched before a waiter registers, and reports false if f
// completed first (then nothing may register). f.mu is held.
func (f *Future[T]) watch() bool {
	return f.phase.CompareAndSwap(futureOpen, futureWatched) || !f.completed()
}

// Submit queues fn to run once on r, a *Pool or a *Sub (a *Worker's pool
// for a *Worker), and returns its Future at once. Submission follows
// Pool.Go and Sub.Go: it is
// FIFO, safe from any goroutine, tasks of the pool included, and with a
// full bounded queue Submit waits for room (from a task of the pool it is
// let in over the bound instead).
//
// Where Pool.Go's fn has nowhere to report, Submit's reports to its Future:
//
//   - fn returns: Wait returns what it returned, result and error.
//   - fn panics: a *PanicError (errors.Is(err, ErrPanic)) with the value
//     and the stack where it happened, and the zero T; the panic handler
//     (WithPanicHandler) is not called, and the worker goes on.
//   - fn calls runtime.Goexit: ErrGoexit, and the zero T; fn ends, the
//     worker goes on.
//   - the pool or the Sub is closed: an error wrapping ErrClosed, and fn
//     never runs. Submit never returns a Future that does not complete.
//
// fn sees the Background context as w.Context(), as a task of Pool.Go
// does. A nil r or fn panics.
func Submit[T any](r Runner, fn func(w *Worker) (T, error)) *Future[T] {
	d := destOf(r, "Submit")
	if fn == nil {
		panic("blitz: Submit: nil function")
	}
	f := &Future[T]{fn: fn, labels: currentLabels(), pool: d.p}
	var err error
	if d.s != nil {
		f.st = &subTask{s: d.s, t: f}
		err = d.s.submit(context.Background(), f.st, true, "Submit")
	} else {
		err = d.p.submit(context.Background(), f, f.labels, true, "Submit")
	}
	if err != nil {
		var zero T
		f.complete(zero, fmt.Errorf("blitz: Submit: %w", err))
	}
	return f
}

// Wait waits until fn has run and returns its outcome (see Submit).
//
// Called from a task of the pool that runs fn (the Sub's parent, for a
// Sub), Wait runs fn itself, on the caller's worker, if no worker has
// started it yet, as Group.Wait does for the group's tasks (for a Sub,
// without a slot, as Do from such a task does); a panic or a Goexit of fn
// still comes back as an error and never unwinds the caller. Otherwise it
// waits as a task waits for a call into another pool: its worker blocked,
// and its pool adding a worker meanwhile, or lending this one to a
// goroutine that serves the pool (see "Calls from inside a task" in the
// package documentation); a plain goroutine blocks without burning CPU. A
// task that waits for its own Future, directly or through tasks that wait
// for it, waits for good, as a goroutine waiting for itself does.
func (f *Future[T]) Wait() (T, error) {
	f.check("Future.Wait")
	if !f.completed() {
		f.wait(nil)
	}
	return f.val, f.err
}

// WaitContext is Wait that stops waiting when ctx ends first: it then
// returns ctx.Err(), and fn still runs; a later Wait gets its outcome.
// Called from a task of the pool that runs fn, with fn not yet started, it
// runs fn itself as Wait does, and returns ctx.Err() if ctx ended before fn
// returned, as DoContext does on the pool's own worker. A nil ctx panics.
func (f *Future[T]) WaitContext(ctx context.Context) (T, error) {
	f.check("Future.WaitContext")
	if ctx == nil {
		panic("blitz: Future.WaitContext: nil context")
	}
	var zero T
	if f.completed() {
		return f.val, f.err
	}
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	if f.wait(ctx.Done()) {
		return zero, ctx.Err()
	}
	return f.val, f.err
}

// Done returns a channel that is closed once fn's outcome is there: Wait
// then returns at once. It is for a select among other events.
func (f *Future[T]) Done() <-chan struct{} {
	f.check("Future.Done")
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.watch() {
		return closedChan
	}
	if f.done == nil {
		f.done = make(chan struct{})
	}
	return f.done
}

// check panics, naming the method name, on a nil or zero Future.
func (f *Future[T]) check(name string) {
	if f == nil {
		panic("blitz: " + name + ": nil *Future")
	}
	if f.pool == nil {
		panic("blitz: " + name + ": zero Future (a Future comes from Submit)")
	}
}

// wait waits until f completes, or until stop is closed (it then reports
// true, unless f completed meanwhile). A nil stop never closes.
func (f *Future[T]) wait(stop <-chan struct{}) (stopped bool) {
	w := currentWorker()
	if w != nil && w.pool == f.pool && f.state.CompareAndSwap(futureQueued, futureClaimed) {
		f.runClaimed(w)
		select {
		case <-stop:
			return true // it ended before fn returned, or as it did
		default:
			return false
		}
	}
	var fw futureWaiter
	if w != nil {
		fw.l, fw.w = new(sleep.CoreLatch), w
	} else {
		fw.ch = newDone()
	}
	f.mu.Lock()
	if !f.watch() {
		f.mu.Unlock()
		if fw.ch != nil {
			doneChans.Put(fw.ch)
		}
		return false
	}
	if f.first == (futureWaiter{}) {
		f.first = fw
	} else {
		f.more = append(f.more, fw)
	}
	f.mu.Unlock()
	if w != nil {
		return w.waitCall(fw.l, stop) && !f.completed()
	}
	if stop == nil { // Wait: a receive costs less than a select
		<-fw.ch
		doneChans.Put(fw.ch)
		return false
	}
	select {
	case <-fw.ch:
		doneChans.Put(fw.ch)
		return false
	case <-stop:
		// The channel is left to the collector: complete may still
		// send on it.
		return !f.completed()
	}
}

// runClaimed runs fn, claimed by a Wait on w, a worker of the pool that
// runs it: on a goroutine the worker is lent to (Worker.runLent), so that a
// Goexit ends fn and not the caller, with the Background context in force
// as for a submitted task, and completes f with the outcome. A Sub's queue
// drops the entry first.
func (f *Future[T]) runClaimed(w *Worker) {
	if f.st != nil {
		f.st.s.unqueue(f.st)
	}
	var (
		val T
		err error
	)
	w.runLent(func(w *Worker) {
		outer := w.enterLabels(f.labels)
		d := w.depth
		returned := false
		defer func() {
			if !returned {
				if pe := unwinding(recover()); pe != nil {
					err = pe
				} else {
					err = ErrGoexit
				}
				w.depth = d
			}
			w.leaveCtx(outer)
		}()
		val, err = f.fn(w)
		returned = true
	})
	f.complete(val, err)
}

// run is the task as a worker runs it (Worker.runTask, or Sub.runOne):
// it runs fn unless a Wait claimed it first.
func (f *Future[T]) run(w *Worker, l profLabels) {
	if !f.state.CompareAndSwap(futureQueued, futureStarted) {
		return // claimed: the Wait runs it
	}
	if !w.runsAsIs(l) { // as goJob.run
		runAsTask(w, l, func(w *Worker) { f.val, f.err = f.fn(w) })
		return
	}
	f.val, f.err = f.fn(w)
}

// finish completes f with fn's outcome, unless a Wait claimed it (then run
// did nothing). state was written by this worker's own CAS in run or by the
// claiming Wait's before it; either way run's CAS ordered it before this
// load.
func (f *Future[T]) finish(w *Worker, pe *PanicError, goexit bool) {
	if f.state.Load() == futureClaimed {
		return
	}
	var (
		zero    T
		outside bool
	)
	switch {
	case pe != nil:
		outside = f.complete(zero, pe)
	case goexit:
		outside = f.complete(zero, ErrGoexit)
	default:
		outside = f.complete(f.val, f.err)
	}
	if outside {
		w.handOff(handoffToCaller) // as for a DoContext caller (callJob.finish)
	}
}

// complete records the outcome, closes done and wakes the waiters, and
// reports whether one of them waits outside the pool. It is called once.
func (f *Future[T]) complete(val T, err error) (outside bool) {
	f.val, f.err = val, err
	if f.phase.CompareAndSwap(futureOpen, futureComplete) {
		return false // nobody registered, and nobody will
	}
	f.mu.Lock()
	f.phase.Store(futureComplete)
	if f.done != nil {
		close(f.done)
	}
	first, more := f.first, f.more
	f.first, f.more = futureWaiter{}, nil
	f.mu.Unlock()
	if first != (futureWaiter{}) {
		first.wake()
		outside = first.ch != nil
	}
	for _, fw := range more {
		fw.wake()
		outside = outside || fw.ch != nil
	}
	return outside
}
