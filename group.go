package blitz

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// A Group runs tasks that return an error on a pool, like
// golang.org/x/sync/errgroup runs goroutines: the first error cancels the
// group's context and is what Wait returns. Create one with NewGroup, or use
// the zero Group, as errgroup's: it runs its tasks on Default() and has no
// context, so nothing is cancelled.
//
// Go submits each task to the group's pool (the Runner it was made with, or
// the pool of that *Worker), so idle workers start it at once, and also
// queues it in the group. Where Wait waits depends on who calls it:
//
//   - a task of the same pool (made with the task's *Worker or with the
//     pool itself): Wait claims every queued task that no worker has
//     started and runs them itself in a Scope on the task's worker (so they
//     run in parallel, and a pool of one worker needs nobody else; alone,
//     the worker runs them in the order of Go), then waits for the tasks
//     other workers started, running any task they add meanwhile. A task
//     runs once, whoever claims it first. So groups nest: a task of a group
//     may make and wait for a group of its own on the same pool.
//   - a task of another pool: Wait blocks the task, and its worker keeps
//     serving its own pool meanwhile (as a call into another pool does).
//   - any other goroutine: Wait blocks until every task finished.
//
// SetLimit bounds how many of the group's tasks may be under way at once
// (submitted to the pool and not finished), as errgroup's does; TryGo returns
// ErrQueueFull when no slot is free. A task over the limit waits in the group's
// queue, in the order of Go, and is submitted to the pool when a task of
// the group finishes. Go waits for its task to get a slot, except when
// called from a task of the group's pool (the tasks of the group included):
// it queues the task and returns at once, since the task that must finish
// to free a slot could be the caller, or be queued behind it on its worker.
// Called from a task of another pool, Go waits as a call into another pool
// does, its worker serving its own pool meanwhile.
//
// Tasks may block and wait for each other, as errgroup's goroutines may:
// the pool adds workers while its workers are blocked and work waits (see
// "Blocking" in the package documentation), so a limit above the pool's
// size is reached and a task waiting for a later one sees it run. A Group
// must not be copied after first use.
//
// Go may be called at any time, from any goroutine, tasks of the group
// included: while Wait waits (Wait then waits for that task too) and after
// it returned. So a Group may be reused, as errgroup's may: a Go after Wait
// returned starts a new batch of tasks, which the next Wait waits for (a
// batch that no Wait waits for reports its panics to nobody). What Wait
// reports then follows errgroup, and blitz's rules for panics:
//
//   - the first error is the group's for good: every later Wait returns it
//     too, and the group's context, cancelled by the first error or the
//     first Wait, stays cancelled (a new, unrelated job wants a new Group);
//   - a panic or a Goexit belongs to its task's batch: every Wait reports it
//     until a Go starts a new batch, whose Waits report only the panics and
//     Goexits of its own tasks (a panic recovered from one Wait is not
//     raised again by the next batch's). A Wait whose goroutine is ended by
//     a Goexit of a task it ran itself reports that Goexit, and leaves a
//     panic of the same batch to the next Wait.
type Group struct {
	// pool is the pool that runs the tasks: NewGroup's Runner's, or, in
	// the zero Group, Default() from its first Go on. Written once: by
	// NewGroup, or by Go and TryGo under mu (bind).
	pool *Pool
	// sub is the Sub the tasks are submitted to, pool being its parent,
	// or nil: they go to pool itself (NewResultGroup). Written once, by
	// init.
	sub    *Sub
	cancel context.CancelCauseFunc // nil in the zero Group: no context

	// pending counts the tasks given to Go (or admitted by TryGo) and not
	// finished (or failed to submit): the admitted ones and those waiting
	// at the gate. Raised under mu by Go and TryGo; lowered by a finishing
	// task (release) without mu, unless it drops to 0 or the group has a
	// limit. Sequentially consistent: see release.
	pending atomic.Int64
	// limited mirrors gate.limited for release's lock-free path: written
	// under mu by SetLimit, loaded by release without it.
	limited atomic.Bool

	mu sync.Mutex
	// cond is signalled (Broadcast, under mu) when pending drops to 0 and
	// when a task is queued. Its L is set with pool.
	cond     sync.Cond
	queue    []*groupTask // tasks for a Wait on a worker to claim; some may be claimed already
	err      error        // the first error, for the group's life
	panicked *PanicError  // the first panic of the batch
	goexit   bool         // a task of the batch called runtime.Goexit
	// seq counts the tasks given to Go and admitted by TryGo, for the
	// group's life: each takes the count before it as its groupTask.seq.
	// While pending is 0, every task numbered below seq has finished.
	seq uint64
	// reported is set when a Wait has reported panicked and goexit: it saw
	// pending at 0 and returned, panicked or called runtime.Goexit. So
	// pending is 0 while it is set, and the next Go or admitted TryGo,
	// starting a new batch, clears it with them (newBatch).
	reported bool
	// waiters are the Waits of tasks of other pools (gate.go), woken
	// when pending drops to 0.
	waiters waitList

	// gate is the limit (SetLimit; gate.go), none in the zero Group. A
	// task given to Go is admitted when a slot is free: it then holds it
	// until it finishes, sits in queue and is submitted to the pool.
	// Otherwise it waits at the gate until a finishing task or SetLimit
	// admits it. Its count of slots taken is derived, under mu, from
	// pending (syncGate): a task finishing without mu does not leave.
	gate slotGate[*groupTask]
}

func (t *groupTask) gateEntry() *gateEntry { return &t.entry }

// within reports whether t, or a task it runs within (through below and
// parent), is a task of g. The links point to older tasks only, and nesting
// is shallow.
func (t *groupTask) within(g *Group) bool {
	for ; t != nil; t = t.below {
		if t.g == g || t.parent.within(g) {
			return true
		}
	}
	return false
}

// holds reports whether t, or a task it runs within, is a task of s, which
// holds one of s's slots.
func (t *groupTask) holds(s *Sub) bool {
	for ; t != nil; t = t.below {
		if t.sub == s || t.parent.holds(s) {
			return true
		}
	}
	return false
}

// NewGroup returns a Group that runs its tasks on r (see Group) and a
// context derived from ctx, cancelled, with the error as its cause
// (context.Cause), when a task returns an error or panics, or when Wait
// returns. A nil r panics.
func NewGroup(ctx context.Context, r Runner) (*Group, context.Context) {
	if ctx == nil {
		panic("blitz: NewGroup: nil context")
	}
	d := destOf(r, "NewGroup")
	g := new(Group)
	return g, g.init(ctx, d.p, d.s)
}

// init makes g, not yet used, a group on p, or on s (whose parent p is)
// if s is not nil, with a context derived from ctx, which it returns.
func (g *Group) init(ctx context.Context, p *Pool, s *Sub) context.Context {
	g.pool, g.sub = p, s
	g.cond.L = &g.mu
	ctx, g.cancel = context.WithCancelCause(ctx)
	return ctx
}

// Go starts fn(w) in the group (see Group for where), w being the worker
// running it. fn runs exactly once, even if the group's context was already
// cancelled: like an errgroup goroutine it should watch the context itself.
// Go may be called from any goroutine, tasks of the group included, at any
// time; after Wait returned, it starts a new batch (see Group). If the pool
// refuses the task (it is closing), the group records an error wrapping
// ErrClosed instead of running fn. A nil fn panics.
func (g *Group) Go(fn func(w *Worker) error) {
	if fn == nil {
		panic("blitz: Group.Go: nil function")
	}
	g.goTask(&groupTask{g: g, fn: fn, parent: currentWorker().runningGroupTask(), labels: currentLabels()})
}

// goTask is Go for a task made by the caller.
func (g *Group) goTask(t *groupTask) {
	g.mu.Lock()
	g.bind()
	g.newBatch()
	g.syncGate()
	g.pending.Add(1)
	t.seq = g.seq
	g.seq++
	if g.admit(t) {
		g.mu.Unlock()
		g.start(t)
		return
	}
	// No slot: t waits for one, and so does the caller, unless it is a
	// task of the pool (see Group).
	var wt *waiter
	if w := currentWorker(); w == nil || w.pool != g.pool {
		wt = newWaiter(w)
	}
	g.gate.wait(t, wt)
	g.mu.Unlock()
	if wt != nil {
		wt.wait(nil)
	}
}

// TryGo starts fn like Go if a slot is free (see SetLimit) and returns nil:
// fn will run. With no slot free it returns ErrQueueFull at once and fn
// never runs, as Pool.TryGo and Sub.TryGo refuse when their queue is full
// (a Group has no queue for TryGo's tasks); the group is left as it was.
// If the pool refuses the task (it is closing), TryGo returns an error
// wrapping ErrClosed and fn never runs; the group records that error too,
// as it does for Go, so Wait returns it. The limit is all TryGo refuses
// for: like Go, it waits for room in the pool's bounded queue (WithCapacity)
// when that is full. Without a limit TryGo is Go but for returning the
// pool's refusal. A nil fn panics.
func (g *Group) TryGo(fn func(w *Worker) error) error {
	if fn == nil {
		panic("blitz: Group.TryGo: nil function")
	}
	t := &groupTask{g: g, fn: fn, parent: currentWorker().runningGroupTask(), labels: currentLabels()}
	g.mu.Lock()
	g.bind()
	g.syncGate()
	if !g.admit(t) {
		g.mu.Unlock()
		return ErrQueueFull
	}
	g.newBatch()
	g.pending.Add(1)
	t.seq = g.seq
	g.seq++
	g.mu.Unlock()
	// start, reporting the refusal: a Wait may have claimed t meanwhile,
	// and then runs it.
	if err := g.submit(t); err != nil && t.claimed.CompareAndSwap(false, true) {
		err = fmt.Errorf("blitz: Group.TryGo: %w", err)
		g.fail(err)
		g.finish()
		return err
	}
	return nil
}

// SetLimit limits the group to n tasks under way at once (see Group); a
// negative n removes the limit, and 0 admits no task until the limit is
// raised (Go then waits, TryGo refuses). Unlike errgroup's, the limit may
// change while tasks run: raising it admits the queued tasks at once,
// lowering it lets the tasks under way finish and admits no more until
// fewer than n are.
func (g *Group) SetLimit(n int) {
	var ts []*groupTask
	g.mu.Lock()
	g.gate.setLimit(n)
	// The store before syncGate's load of pending: a task finishing
	// that loaded limited before this store lowered pending before it,
	// and one that loads it after takes mu and admits (release).
	g.limited.Store(n >= 0)
	g.syncGate()
	for t, ok := g.gate.admit(); ok; t, ok = g.gate.admit() {
		g.admitted(t)
		ts = append(ts, t)
	}
	g.mu.Unlock()
	for _, t := range ts {
		g.start(t)
	}
}

// bind gives the zero Group its pool, Default(), at its first Go or TryGo.
// g.mu is held.
func (g *Group) bind() {
	if g.pool == nil {
		g.pool = Default()
		g.cond.L = &g.mu
	}
}

// newBatch forgets the panic and Goexit that a Wait reported, as a task is
// given to Go after that Wait (see Group). g.mu is held.
func (g *Group) newBatch() {
	if g.reported {
		g.panicked, g.goexit, g.reported = nil, false, false
	}
}

// cancelCause cancels the group's context with cause, if it has one.
func (g *Group) cancelCause(cause error) {
	if g.cancel != nil {
		g.cancel(cause)
	}
}

// admit admits t if a slot is free and no task waits for one (admission is
// in the order of Go), and reports whether it did. g.mu is held.
func (g *Group) admit(t *groupTask) bool {
	if !g.gate.enter() {
		return false
	}
	g.admitted(t)
	return true
}

// admitted queues t, just admitted, for a Wait to claim. g.mu is held.
func (g *Group) admitted(t *groupTask) {
	g.enqueue(t)
	g.cond.Broadcast()
}

// start submits an admitted task to the pool, or to the group's Sub. If
// it is refused (closing), the group records the error instead of running
// it.
func (g *Group) start(t *groupTask) {
	if err := g.submit(t); err != nil && t.claimed.CompareAndSwap(false, true) {
		g.refuse(t, err)
		g.finish()
	}
}

// submit submits an admitted task to the group's Sub, or to its pool.
func (g *Group) submit(t *groupTask) error {
	if g.sub != nil {
		return g.sub.submit(context.Background(), &subTask{s: g.sub, t: t}, true, "Group.Go")
	}
	return g.pool.submit(context.Background(), t, nil, true, "Group.Go")
}

// refuse records err, the pool's refusal of t, as t's outcome: the group's
// error, and t's sink's.
func (g *Group) refuse(t *groupTask, err error) {
	err = fmt.Errorf("blitz: Group.Go: %w", err)
	if t.sink != nil {
		t.sink.refused(t.seq, err)
	}
	g.fail(err)
}

// enqueue appends t to the queue; when the queue is full it first drops the
// tasks already claimed, so a long-lived group's queue stays proportional to
// the tasks that may still need Wait. g.mu is held.
func (g *Group) enqueue(t *groupTask) {
	if len(g.queue) == cap(g.queue) {
		q := g.queue[:0]
		for _, u := range g.queue {
			if !u.claimed.Load() {
				q = append(q, u)
			}
		}
		clear(g.queue[len(q):])
		g.queue = q
	}
	g.queue = append(g.queue, t)
}

// run is the task as submitted to the pool (a task, as a goJob: the task
// itself, not a func value made for it, saves an allocation per Go). A
// task claimed already (run by a Wait) is skipped. It starts with no
// context in force, as a goJob does.
func (t *groupTask) run(w *Worker, _ profLabels) {
	if !t.claimed.CompareAndSwap(false, true) {
		return
	}
	// Under no labels here: the task's own, those its Go's caller had,
	// are applied by enterGroupTask (the goroutine that submitted it may
	// be another task finishing, whose labels are not this one's).
	if !w.runsAsIs(nil) {
		outer := w.enterLabels(nil)
		defer w.leaveCtx(outer)
	}
	t.g.run(w, t)
}

// finish is a goJob's: Group.run recovers the task's panic and Goexit
// itself, so only a panic of the group's own bookkeeping gets here.
func (t *groupTask) finish(w *Worker, pe *PanicError, _ bool) { reportTaskPanic(w, pe) }

// run runs a claimed task and records its outcome: an error, a panic
// (recovered here, re-panicked by Wait) or a Goexit (which goes on ending
// the goroutine running the task; Wait repeats it).
func (g *Group) run(w *Worker, t *groupTask) {
	normal := false
	outer := w.enterGroupTask(t)
	defer func() {
		w.leaveGroupTask(t, outer)
		if !normal {
			pe := unwinding(recover())
			g.mu.Lock()
			if pe == nil {
				g.goexit = true
			} else if g.panicked == nil {
				g.panicked = pe
			}
			g.mu.Unlock()
			if pe != nil {
				g.cancelCause(pe)
			} else {
				g.cancelCause(ErrGoexit)
			}
		}
		g.finish()
	}()
	err := t.fn(w)
	normal = true
	if err != nil {
		g.fail(err)
	}
}

// runningGroupTask is the innermost group task on w's stack, nil for none
// or a nil w.
func (w *Worker) runningGroupTask() *groupTask {
	if w == nil {
		return nil
	}
	return w.groupTask
}

// fail records err if it is the first error, and cancels the context.
func (g *Group) fail(err error) {
	g.mu.Lock()
	first := g.err == nil
	if first {
		g.err = err
	}
	g.mu.Unlock()
	if first {
		g.cancelCause(err)
	}
}

// finish counts a task finished, wakes the waiters when it was the last,
// and submits the task its slot admits, if any (and the next one, if the
// pool refuses that one).
func (g *Group) finish() {
	for {
		t := g.release()
		if t == nil {
			return
		}
		err := g.submit(t)
		if err == nil || !t.claimed.CompareAndSwap(false, true) {
			return
		}
		g.refuse(t, err)
	}
}

// release counts a task finished and frees its slot, wakes the waiters
// when it was the last, and returns the waiting task the slot admits (its
// Go woken), or nil.
//
// Without a limit and with other tasks pending, that is one atomic add: a
// burst of 10,000 tasks that sleep 1 ms finishes in bunches as their
// timers fire, and thousands of workers queued on mu here, 1.3 ms each on
// average (the mutex profile), away from the tasks they were added for. mu
// is taken for the last task, to wake the Waits (which check pending under
// mu before they wait: the condition variable's rule), and under a limit,
// to admit a waiting task. The add before the load of limited, both
// sequentially consistent, pairs with SetLimit's store of limited before
// its syncGate: a release that sees no limit lowered pending before
// SetLimit counts the slots taken, so a task that waits at the gate from
// then on waits for a release that takes mu.
func (g *Group) release() *groupTask {
	if g.pending.Add(-1) > 0 && !g.limited.Load() {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.syncGate()
	next, ok := g.gate.admit()
	if ok {
		g.admitted(next)
	}
	if g.pending.Load() == 0 {
		g.cond.Broadcast()
		g.waiters.wakeAll()
	}
	return next
}

// syncGate sets the gate's count of slots taken from pending: every task
// pending holds a slot or waits at the gate (a Group's tasks never
// withdraw from it). Called under mu before the gate decides, at a point
// where every task counted in pending is one or the other. Tasks finishing
// meanwhile without mu only leave it overstated, and only while the group
// has no limit, when the count decides nothing (free).
func (g *Group) syncGate() { g.gate.active = int(g.pending.Load()) - g.gate.queued }

// Wait returns when every task given to Go has finished (called from a task
// of the group's pool, it first runs the tasks nobody started, see Group),
// cancels the group's context, and returns the first error a task returned,
// or nil. If a task of the batch panicked, Wait panics with a *PanicError
// carrying the first panic's value and stack instead; if one called
// runtime.Goexit (and none panicked), Wait calls runtime.Goexit (see Group
// for what a Wait of a later batch reports). A task of the group must not
// wait for it (it would wait for itself): called by such a task, or by a
// task of a group that such a task made and waits for, or by work such a
// task forked, wherever it runs (the half of a join another worker stole, a
// scope task, a Broadcast's share on every worker), Wait panics.
func (g *Group) Wait() error {
	_, err := g.wait("Group.Wait")
	return err
}

// wait is Wait for a caller named name. It also returns the number of
// tasks given to the group when it saw none pending (Group.seq): every task
// numbered below it has finished.
func (g *Group) wait(name string) (uint64, error) {
	w := currentWorker()
	if w.runningGroupTask().within(g) {
		panic("blitz: " + name + ": called from a task of the same group, which would wait for itself")
	}
	done := false
	defer func() {
		if !done {
			// A task run inline by the worker called runtime.Goexit
			// (in runQueued, g.mu not held): the goroutine unwinds,
			// but the other tasks still finish before it goes. Its
			// end reports the Goexit; a panic waits for the next Wait.
			g.mu.Lock()
			g.drain(w)
			g.goexit = false
			g.reported = g.panicked == nil
			g.mu.Unlock()
		}
	}()
	g.mu.Lock()
	g.drain(w)
	err, pe, goexit, n := g.err, g.panicked, g.goexit, g.seq
	g.reported = true
	g.mu.Unlock()
	done = true
	g.cancelCause(err)
	if pe != nil {
		panic(pe)
	}
	if goexit {
		runtime.Goexit()
	}
	return n, err
}

// drain waits until no task is pending, called by Wait with g.mu held on
// the goroutine running worker w (nil for none); it returns with g.mu held.
// A worker of the group's pool runs the queued tasks itself; a worker of
// another pool waits as a waiter (gate.go), its pool serving meanwhile; any
// other goroutine waits on the condition variable.
func (g *Group) drain(w *Worker) {
	for g.pending.Load() > 0 {
		own := w != nil && w.pool == g.pool
		switch {
		case own && len(g.queue) > 0:
			q := g.queue
			g.queue = nil
			g.mu.Unlock()
			g.runQueued(w, q)
			g.mu.Lock()
		case w != nil && !own:
			wt := newWaiter(w)
			g.waiters.push(wt)
			g.mu.Unlock()
			wt.wait(nil)
			g.mu.Lock()
		default:
			g.cond.Wait()
		}
	}
}

// runQueued claims the tasks of q that nobody started and runs them in a
// Scope on w, a worker of the group's pool. They are spawned last first: the worker pops
// its own spawns newest first, so when no other worker helps it runs them
// in the order Go was called, as a loop would, while thieves take the last
// ones.
func (g *Group) runQueued(w *Worker, q []*groupTask) {
	w.Scope(func(s *Scope) {
		for _, t := range slices.Backward(q) {
			if t.claimed.CompareAndSwap(false, true) {
				s.Spawn(func(w *Worker, _ *Scope) { g.run(w, t) })
			}
		}
	})
}
