package blitz

import (
	"time"
)

// A jobRef is what the deques carry: an integer that names a job, never a
// pointer, so pushing and stealing store no Go pointer (no GC write barrier,
// nothing hidden from the collector) and the deque can publish it with plain
// integer stores.
//
// Bit layout (named constants below; TestJobRefLayout pins it):
//
//	bits  0-31  index:  the join depth of a frame (kindFrame) or the slot
//	                    number of a spawned job (kindSpawn)
//	bits 32-47  worker: the index of the worker that owns the frame
//	                    (kindFrame only; 0 for kindSpawn)
//	bits 48-61  zero
//	bits 62-63  kind
//
// Overflow is impossible rather than harmless: New refuses more workers than
// sleep.MaxWorkers (< 1<<16); a join depth is bounded by the goroutine stack
// (Go's 1 GB maximum stack holds far fewer than 1<<32 nested joins, each
// needing a few stack frames); spawn slots are bounded by memory (a slot is
// 32 bytes, 1<<32 of them would be 128 GiB).
type jobRef uint64

const (
	refIndexBits  = 32
	refIndexMask  = 1<<refIndexBits - 1
	refWorkerBits = 16
	refWorkerMask = 1<<refWorkerBits - 1
	refWorkerLow  = refIndexBits
	refKindLow    = 62
)

// Kinds of job a jobRef can name.
const (
	kindFrame = 0 // a join frame: workers[worker].frames.at(index)
	kindSpawn = 1 // a spawned (heap) job: pool.spawns.slot(index)
)

func frameRef(worker int, depth uint32) jobRef {
	return jobRef(uint64(depth) | uint64(worker)<<refWorkerLow | kindFrame<<refKindLow)
}

func spawnRef(slot uint32) jobRef {
	return jobRef(uint64(slot) | kindSpawn<<refKindLow)
}

func (r jobRef) kind() uint64  { return uint64(r) >> refKindLow }
func (r jobRef) index() uint32 { return uint32(uint64(r) & refIndexMask) }
func (r jobRef) worker() int   { return int(uint64(r) >> refWorkerLow & refWorkerMask) }

// work is one job found by findWork: a deque ref, or a submitted task with
// its submit time (0 when it is not sampled).
type work struct {
	ref jobRef
	inj task
	enq int64
}

// execute runs one found job.
func (w *Worker) execute(wk work) {
	w.stats.bump(&w.stats.executed)
	if wk.inj != nil {
		w.runTask(wk.inj, wk.enq)
		return
	}
	w.executeRef(wk.ref)
}

// executeRef runs the job a deque ref names: a join's second half (frame) or
// a spawned scope task (slot).
func (w *Worker) executeRef(r jobRef) {
	if r.kind() == kindFrame {
		w.runFrame(w.pool.workers[r.worker()].frames.at(r.index()))
		return
	}
	sp := &w.pool.spawns
	s := sp.slot(r.index())
	j := s.job
	s.job = nil
	sp.free(r.index())
	j.run(w)
}

// A runner is a job the pool can execute: a join half behind a frame, a
// spawned scope task, or an injected task.
type runner interface {
	run(w *Worker)
}

// argFrame is the job of JoinArgs: a non-capturing function and its argument.
// The fast path leaves fn and arg in place when the join returns (clearing
// them would cost stores with write barriers on every join), so the last
// argument joined at a depth stays reachable until the next join at that
// depth on that worker, or until Close: a bounded retention, one value per
// depth per worker.
type argFrame[B, R any] struct {
	fn     func(*Worker, B) R
	arg    B
	result R
}

func (f *argFrame[B, R]) run(w *Worker) { f.result = f.fn(w, f.arg) }

// fnFrame is the job of Join: a closure.
type fnFrame[R any] struct {
	fn     func(*Worker) R
	result R
}

func (f *fnFrame[R]) run(w *Worker) { f.result = f.fn(w) }

// runFrame runs a frame's job on w (a thief, or the owner running its own
// join's second half while the join unwinds) and completes the frame (step 3
// above). A panic is recovered into the frame; a Goexit is recorded and then
// goes on unwinding w's goroutine: it belongs to the job's joiner, which
// re-raises it, and every job on w's stack below this one descends from the
// same joiner (work isolation: see wait.go), so it ends nothing that did not
// fork it. The depth is restored however the job ends.
func (w *Worker) runFrame(f *frame) {
	p, owner := w.pool, f.owner
	if owner != w.index {
		f.thief.Store(int32(w.index) + 1)
	}
	d := w.depth
	done := false
	defer func() {
		if !done {
			if pe := unwinding(recover()); pe != nil {
				f.panicked = pe
			} else {
				f.goexit = true
			}
			w.depth = d
			if f.latch.Set() {
				p.sleep.NotifyWorkerLatchIsSet(owner)
			}
		}
	}()
	f.job.run(w)
	done = true
	if f.latch.Set() {
		p.sleep.NotifyWorkerLatchIsSet(owner)
	}
}

// spawnJob is a task of a scope, parked in a spawn slot while queued.
type spawnJob struct {
	st *scopeState
	fn func(*Worker, *Scope)
}

// run runs the task on w. On a worker other than the scope's owner it marks
// the worker as running a task of st (Worker.scope) for as long as the task
// runs, so that the owner, waiting, may steal what the task pushes; the mark
// is cleared before the task is counted done and before w pushes anything
// else.
func (j *spawnJob) run(w *Worker) {
	st := j.st
	d := w.depth
	var outer *scopeState
	marked := st.owner != w
	if marked {
		outer = w.scope.Load()
		w.scope.Store(st)
	}
	ok := false
	defer func() {
		if !ok {
			st.record(unwinding(recover()))
			w.depth = d
		}
		if marked {
			w.scope.Store(outer)
		}
		st.taskDone()
	}()
	j.fn(w, &Scope{st: st, w: w})
	ok = true
}

// A task is a job submitted from outside the workers' fork-join trees and
// queued in the injector: a goJob (Go and its kin) or a callJob (Run, Do and
// theirs).
//
// Worker.runTask calls run, and then finish however run ended: with the
// recovered panic (pe), after a runtime.Goexit (goexit), or normally. One
// deferred recover serves every kind of task.
type task interface {
	run(w *Worker)
	finish(w *Worker, pe *PanicError, goexit bool)
}

// runTask runs a submitted task, recovers its panic and hands it (or its
// Goexit) to the task's finish, records it in the worker's metrics (its
// queue wait and run time if it was sampled: enq != 0) and counts it
// finished, however it ended.
func (w *Worker) runTask(t task, enq int64) {
	p := w.pool
	var start int64
	if enq != 0 {
		start = p.now()
	}
	d := w.depth
	returned := false
	defer func() {
		var pe *PanicError
		if !returned {
			pe = unwinding(recover())
			w.depth = d
		}
		t.finish(w, pe, !returned && pe == nil)
		var wait, run time.Duration
		if enq != 0 {
			wait, run = time.Duration(start-enq), time.Duration(p.now()-start)
		}
		w.metrics.done(wait, run, enq != 0, pe != nil)
		p.rootDone(w)
	}()
	t.run(w)
	returned = true
}
