package blitz

import (
	"runtime"
	"sync/atomic"

	"github.com/blitz-go/blitz/atomics"
	"github.com/blitz-go/blitz/deque"
	"github.com/blitz-go/blitz/sleep"
)

// A Worker is one of a pool's workers, handed to every function the pool
// runs. Go has no thread-local storage, so fork-join code passes the Worker
// it was given to Join, Scope and package par's functions (as Spice passes
// its *Task).
// A method called on a nil *Worker, and Join or JoinArgs given one, panics
// with a message that names it ("blitz: Worker.Join: nil *Worker").
//
// A Worker belongs to the goroutine it was handed to, for the duration of the
// call it was handed in: using it from another goroutine, or after that call
// returned, is a programmer error that corrupts the worker's deque and join
// depth. The usual way to make it is a closure that captures the outer
// worker: in Join(w, a, b), b may run on another worker, so b must use the
// *Worker it receives, never the w of the enclosing function. Like a data
// race on a map, the misuse is not detected in normal builds; the race
// detector reports it (both goroutines write the worker's fields).
//
// One misuse is always detected: a Worker kept past its task and used once
// its pool has shut down (after Close or Shutdown returned nil), when the
// pool has released what its workers ran work with. Join, JoinArgs, Join3,
// JoinAll, Worker.Join, Worker.Scope, Do, DoContext and TryDo given such a
// Worker (and so the par functions) panic with a message that says so;
// Index, Pool, Context and Block still answer.
type Worker struct {
	_ atomics.Pad

	// Immutable after New (but for deque, dropped by Pool.release once
	// every worker goroutine of a closed pool has exited); read by the
	// owner and by thieves (deque, index) and Stats. Kept off the owner's
	// hot line below, so that a thief polling this worker's deque does not
	// steal the line the owner writes on every join.
	pool  *Pool
	index int
	deque *deque.Deque[jobRef] // Push/Pop by the owner, Steal by any worker
	tiers [][]int              // steal victims, nearest tier first
	cpu   int                  // the CPU the placement chose, -1 for none (placement.go)
	// parker is the worker's parking primitive, handed to the sleep
	// protocol when the worker is made (New, Resize); guest is the one a
	// goroutine that borrowed the worker parks on (borrow.go), nil in a
	// pool that never lends its workers to callers.
	parker, guest sleep.Parker

	// stealable says whether thieves may take jobs from this worker's
	// deque: false only while the worker is alone (below). Stored by the
	// owner (refreshAlone, resize.go) at points where it has no pop in
	// flight, and by New before the worker starts; loaded by every thief
	// before it touches the deque. sync/atomic, sequentially consistent.
	stealable atomic.Bool

	_ atomics.Pad

	// Owner-only fields: written and read by the worker goroutine alone
	// (the goroutine that currently runs this worker).
	depth   uint32 // join depth: frames[0:depth] are in use or skipped (join.go: the depth protocol)
	lazyLow uint32 // no frame below this depth is lazy (offer.go)
	rng     uint64 // xorshift64* state for random victims
	// waitKind is what the innermost wait (wait.go) waits for: written
	// by the worker's runner (setWaitKind, a release store), loaded
	// atomically by countingParker.Park, which the worker's own goroutine
	// may call while a borrower runs as the worker (borrow.go).
	waitKind  waitKind
	handedOff handoff // whom the idle loop's last job woke outside the pool (handoffRounds, wait.go)
	shared    bool    // the idle loop's last job pushed or offered work (handoffRounds)
	hooked    bool    // the start hook ran on this goroutine, the exit hook not since (resize.go)
	// alone: no other worker serves the pool (it has one worker, or every
	// other one retired), so the worker's pops need no fence and its
	// pushes wake nobody. Changed only by refreshAlone (resize.go).
	alone bool
	// seenSize is the pool size refreshAlone last acted on, and
	// alonePending says that it still waits for the others to retire.
	seenSize     int32
	alonePending bool

	// groupTask is the innermost Group task this worker is running, nil for
	// none; the tasks below it are linked through groupTask.below
	// (group.go). Owner-only.
	groupTask *groupTask

	// lastScope is the *Scope this worker last handed to a function of a
	// scope (scopeFor), reused for the next function of the same scope.
	lastScope *Scope

	// scope is the scope whose spawned task this worker runs for another
	// worker (the scope's owner), nil when it runs none. Written by the
	// worker goroutine around each such task (runSpawn, job.go), loaded
	// by the scope's owner while it waits (waitScope), which steals only
	// from workers that run a task of its scope.
	scope atomic.Pointer[scopeState]

	// lent counts the loans in progress of this worker to goroutines that
	// serve the pool while its own goroutine waits on a call into another
	// pool (waitCall): nested calls nest loans. Changed by the goroutine
	// that lends the worker, before the loan starts and after it ended;
	// loaded by joiners stealing from this worker (waitJoin), which take
	// nothing while it is not 0.
	lent atomic.Uint32

	// terminate is Set by Close after the pool drained, and by Resize and
	// Broadcast to make the idle loop look at the pool's size and the
	// worker's requests (resize.go: the kick); the idle loop returns when
	// it observes it. Set wakes the worker if it sleeps on it.
	terminate sleep.CoreLatch

	// dormant is the latch a retired worker sleeps on until Resize brings
	// it back or Close ends it (resize.go).
	dormant sleep.CoreLatch

	// retired is true from when the worker retired until it serves again
	// (resize.go). Stored by the worker goroutine, loaded by tests.
	// sync/atomic.
	retired atomic.Bool

	// blocking counts the calls of Block in progress on this worker's
	// goroutine (blocking.go): while it is not 0 the monitor leaves the
	// worker out of its counts. Changed by the goroutine running the worker
	// around each Block call, loaded by the monitor. sync/atomic.
	blocking atomic.Int32

	// requests are the Broadcast calls addressed to this worker
	// (broadcast.go).
	requests requestBox

	// pin is the outcome of the worker goroutine's pin attempt (nil until
	// the first goroutine made it; placement.go). Stored by the worker
	// goroutine when it starts (a replacement after Goexit stores its
	// own), loaded by Pool.Stats; sync/atomic orders the result's fields.
	pin atomic.Pointer[pinResult]

	stats workerStats

	// roots counts the submitted tasks this worker finished (or skipped
	// as withdrawn). Written by the worker goroutine alone with release
	// stores of the incremented value; loaded with acquire loads by Close,
	// Shutdown, Stats and other workers' drain checks. Why a plain store
	// is enough for Close: the Pool's completion comment (pool.go).
	roots uint64

	// metrics are the worker's task counters and latency histograms
	// (metrics.go), written by the worker goroutine alone.
	metrics taskMetrics

	_ atomics.Pad

	// wanted is 1 while another worker has asked this one for work
	// (offer.go: ask) and it has not offered its lazy join halves since.
	// Set by thieves that found this worker's deque empty, loaded by the
	// owner at every fork of a join deep enough to be lazy, cleared by the
	// owner when it offers (offerPending). A hint: nothing is ordered by
	// it, so a stale value costs an early offer or a late one, never a
	// job. On a line of its own, so that thieves polling it do not touch
	// the owner's hot line and the owner's load stays a hit until a thief
	// writes. sync/atomic.
	wanted atomic.Uint32

	// asker is 1 + the index of a worker in an isolated wait that steals
	// only from this one (waitJoin: its thief; waitScope: a runner of its
	// scope's task) and found its deque empty; 0 for none. Set by that
	// waiter (askFrom), swapped to 0 by the owner after it pushed work,
	// which then nudges the waiter out of its latch sleep (sleep.Nudge):
	// the counters wake only idle workers. One slot: a second waiter
	// overwrites the first, which then wakes at its latch's Set, as it did
	// before it asked. A hint, like wanted, with no ordering partner: the
	// owner's load of asker follows its push with no fence between (as the
	// counters' load in NewInternalJobs does), so a waiter that stores its
	// index while the push is still in the owner's store buffer can miss
	// both the job and the nudge. Nothing is lost: the job stays in this
	// worker's deque, where this worker or a thief runs it, and the waiter
	// wakes at its latch's Set. sync/atomic.
	asker atomic.Int32

	_ atomics.Pad

	// spawns parks the tasks this worker spawned while their refs are
	// queued (refslots.go): alloc by the worker goroutine, take by
	// whichever worker wins a ref.
	spawns refSlots

	// runq holds the submitted tasks this worker took in a batch and has
	// not started (runq.go: who writes and reads what).
	runq runq

	frames frameStack

	// batch is takeBatch's buffer for the tasks it takes from the
	// injector (batch.go), made at its first batch, dropped by
	// Pool.release. Owner-only, empty between calls.
	batch *[injBatchMax]injTask

	// The context records (taskctx.go), after everything else: written
	// only where a job's context changes, and ctxs is loaded by thieves.
	//
	// origin is the submitted task whose context is in force (Context), nil
	// for none: the origin of ctxs' head. Owner-only.
	origin *taskCtx

	// base is the worker's own profiler labels (labels.go): none, or
	// those its start hook set. Work of a task submitted without labels
	// runs under them. Written by the worker goroutine after the start
	// hook (startHook), read by whichever goroutine runs as the worker.
	base profLabels

	// lastLabelled is the origin record of the last task without a
	// context that enterLabels started on this worker, for the next one
	// of the same labels to reuse (taskctx.go). Owner-only.
	lastLabelled *taskCtx

	// ctxs is the chain of context records of the jobs this worker is in,
	// newest first. Stored by the worker goroutine as it enters and leaves
	// jobs; loaded by any worker that runs a join half of this worker's
	// frames (originAt), which walks its immutable records. Partner: the
	// deque. The record in force when a half was forked is stored before
	// the fork, so before the release of bottom of its push, however late
	// the push (an offer, offer.go), and the thief loads ctxs after its
	// successful steal, so it sees that record or a later head whose chain
	// still holds it (taskctx.go). sync/atomic, sequentially consistent.
	ctxs atomic.Pointer[taskCtx]
}

// Index returns the worker's index in its pool, in [0, Workers()).
func (w *Worker) Index() int {
	if w == nil {
		panic("blitz: Worker.Index: nil *Worker")
	}
	return w.index
}

// Pool returns the pool the worker belongs to.
func (w *Worker) Pool() *Pool {
	if w == nil {
		panic("blitz: Worker.Pool: nil *Worker")
	}
	return w.pool
}

// checkLive panics, naming the function name, if w's pool has shut down
// and released w's deque (Pool.release): w was kept past its task. A
// worker's own goroutine never sees that, so the check is for the entry
// points that take a *Worker from their caller and would touch the deque.
func (w *Worker) checkLive(name string) {
	if w.deque == nil {
		panic("blitz: " + name + ": *Worker used after its pool was closed (a Worker belongs to the task it was handed to, until that task returns)")
	}
}

// waitKind says why a worker waits (wait.go), for the statistics.
type waitKind uint32

// setWaitKind records the kind of wait w enters or returns to.
func (w *Worker) setWaitKind(k waitKind) { atomics.StoreRelease32((*uint32)(&w.waitKind), uint32(k)) }

const (
	waitTerminate waitKind = iota // the idle loop: waiting for work or Close
	waitJoin                      // the second half of a join was stolen
	waitScope                     // spawned tasks of a scope are running
	waitCall                      // a call into another pool (Do from a task)
)

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
	clearLabels() // a go statement gave it its creator's (labels.go)
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

// nextRand steps the worker's xorshift64* generator.
func (w *Worker) nextRand() uint64 {
	x := w.rng
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	w.rng = x
	return x * 0x2545F4914F6CDD1D
}
