package blitz

import (
	"time"
)

// Vocabulary.
//
// A worker is a goroutine (locked to its OS thread with the futex backend)
// that owns a deque. A job is anything a worker runs (job.go): the second
// half of a join (behind a frame), a spawned scope task (behind a spawn slot
// of the spawning worker), or an injected task (Go, Run, Do). A jobRef is the
// integer a deque carries to name a frame or a slot: deques never hold Go
// pointers. A latch is a one-shot
// event a worker waits for (sleep.CoreLatch). A root job is an injected one;
// every other job descends from one and finishes before it.

// Jobs.
//
// A job is anything a worker runs. There are three kinds, and a worker meets
// them all in one place, Worker.execute, which tells them apart by the kind of
// their jobRef:
//
//   - kindFrame: the second half of a join (Join, JoinArgs, Worker.Join).
//     It lives in the joiner's frame at the join's depth (frame.go); its
//     result, panic or Goexit travel back in the frame, and the joiner
//     re-raises the panic or Goexit (join.go: propagate, unwindJoin).
//   - kindSpawn: a task of a scope (Scope.Spawn). It lives in a spawn slot of
//     the spawning worker (refslots.go) while its ref is queued; its panic
//     or Goexit travels to the scope (scopeState.record), which re-raises it
//     when Worker.Scope returns (scope.go). It has no result.
//   - kindTask: a task submitted from outside the workers' fork-join trees
//     (submit.go: Go, Run, Do and their kin). It travels in the injector
//     (injector.go), not in a deque, so its ref names no storage: the task
//     itself comes with the ref in a work value. Its outcome goes to its
//     finish method: the panic handler for Go, the waiting caller for Do.
//     A task that a worker took from the injector in a batch waits in that
//     worker's run queue, not in a deque, until it or a thief runs it like
//     any other submitted task (batch.go, runq.go).
//
// Frames and spawns are named by integers because the deques carry integers
// only; submitted tasks are Go values because the injector carries those.

// A jobRef is what the deques carry: an integer that names a job, never a
// pointer, so pushing and stealing store no Go pointer (no GC write barrier,
// nothing hidden from the collector) and the deque can publish it with plain
// integer stores.
//
// Bit layout (named constants below; TestJobRefLayout pins it):
//
//	bits  0-31  index:  the join depth of a frame (kindFrame) or the slot
//	                    number of a spawned job (kindSpawn); 0 for kindTask
//	bits 32-47  worker: the index of the worker that owns the frame or the
//	                    slot; 0 for kindTask
//	bits 48-61  zero
//	bits 62-63  kind
//
// Overflow is impossible rather than harmless: New refuses more workers than
// sleep.MaxWorkers (< 1<<16); a join depth is bounded by the goroutine stack
// (Go's 1 GB maximum stack holds far fewer than 1<<32 nested joins, each
// needing a few stack frames); a worker's spawn slots are bounded by memory
// (a slot is 24 bytes, 1<<32 of them would be 96 GiB) and refSlots.grow
// panics before the index could wrap.
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
	kindFrame = 0 // a join's second half: workers[worker].frames.at(index)
	kindSpawn = 1 // a scope's task: workers[worker].spawns.slot(index)
	kindTask  = 2 // a submitted task: work.task; never in a deque
)

func frameRef(worker int, depth uint32) jobRef {
	return jobRef(uint64(depth) | uint64(worker)<<refWorkerLow | kindFrame<<refKindLow)
}

func spawnRef(worker int, slot uint32) jobRef {
	return jobRef(uint64(slot) | uint64(worker)<<refWorkerLow | kindSpawn<<refKindLow)
}

// taskRef is the ref of every submitted task: the task is in work.task.
const taskRef = jobRef(kindTask << refKindLow)

func (r jobRef) kind() uint64  { return uint64(r) >> refKindLow }
func (r jobRef) index() uint32 { return uint32(uint64(r) & refIndexMask) }
func (r jobRef) worker() int   { return int(uint64(r) >> refWorkerLow & refWorkerMask) }

// work is one job found by findWork or taken by a waiting worker: its ref,
// and for a submitted task (kindTask) the task with its submit time and
// labels.
type work struct {
	ref  jobRef
	task injTask
	// stolen says that the job came from another worker's deque or run
	// queue (serve: who an added worker wakes).
	stolen bool
}

// work is a submitted task taken from a run queue or a batch, as a job.
func (t injTask) work() work { return work{ref: taskRef, task: t} }

// execute runs one job: the only place where a worker dispatches on the
// kind of job. Every caller found the job as its own (a pop, a successful
// steal, a take from the injector), so nobody else runs it.
func (w *Worker) execute(wk work) {
	w.stats.bump(&w.stats.executed)
	switch r := wk.ref; r.kind() {
	case kindFrame:
		o := w.pool.workerList()[r.worker()]
		// The owner's own half runs in its context, within its group task.
		origin, group := w.origin, (*groupTask)(nil)
		if o != w {
			origin, group = o.originAt(r.index())
		}
		w.runFrame(o.frames.at(r.index()), origin, group)
	case kindSpawn:
		o := w.pool.workerList()[r.worker()]
		j := o.spawns.take(r.index(), o == w)
		w.runSpawn(j.st, j.fn)
	default:
		w.runTask(wk.task)
	}
	w.stats.bump(&w.stats.finished) // the monitor's busy mark ends (blocking.go)
}

// runSpawn runs a task of scope st on w. On a worker other than the scope's
// owner it marks the worker as running a task of st (Worker.scope) for as
// long as the task runs, so that the owner, waiting, may steal what the task
// pushes (wait.go: waitScope); the mark is cleared before the task is counted
// done and before w pushes anything else. A panic or Goexit is recorded in
// st (the Goexit then goes on unwinding w's goroutine, as in runFrame); the
// depth is restored and the task counted done however it ends.
func (w *Worker) runSpawn(st *scopeState, fn func(*Worker, *Scope)) {
	d := w.depth
	var outer *scopeState
	marked := st.owner != w
	if marked {
		outer = w.scope.Load()
		w.scope.Store(st)
	}
	outerCtx, below, pushed := w.enterJob(st.origin, st.group)
	region := w.jobRegion(pushed)
	ok := false
	defer func() {
		if !ok {
			st.record(unwinding(recover()))
			w.depth = d
		}
		endRegion(region)
		w.leaveJob(outerCtx, below, pushed)
		if marked {
			w.scope.Store(outer)
		}
		st.taskDone()
	}()
	fn(w, w.scopeFor(st))
	ok = true
}

// A task is a job submitted from outside the workers' fork-join trees and
// queued in the injector: a goJob (Go and its kin) or a callJob (Run, Do and
// theirs), both in submit.go.
//
// Worker.runTask calls run, and then finish however run ended: with the
// recovered panic (pe), after a runtime.Goexit (goexit), or normally. One
// deferred recover serves every kind of task.
type task interface {
	// run runs the task under l, its submitter's profiler labels.
	run(w *Worker, l profLabels)
	finish(w *Worker, pe *PanicError, goexit bool)
}

// runTask runs a submitted task, recovers its panic and hands it (or its
// Goexit) to the task's finish, records it in the worker's metrics (its
// queue wait and run time if it was sampled: enq != 0) and counts it
// finished, however it ended. The count is a deferred call of its own, made
// even if finish ends the goroutine (a panic handler that calls
// runtime.Goexit, which then replaces the worker as a task's Goexit does):
// a task that is never counted would keep Close waiting for good.
func (w *Worker) runTask(it injTask) {
	p, t, enq := w.pool, it.job, it.enq
	var start int64
	if enq != 0 {
		start = p.now()
	}
	d := w.depth
	returned := false
	var pe *PanicError
	defer func() {
		var wait, run time.Duration
		if enq != 0 {
			wait, run = time.Duration(start-enq), time.Duration(p.now()-start)
		}
		w.metrics.done(wait, run, enq != 0, pe != nil)
		p.rootDone(w)
	}()
	defer func() {
		if !returned {
			pe = unwinding(recover())
			w.depth = d
		}
		t.finish(w, pe, !returned && pe == nil)
	}()
	t.run(w, nil)
	returned = true
}
