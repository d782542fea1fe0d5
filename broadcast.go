package blitz

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/blitz-go/blitz/sleep"
)

// Broadcast.
//
// A broadcast addresses one request to each active worker: a request
// appended to the worker's box (requestBox), then a Poke (sleep.Poke),
// which wakes the worker wherever it sleeps, or, if it is awake, makes its
// next attempt to sleep return at once, so a request posted between the
// worker's last look at its box and its commit to park is not slept
// through. A worker looks at its box (one atomic load) at every turn of
// its idle loop and of the wait loops of a join and a scope, and before it
// retires. It runs a request on its own goroutine in the idle loop (and on
// the goroutine it is lent to during a call into another pool, which runs
// that loop), and on a goroutine it lends itself to (runLent) when it waits
// inside a task, so that what fn does to its goroutine (a Goexit) never
// reaches the waiting task.
//
// Deadlock freedom: a worker waiting for anything (a stolen join half, a
// scope's tasks, a call) still looks at its box, so a broadcast never waits
// for a worker that waits for the broadcast's caller; a caller that is a
// task of the pool runs its own share first and then sleeps on its latch,
// still running the shares other broadcasts address to it (blockCall). So
// two broadcasts from two tasks, each waiting for the other's worker, both
// finish. A broadcast does wait for a worker that runs a long task without
// waiting: it is a request to every worker, not to whichever is free.
//
// Resize: the broadcast reads the size and posts its requests under the
// resize lock, so a shrink comes before or after the posting; a worker
// retired after it runs its requests before it sleeps as a retired worker.

// broadcast is one Broadcast call.
type broadcast[T any] struct {
	fn       func(*Worker) T
	results  []T
	left     atomic.Int32 // shares not yet finished
	mu       sync.Mutex   // guards panicked and goexit
	panicked *PanicError
	goexit   bool
	done     chan struct{} // closed by the last share, for a caller outside the pool
	latch    sleep.CoreLatch
	waiter   *Worker // the caller's worker when the caller is a task (of any pool)
	// group is the Group task the caller runs within (nil for none): each
	// share runs within it too (taskctx.go: enterJob), as the caller waits
	// for every share.
	group *groupTask
}

// share runs fn on w and records the outcome; the last share signals the
// caller.
func (b *broadcast[T]) share(w *Worker) {
	ok := false
	outer, below, pushed := w.enterJob(w.origin, b.group)
	defer func() {
		w.leaveJob(outer, below, pushed)
		if !ok {
			pe := unwinding(recover())
			b.mu.Lock()
			if pe == nil {
				b.goexit = true
			} else if b.panicked == nil {
				b.panicked = pe
			}
			b.mu.Unlock()
		}
		if b.left.Add(-1) == 0 {
			b.signal()
		}
	}()
	b.results[w.index] = b.fn(w)
	ok = true
}

func (b *broadcast[T]) signal() {
	if wt := b.waiter; wt != nil {
		s, idx := wt.pool.sleep, wt.index
		if b.latch.Set() {
			s.NotifyWorkerLatchIsSet(idx)
		}
		return
	}
	close(b.done)
}

// Broadcast runs fn once on every worker of r's pool, each call given its
// own worker, and returns the results by worker index: result i is fn's on
// the worker whose Index is i, and there are as many as the pool had
// active workers when Broadcast began: its size (Workers) and the workers
// it added while workers were blocked (Stats.Active; see "Blocking" in the
// package documentation). A worker runs its call when it is
// idle, or between the jobs it runs, or while it waits inside a task (for
// a join half, a scope's tasks, a call into another pool); Broadcast waits
// for every call, so it waits for workers busy with long tasks to get to
// that point. It is meant for per-worker state and per-worker setup that
// must run on every worker (rayon's broadcast).
//
// fn runs on the worker's own goroutine when the worker is idle (the
// goroutine WithWorkerStart ran on), and otherwise on a goroutine the worker
// lends itself to while it waits: do not rely on the goroutine or OS thread
// for anything but what the Worker gives. Called from a task of the pool,
// Broadcast runs the caller's own worker's call on the caller's goroutine
// first, then waits as a call into another pool does (the worker serves the
// pool meanwhile), so it never waits for itself; called from a worker of
// another pool, it keeps that worker serving its own pool too.
//
// A panic in fn is re-panicked in the caller after every call finished, as
// a *PanicError (the first one, if several panicked); a Goexit in fn ends
// that call only, and then ends the caller's goroutine too, as Run does. A
// concurrent Resize takes effect before or after Broadcast posts its calls:
// a worker retired afterwards makes its call before it retires, and a worker
// added afterwards gets none. After Close has begun, Broadcast from outside
// the pool's tasks panics with an error wrapping ErrClosed. A nil fn or a
// nil Runner panics.
func Broadcast[T any](r Runner, fn func(w *Worker) T) []T {
	if fn == nil {
		panic("blitz: Broadcast: nil function")
	}
	p := destOf(r, "Broadcast").p
	caller := currentWorker()
	var own *Worker // the caller's worker, if it is one of p's
	if caller != nil && caller.pool == p {
		own = caller
	}
	b := &broadcast[T]{fn: fn, waiter: caller, group: caller.runningGroupTask()}
	if caller == nil {
		b.done = make(chan struct{})
	}
	p.resizeMu.Lock()
	if p.closeStarted.Load() && own == nil {
		p.resizeMu.Unlock()
		panic(fmt.Errorf("blitz: Broadcast: %w", ErrClosed))
	}
	ws := p.workerList()[:p.active.Load()]
	b.results = make([]T, len(ws))
	b.left.Store(int32(len(ws)))
	for _, w := range ws {
		if w != own {
			w.requests.post(b.share)
		}
	}
	for _, w := range ws {
		if w != own {
			p.sleep.Poke(w.index)
		}
	}
	ownShare := own != nil && own.index < len(ws)
	p.resizeMu.Unlock()
	if ownShare { // a retired worker still in a task has no share
		b.share(own)
	}
	switch {
	case own != nil:
		// The shares run on the pool's other workers: the caller waits
		// for its own pool, running the shares of other broadcasts
		// meanwhile, and is not replaced (the monitor sees it blocked
		// if the pool's queue stalls).
		caller.blockCall(&b.latch, nil)
	case caller != nil:
		caller.waitCall(&b.latch, nil) // a task of another pool, as in a call
	default:
		<-b.done
	}
	if b.panicked != nil {
		panic(b.panicked)
	}
	if b.goexit {
		runtime.Goexit()
	}
	return b.results
}
