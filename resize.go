package blitz

import (
	"fmt"

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
