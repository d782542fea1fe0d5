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
// group's context and is what Wait returns. Create one with NewGroup.
//
// Where the tasks run depends on the Runner it was made with:
//
//   - a *Pool: Go submits each task to the pool (Pool.Go) and returns; Wait,
//     called from a goroutine outside the pool, blocks until every task
//     finished. Calling Wait from a task of the same pool blocks that
//     task's worker, as Pool.Run does.
//   - a *Worker: Go submits each task to the worker's pool too, so idle
//     workers start it at once, and also queues it in the group; Wait,
//     which must be called by the task that owns the worker, claims every
//     queued task that no worker has started and runs them itself in a
//     Scope on that worker (so they run in parallel, and a pool of one
//     worker needs nobody else; alone, the worker runs them in the order
//     of Go), then blocks until the tasks other workers started finished,
//     running any task they add meanwhile. A task runs once, whoever
//     claims it first.
//
// Tasks should not wait for each other: a task blocked on another that has
// not started holds its worker, and on a pool of one worker, for good. A Group must not be copied after first use
// and should not be reused after Wait.
type Group struct {
	pool   *Pool
	worker *Worker // the worker a worker-bound group's Wait runs queued tasks on; nil for a *Pool
	cancel context.CancelCauseFunc

	mu sync.Mutex
	// cond is signalled (Broadcast, under mu) when pending drops to 0 and
	// when a task is queued.
	cond     sync.Cond
	pending  int          // tasks given to Go and not finished (or failed to submit)
	queue    []*groupTask // worker-bound: tasks for Wait to claim; some may be claimed already
	err      error        // the first error
	panicked *PanicError  // the first panic
	goexit   bool         // a task called runtime.Goexit
}

// groupTask is one task of a Group. claimed is CASed from false to true by
// whoever runs it: the pool worker that took its submission, or Wait.
type groupTask struct {
	g       *Group
	fn      func(*Worker) error
	claimed atomic.Bool
}

// NewGroup returns a Group that runs its tasks on r (see Group) and a
// context derived from ctx, cancelled, with the error as its cause
// (context.Cause), when a task returns an error or panics, or when Wait
// returns. A nil r panics.
func NewGroup(ctx context.Context, r Runner) (*Group, context.Context) {
	if ctx == nil {
		panic("blitz: NewGroup: nil context")
	}
	g := &Group{}
	switch r := r.(type) {
	case *Pool:
		g.pool = r
	case *Worker:
		if r != nil {
			g.pool, g.worker = r.Pool(), r
		}
	}
	if g.pool == nil {
		panic("blitz: NewGroup: nil Runner")
	}
	g.cond.L = &g.mu
	ctx, g.cancel = context.WithCancelCause(ctx)
	return g, ctx
}

// Go starts fn(w) in the group (see Group for where), w being the worker
// running it. fn runs exactly once, even if the group's context was already
// cancelled: like an errgroup goroutine it should watch the context itself.
// Go may be called from any goroutine, tasks of the group included, before
// Wait returns. If the pool refuses the task (it is closing), a group made
// with a *Pool records an error wrapping ErrClosed instead of running fn; a
// group made with a *Worker leaves it to Wait. A nil fn panics.
func (g *Group) Go(fn func(w *Worker) error) {
	if fn == nil {
		panic("blitz: Group.Go: nil function")
	}
	t := &groupTask{g: g, fn: fn}
	g.mu.Lock()
	g.pending++
	if g.worker != nil {
		g.enqueue(t)
		g.cond.Broadcast()
	}
	g.mu.Unlock()
	if err := g.pool.Go(t.runSubmitted); err != nil && g.worker == nil {
		t.claimed.Store(true)
		g.fail(fmt.Errorf("blitz: Group.Go: %w", err))
		g.finish()
	}
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

// runSubmitted is the task as submitted to the pool.
func (t *groupTask) runSubmitted(w *Worker) {
	if t.claimed.CompareAndSwap(false, true) {
		t.g.run(w, t.fn)
	}
}

// run runs a claimed task and records its outcome: an error, a panic
// (recovered here, re-panicked by Wait) or a Goexit (which goes on ending
// the goroutine running the task; Wait repeats it).
func (g *Group) run(w *Worker, fn func(*Worker) error) {
	normal := false
	defer func() {
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
				g.cancel(pe)
			} else {
				g.cancel(ErrGoexit)
			}
		}
		g.finish()
	}()
	err := fn(w)
	normal = true
	if err != nil {
		g.fail(err)
	}
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
		g.cancel(err)
	}
}

// finish counts a task finished.
func (g *Group) finish() {
	g.mu.Lock()
	g.pending--
	if g.pending == 0 {
		g.cond.Broadcast()
	}
	g.mu.Unlock()
}

// Wait returns when every task given to Go has finished (a group made with a
// *Worker first runs the tasks nobody started, see Group), cancels the
// group's context, and returns the first error a task returned, or nil. If a
// task panicked, Wait panics with a *PanicError carrying the first panic's
// value and stack instead; if one called runtime.Goexit (and none panicked),
// Wait calls runtime.Goexit. A group made with a *Worker must be waited for
// by the task that owns that worker.
func (g *Group) Wait() error {
	done := false
	defer func() {
		if !done {
			// A task run inline by the worker called runtime.Goexit:
			// the goroutine unwinds, but the other tasks still finish
			// before it goes.
			g.drain()
		}
	}()
	g.drain()
	done = true
	g.mu.Lock()
	err, pe, goexit := g.err, g.panicked, g.goexit
	g.mu.Unlock()
	g.cancel(err)
	if pe != nil {
		panic(pe)
	}
	if goexit {
		runtime.Goexit()
	}
	return err
}

// drain runs the queued tasks (worker-bound) and waits until none is
// pending.
func (g *Group) drain() {
	g.mu.Lock()
	for {
		if len(g.queue) > 0 {
			q := g.queue
			g.queue = nil
			g.mu.Unlock()
			g.runQueued(q)
			g.mu.Lock()
			continue
		}
		if g.pending == 0 {
			break
		}
		g.cond.Wait()
	}
	g.mu.Unlock()
}

// runQueued claims the tasks of q that nobody started and runs them in a
// Scope on the group's worker. They are spawned last first: the worker pops
// its own spawns newest first, so when no other worker helps it runs them
// in the order Go was called, as a loop would, while thieves take the last
// ones.
func (g *Group) runQueued(q []*groupTask) {
	g.worker.Scope(func(s *Scope) {
		for _, t := range slices.Backward(q) {
			if t.claimed.CompareAndSwap(false, true) {
				s.Spawn(func(w *Worker, _ *Scope) { g.run(w, t.fn) })
			}
		}
	})
}
