package blitz

// The worker's loop.
//
// A worker is one goroutine running run, and this file is that goroutine's
// life read top to bottom, as rayon-core's registry.rs reads (main_loop,
// wait_until) or the Go runtime's schedule and findRunnable:
//
//   - run starts the worker (its pin and start hook) and runs life until
//     Close; a Goexit in a task ends the goroutine, and run starts another
//     that goes on with the same worker.
//   - life alternates serve, the idle loop, with retirement: a worker above
//     the pool's active size (Resize, or one the monitor added and no
//     longer needs) runs what it still holds, then sleeps dormant until
//     Resize wakes it or Close ends it.
//   - serve waits on a latch (the worker's terminate latch when idle; a
//     join's, a scope's or a call's when a task waits: wait.go), and until
//     it is Set finds work (findWork: its own deque and run queue, then
//     thieves' victims (steal.go), then the injector, in batches: batch.go)
//     and executes it, or sleeps through the sleep protocol.
//   - execute runs one job by the kind of its jobRef (job.go): a join's
//     second half (frame.go), a scope's task (scope.go) or a submitted task
//     (runTask), each under its context record and labels (taskctx.go).
//
// The loop calls into a few features at fixed points: the monitor's and
// the follower's wake mark (Pool.woke), the pool's size (refreshAlone,
// retiring), the placement (pinSelf) and the offer of lazy join halves
// (nudgeAsker). Others reach it through the worker's state (state.go) and
// two seams: the requests mailbox (Broadcast posts a function that the
// idle loop runs: runRequests) and the hooks of the pool's options.

import (
	"fmt"
	"log"
	"runtime"
	"time"

	"github.com/blitz-go/blitz/atomics"
	"github.com/blitz-go/blitz/sleep"
)

// run is the body of a worker goroutine.
func (w *Worker) run() {
	p := w.pool
	normal := false
	defer func() {
		if !normal {
			w.exitHook() // still on the worker's goroutine: before Clear
		}
		running.Clear() // before the goroutine ends (current.go)
		if !normal {
			// A task called runtime.Goexit (a panic on a worker only
			// gets here to crash the program). Deferred joins and
			// scopes on the way up have completed their waits, so the
			// worker's deque and frames are consistent: hand the same
			// worker to a new goroutine, which runs the start hook
			// again after this one's exit hook.
			p.respawns.Add(1)
			// The jobs the Goexit unwound never counted finished: the
			// worker starts again between jobs (blocking.go).
			w.stats.add(&w.stats.finished, w.stats.executed+w.stats.callerRuns-w.stats.finished)
			p.startWorker(w)
		}
		p.workerExited()
	}()
	if p.backend.lockThread {
		// Unlocked at the end only where neither a placement nor a start
		// hook may have set the thread up (below).
		runtime.LockOSThread()
	}
	w.pinSelf() // with a placement: locks the thread (again) and pins it, for good
	running.Set(w)
	clearLabels() // a go statement gave it its creator's (taskctx.go)
	w.life()
	if p.backend.lockThread && p.place == nil && p.workerStart == nil {
		// Nothing changed the thread: it goes back to the runtime, which
		// keeps it for other goroutines, as a plain goroutine's thread
		// does. Left locked, it would end with the goroutine, and an OS
		// thread's exit cost Close 0.15-0.45 ms per worker. A pinned
		// thread is never unlocked, so that its CPU mask never reaches
		// another goroutine, nor one whose start hook (WithWorkerStart)
		// may have set it up. Nor is one a task locked itself and left
		// locked: the locks nest, and it still ends with the goroutine,
		// as the runtime ends a goroutine's thread.
		runtime.UnlockOSThread()
	}
	normal = true
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
		w.terminate.Reset() // then read stopping and size: see Resizing (resize.go)
		w.afterServe()
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
	w.base = currentLabels() // the hook's, if it set some (taskctx.go)
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
			reportTaskPanic(w, pe) // as a Go task's panic
		}
	}()
	h(w.index)
	ok = true
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

// serve runs any work until l is Set, and sleeps through the sleep protocol
// when there is none (rayon-core's loop). It never spins or yields forever:
// after the sleep package's idle rounds the worker parks. It runs at the
// bottom of a goroutine, where no frame of the worker waits: the worker's
// own goroutine (idle) or one it is lent to (waitCall).
func (w *Worker) serve(l *sleep.CoreLatch, kind waitKind) {
	if l.Probe() {
		return
	}
	w.setWaitKind(kind)
	s := w.pool.sleep
	idle := s.StartLooking(w.index)
	w.pool.idleCheck()
	for !l.Probe() {
		if w.requests.pending() {
			// Then look at the latch and the box again: a request posted
			// while these ran may have had its Poke absorbed by a wait
			// inside them (a nested Broadcast's blockCall), and the idle
			// state may be sleepy already, so that nothing else would
			// look before the worker parks.
			w.runRequests()
			continue
		}
		if wk, ok := w.findWork(); ok {
			added := w.index >= int(w.pool.size.Load())
			if added && !wk.stolen {
				s.WorkFoundAlone(w.pool.hasInjectedJobs) // an added worker: see below
			} else {
				s.WorkFound()
			}
			w.pool.woke() // four loads (follow.go, blocking.go)
			// Run whatever else is there before counting this worker
			// idle again. rayon-core re-enters the inactive count after
			// every job; under a stream of submitted tasks that is two
			// writes per task to the counters word every poster reads.
			// A worker between two found jobs is busy in all but name:
			// not counting it idle can only make a poster wake a
			// sleeper it did not need (awake-but-idle is understated),
			// never miss one, and the sleepy/sleeping steps are
			// untouched.
			for {
				w.handedOff, w.shared = handoffNone, false // set by the job (handoffRounds)
				w.refreshAlone()                           // a load
				w.execute(wk)
				if l.Probe() {
					break
				}
				if w.requests.pending() {
					w.runRequests()
				}
				if added {
					break // searches sleepy, below
				}
				if wk, ok = w.findWork(); !ok {
					break
				}
			}
			idle = s.StartLooking(w.index)
			if added {
				// A worker added for blocked ones (blocking.go) parks
				// at once: thousands of them yielding through their
				// idle rounds after a burst would take the CPUs from
				// the tasks they were added for. It announces itself
				// sleepy before it searches, so that one search, not
				// three, separates its task from its sleep: with
				// thousands of workers a search is dozens of cache
				// misses, and three counter updates cost less. When it
				// takes a submitted task from the injector it wakes
				// one sleeper at most, as the last idle worker awake
				// with more tasks waiting (WorkFoundAlone): each task
				// was posted with a wake of its own unless the poster
				// counted on the idle workers, and two wakes per task
				// set thousands of sleepers searching for nothing. A
				// job it stole wakes two as usual: the queue it came
				// from, a blocked worker's, may hold more.
				s.SleepyNow(&idle)
			} else if w.handedOff != handoffNone && !w.shared {
				rounds := handoffRounds
				if w.handedOff == handoffToBorrower {
					rounds = 0
				}
				s.ShortenRounds(&idle, rounds)
			}
			w.pool.idleCheck() // after StartLooking's full barrier
			continue
		}
		if (w.index >= int(w.pool.size.Load()) || kind == waitTerminate && s.AwakeIdle() > int(w.pool.procs.Load())) && s.SleepyNow(&idle) {
			// An added worker woken for nothing, or, in the idle loop,
			// one of more idle workers awake than CPUs: once more,
			// then sleep. (Not a goroutine the worker is lent to in a
			// call, waitCall: there it left a cycle of one-worker pools
			// calling each other asleep with work behind a waiting
			// worker, TestGroupsAcrossPoolsInACycle.) Only
			// GOMAXPROCS of them run at once, so more searching finds
			// nothing sooner, and thousands of workers yielding in
			// turn to each other cost each one its stack and state
			// out of the caches at every round (Go's scheduler keeps
			// at most half its busy Ps spinning).
			continue
		}
		s.NoWorkFound(&idle, l, w.pool.hasInjectedJobs)
	}
	s.WorkFound()
}

// runRequests runs the requests in w's box.
func (w *Worker) runRequests() {
	for _, r := range w.requests.take() {
		r(w)
	}
}

// handoffRounds is the number of idle rounds (sleep.Sleep.ShortenRounds) a
// worker yields before it gets sleepy, in place of the configured count, when
// the last job it ran handed its result to a goroutine waiting outside the
// pool (Run, Do, DoContext, TryDo: callJob.finish sets Worker.handedOff) and
// shared no work with other workers on the way (no push, no offer:
// Worker.shared). Only for backends that park goroutines: a worker locked
// to its thread hands its P over anyway (callJob.finish), and its wake is
// a futex syscall that yielding saves.
//
// The signal on the caller's done channel made the caller runnable on this
// worker's P, next in line. A worker that goes on yielding through its idle
// rounds (runtime.Gosched puts it on the global run queue) makes the caller
// and the worker trade Ps through that queue: the execution trace of
// back-to-back round trips on two Ps shows more than one goroutine move
// between Ps per round trip, and none for a bare hand-off. A worker that
// parks instead is woken by the caller's next submission the way a bare
// `go f()` starts: the caller's unpark puts it on the caller's own P, where
// it runs as soon as the caller blocks on its result
// (bench/results/server-handoff-amd64.txt).
//
// After a Run or Do in a pool whose calls may run on their callers
// (WithCallerRuns), the rounds are none: the worker gets sleepy at once,
// searches once more and parks, without yielding, so that it is asleep
// before the caller runs again, even on one P, and the caller's next Run or
// Do borrows it (route.go): no hand-off and no wake at all. Where the next
// call cannot borrow (DoContext, TryDo, or a pool without caller runs) that
// would only make every next call pay a wake, which a yielding worker saves
// at GOMAXPROCS=1 (bench/results/caller-runs-amd64.txt).
//
// Other jobs keep the full rounds: after a join half or a fire-and-forget
// task more work tends to come from workers and producers that are still
// running, and a yielding worker takes it without anybody paying a wake.
// So does a call whose task forked (a data-parallel call): the caller's next
// call forks again, and if another worker, still yielding, takes it, its
// fork must wake this one from a running goroutine. That wake leaves the
// woken worker on the waker's P, which another P takes from only after a
// pause (the runtime's runnext steal, slowed further by Linux's timer
// slack): parking after such calls made back-to-back searches on two
// workers several times slower (the same file).
const handoffRounds = 1

const (
	handoffNone       handoff = iota // nobody outside the pool: the full rounds
	handoffToCaller                  // a caller whose next call is handed off too: handoffRounds
	handoffToBorrower                // a Run or Do caller whose next call may borrow this worker: no rounds
)

// findWork looks for a job: the worker's own deque (LIFO, the newest and
// cache-warmest job) and run queue (its batch of submitted tasks), then the
// other workers' deques (FIFO steals, the oldest and usually largest jobs)
// and run queues (half of one), then the injector (a batch of its tasks
// where batchable: batch.go). In a pool that outgrew its sweep the injector
// comes before the other workers, one task at a time.
func (w *Worker) findWork() (work, bool) {
	if r, ok := w.deque.Pop(); ok { // Pop skips the fence on an empty deque
		return work{ref: r}, true
	}
	if !w.runq.empty() {
		if t, ok := w.runq.pop(); ok {
			return t.work(), true
		}
	}
	sampled := w.victims(w.pool.workerList())-1 > int(w.pool.sweep.Load())
	if sampled {
		// A pool too large for one pass to see every victim (steal.go:
		// the sweep) grew for blocked workers: most of its deques are
		// empty, and the injector holds the submitted tasks in one
		// place, so it is looked at first, as Go's findRunnable looks at
		// the global run queue before it steals.
		if t, ok := w.pool.inj.pop(); ok {
			return t.work(), true
		}
	}
	if r, ok := w.steal(); ok {
		return work{ref: r, stolen: true}, true
	}
	if !w.alone { // alone, nobody else holds a run queue (retire empties its own)
		batch := w.batchable()
		if wk, ok := w.stealRunq(batch); ok {
			return wk, true
		}
		if batch {
			return w.takeBatch()
		}
	}
	if !sampled {
		if t, ok := w.pool.inj.pop(); ok {
			return t.work(), true
		}
	}
	return work{}, false
}

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

// reportTaskPanic is goJob.finish for any task whose panic nobody waits
// for: it goes to the panic handler, or crashes the program; nil does
// nothing.
func reportTaskPanic(w *Worker, pe *PanicError) {
	if pe == nil {
		return
	}
	if h := w.pool.panicHandler; h != nil {
		callHandler(w.pool, h, pe)
	} else {
		go crash(pe)
	}
}

// callHandler gives a task's panic to p's handler h. A panic in the handler
// itself must not unwind into the joins this worker may be helping (which
// would report it as theirs), and a server's pool must not die of it: it is
// recovered here, counted (Stats.HandlerPanics) and written to the standard
// logger with its stack and the task's panic it was handling, which would
// otherwise be lost too (WithPanicHandler). A Goexit in the handler goes
// on, as a Goexit in the task would (runTask still counts the task).
func callHandler(p *Pool, h func(any, []byte), pe *PanicError) {
	ok := false
	defer func() {
		if !ok {
			if hpe := unwinding(recover()); hpe != nil {
				p.handlerPanics.Add(1)
				log.Printf("blitz: pool %q: the panic handler panicked: %v\n%s\nwhile handling the panic of a task: %v\n%s",
					p.name, hpe.Value, hpe.Stack, pe.Value, pe.Stack)
			}
		}
	}()
	h(pe.Value, pe.Stack)
	ok = true
}

// crash ends the program with an unrecovered panic.
func crash(pe *PanicError) { panic(pe) }

// push publishes a ref on the worker's deque and tells the sleep protocol
// (which wakes a sleeper only if no idle worker can take it). A pool of one
// worker skips the sleep protocol: the only worker is the one pushing, so
// there is nobody to wake and nobody sleepy to notice the job.
func (w *Worker) push(r jobRef) {
	w.shared = true
	if w.alone {
		w.deque.Push(r)
		return
	}
	wasEmpty := w.deque.IsEmpty()
	if !w.deque.TryPush(r) {
		w.deque.Push(r)
	}
	w.pool.sleep.NewInternalJobs(1, wasEmpty)
	w.nudgeAsker()
}

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
	// before this load: see Resizing (resize.go) for the handshake.
	if p.inj.len() > 0 {
		p.sleep.NewInjectedJobsLazy(1, func() bool { return false })
	}
	p.retirements.Add(1)
	w.exitHook()
	w.retired.Store(true)
}

// runLeftovers runs the jobs left on w's own deque and in its run queue
// (retire, and a caller giving back a borrowed worker: route.go) and
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

// runLent runs f on w on a new goroutine that the worker is lent to while
// the calling goroutine, the one running w, waits for it: what f does to its
// goroutine (a Goexit) ends that goroutine, not the caller's. f runs on
// behalf of the caller's task, so unlike waitCall's loan it is not marked
// lent: joiners may steal what it pushes.
func (w *Worker) runLent(f func(w *Worker)) {
	back := make(chan struct{})
	go func() {
		defer func() {
			running.Clear() // before the goroutine ends (current.go)
			close(back)
		}()
		running.Set(w)
		f(w)
	}()
	<-back
}
