package blitz

import (
	"runtime"

	"github.com/blitz-go/blitz/deque"
)

// Join, step by step.
//
// Each worker keeps its frames in a stack indexed by join depth, in chunks
// that are never moved, so a thief can resolve a jobRef to a frame at any
// time. A join at depth d:
//
//  1. stores the second half (function and argument) into frame d, reusing
//     the frame's typed job object when the types match (so no allocation);
//  2. offers it, or leaves it lazy (offer.go). In the first levels of the
//     worker's tree (d < eagerDepth), or when another worker has asked for
//     work, it pushes frameRef(worker, d) — the deque's release store
//     publishes the frame — and tells the sleep protocol
//     (NewInternalJobs), which wakes a sleeper only when no idle worker can
//     take the job; a request also pushes every half left lazy before,
//     oldest first. Otherwise it marks the frame lazy: in no deque, so
//     only this worker can run it;
//  3. runs the first half inline;
//  4. if the frame is still lazy, runs the second half inline with plain
//     stores only (no fence, no sleep-protocol traffic: the common case
//     deep in a tree). Otherwise it pops: if it gets its own ref back it
//     runs the second half inline — no latch, no atomic read-modify-write
//     beyond the deque's;
//  5. otherwise a thief won the ref with a successful Steal (acquire) and
//     stored its index in the frame. The joiner waits on frame d's latch,
//     running only work that descends from the stolen half: it steals only
//     from that thief, and only what the thief pushed while running the half
//     (work isolation, wait.go). With nothing to take it asks the thief for
//     work (offer.go), yields, then sleeps on the latch alone, outside the
//     sleep protocol's counters, until the Set or until the thief pushes
//     work and nudges it (sleep.Nudge). The thief
//     runs the half, records a panic or a Goexit in the frame, reads the
//     owner's index, and Sets the latch (a SeqCst swap that releases the
//     result); if the swap found the owner Sleeping it wakes it with
//     NotifyWorkerLatchIsSet. The owner, having seen the Set, reads the
//     result and Resets the latch: a free frame's latch is always Unset, so
//     only stolen joins pay for the Reset.

// The depth of the worker says where a join is, for the deferred cleanup
// that runs when a half panics or calls runtime.Goexit. A join at depth d
// uses frame d and sets w.depth:
//
//	d+1  while a runs (b is in the deque, or stolen);
//	d+2  while b runs inline, after the joiner popped it back (frame d
//	     is free again; b's own joins start at depth d+2);
//	d+3  while the joiner waits for the thief that stole b (the jobs it
//	     runs meanwhile join from depth d+3);
//	d    once the join is done, just before it returns.
//
// Nested joins restore the depth they found, even when they unwind, so when
// the deferred function of the join at depth d runs, w.depth is one of these
// and tells it what happened: d means the join finished (or re-panics the
// thief's panic, already a *PanicError). The fast path pays for this with
// the depth stores it needs anyway, plus one (d+2), instead of keeping a
// state variable in memory for the deferred closure: the closure captures
// only w and d, by value. A frame skipped at d+1 while b runs inline costs
// nothing but its memory.
const (
	joinDepthForked = 1 // w.depth-d while a runs
	joinDepthInline = 2 // w.depth-d while b runs inline
	joinDepthAwait  = 3 // w.depth-d while waiting for a stolen b
)

// JoinArgs runs fa(w, a) and fb(w, b), potentially in parallel, and returns
// both results. The calling worker runs fa, and fb right after unless another
// worker took it meanwhile: fb is offered to other workers at once near the
// top of a fork-join tree, and deeper when one of them asks for work, at the
// next fork of the calling worker (the package documentation, "Join"). So
// fa must never wait for fb: a Join is not a goroutine. It is the
// zero-allocation form of Join: when fa and fb do not capture variables
// (top-level functions, or method expressions) and the same types are joined
// again at the same depth — as in any recursive algorithm — a join allocates
// nothing.
//
// w must be the Worker handed to the calling function. Both halves always
// run, even if one panics. If either panics, JoinArgs panics in the caller
// with a *PanicError holding the original value and stack, after both halves
// finished; if both panic, fa's panic wins. If a half calls runtime.Goexit,
// the caller's goroutine exits too, after both halves finished, as if the
// half had run inline. The package documentation ("Panics and Goexit") gives
// the complete rules. A nil w or nil functions panic.
func JoinArgs[A, B, RA, RB any](w *Worker, fa func(*Worker, A) RA, a A, fb func(*Worker, B) RB, b B) (ra RA, rb RB) {
	if w == nil || fa == nil || fb == nil {
		badJoin("JoinArgs", w)
	}
	d := w.depth
	f := w.frames.ownerAt(d, w.index)
	job, ok := f.job.(*argFrame[B, RB])
	if !ok {
		job = new(argFrame[B, RB])
		f.job = job
	}
	job.fn, job.arg = fb, b
	// Fork: offer b to other workers, or leave it lazy (offer.go).
	w.depth = d + joinDepthForked
	if d >= eagerDepth && w.wanted.Load() == 0 {
		f.lazy = true
		if d < w.lazyLow {
			w.lazyLow = d
		}
	} else {
		w.offer(f, d, "JoinArgs")
	}
	defer func() {
		if w.depth != d {
			w.unwindJoin(d, unwinding(recover()))
		}
	}()
	ra = fa(w, a)
	if f.lazy {
		// b was never offered: nobody else can have it.
		f.lazy = false
		w.depth = d + joinDepthInline
		rb = fb(w, b)
		w.depth = d
		return ra, rb
	}
	// Take b back: normally it is the newest job of the deque. A pool of
	// one worker has no thieves (a worker is never its own victim, and
	// other pools never steal from this one), so its worker pops without
	// the fence and the CAS that only a race with a thief needs
	// (PopUnshared); otherwise PopFenced is the full Chase-Lev pop without
	// Pop's first look, since the deque is rarely empty here. Both inline.
	ref := frameRef(w.index, d)
	var r jobRef
	if w.alone {
		r, ok = w.deque.PopUnshared()
	} else {
		r, ok = w.deque.PopFenced()
	}
	if (ok && r == ref) || w.reclaim(ok, r, ref) {
		w.depth = d + joinDepthInline
		rb = fb(w, b)
		w.depth = d
		return ra, rb
	}
	w.depth = d + joinDepthAwait
	w.stats.bump(&w.stats.joinsStolen)
	w.waitJoin(f)
	rb = job.result
	var zero RB
	job.result = zero
	pe, exited := f.panicked, f.goexit
	w.freeFrame(f, d)
	propagate(pe, exited)
	return ra, rb
}

// Join runs a(w) and b(w), potentially in parallel, and returns both results.
// It is JoinArgs for closures: convenient, but a closure that captures
// variables usually costs a heap allocation to create. See JoinArgs for the
// panic and Goexit rules.
func Join[RA, RB any](w *Worker, a func(*Worker) RA, b func(*Worker) RB) (ra RA, rb RB) {
	// The body repeats JoinArgs' rather than calling JoinArgs with a
	// generic adapter (callFunc[R](w, f) = f(w)) and the closures as
	// arguments: measured, that form made three allocations per join
	// instead of one and cost 73 ns per join instead of 27 (fib(30), one
	// worker). The fork's lazy test is written out in both for the same
	// reason: an inlined helper measured 1-2% slower per join
	// (bench/results/join-lazy-amd64.txt). A change to one body goes in
	// both: join_lockstep_test.go fails at the first statement that differs.
	if w == nil || a == nil || b == nil {
		badJoin("Join", w)
	}
	d := w.depth
	f := w.frames.ownerAt(d, w.index)
	job, ok := f.job.(*fnFrame[RB])
	if !ok {
		job = new(fnFrame[RB])
		f.job = job
	}
	job.fn = b
	// Fork: offer b to other workers, or leave it lazy (offer.go).
	w.depth = d + joinDepthForked
	if d >= eagerDepth && w.wanted.Load() == 0 {
		f.lazy = true
		if d < w.lazyLow {
			w.lazyLow = d
		}
	} else {
		w.offer(f, d, "Join")
	}
	defer func() {
		if w.depth != d {
			w.unwindJoin(d, unwinding(recover()))
		}
	}()
	ra = a(w)
	if f.lazy {
		f.lazy = false
		w.depth = d + joinDepthInline
		rb = b(w)
		w.depth = d
		return ra, rb
	}
	// Take b back, as in JoinArgs.
	ref := frameRef(w.index, d)
	var r jobRef
	if w.alone {
		r, ok = w.deque.PopUnshared()
	} else {
		r, ok = w.deque.PopFenced()
	}
	if (ok && r == ref) || w.reclaim(ok, r, ref) {
		w.depth = d + joinDepthInline
		rb = b(w)
		w.depth = d
		return ra, rb
	}
	w.depth = d + joinDepthAwait
	w.stats.bump(&w.stats.joinsStolen)
	w.waitJoin(f)
	rb = job.result
	var zero RB
	job.result = zero
	pe, exited := f.panicked, f.goexit
	w.freeFrame(f, d)
	propagate(pe, exited)
	return ra, rb
}

// Join runs a(w) and b(w), potentially in parallel, and returns when both
// are done. It is the result-less convenience form of the Join function,
// with the same panic and Goexit rules.
func (w *Worker) Join(a, b func(*Worker)) {
	if w == nil {
		panic("blitz: Worker.Join: nil *Worker")
	}
	if a == nil || b == nil {
		panic("blitz: Worker.Join: nil function")
	}
	JoinArgs(w, callVoid, a, callVoid, b)
}

// badJoin panics for a join called name given a nil worker or function.
func badJoin(name string, w *Worker) {
	if w == nil {
		panic("blitz: " + name + ": nil *Worker")
	}
	panic("blitz: " + name + ": nil function")
}

// callVoid adapts a result-less function to JoinArgs. It is a plain
// (non-generic) function, so taking its value allocates nothing.
func callVoid(w *Worker, f func(*Worker)) struct{} {
	f(w)
	return struct{}{}
}

// reclaim is the slow side of the pop that follows the first half of a join.
// The joiner's own ref is normally the newest in its deque: every job pushed
// above it was popped or stolen before the first half returned (joins and
// scopes finish what they push). reclaim still handles a different ref by
// running it and popping again, as rayon-core does, so a stray job can never
// be lost. It reports whether the join's own ref came back.
func (w *Worker) reclaim(ok bool, r, want jobRef) bool {
	for ok {
		if r == want {
			return true
		}
		w.execute(work{ref: r})
		r, ok = w.deque.Pop()
	}
	return false
}

// propagate re-raises in the joiner the panic or Goexit of its stolen half.
func propagate(pe *PanicError, exited bool) {
	if pe != nil {
		panic(pe)
	}
	if exited {
		runtime.Goexit()
	}
}

// unwindJoin finishes the join at depth d while the joiner's goroutine
// unwinds, from the join's deferred function: a half that ran on this
// goroutine panicked (v != nil) or called runtime.Goexit, or a job run while
// waiting for the stolen half called Goexit. w.depth says where the join was
// (see joinDepthForked). It makes sure the second half ran or finished, so
// the frame is free, restores the depth, and then re-panics with the first
// panic (a's outranks b's), or returns to let the Goexit go on.
//
// It is safe against Goexit in the user code it runs (the second half, and
// the jobs it helps with while waiting): settleJoin's deferred calls finish
// the wait and free the frame even then, and the new Goexit goes on unwinding
// (a Goexit cannot be stopped; the goroutine was exiting or now exits).
func (w *Worker) unwindJoin(d uint32, pe *PanicError) {
	f := w.frames.at(d)
	switch w.depth - d {
	case joinDepthForked:
		// a did not finish. b still runs: lazy or popped back (then
		// here), or by its thief (then wait for it).
		popped := f.lazy
		if popped {
			f.lazy = false
		} else {
			ref := frameRef(w.index, d)
			r, ok := w.deque.Pop()
			popped = (ok && r == ref) || w.reclaim(ok, r, ref)
		}
		if bpe := w.settleJoin(f, d, popped); pe == nil {
			pe = bpe // a exited; b's panic, if any, is the first
		}
	case joinDepthAwait:
		// A job run while helping unwound the wait itself; the thief
		// still owns the frame.
		if bpe := w.settleJoin(f, d, false); pe == nil {
			pe = bpe
		}
	case joinDepthInline:
		// b panicked or exited inline, after it was popped back; the
		// frame is already free.
		w.depth = d
	}
	if pe != nil {
		panic(pe)
	}
}

// settleJoin finishes the second half of the join at depth d while the
// joiner unwinds: it runs it here if the joiner popped it back (popped), or
// waits for its thief, helping with the thief's work. It returns the half's
// panic, and leaves the frame free and the depth at d however it ends:
// freeFrame is deferred before any user code runs, and awaitSettled keeps
// waiting if a job it helps with calls Goexit.
func (w *Worker) settleJoin(f *frame, d uint32, popped bool) (pe *PanicError) {
	defer w.freeFrame(f, d)
	if popped {
		w.depth = d + joinDepthInline
		w.runFrame(f, w.origin, nil) // records b's panic or Goexit in f and Sets the latch
	} else {
		w.awaitSettled(f, d)
	}
	return f.panicked
}

// awaitSettled waits for the stolen half of the join at depth d, helping as
// waitJoin does. If a job it helps with calls Goexit, its deferred call
// waits again (and so on, once per Goexit), so that the unwinding goes past
// the join only after the stolen half finished.
func (w *Worker) awaitSettled(f *frame, d uint32) {
	defer func() {
		if !f.latch.Probe() {
			w.awaitSettled(f, d)
		}
	}()
	w.depth = d + joinDepthAwait
	w.waitJoin(f)
}

// waitJoin waits until the thief that stole f's job has finished it, running
// meanwhile only jobs that descend from it (waitIsolated): its own deque's,
// and those its thief pushed while running it (frame.stealFor).
func (w *Worker) waitJoin(f *frame) { w.waitIsolated(&f.latch, waitJoin, f) }

// stealFor steals for w, which waits for f's stolen half, a job of the
// thief's deque: one the thief pushed while running the half. The thief
// publishes its index in f.thief before it runs the job; until then there
// is nothing to help with. A thief whose deque is empty is asked to offer
// its next job (askFrom).
func (f *frame) stealFor(w *Worker) (r jobRef, ok, retry bool) {
	t := f.thief.Load()
	if t == 0 {
		return 0, false, false
	}
	thief := w.pool.workerList()[t-1]
	r, st := thief.deque.StealIf(func() bool {
		return !f.latch.Probe() && thief.lent.Load() == 0 && thief.stealable.Load()
	})
	switch st {
	case deque.Success:
		w.stats.bump(&w.stats.steals)
		return r, true, false
	case deque.Retry:
		return 0, false, true
	}
	thief.askFrom(w)
	return 0, false, false
}
