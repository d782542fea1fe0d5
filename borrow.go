package blitz

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
// (labels.go).
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

// lent reports whether a caller runs as one of p's workers (a slow path:
// Close's drain check).
func (p *Pool) lent() bool {
	if !p.callerRuns {
		return false
	}
	for i := range p.workerList() {
		if p.sleep.Borrowed(i) {
			return true
		}
	}
	return false
}
