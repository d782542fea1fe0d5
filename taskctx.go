package blitz

import (
	"context"
	"runtime/trace"
	"sync"
	"unsafe"
)

// Context returns the context of the task w is running: the context given
// to GoContext, DoContext or TryDo for that task, also in everything the task
// forks (join halves, scope tasks and the pieces of the data-parallel
// functions, on whichever worker runs them), and context.Background() for
// work submitted without one. A task that should stop early when its
// submitter gives up (a server's client left) checks it, or passes it to
// package par's ForContext:
//
//	blitz.DoContext(r.Context(), p, func(w *blitz.Worker) error {
//		return par.ForContext(w.Context(), w, 0, n, grain, body)
//	})
func (w *Worker) Context() context.Context {
	if w == nil {
		panic("blitz: Worker.Context: nil *Worker")
	}
	if w.origin == nil || w.origin.ctx == nil {
		return context.Background()
	}
	return w.origin.ctx
}

// enterCtx makes origin the submitted task whose context is in force for a
// job w starts at its current depth. It adds a record only when origin
// differs from the one in force (origins are compared as pointers, never
// contexts: a context type need not be comparable), and then reports
// pushed and the record to restore with leaveCtx, however the job ends.
func (w *Worker) enterCtx(origin *taskCtx) (outer *taskCtx, pushed bool) {
	if origin == w.origin {
		return nil, false
	}
	return w.pushCtx(origin), true
}

// pushCtx makes origin the one in force at w's current depth, with a record
// that also names the group task in force (w.groupTask), and returns the
// record it replaces. The head's store publishes the immutable record to
// thieves (originAt's load).
func (w *Worker) pushCtx(origin *taskCtx) (outer *taskCtx) {
	return w.pushCtxIn(new(taskCtx), origin)
}

// pushCtxIn is pushCtx with the record in rec, a new one (a Group task
// brings its own: enterGroupTask).
func (w *Worker) pushCtxIn(rec *taskCtx, origin *taskCtx) (outer *taskCtx) {
	outer = w.ctxs.Load()
	var c context.Context
	if origin != nil {
		c = origin.ctx
	}
	*rec = taskCtx{ctx: c, origin: origin, depth: w.depth, outer: outer, group: w.groupTask}
	rec.prev = w.applyLabels(origin)
	w.ctxs.Store(rec)
	w.origin = origin
	return outer
}

// enterJob is enterCtx for a job forked on another worker (a stolen join
// half, a scope task, a broadcast's share): besides its origin, the job runs
// within group, the Group task in force where it was forked, if any. Then
// w's group task becomes a link that stands for both that task (parent) and
// the ones w already runs (below), and a record always publishes it for
// what w forks meanwhile. leaveJob undoes it, however the job ends.
func (w *Worker) enterJob(origin *taskCtx, group *groupTask) (outer *taskCtx, below *groupTask, pushed bool) {
	below = w.groupTask
	if group == nil || group == below {
		outer, pushed = w.enterCtx(origin)
		return outer, below, pushed
	}
	w.groupTask = &groupTask{below: below, parent: group}
	return w.pushCtx(origin), below, true
}

// leaveJob restores what enterJob changed.
func (w *Worker) leaveJob(outer *taskCtx, below *groupTask, pushed bool) {
	w.groupTask = below
	if pushed {
		w.leaveCtx(outer)
	}
}

// enterGroupTask makes t, a Group task that w starts at its current depth,
// the group task in force, with a record that publishes it to thieves of
// what t forks; the context stays the one in force, and so do the labels
// unless t has others (its Go's caller's, or the Sub task's: a new origin
// then, with the same context). leaveGroupTask undoes it, however t ends.
func (w *Worker) enterGroupTask(t *groupTask) (outer *taskCtx) {
	t.below, w.groupTask = w.groupTask, t
	if o := w.origin; t.labels != nil && w.labelsOf(o) != t.labels {
		var c context.Context
		if o != nil {
			c = o.ctx
		}
		return w.enterTaskCtx(c, t.labels)
	}
	return w.pushCtxIn(&t.rec, w.origin)
}

// leaveGroupTask restores what enterGroupTask changed.
func (w *Worker) leaveGroupTask(t *groupTask, outer *taskCtx) {
	w.groupTask = t.below
	w.leaveCtx(outer)
}

// enterTaskCtx starts a submitted task with context c (nil for none) and
// its submitter's labels l: a new origin, so a record always.
func (w *Worker) enterTaskCtx(c context.Context, l profLabels) (outer *taskCtx) {
	return w.pushOrigin(&taskCtx{ctx: c, labels: l})
}

// enterLabels starts a task submitted without a context under labels l: a
// new origin, or none for a task without labels.
//
// The origin's record is reused from the last task w started this way when
// that one had the same labels and started where this one does (depth, the
// record below, the group task): the tasks of one request, submitted under
// one label set, then cost no allocation. Reusing is safe because nothing
// but that record's own push reads prev, the one field rewritten, and a
// record is reused only once it left the chain (the record below it would
// otherwise be itself or one above it), when no join half of its task is
// pending for a thief to find it by.
func (w *Worker) enterLabels(l profLabels) (outer *taskCtx) {
	if l == nil {
		return w.pushCtx(nil)
	}
	outer = w.ctxs.Load()
	if r := w.lastLabelled; r != nil && r.labels == l && r.depth == w.depth && r.outer == outer && r.group == w.groupTask {
		r.prev = w.applyLabels(r)
		w.ctxs.Store(r)
		w.origin = r
		return outer
	}
	r := &taskCtx{labels: l}
	w.lastLabelled = r
	return w.pushOrigin(r)
}

// pushOrigin makes r, a record with a context or labels and nothing else
// yet, the origin in force at w's current depth.
func (w *Worker) pushOrigin(r *taskCtx) (outer *taskCtx) {
	outer = w.ctxs.Load()
	r.origin, r.depth, r.outer, r.group = r, w.depth, outer, w.groupTask
	r.prev = w.applyLabels(r)
	w.ctxs.Store(r)
	w.origin = r
	return outer
}

// runsAsIs reports whether a task submitted without a context, under labels
// l, may run on w with nothing pushed: no context is in force (Context is
// Background) and the labels in force are l.
func (w *Worker) runsAsIs(l profLabels) bool {
	o := w.origin
	if o == nil {
		return l == nil
	}
	return o.ctx == nil && o.labels == l
}

// enterTask starts a submitted task with context c (nil for none) and
// labels l that cannot run as is (runsAsIs): with a record of its own, or
// none in force for a task with neither.
func (w *Worker) enterTask(c context.Context, l profLabels) (outer *taskCtx) {
	if c == nil {
		return w.enterLabels(l)
	}
	return w.enterTaskCtx(c, l)
}

// leaveCtx restores the record in force before enterCtx, enterTaskCtx,
// enterLabels or enterTask pushed one, and the labels the goroutine had then.
func (w *Worker) leaveCtx(outer *taskCtx) {
	restoreLabels(w.ctxs.Load().prev)
	w.ctxs.Store(outer)
	if outer == nil {
		w.origin = nil
	} else {
		w.origin = outer.origin
	}
}

// originAt returns the origin of the join half at depth d of w's frames,
// and the Group task it runs within. Any worker may call it while that half
// is pending (see above).
func (w *Worker) originAt(d uint32) (*taskCtx, *groupTask) {
	r := w.ctxs.Load()
	for r != nil && r.depth > d {
		r = r.outer
	}
	if r == nil {
		return nil, nil
	}
	return r.origin, r.group
}

// Profiler labels and execution traces.
//
// A goroutine started with go inherits its creator's pprof labels, so a CPU
// profile of a server divides its time by whatever the handlers labelled
// (pprof.Do with an endpoint, a tenant). A task handed to a pool runs on a
// worker goroutine instead, so the pool carries the labels over: every
// submission (Go, TryGo, GoContext, Run, Do, DoContext, TryDo, Submit, on
// a Pool or a Sub, the Group's, and so the par functions given a *Pool
// from outside it) records the labels of the calling goroutine, and the
// task runs under them, on whichever worker it runs, and so does
// everything it forks: the halves of its joins and the tasks of its scopes
// that other workers take, and the goroutines it starts.
//
// The task runs under its submitter's labels instead of the worker's, not
// merged with them: merging makes a new label set per task (runtime/pprof
// builds them only through a context, with an allocation), where carrying
// the submitter's is two pointer stores, and it is what a go statement
// does. A task whose submitter had no labels runs under the worker's own:
// none, unless the pool's start hook set some (WithWorkerStart, with
// pprof.SetGoroutineLabels), which the worker keeps between tasks and gets
// back after each. That a sample is the pool's work shows in its stack
// (blitz.(*Worker).run). The workers no longer label themselves (they
// carried blitz.pool and blitz.worker): a label set can only be built with
// runtime/pprof, which the package no longer links (below); a start hook
// that wants them sets them.
//
// How. The runtime keeps a goroutine's labels as one pointer, which
// runtime/pprof reads and writes through two functions the runtime
// provides to it by //go:linkname: runtime_getProfLabel and
// runtime_setProfLabel. Neither has a public counterpart that works
// without a context (pprof.SetGoroutineLabels takes the labels from a
// context, and nothing reads the calling goroutine's), so the pool calls
// the two functions as runtime/pprof does, by their linknames. Since Go
// 1.23 the linker refuses a linkname to a runtime symbol unless the runtime
// marks it as one that is reached that way; these two are marked ("Do not
// remove or change the type signature", go.dev/issue/67401), in Go 1.24
// through 1.26, because widely used modules call them. The pool treats
// the pointer as opaque: it only copies what the runtime handed out, from
// the submitter to the task, never builds or reads a label set. Nor does
// it import runtime/pprof, which would link its profile encoder (and
// compress/gzip) into every program that imports the pool; a program that
// takes profiles links it anyway. DoContext takes the calling goroutine's
// labels too, not those of its context (pprof.WithLabels): reading a
// context's labels takes runtime/pprof, and inside pprof.Do, where
// handlers set them, the two are the same.
//
// Cost. A submission reads the pointer (a call, about 1 ns); one under
// labels also takes a recycled labelledTask that carries them with its
// task, so that the queue stays as small as a task without labels needs.
// A task that starts under other labels than those in force on its worker
// (the worker's own, or the task's whose wait it serves) pushes a context
// record (taskCtx), as a task with a context does, and sets the labels,
// then sets them back when it ends; so does a worker that runs work
// another worker forked for a task of other labels. The record of a task
// without a context is reused by the worker's next task of the same
// labels, so the tasks of one request allocate no record. Joins never
// touch the labels: a worker runs its own join halves under the labels in
// force, and a thief finds the labels of a half it stole in the owner's
// context records, with its context. Labels that a task sets itself
// (pprof.Do inside the task) label what it runs on its own goroutine; the
// work that other workers take from it runs under the task's labels.
//
// Traces. A task submitted with a context (GoContext, DoContext, TryDo,
// on a Pool or a Sub) runs inside a runtime/trace region of type
// "blitz.task" started with that context, so the trace task it carries
// (trace.NewTask) shows what ran for it on the workers, and so does the
// work another worker takes from it. A region ends on the goroutine that
// began it: a region per task and per stolen job, not one for the whole
// call. While no trace is being taken, a region costs one atomic load.

// runtime_getProfLabel returns the calling goroutine's labels.
//
//go:linkname runtime_getProfLabel runtime/pprof.runtime_getProfLabel
func runtime_getProfLabel() unsafe.Pointer

// runtime_setProfLabel sets the calling goroutine's labels.
//
//go:linkname runtime_setProfLabel runtime/pprof.runtime_setProfLabel
func runtime_setProfLabel(labels unsafe.Pointer)

// currentLabels returns the calling goroutine's labels: a submitter's, for
// its task.
func currentLabels() profLabels { return profLabels(runtime_getProfLabel()) }

// setLabels sets the calling goroutine's labels.
func setLabels(l profLabels) { runtime_setProfLabel(unsafe.Pointer(l)) }

// labelsOf returns the labels work of origin runs under on w: the
// submitter's, or w's own for a task submitted without labels (or no task).
func (w *Worker) labelsOf(origin *taskCtx) profLabels {
	if origin == nil || origin.labels == nil {
		return w.base
	}
	return origin.labels
}

// applyLabels sets the calling goroutine's labels to origin's (labelsOf),
// and returns the ones it had, for leaveCtx to restore.
func (w *Worker) applyLabels(origin *taskCtx) (prev profLabels) {
	prev = currentLabels()
	if l := w.labelsOf(origin); l != prev {
		setLabels(l)
	}
	return prev
}

// restoreLabels sets the calling goroutine's labels back to prev.
func restoreLabels(prev profLabels) {
	if currentLabels() != prev {
		setLabels(prev)
	}
}

// clearLabels drops the labels a worker goroutine inherited from the
// goroutine that started it (New's caller, or a task that made the pool
// grow): a worker's own labels are none, or those its start hook sets.
func clearLabels() { setLabels(nil) }

// labelledTask is a task submitted by a goroutine under labels: the task
// and the labels it runs under. Only a labelled submission takes one, so
// the injector's slots, the run queues and the job a worker finds stay as
// small as a task without labels needs. Carrying the labels beside the
// task in those instead cost every submission, labelled or not: 3 ns on
// the submitter and 8 to 13 on the worker with 40-byte slots, 12 on the
// worker with the labels in an array beside 32-byte slots (the job a
// worker finds grew past what the compiler keeps in registers), in
// interleaved runs of BenchmarkSubmitPhases and BenchmarkSubmitWorkers.
//
// They are recycled (labelledTasks): allocated per task, they made a
// stream of short labelled tasks the collector's work, 195 ns a task on
// BenchmarkSubmitLabels. A labelledTask is the pool's from newLabelled
// until finish, which returns it once the task's run and finish are done:
// nothing refers to it then (the queue's slot and run queue entry were
// cleared when a worker took it, and runTask is done with it).
type labelledTask struct {
	t      task
	labels profLabels
}

// labelledTasks recycles labelledTask values.
var labelledTasks = sync.Pool{New: func() any { return new(labelledTask) }}

// newLabelled returns t with the labels l it is to run under.
func newLabelled(t task, l profLabels) *labelledTask {
	lt := labelledTasks.Get().(*labelledTask)
	lt.t, lt.labels = t, l
	return lt
}

func (lt *labelledTask) run(w *Worker, _ profLabels) { lt.t.run(w, lt.labels) }

// finish finishes the task and recycles lt. runTask calls it last, once,
// however the task ended (a panic handler's Goexit included: it unwinds
// from lt.t.finish, and lt is then left to the collector).
func (lt *labelledTask) finish(w *Worker, pe *PanicError, goexit bool) {
	t := lt.t
	*lt = labelledTask{}
	t.finish(w, pe, goexit)
	labelledTasks.Put(lt)
}

// taskRegionType is the type of the runtime/trace regions the pool opens.
const taskRegionType = "blitz.task"

// traceRegion starts the trace region of work that runs for a task
// submitted with ctx, or returns nil when no trace is being taken or ctx is
// nil (work of a task without a context). endRegion ends it.
func traceRegion(ctx context.Context) *trace.Region {
	if ctx == nil || !trace.IsEnabled() {
		return nil
	}
	return trace.StartRegion(ctx, taskRegionType)
}

// jobRegion starts the trace region of a job forked by a task of another
// origin that w just entered (pushed: enterJob), if that task has a context.
func (w *Worker) jobRegion(pushed bool) *trace.Region {
	if !pushed || w.origin == nil {
		return nil
	}
	return traceRegion(w.origin.ctx)
}

// endRegion ends a region traceRegion started, if any.
func endRegion(r *trace.Region) {
	if r != nil {
		r.End()
	}
}
