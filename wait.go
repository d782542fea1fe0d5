package blitz

import (
	"sync/atomic"

	"github.com/blitz-go/blitz/deque"
	"github.com/blitz-go/blitz/sleep"
)

// Why the pool cannot deadlock.
//
// A worker only blocks in the parking backend, and only through the sleep
// protocol, whose latch and jobs-event-counter handshake (package sleep)
// guarantees that whoever Sets the latch it sleeps on, or posts a job it
// could run, either sees it registered as sleeping and wakes it, or is seen
// by it before it parks. Every latch a worker waits on is Set by a job that
// was already published (a stolen frame, a spawned task, an injected job), and
// every published job is run by some worker: its owner pops it (joins pop
// their own second half, scopes run their tasks), or a thief stole it, or it
// sits in the injector, which every idle worker polls and which the final
// pre-sleep check re-reads after a SeqCst fence. A waiting worker that runs
// nothing else (an isolated wait with nothing to steal from its thief) waits
// only for work that is already running on another worker. Waits nest only
// downwards (a waiting worker runs other jobs on top of its stack), and a
// job never waits for a job pushed after it on the same worker, so there is
// no cycle. The exceptions are the misuses listed under "Locks around
// fork-join".

// Waits and work isolation.
//
// A worker waits in one of four places, and what it may run meanwhile
// depends on where:
//
//   - idle: the bottom of the worker goroutine (nothing of its own is
//     pending). It runs anything: its own deque, steals from every worker,
//     the injector. It is rayon-core's loop and takes part in the sleep
//     protocol's counters (StartLooking, NoWorkFound, WorkFound).
//   - waitJoin: the second half b of a join was stolen by a thief T. The
//     joiner runs only jobs that descend from b: it steals only from T
//     (leapfrogging), and only jobs T pushed while it was running b.
//   - waitScope: the body of a scope returned and spawned tasks are pending.
//     The owner pops its own deque (there, only the scope's tasks and their
//     descendants can be: see below) and steals only from workers that are
//     running a task of this scope, and only jobs they pushed meanwhile.
//   - waitCall: a call into another pool (Do from a task), or a wait for another
//     pool's Group, Sub slot or queue room. The caller's goroutine runs
//     nothing but the broadcast requests addressed to it: it sleeps as a
//     blocked worker that the pool replaces. At the pool's cap it lends
//     the worker to a new goroutine instead, which serves the pool as the
//     idle loop does until the call is done.
//
// This is work isolation, as in TBB's isolate and Wagner and Calder's
// leapfrogging: a job a waiting worker runs always belongs to the
// fork-join it waits for. Two things follow. A runtime.Goexit (or a mutex
// taken) in a job can only reach frames of the same fork-join, which it
// would reach anyway had the job run inline: a Goexit ends its own task
// and no other, and a task that holds a mutex around a Join or a Scope
// never finds, on its own goroutine, an unrelated task that takes the same
// mutex. Second, isolated waits must not look idle to the sleep protocol:
// a waiter that cannot take a posted job must not absorb the wake meant for
// one that can. They stay out of the counters and sleep on their own latch
// (sleep.IsolatedNoWork), woken by its Set, or nudged (sleep.Nudge) by the
// worker they may steal from when it pushes work after they asked for some
// (offer.go: askFrom).
//
// Why the sources are exactly right.
//
//  1. A worker steals only when its own deque is empty. The idle loop and
//     waitScope pop first; a joiner in waitJoin has an empty deque: its own
//     ref was stolen, and Chase-Lev thieves take the oldest element first,
//     so everything below that ref was stolen before it. Nor has it a lazy
//     frame below the awaited one (offer.go): offering the awaited half
//     offered every older lazy half, so no older job of its own is left
//     out of the deque to run on top of the wait. Likewise in
//     waitScope, anything below the scope's tasks in the owner's deque
//     (say the second half of an enclosing join) is stolen before any task
//     of the scope can be, so while it is there no task of the scope runs
//     elsewhere, the owner runs them all itself, and the scope is done
//     before its wait would pop it.
//  2. So when T starts a job it stole, its deque is empty, and until that
//     job returns every element T pushes descends from it (T's own waits
//     are isolated too). Once it returns, T signals the job's waiter (the
//     frame's latch Set, or its scope mark cleared) before it pushes
//     anything else. What it pushed may outlive it only in one case: a
//     scope's task leaves the tasks it spawned in T's deque. They belong
//     to that scope, which descends from whatever T's own wait awaits
//     (T took the task under that wait's rules), and nobody else may
//     take them once the mark is cleared, so every wait, waitJoin too,
//     pops its own deque before it steals.
//     Exception: while T waits on a call into another pool at its pool's
//     cap, it is lent to a goroutine that serves the pool (waitCall; below
//     the cap it blocks and pushes nothing), and what that goroutine pushes
//     descends from nothing T was running; T says so (Worker.lent, and its
//     scope mark cleared) and waiters stay off until it is back.
//  3. The waiter's steal is deque.StealIf: it reads top, bottom and the
//     element, checks that the signal has not happened, and only then
//     claims the element. If the claim succeeds, the bottom it read was
//     published by the push of that element or a later one, so an element
//     pushed after the signal would have made the check fail. What it takes
//     was pushed before the signal: it descends from the awaited job.
//
// Leapfrogging costs some balance: a joiner does not help a third worker
// that stole from its thief, and a scope's owner helps only the workers
// running a task of its scope. Those jobs still run, on their owners and
// on idle workers; only the waiter stays out.

// An isolated wait: a worker waits for work it forked that other workers
// took, the stolen half of a join (waitJoin) or the tasks of a scope
// (waitScope), and meanwhile runs only work that descends from what it
// waits for, so that it returns as soon as that work is done and never
// runs an unrelated job that could hold it there (the isolation rule; a
// lock held around a Join is safe). It runs its own deque's jobs (it was
// empty when the wait began: what is there now was pushed by jobs it ran
// while waiting, and descends from the awaited work; a scope's task stolen
// from a thief leaves the tasks it spawned in this deque when it returns,
// and nobody else may take them), then steals from src, the workers that
// run the awaited work. With nothing to run it sleeps progressively on l,
// which the last of the awaited work Sets.

// isolatedSource is where an isolated wait may steal: a frame (the thief of
// its half) or a scope (the workers running its tasks). stealFor returns a
// job for w to run, or reports retry when it lost a race for one (the wait
// tries again at once).
type isolatedSource interface {
	stealFor(w *Worker) (r jobRef, ok, retry bool)
}

// waitIsolated waits, as the top of this part tells, until l is Set.
func (w *Worker) waitIsolated(l *sleep.CoreLatch, kind waitKind, src isolatedSource) {
	outer := w.waitKind
	w.setWaitKind(kind)
	s := w.pool.sleep
	rounds := 0
	for !l.Probe() {
		if w.requests.pending() {
			w.runLent((*Worker).runRequests) // off the waiting goroutine: broadcast.go
			rounds = 0
			continue // as serve does: a Poke may have been absorbed meanwhile
		}
		if r, ok := w.deque.Pop(); ok {
			w.execute(work{ref: r})
			rounds = 0
			continue
		}
		r, ok, retry := src.stealFor(w)
		if ok {
			w.execute(work{ref: r})
			rounds = 0
			continue
		}
		if retry {
			continue
		}
		s.IsolatedNoWork(&rounds, w.index, l)
	}
	w.setWaitKind(outer)
}

// waitScope waits until every task of st has finished (waitIsolated).
func (w *Worker) waitScope(st *scopeState) { w.waitIsolated(&st.latch, waitScope, st) }

// stealFor steals for w a job from a worker that runs a task of st, pushed
// while it runs it. A lost race (Retry) moves on to the next worker; a
// worker whose deque is empty is asked to offer its next job.
func (st *scopeState) stealFor(w *Worker) (jobRef, bool, bool) {
	workers := w.pool.workerList()
	n := len(workers)
	start := int(w.nextRand() % uint64(n))
	for i := 0; i < n; i++ {
		v := workers[(start+i)%n]
		if v == w || v.scope.Load() != st {
			continue
		}
		r, res := v.deque.StealIf(func() bool { return v.scope.Load() == st && v.stealable.Load() })
		switch res {
		case deque.Success:
			w.stats.bump(&w.stats.steals)
			return r, true, false
		case deque.Empty:
			v.askFrom(w)
		}
	}
	return 0, false, false
}

// waitCall waits until l is Set by a call this worker made into another
// pool (or by a slot or room it waits for), and reports whether stop closed
// first. Pools that call each other, in any direction and nesting, never
// deadlock for want of a worker: the caller's pool goes on serving while
// it waits, in one of two ways.
//
// Blocked and replaced (blockCall): the worker blocks, as a task blocked
// on a channel would, and the pool adds a worker in its place at once
// unless one sleeps (Block, blocking.go); the monitor retires it once the
// pool idles. The caller resumes the moment its call is done, on its own
// goroutine, whatever the pool ran meanwhile: a call's outcome never waits
// for unrelated work. This is the rule.
//
// Lent (lendCall), where the pool cannot add a worker (at its cap,
// WithMaxWorkers, or out of threads): the worker is lent to a new goroutine,
// which runs serve until l is Set and then hands the worker back. What it
// runs cannot unwind the caller, and a Goexit there ends only the lent
// goroutine (another one takes over the loan); but the caller resumes only
// once the lent goroutine finishes the job it runs, which may itself wait
// for a call that waits for the caller (the deadlocks doc.go lists for
// pools at their cap).
//
// If stop is closed before l is Set, the caller Sets l itself, which the
// call's job will Set again when it finishes (a second Set changes nothing
// and wakes nobody), and reports true once it has its worker back. A nil
// stop never closes.
func (w *Worker) waitCall(l *sleep.CoreLatch, stop <-chan struct{}) (stopped bool) {
	if l.Probe() {
		return false
	}
	if lendCalls.Load() || !w.replaceForCall() {
		return w.lendCall(l, stop)
	}
	defer w.unblock()
	return w.blockCall(l, stop)
}

// unblock ends what a successful replaceForCall counted.
func (w *Worker) unblock() {
	w.pool.blockedNow.Add(-1)
	w.blocking.Add(-1)
}

// lendCalls makes every waitCall lend its worker (tests and benchmarks
// compare the two ways).
var lendCalls atomic.Bool

// replaceForCall prepares w to block in a call: it counts w blocking
// (Worker.blocking: the monitor leaves it out; Pool.blockedNow), offers its
// lazy halves and makes its deque stealable, and adds a worker in its place
// unless one sleeps or the workers not blocked are as many as the pool's
// size already (Go's rule for Ps: as many running as GOMAXPROCS, however
// many are blocked; a fork-join whose leaves call into another pool would
// otherwise add a worker at every call, hundreds per tree). It reports
// false, with nothing changed but the offers, where a worker was needed
// and none could be added. unblock undoes the counts.
func (w *Worker) replaceForCall() bool {
	p := w.pool
	w.offerBeforePush() // the halves w will not get to, for the others
	w.blocking.Add(1)
	blocked := int(p.blockedNow.Add(1))
	if !p.sleep.HasSleepers() && int(p.active.Load())-blocked < int(p.size.Load()) {
		p.resizeMu.Lock()
		added, needed := 0, false
		if active := int(p.active.Load()); active-int(p.blockedNow.Load()) < int(p.size.Load()) {
			needed = true
			if !p.stopping.Load() && active < p.monitor.maxActive {
				added = p.addForBlocked(1, -1)
			}
		}
		p.resizeMu.Unlock()
		if needed && added == 0 {
			w.unblock()
			return false
		}
		if added > 0 {
			p.woke() // the monitor retires the worker later
		}
	}
	// A safe point (resize.go): w has no pop in flight, and a worker alone
	// until now gets company, who must be able to steal what w holds. Its
	// pushes while alone posted nothing to the sleep protocol: post them
	// now, or the worker added, having searched before the deque became
	// stealable, could sleep through them.
	wasAlone := w.alone
	w.refreshAlone()
	if wasAlone && !w.alone {
		if n := w.deque.Len(); n > 0 {
			p.sleep.NewInternalJobs(n, false)
		}
	}
	return true
}

// blockCall is waitCall's blocked way: w sleeps on l outside the sleep
// protocol's counters (sleep.IsolatedNoWork), running only the broadcast
// requests addressed to it, on a goroutine it lends itself to (broadcast.go).
// A stop watcher, if any, Sets l when stop closes.
func (w *Worker) blockCall(l *sleep.CoreLatch, stop <-chan struct{}) (stopped bool) {
	// gaveUp: stored true by the stop watcher before its Set of l (a
	// sequentially consistent swap); loaded by the waiter after its Probe
	// saw l Set, so a Set by the watcher is seen with its mark.
	var gaveUp atomic.Bool
	if stop != nil {
		quit := make(chan struct{})
		defer close(quit)
		s, idx := w.pool.sleep, w.index
		go func() {
			select {
			case <-stop:
				if !l.Probe() {
					gaveUp.Store(true)
					if l.Set() {
						s.NotifyWorkerLatchIsSet(idx)
					}
				}
			case <-quit:
			}
		}()
	}
	outer := w.waitKind
	w.setWaitKind(waitCall)
	s := w.pool.sleep
	rounds := 0
	for !l.Probe() {
		if w.requests.pending() {
			w.runLent((*Worker).runRequests) // off the waiting goroutine: broadcast.go
			rounds = 0
			continue
		}
		s.IsolatedNoWork(&rounds, w.index, l)
	}
	w.setWaitKind(outer)
	return gaveUp.Load()
}

// lendCall is waitCall's lent way (see waitCall).
func (w *Worker) lendCall(l *sleep.CoreLatch, stop <-chan struct{}) (stopped bool) {
	outer, d := w.waitKind, w.depth
	// While lent, the worker pushes jobs that descend from nothing its
	// own goroutine runs: no waiter may take them as its own. Its scope
	// mark is cleared, and lent tells joiners stealing from it
	// (waitJoin) to stay off. Both are restored once it is back, when
	// everything the loan pushed has been run.
	scope := w.scope.Swap(nil)
	w.offerBeforePush() // the lent goroutine may run them (offer.go)
	w.lent.Add(1)
	back := make(chan struct{})
	w.pool.wg.Add(1)
	go w.lend(l, back)
	select {
	case <-back:
	case <-stop:
		if !l.Probe() {
			stopped = true
			if l.Set() {
				w.pool.sleep.NotifyWorkerLatchIsSet(w.index)
			}
		}
		<-back
	}
	w.lent.Add(^uint32(0))
	w.scope.Store(scope)
	w.setWaitKind(outer)
	w.depth = d
	return stopped
}

// lend is the body of a goroutine the worker is lent to while its own
// goroutine waits in waitCall (which made back). A Goexit in a task it runs
// ends it; its deferred call then lends the worker to a new goroutine, which
// goes on.
func (w *Worker) lend(l *sleep.CoreLatch, back chan struct{}) {
	p := w.pool
	done := false
	defer func() {
		running.Clear() // before the goroutine ends (current.go)
		if !done {
			p.respawns.Add(1)
			go w.lend(l, back)
			return
		}
		p.wg.Done()
	}()
	running.Set(w)
	w.serve(l, waitCall)
	done = true
	close(back)
}

// Block runs fn, a call that will block (a database or RPC call, a file, a
// lock, a channel, another task), on the calling task's goroutine, after
// making sure that the pool goes on serving meanwhile: when no worker of
// w's pool sleeps and fewer workers than the pool's size are left that are
// not blocked, it adds one at once, within the pool's cap (WithMaxWorkers),
// so the work queued behind the call does not wait for the monitor to
// notice that w is blocked. The worker added retires once
// the pool is idle again. fn's panic and Goexit go on as if fn had been
// called directly. Pools find blocked workers by themselves (see
// "Blocking" in the package documentation): Block only saves the delay.
//
// A nil fn panics.
func (w *Worker) Block(fn func()) {
	if w == nil {
		panic("blitz: Worker.Block: nil *Worker")
	}
	if fn == nil {
		panic("blitz: Worker.Block: nil function")
	}
	// As a call into another pool waits (wait.go: replaceForCall): w's
	// lazy join halves offered, its deque stealable, a worker added.
	if w.replaceForCall() {
		defer w.unblock()
	}
	fn()
}

// Block runs fn, a call that will block, as Worker.Block does when the
// calling goroutine runs a task of a pool, and calls fn directly otherwise:
// code deep in a library, which has no *Worker at hand, can mark its
// blocking calls. A nil fn panics.
func Block(fn func()) {
	if fn == nil {
		panic("blitz: Block: nil function")
	}
	if w := currentWorker(); w != nil {
		w.Block(fn)
		return
	}
	fn()
}
