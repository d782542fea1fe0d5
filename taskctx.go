package blitz

import "context"

// The context of a task.
//
// A task submitted with a context (GoContext, DoContext, TryDo) can read it
// with Worker.Context, and so can everything it forks, on whichever worker
// it runs: the halves of its joins, the tasks of its scopes, the pieces of
// the data-parallel functions it calls. Everything else (a task submitted
// without a context, work forked from it, an idle worker) reads
// context.Background().
//
// A task also carries its submitter's profiler labels (labels.go), and
// they travel with its context: a task submitted with labels has a record
// (an origin) even without a context, and a job runs under the labels of
// its origin.
//
// Each worker keeps what it runs as a chain of records (taskCtx), newest
// first, one per job it entered whose context (or labels) differs from the
// one around it: a submitted task with a context or labels (ctxGoJob.run,
// callJob.runInCtx, runAsTask), a task without either on a worker lent out
// inside one that has them (runAsTask), a join half run by a thief
// (runFrame), a scope task (runSpawn). A record holds the job's context
// and the join depth at which the job started.
// Jobs reach other workers through refs that name a frame at a depth (a
// join's second half) or a scope's slot:
//
//   - A join half at depth d on worker o belongs to the innermost record of
//     o's chain whose depth is <= d (originAt). While that half is pending, that
//     record cannot end (the job it stands for waits for its joins), and
//     every record o enters meanwhile starts deeper than d, because o's depth
//     stays above d until the join is done; so the walk finds the right one
//     from any later head of the chain. Records are immutable and the head
//     is an atomic pointer: the walk races with nothing.
//   - A scope's tasks belong to the context of the worker that opened the
//     scope, recorded in the scope when it opens.
//
// The owner sets its context with a plain field read by Context (only the
// goroutine running as the worker reads it) and publishes the chain for
// thieves; a job whose context is the one already in force adds nothing, so
// fork-join inside one task, every join's fast path, a task submitted
// without a context and the owner's own join halves cost one compare of a
// plain field at most.
type taskCtx struct {
	ctx    context.Context // the job's context (origin's); nil for none (Background)
	origin *taskCtx        // the record of the submitted task the job descends from; nil for none
	depth  uint32          // the worker's join depth when the job started
	outer  *taskCtx        // the record in force before this one
	// group is the Group task in force for the job (Worker.groupTask when
	// the record was pushed), nil for none: a thief runs a join half within
	// it, so that Group.Wait's check for a wait on itself sees what the
	// half's owner would have seen (group.go: within).
	group *groupTask
	// labels, in an origin record (origin == the record itself), are the
	// profiler labels of the task's submitter, nil for none (labels.go):
	// what the task and everything it forks run under.
	labels profLabels
	// prev is what the goroutine that pushed the record had as its labels
	// before; leaveCtx gives them back. Written and read by that push and
	// its leaveCtx alone (rewritten when enterLabels reuses the record).
	prev profLabels
}

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
