package blitz

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/blitz-go/blitz/atomics"
	"github.com/blitz-go/blitz/sleep"
)

// Resizing.
//
// A pool's size is one number, size: workers [0, size) are active, the
// others retired. Workers are never freed: the worker list (Pool.workers)
// only grows, by a copy published with one atomic store, so a thief, a
// joiner or a job reference that names a worker by index finds it for the
// pool's life, and the per-worker counters that Stats sums survive every
// shrink.
//
// Shrinking stores the smaller size, then kicks each worker above it: it
// Sets the worker's idle latch (terminate), which wakes it if it sleeps on
// it and otherwise makes its idle loop return when it next looks at it. A
// worker notices that it retires only there, at the bottom of its own
// goroutine: its join depth is 0 (no frame of its own pending), it is not
// lent to a call, and the loop has left the sleep counters (serve ends
// with WorkFound). It then runs what its own deque still holds (the tasks a
// stolen scope task spawned stay there, and nobody else may take them from
// a waiter's side), and the requests addressed to it (Broadcast), and only
// then sleeps on its dormant latch alone, outside the counters
// (sleep.IsolatedNoWork), so it is neither sleeping nor idle to a poster.
// Nothing it could run is left behind: its deque is empty, its frames are
// unused, and the injector and the other deques are served by the active
// workers.
//
// The one wake-up a retiring worker could lose is an injected job that a
// poster left to it: P4 of the sleep protocol wakes nobody when the
// awake-but-idle workers (the inactive count) outnumber the jobs, and a
// retiring worker counted there leaves instead of searching again. So a
// worker that leaves the counters to retire checks the injector after
// WorkFound (an atomic add, a full barrier) and, if it holds work, posts
// it again (sleep.NewInjectedJobsLazy as if the queue had been non-empty,
// which wakes a sleeper). That is a Dekker handshake with the poster's
// fence F1 between its push and its read of the counters: either the
// poster saw this worker already gone from the inactive count (and woke a
// sleeper itself if the others could not absorb the job), or this worker
// sees the push. A job pushed onto a worker's own deque needs nothing: its
// poster is awake and runs it if nobody steals it.
//
// Growing stores the larger size, then wakes each dormant worker below it
// (Set its dormant latch, wake it if it sleeps) and starts a goroutine for
// each worker made new: its sleep state is added to the sleep protocol
// (sleep.Sleep.Grow) and the longer list published before the goroutine
// starts, so anything that learns of the worker finds it in both.
//
// Every signal is a Set latch that the worker Resets before it reads size
// and stopping (sequentially consistent), so a Resize whose Set came before
// the Reset is seen by the read after it, and one whose Set came after
// leaves the latch Set for the next look: a worker never sleeps through a
// size change. Resize and Close serialize on resizeMu: Close stores
// stopping and kicks every worker under it, and Resize refuses a closing
// pool under it, so no worker is started after Close waits for them.
//
// Resize never waits for a worker: it changes the size and returns, and the
// retiring workers leave at their next idle point. So it may be called from
// a task, even one running on a worker it retires.

// resizing is the size state of a pool, embedded in Pool.
type resizing struct {
	// resizeMu serializes Resize, the start of Close's worker shutdown
	// (finishClose), the following check and Broadcast's posting.
	resizeMu sync.Mutex

	// size is the number of workers the pool is sized to (Workers): New's
	// count, Resize's or the GOMAXPROCS it follows. Stored under resizeMu
	// by New and Resize; loaded by Workers, Stats, the follower and the
	// monitor. sync/atomic, sequentially consistent.
	size atomic.Int32

	// active is the number of active workers: size, plus the workers the
	// monitor added for blocked ones (blocking.go), which it retires when
	// they idle. Stored under resizeMu by New, Resize and the monitor;
	// loaded by the idle loop of every worker (retiring, refreshAlone), by
	// the batch share, borrowing, Broadcast and Stats. sync/atomic,
	// sequentially consistent.
	active atomic.Int32

	// stopping is set, under resizeMu, by Close once the pool drained;
	// loaded by the idle loop after it Reset its latch. sync/atomic.
	stopping atomic.Bool

	// maxWorkers bounds Resize, and the workers the monitor adds: the
	// largest of DefaultMaxWorkers, the pool's cap (WithMaxWorkers) and
	// New's count, or New's count for a pool whose workers have a
	// placement or explicit steal tiers (both are planned for New's
	// workers only). Immutable after New.
	maxWorkers int

	// seed seeds the workers' random victim choice. Immutable after New.
	seed uint64

	// workerStart and workerExit are the per-worker hooks
	// (WithWorkerStart, WithWorkerExit), nil for none. Immutable after New.
	workerStart, workerExit func(id int)

	// follower follows GOMAXPROCS (follow.go); nil for a pool made with
	// WithWorkers. Immutable after New.
	follower *follower

	// Counters for the tests' rare-path checks, added to by the workers
	// (retirements, and those that ran work of their own on the way out)
	// and by Resize (workers started by a grow). Loaded by tests.
	retirements     atomic.Uint64 // retire events (a worker woken and shrunk again before it served retires once)
	retiredWithJob  atomic.Uint64
	grownStarts     atomic.Uint64
	stoppedUnserved atomic.Uint64 // worker goroutines that Close stopped before they served
}

// initResizing sets the size state of a pool of n workers made with c.
func (p *Pool) initResizing(c *config, n int) {
	p.size.Store(int32(n))
	p.active.Store(int32(n))
	// Each worker holds memory for good (see Resize), so the default
	// bound is DefaultMaxWorkers, not what the sleep counters can track.
	p.maxWorkers = min(max(DefaultMaxWorkers, c.maxWorkers, n), sleep.MaxWorkers)
	if c.stealTiers != nil || c.place.requested() {
		p.maxWorkers = n
	}
	p.workerStart, p.workerExit = c.workerStart, c.workerExit
	if c.follow {
		p.follower = &follower{ticked: c.followHook, period: followPeriod}
		if c.followPeriod > 0 {
			p.follower.period = c.followPeriod
		}
		p.follower.seen.Store(int32(n))
	}
}

// Resize changes the number of active workers to n, and returns once the
// change is ordered, without waiting for the workers: new workers start,
// workers retired by an earlier shrink come back, and the workers above n
// retire as soon as each is idle on its own goroutine: each first finishes
// the task it runs, everything forked from it, and the work left in its
// own queue, so nothing accepted is lost or run twice. A retired worker
// keeps its index and its counters (Stats still counts what it did); a
// later grow brings it back. Workers returns n from then on.
//
// Resize may be called from any goroutine, a task of the pool included
// (even one on a worker it retires); concurrent calls take effect one at a
// time. n must be at least 1 and at most the pool's limit: DefaultMaxWorkers
// (10,000), or more for a pool made with more workers (WithWorkers) or a
// higher cap (WithMaxWorkers); New's worker count for a pool made with a
// placement or WithStealTiers, which are planned for those workers only.
// Otherwise Resize returns an error matching ErrBadSize and changes
// nothing. The limit is there because a worker, once made, keeps its memory
// until Close: with its goroutine's stack, about 10 KB while it has only
// run submitted tasks, about 22 KB once it has forked (measured on amd64),
// so 10,000 workers hold 100 to 220 MB; a pool that needs more says so
// with WithMaxWorkers. Growing a pool whose workers lock
// OS threads may fail with ErrThreadLimit, as New does. After Close or
// Shutdown began, Resize returns an error matching ErrClosed.
//
// A pool made without WithWorkers follows GOMAXPROCS by itself (see "Size"
// in the package documentation); Resize on it sets a size that holds until
// GOMAXPROCS changes from its value at the Resize, and the pool then follows
// GOMAXPROCS again. Workers the pool added while its workers
// were blocked (see "Blocking" there) stay on top of the new size and
// retire when they idle.
func (p *Pool) Resize(n int) error {
	if p == nil {
		panic("blitz: Pool.Resize: nil *Pool")
	}
	p.resizeMu.Lock()
	defer p.resizeMu.Unlock()
	if p.closeStarted.Load() {
		return fmt.Errorf("blitz: Pool.Resize: %w", ErrClosed)
	}
	if n < 1 || n > p.maxWorkers {
		return fmt.Errorf("blitz: Pool.Resize(%d): the worker count must be between 1 and %d, the pool's limit (see Pool.Resize): %w", n, p.maxWorkers, ErrBadSize)
	}
	if err := p.resizeLocked(n); err != nil {
		return err
	}
	if f := p.follower; f != nil {
		// This size holds until GOMAXPROCS changes from what it is now
		// (follow.go).
		f.seen.Store(int32(p.followSize()))
	}
	return nil
}

// resizeLocked is Resize under resizeMu, on an open pool, n in range: the
// size, and the active workers with it. The workers the monitor added for
// blocked ones stay on top of the new size: they serve work that waits
// behind blocked tasks, whatever the size, and retire when they idle
// (blocking.go).
func (p *Pool) resizeLocked(n int) error {
	size := int(p.size.Load())
	if n == size {
		return nil
	}
	extra := max(int(p.active.Load())-size, 0)
	if err := p.activate(min(n+extra, p.maxWorkers)); err != nil {
		return err
	}
	p.size.Store(int32(n))
	return nil
}

// activate changes the number of active workers to n (see Resizing): it
// starts new workers, wakes retired ones below n and kicks those above it.
// Under resizeMu, before stopping; n in [1, p.maxWorkers].
func (p *Pool) activate(n int) error {
	old := int(p.active.Load())
	if n == old {
		return nil
	}
	ws := p.workerList()
	made := len(ws)
	if n > made {
		var err error
		if ws, err = p.addWorkers(ws, n); err != nil {
			return err
		}
	}
	p.active.Store(int32(n))
	if n < old {
		for _, w := range ws[n:old] {
			w.kick()
		}
		return nil
	}
	for _, w := range ws[old:min(n, made)] {
		w.wakeDormant()
	}
	for _, w := range ws[made:max(made, n)] {
		p.grownStarts.Add(1)
		p.startWorker(w)
	}
	return nil
}

// addWorkers makes workers len(ws) to n-1 and publishes them, with their
// sleep states, and returns the new list. It starts none.
func (p *Pool) addWorkers(ws []*Worker, n int) ([]*Worker, error) {
	k := n - len(ws)
	if p.lockedThreads > 0 {
		if err := reserveThreads("Pool.Resize", k, p.backend.kind, false); err != nil {
			return nil, err
		}
	}
	grown := make([]*Worker, len(ws), n)
	copy(grown, ws)
	parkers := make([]sleep.Parker, 0, k)
	for i := len(ws); i < n; i++ {
		w := p.newWorker(i)
		w.seenSize = int32(n)
		w.stealable.Store(true)
		grown = append(grown, w)
		parkers = append(parkers, w.parker)
	}
	if _, err := p.sleep.Grow(parkers...); err != nil {
		if p.lockedThreads > 0 {
			releaseThreads(k)
		}
		return nil, err
	}
	if p.lockedThreads > 0 {
		p.lockedThreads += k
	}
	p.workers.Store(&grown)
	return grown, nil
}

// The one-worker shortcuts.
//
// A worker that no other worker serves beside pops its joins back without
// the Chase-Lev fence and CAS (deque.PopUnshared) and skips the sleep
// protocol on push (Worker.alone). That is only safe while no thief can
// touch its deque, so alone comes with stealable, which every thief loads
// before it steals (steal.go, wait.go), and both change only at the
// owner's safe points, in its idle loop before it runs a job
// (refreshAlone): there it has no pop in flight on its own goroutine, and
// a goroutine of its blocked in a call finds alone fresh when it pops.
//
// Going alone: the owner stores stealable false, then checks that every
// other worker has retired (Worker.retired, stored by each before it
// sleeps as retired and cleared before it serves again). A thief that
// loaded stealable true before that store was serving, so its retired flag
// was false and still is at the check, unless it retired since, after its
// steal; a worker coming back loads stealable after the store. Leaving
// alone (a grow): the owner clears alone, then stores stealable true; until
// its next safe point the new workers cannot take its jobs, which it runs
// itself.

// refreshAlone updates alone and stealable after a change of the pool's
// size; w's own goroutine calls it in its idle loop, before a job.
func (w *Worker) refreshAlone() {
	n := w.pool.active.Load()
	if n == w.seenSize && !w.alonePending {
		return
	}
	w.seenSize = n
	w.alonePending = false
	if n != 1 || w.index != 0 {
		if w.alone {
			w.alone = false
		}
		w.stealable.Store(true)
		return
	}
	if w.alone {
		return
	}
	w.stealable.Store(false)
	for _, o := range w.pool.workerList()[1:] {
		if !o.retired.Load() {
			w.alonePending = true // look again at the next job
			return
		}
	}
	w.alone = true
}

// retiring reports whether w is above the pool's active workers.
func (w *Worker) retiring() bool { return w.index >= int(w.pool.active.Load()) }

// kick makes w's idle loop return and look at the pool's size: Set its
// idle latch, and wake it if it sleeps on it.
func (w *Worker) kick() {
	if w.terminate.Set() {
		w.pool.sleep.NotifyWorkerLatchIsSet(w.index)
	}
}

// wakeDormant wakes w if it sleeps as a retired worker.
func (w *Worker) wakeDormant() {
	if w.dormant.Set() {
		w.pool.sleep.NotifyWorkerLatchIsSet(w.index)
	}
}

// life is the worker goroutine's loop: serve the pool, retire when the
// pool shrinks below the worker, come back when it grows, and return when
// Close stops the workers. hooked says whether the start hook ran on this
// goroutine without its exit hook since (Worker.hooked).
func (w *Worker) life() {
	p := w.pool
	for {
		if p.stopping.Load() {
			if !w.hooked {
				// Close came before the goroutine served (New, a grow
				// or a Goexit started it, or a grow brought it back):
				// it still runs its hooks, once each, as WithWorkerStart
				// and WithWorkerExit promise.
				p.stoppedUnserved.Add(1)
				w.startHook()
			}
			w.exitHook()
			return
		}
		if w.retiring() {
			w.retire()
			if !w.sleepDormant() {
				return
			}
			continue
		}
		w.startHook()
		w.serve(&w.terminate, waitTerminate)
		w.terminate.Reset() // then read stopping and size: see Resizing
		w.afterServe()
	}
}

// afterServe is what a worker does each time its idle loop returns: the
// requests that came meanwhile, and the drain check that serve skips when
// it returns straight after a job (a kick can end it there, and that job
// may have been the last one Close waits for): a full barrier between the
// worker's count of finished tasks and its load of closing (see the Pool's
// completion comment).
func (w *Worker) afterServe() {
	w.runRequests()
	atomics.SeqCstFence()
	w.pool.idleCheck()
}

// retire takes w out of service: it runs the jobs left in its own deque,
// re-posts injected work it may have been counted on for, and runs the exit
// hook.
func (w *Worker) retire() {
	p := w.pool
	w.startHook() // a replacement goroutine (Goexit) may retire before it served
	if w.runLeftovers() {
		p.retiredWithJob.Add(1)
	}
	w.afterServe()
	// The worker left the counters (serve's WorkFound, a full barrier)
	// before this load: see Resizing for the handshake.
	if p.inj.len() > 0 {
		p.sleep.NewInjectedJobsLazy(1, func() bool { return false })
	}
	p.retirements.Add(1)
	w.exitHook()
	w.retired.Store(true)
}

// runLeftovers runs the jobs left on w's own deque and in its run queue
// (retire, and a caller giving back a borrowed worker: borrow.go) and
// reports whether there were any.
func (w *Worker) runLeftovers() (ran bool) {
	for {
		if r, ok := w.deque.Pop(); ok {
			w.execute(work{ref: r})
		} else if t, ok := w.runq.pop(); ok {
			w.execute(t.work())
		} else {
			return ran
		}
		ran = true
	}
}

// sleepDormant sleeps until the pool grows back over w (true) or Close
// stops the workers (false).
func (w *Worker) sleepDormant() bool {
	p := w.pool
	for {
		rounds := 0
		for !w.dormant.Probe() {
			p.sleep.IsolatedNoWork(&rounds, w.index, &w.dormant)
		}
		w.dormant.Reset() // then read stopping and size
		if p.stopping.Load() {
			return false
		}
		if !w.retiring() {
			w.retired.Store(false)
			return true
		}
		if w.requests.pending() {
			// Posted while the pool had grown back over this worker,
			// which a shrink retired again before it served: it runs
			// them between its hooks, as it would have served them.
			w.startHook()
			w.runRequests()
			w.exitHook()
		}
	}
}

// startHook runs the pool's start hook for w unless it already ran on this
// goroutine since the last exit hook.
func (w *Worker) startHook() {
	if w.hooked {
		return
	}
	w.hooked = true
	if h := w.pool.workerStart; h != nil {
		w.callHook(h)
	}
	w.base = currentLabels() // the hook's, if it set some (labels.go)
}

// exitHook runs the pool's exit hook for w if the start hook ran on this
// goroutine since the last exit hook.
func (w *Worker) exitHook() {
	if !w.hooked {
		return
	}
	w.hooked = false
	if h := w.pool.workerExit; h != nil {
		w.callHook(h)
	}
}

// callHook calls a per-worker hook; a panic in it goes where a Go task's
// panic goes (the panic handler, or a crash without one), and the worker
// goes on. A Goexit in it crashes the program with a message saying so: the
// replacement goroutine would run the hook again, for ever.
func (w *Worker) callHook(h func(id int)) {
	ok := false
	defer func() {
		if !ok {
			pe := unwinding(recover())
			if pe == nil {
				panic(fmt.Sprintf("blitz: pool %q: a worker hook (WithWorkerStart, WithWorkerExit) called runtime.Goexit on worker %d", w.pool.name, w.index))
			}
			goJob(nil).finish(w, pe, false)
		}
	}()
	h(w.index)
	ok = true
}
