package blitz

// The state of a pool, defined in one place.
//
// Every structure the workers share is declared here, as the Go runtime
// declares its g, m, p and schedt in one file: the Pool and its Worker
// first, then what hangs on them, in the order a task meets it (the job
// references and the injector it is submitted to, the run queue and the
// frames of its joins, the slots of its scopes, its Group record and
// context record, the worker's mailbox, counters and samples), and last the
// state of the features that watch the workers (the blocked-worker
// monitor, resizing, following GOMAXPROCS, the registry of Subs). Each
// field says who writes it, who reads it and with which ordering; each
// structure's behaviour lives in the file of its concept, named in its
// comment.
//
// The files of the package stand in layers, each using, but for a few
// names, only those below:
//
//   - the leaves, which run no task: errors.go, panic.go (PanicError),
//     histogram.go, threads.go, park.go and its backends, and the packages
//     atomics, deque, sleep and topology;
//   - this file;
//   - the structures' own methods: job.go, injector.go, gate.go, runq.go,
//     frame.go, refslots.go, taskctx.go (contexts and labels), stats.go,
//     metrics.go, placement.go, options.go;
//   - the worker's loop, read top to bottom in worker.go (run, life, the
//     idle loop serve, findWork, execute), with the steps it calls:
//     steal.go, batch.go, offer.go; and the waits inside a task, which
//     serve while they wait: wait.go (and Block, the hint), join.go and
//     scope.go;
//   - the pool's operations: pool.go (workers, completion, drain),
//     resize.go, follow.go, blocking.go (the monitor), submit.go;
//   - the ways in: route.go (Runner and the one route of Do, DoContext,
//     TryDo and Run, with the calls that run on their caller or queue a
//     callJob), sub.go, group.go, broadcast.go, future.go, groupresult.go,
//     joinn.go, expvar.go, default.go, and lifecycle.go (New, Close,
//     Shutdown), which starts and stops every part.

import (
	"context"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/blitz-go/blitz/atomics"
	"github.com/blitz-go/blitz/deque"
	"github.com/blitz-go/blitz/sleep"
)

// A Pool is a set of workers that run fork-join work and submitted tasks.
// Create one with New and release it with Close. All methods are safe for
// concurrent use. A method called on a nil *Pool panics with a message that
// names it ("blitz: Pool.Go: nil *Pool"); a function that takes a Runner
// given a nil *Pool panics with "nil Runner" ("blitz: Do: nil Runner").
type Pool struct {
	name string
	// isDefault marks the program's default pool (default.go), which
	// Close and Shutdown refuse. Written once, by Default or
	// SetDefaultOptions before they publish the pool (defaultPool, an
	// atomic store); read by Shutdown, which is handed the pool after.
	isDefault bool
	// workers is every worker the pool ever had, indexed by Worker.index:
	// an immutable slice replaced by a longer copy when Resize adds workers
	// (resize.go). Stored under resizeMu by New and Resize, loaded by
	// thieves, joiners, job dispatch, Stats and Close (sync/atomic,
	// sequentially consistent; a plain MOV on amd64). A worker, once
	// published, stays at its index for the pool's life, retired or not.
	workers atomic.Pointer[[]*Worker]
	// The pool's size and following state (resize.go).
	resizing
	// The blocked-worker monitor (blocking.go).
	monitor
	sleep        *sleep.Sleep
	backend      backend
	panicHandler func(v any, stack []byte)

	// hasInjectedJobs is the injector's check for a task a worker could
	// take now (injector.ready) as a func value, made once (a method value
	// made per call would allocate).
	hasInjectedJobs func() bool
	// queueWasEmpty answers sleep.NewInjectedJobsLazy after a submit: at
	// most the task just published is queued. Made once, like
	// hasInjectedJobs.
	queueWasEmpty func() bool

	inj injector

	// Completion. Every submitted task is counted once on the worker
	// that finished it (Worker.roots; a withdrawn DoContext task counts
	// when a worker pops and skips it). Close fixes the number accepted
	// (finalRoots, from the injector's close) and waits until the sum of
	// the workers' counts reaches it. Every other job descends from a
	// submitted task and finishes before it, so that means idle.
	//
	// Who signals drained. Close stores finalRoots, then closing
	// (sync/atomic: sequentially consistent), then sums the counts. A
	// worker bumps its count with a plain release store (no locked
	// instruction per task) and, if it already sees closing, sums too.
	// That alone is not a Dekker handshake (a release store may pass the
	// later load of closing), so a worker also checks each time it runs
	// out of work, right after StartLooking's atomic add on the sleep
	// counters, a full barrier between its store and its load of closing
	// (idleCheck). The last task's finisher always runs out of work after
	// it, and of any two finishers the one whose barrier comes second sees
	// the other's count; so after Close someone always sees the full sum.
	finalRoots uint64 // written once by the first Close before closing.Store(true)
	closing    atomic.Bool
	drained    chan struct{} // closed (once, by signalDrained) when every accepted task finished after closing
	drainSig   atomic.Bool   // whoever flips it false->true closes drained

	closeStarted atomic.Bool   // the first Close or Shutdown flips it and does the work
	closed       chan struct{} // closed when the pool has shut down: every worker goroutine exited
	wg           sync.WaitGroup
	// live counts the worker goroutines that have not exited: added to by
	// startWorker before it starts one, subtracted from by each as it
	// exits (workerExited), a respawn's start before its predecessor's
	// exit. Loaded by Shutdown for its *ShutdownError.
	live atomic.Int64

	// rejected counts submissions refused with ErrQueueFull (Stats).
	// Added to by refused submitters, loaded by Stats.
	rejected atomic.Uint64
	// abandoned counts submissions that gave up waiting for room in the
	// full queue when their context ended (Stats).
	abandoned atomic.Uint64
	// handlerPanics counts the panics of the panic handler itself,
	// recovered by callHandler (Stats). Added to by the worker that ran
	// the handler, before it counts the task finished; loaded by Stats.
	handlerPanics atomic.Uint64

	// epoch is the zero of now(); sampleMask selects the sampled
	// positions (pos&sampleMask == 0). Immutable after New.
	epoch      time.Time
	sampleMask uint64

	respawns atomic.Uint64

	// place is the placement state of a pool that pins its workers (nil
	// otherwise); immutable after New but for its started count.
	place *poolPlacement

	// flatSteal: the workers steal from one flat tier of every other
	// worker (steal.go: flatVictim), the default; false when
	// WithStealTiers or a placement gave each worker its tiers
	// (Worker.tiers). Immutable after New.
	flatSteal bool

	// procs is GOMAXPROCS, and sweep how many victims a steal pass tries
	// per tier (steal.go: sweepFor). Stored by New and by the monitor's
	// ticks (blocking.go: setProcs), which read GOMAXPROCS; loaded by
	// every thief and idle worker (worker.go: serve). sync/atomic: a stale
	// value only changes how many deques one pass probes, or how many
	// workers yield before they sleep.
	procs, sweep atomic.Int32

	// stuck names a worker, by index plus one (0 for none), that the
	// monitor saw busy in one job for a whole tick while its run queue or
	// its stealable deque held work (blocking.go): a worker blocked in a
	// task, with tasks or join halves behind it that only a thief can
	// run. Thieves try it before their sample (steal.go), which in a pool
	// of thousands would find it by chance only. Stored by the monitor's
	// ticks under resizeMu, only when it changes; loaded by every thief.
	// sync/atomic: a stale hint costs one probe.
	stuck atomic.Int32

	// callerRuns says whether Run and Do from outside the pool may borrow a
	// sleeping worker (route.go, WithCallerRuns). Immutable after New.
	callerRuns bool

	// lockedThreads is the number of OS threads the workers keep locked
	// (futex parking, pinning), reserved by New and released by
	// finishClose once every worker goroutine exited (threads.go); 0 for a
	// pool of plain goroutines. Set by New, grown by Resize under
	// resizeMu; read by finishClose after it took resizeMu.
	lockedThreads int

	// subs are the pool's open Subs, closed by Shutdown first (sub.go).
	subs subRegistry
}

// workerList returns every worker the pool ever had (see Pool.workers).
func (p *Pool) workerList() []*Worker { return *p.workers.Load() }

// now is the pool's clock for latency sampling: nanoseconds since New, plus
// one so that a sampled time is never 0 (0 marks an unsampled task).
func (p *Pool) now() int64 { return int64(time.Since(p.epoch)) + 1 }

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
	// goroutine that borrowed the worker parks on (route.go), nil in a
	// pool that never lends its workers to callers.
	parker, guest sleep.Parker

	// stealable says whether thieves may take jobs from this worker's
	// deque: false only while the worker is alone (below). Stored by the
	// owner (refreshAlone, worker.go) at points where it has no pop in
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
	// may call while a borrower runs as the worker (route.go).
	waitKind  waitKind
	handedOff handoff // whom the idle loop's last job woke outside the pool (handoffRounds, worker.go)
	shared    bool    // the idle loop's last job pushed or offered work (handoffRounds)
	hooked    bool    // the start hook ran on this goroutine, the exit hook not since (worker.go: startHook)
	// alone: no other worker serves the pool (it has one worker, or every
	// other one retired), so the worker's pops need no fence and its
	// pushes wake nobody. Changed only by refreshAlone (worker.go).
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
	// worker's requests (worker.go: kick); the idle loop returns when
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
	// is enough for Close: the Pool type's completion comment.
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

	// base is the worker's own profiler labels (taskctx.go): none, or
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

// nextRand steps the worker's xorshift64* generator.
func (w *Worker) nextRand() uint64 {
	x := w.rng
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	w.rng = x
	return x * 0x2545F4914F6CDD1D
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

// handoff says whom the idle loop's last job handed its result to
// (Worker.handedOff, set by callJob.finish).
type handoff uint8

// A jobRef is what the deques carry: an integer that names a job, never a
// pointer, so pushing and stealing store no Go pointer (no GC write barrier,
// nothing hidden from the collector) and the deque can publish it with plain
// integer stores.
//
// Bit layout (named constants below; TestJobRefLayout pins it):
//
//	bits  0-31  index:  the join depth of a frame (kindFrame) or the slot
//	                    number of a spawned job (kindSpawn); 0 for kindTask
//	bits 32-47  worker: the index of the worker that owns the frame or the
//	                    slot; 0 for kindTask
//	bits 48-61  zero
//	bits 62-63  kind
//
// Overflow is impossible rather than harmless: New refuses more workers than
// sleep.MaxWorkers (< 1<<16); a join depth is bounded by the goroutine stack
// (Go's 1 GB maximum stack holds far fewer than 1<<32 nested joins, each
// needing a few stack frames); a worker's spawn slots are bounded by memory
// (a slot is 24 bytes, 1<<32 of them would be 96 GiB) and refSlots.grow
// panics before the index could wrap.
type jobRef uint64

// A task is a job submitted from outside the workers' fork-join trees and
// queued in the injector: a goJob (Go and its kin) or a callJob (Run, Do and
// theirs), both in submit.go.
//
// Worker.runTask calls run, and then finish however run ended: with the
// recovered panic (pe), after a runtime.Goexit (goexit), or normally. One
// deferred recover serves every kind of task.
type task interface {
	// run runs the task under l, its submitter's profiler labels.
	run(w *Worker, l profLabels)
	finish(w *Worker, pe *PanicError, goexit bool)
}

// injTask is a submitted task as the injector and the run queues hold it:
// the task and its submit time (Pool.now) if it is sampled, else 0. A task
// submitted under profiler labels is a labelledTask (taskctx.go), which
// keeps them out of the slots, the run queues and the job a worker finds.
type injTask struct {
	job task
	enq int64
}

// The injector is the pool's FIFO queue for tasks that come from outside the
// workers' fork-join trees (Go, TryGo, GoContext, Run, Do, DoContext, TryDo):
// any number of producers, any number of consumers (the workers).
//
// It is a chain of rings. Each ring is a bounded queue of slots in the
// manner of Vyukov's bounded MPMC queue: positions grow for ever and are
// global across the chain (a ring starts at the position where the previous
// one stopped), and every slot carries a sequence number that says which
// position it is ready for:
//
//   - seq == p: the slot is free for position p (it maps p).
//   - seq == p+1: position p's task is written.
//   - seq == p+size: its task was taken; the slot is free for the next lap.
//
// A producer reads tail t, and if t's slot says free for t it claims t with
// one CAS of tail from t to t+1, writes the task and stores seq = t+1 with
// release ordering. A consumer reads head h, and if h's slot says written it
// takes h with a CAS of head from h to h+1, reads the task, clears the slot
// (so that the collector can free the task) and stores seq = h+size with
// release ordering, the store that lets a producer of the next lap in. A
// slot whose producer claimed it but has not written it reads as empty:
// that producer has not told the sleep protocol about its task yet either,
// and does so after the write (Pool.submit), so a worker that goes to sleep
// on this answer is woken. An idle worker of a pool of several may take a
// run of written positions h..h+n-1 with one CAS of head from h to h+n
// instead (popBatch, batch.go).
//
// A ring is reused for ever while it does not fill, so a task costs no
// garbage: the chain of blocks this replaced allocated 8 KiB per 256 tasks,
// and its producer paid for their zeroing and the collector's assists
// (bench/results/submit-ring-amd64.txt). When a producer finds t's slot not
// yet free (the ring holds size tasks, or the consumer of position t-size
// has not finished with it), it seals the ring (sealedBit in tail: no claim
// there any more), links a ring of twice the size (up to injRingMax) that
// starts at t, and moves on to it. Consumers drain a sealed ring up to t and
// then move to the next. A sealed ring is garbage once both ends left it; a
// ring never shrinks, so the injector keeps the memory of the longest queue
// it held, up to injRingMax slots (2 MiB) a ring.
//
// A mutex around a ring (the first version) cost 88-200 ns per task on the
// submit benchmark, most of it the lock's cache line moving between the
// submitter and the workers at every push and pop (bench/results).
//
// Closing sets closedBit in the tail of the last ring with one CAS, which
// both refuses every later claim (a closed ring is never sealed, so nothing
// follows it) and fixes the number of tasks ever accepted: the pool's Close
// waits until the workers finished exactly that many.
type injector struct {
	_ atomics.Pad

	// tailRing is the ring producers claim in: the last ring, or a sealed
	// one whose successor is linked or about to be. Moved forward with
	// CompareAndSwap by any producer that finds it sealed; read by
	// producers, close and the counts.
	tailRing atomic.Pointer[injRing]

	_ atomics.Pad

	// headRing is the ring consumers take from; moved forward with
	// CompareAndSwap by a consumer that drained it after it was sealed.
	headRing atomic.Pointer[injRing]

	_ atomics.Pad

	capacity uint64 // 0: unbounded; immutable after New
	maxRing  int    // the largest ring to link: injRingMax, or less in tests; immutable
	room     roomWaiters
}

// injRing is one bounded ring of the chain.
type injRing struct {
	_ atomics.Pad

	// tail is the next position to claim, with sealedBit once the ring is
	// sealed and closedBit once the queue is closed (at most one of them).
	// Producers claim with CompareAndSwap (claimIf); a producer that found
	// the next slot still occupied seals it with CompareAndSwap, close
	// sets closedBit with CompareAndSwap. All sync/atomic, sequentially
	// consistent.
	tail atomic.Uint64

	_ atomics.Pad

	// head is the next position to take; consumers advance it by one with
	// CompareAndSwap after seeing the slot written. Sequentially
	// consistent: the head CAS precedes the load of room.n (roomWaiters).
	head atomic.Uint64

	_ atomics.Pad

	// next is nil until the ring is sealed; then any producer (or close)
	// links the successor with CompareAndSwap from nil (one winner).
	next  atomic.Pointer[injRing]
	base  uint64    // the first position of the ring; immutable
	mask  uint64    // len(slots)-1, len(slots) a power of two; immutable
	slots []injSlot // immutable slice header; slots as described above
}

// injSlot is one slot of a ring. t is written by the producer that claimed
// the slot's position, before its release store of seq; read and cleared by
// the consumer that took the position, after its acquire load of seq and
// its head CAS, and before its release store of seq.
type injSlot struct {
	// seq: see the top of the file. Stored by producers and consumers with
	// atomics.StoreRelease64, loaded with atomic.LoadUint64 (acquire).
	seq uint64
	// The slots are an array: a slot's size is a multiple of 8 so that
	// every seq is 64-bit aligned, as 64-bit atomics on 32-bit platforms
	// require. The padding (none where a task's size is a multiple of 8)
	// goes before t: a zero-size last field would itself add padding.
	_ [(8 - unsafe.Sizeof(injTask{})%8) % 8]byte
	t injTask
}

// roomWaiters are the producers waiting for room in a full bounded queue
// (Pool.waitClaim), a waitList (gate.go). A waiter registers (add: pushed
// under mu, then n stored), then tries to claim again, then waits; a
// consumer that took a task loads n after its head CAS and, if it is not
// zero, wakes the oldest waiter. n is sync/atomic (sequentially consistent)
// so that the pair (waiter: n's store then the claim's load of head;
// consumer: head CAS then n.Load) cannot both miss each other.
type roomWaiters struct {
	// n is the length of list: stored under mu after every change to it,
	// loaded by consumers without mu (tookTasks).
	n    atomic.Int32
	mu   sync.Mutex
	list waitList
}

// A waiter is a goroutine waiting for one wake (see the top of the file).
// w and ch are set by newWaiter and not changed.
type waiter struct {
	w  *Worker         // the worker the goroutine runs, for a task of another pool; nil for none
	ch chan struct{}   // closed by wake, when w is nil
	l  sleep.CoreLatch // Set by wake, when w is not nil
}

// A waitList is a FIFO of waiters (see the top of the file), guarded by
// its owner's mutex.
type waitList struct {
	list []*waiter
}

// injBatchMax is the most tasks a worker takes from the injector at once.
const injBatchMax = 32

// A worker's run queue: the submitted tasks it took from the injector in a
// batch (batch.go) and has not started yet.
//
// It is a ring of runqSize slots that one worker (the owner) fills and
// empties from the same end, and that other workers steal from half at a
// time: the design of Go's per-P run queue (runqget, runqgrab) and of
// tokio's local queue, from which the two-part head comes.
//
// Positions grow for ever (uint32, wrapping; the ring holds far fewer than
// 2^31 tasks, so differences are exact). tail is the next position to fill,
// written only by the owner. head packs two positions: real, the next
// position to take, and steal, the first position a thief may still be
// copying. Outside a steal they are equal. The slots in [steal, tail) are
// occupied; the owner writes only slots outside them, so a thief copying a
// slot never races with a write to it:
//
//   - The owner fills positions tail.. (pushBatch) only where tail+n-steal
//     stays within the ring (room), then publishes them with a release
//     store of tail.
//   - The owner takes real with one CAS of head (pop): real+1, and steal
//     with it when no steal is under way. It reads the slot after the CAS.
//   - A thief claims the older half of [real, tail) with one CAS that
//     moves real past it and leaves steal where it was: the owner now takes
//     only after the claimed run, and will not overwrite it. The thief
//     copies (and clears) the run, then frees it with a CAS that moves
//     steal up to real. A thief that finds steal != real leaves the queue
//     alone (another steal is under way): at most one steal per queue at a
//     time, as in tokio.
//
// Taking half rather than one is what the run queue is for: the deque this
// replaced held a batch as one ref per task, and a thief took them one CAS
// and one line of the owner's at a time, so under a stream of empty tasks
// the second worker of a pool spent its time stealing from the first
// (bench/results/submit-runq-amd64.txt). Taking from the front, where the
// owner takes too, keeps submission order.
//
// Every head operation is a sync/atomic read-modify-write or load
// (sequentially consistent). Partners: the owner's release store of tail
// and the thief's acquire load of it (the slots written before); a thief's
// freeing CAS of steal and the owner's acquire load of head in room (the
// slots cleared before they are written again).
type runq struct {
	_ atomics.Pad

	// head is steal<<32 | real (above). CompareAndSwap by the owner (pop)
	// and by thieves (stealHalf); loaded by both.
	head atomic.Uint64

	// tail is the next position to fill. Stored by the owner (pushBatch,
	// release), loaded by thieves (acquire) and the owner.
	tail atomic.Uint32

	_ atomics.Pad

	// ring holds the slots, positions modulo runqSize: written by the
	// owner at [tail, tail+n) before its store of tail; read and cleared
	// by whoever claimed the position in head. Made by the owner before
	// it first writes a slot (slotsToFill) and stored before the store of
	// tail that publishes the first task, so whoever claimed a position
	// loads it made; nil until then, so that a worker that never batches
	// (a pool with a capacity, the workers added for blocked ones) does
	// not hold it. Dropped by Pool.release. sync/atomic.
	ring atomic.Pointer[[runqSize]injTask]
}

// runqSize is the number of slots: twice a batch, so that a batch always
// fits beside the run a thief may still be copying (at most half of a
// batch: room).
const runqSize = 2 * injBatchMax

// frameStack is a worker's frames, indexed by join depth, in geometric
// chunks created by the owner on first use and published with an atomic
// pointer store before any ref to them is pushed. The first chunk, the
// depths under chunkBase (recursive algorithms rarely go deeper than 64
// joins), is reached through a pointer of its own that the owner reads
// plainly: one load on Join's path. It is made at the worker's first join,
// so a worker that never joins (one that only runs submitted tasks, as most
// of the workers added for blocked ones do) never holds its 64 padded
// frames (8 KB where a line is 128 bytes).
type frameStack struct {
	// first is the first chunk, nil until the owner's first join.
	// Owner-only: written by ownerAtSlow and release, read by ownerAt
	// and peek.
	first *[chunkBase]paddedFrame
	// chunks are the chunks, first included (chunks[0]) for the workers
	// that resolve a ref (at). Stored by the owner, loaded by anyone.
	chunks [maxChunks]atomic.Pointer[[]paddedFrame]
}

// A frame is the shared part of one Join: the second half, published to
// thieves through the owner's deque as frameRef(owner, depth).
//
// Life of a frame at depth d of worker o (one join at a time per frame,
// because joins nest and depth d is in use until the join at depth d returns):
//
//  1. o stores the job (and its argument) into the frame, then pushes the
//     ref: the deque's release store of the new bottom publishes the frame.
//     A lazy frame (offer.go) is pushed later, if ever, by offerPending; a
//     lazy frame o takes back is never seen by anybody else.
//  2. Either o pops the ref back (the fast path: nobody else ever saw the
//     frame, no latch traffic), or exactly one thief wins it with a
//     successful Steal (whose acquire makes step 1 visible).
//  3. The thief runs the job, records a panic or a Goexit, then Sets the
//     latch (a SeqCst swap: releases the result). If the swap found the
//     owner Sleeping, it wakes it with NotifyWorkerLatchIsSet(owner); owner
//     and the pool are read into locals before the Set, because from the Set
//     on the frame belongs to o again and may be reused at once.
//  4. o, having seen Probe() true (acquire), reads the result, Resets the
//     latch and may reuse the frame.
//
// Invariant: a free frame's latch is Unset. Only a stolen join pays for
// Reset.
type frame struct {
	// latch: Unset while the frame is free or its job is pending or
	// running; the thief moves it to Set (step 3); the owner moves it
	// through Sleepy/Sleeping while waiting (sleep protocol) and back to
	// Unset with Reset after observing Set (step 4).
	latch sleep.CoreLatch
	// owner is the index of the worker that owns the frame. Written once
	// when the frame is created, before any ref to it exists.
	owner int
	// job is written by the owner before the push (step 1) and read by the
	// thief after the steal (step 2). It usually keeps the same dynamic
	// type at a given depth, and Join reuses it (no allocation).
	job half
	// panicked and goexit are written by the thief before the Set and read
	// (then cleared) by the owner after it observed the Set.
	panicked *PanicError
	goexit   bool
	// lazy says that the job is pending but not offered: its ref is in no
	// deque, so no thief can take it, and the owner runs it itself when
	// the first half returns unless it offers it before (offer.go).
	// Owner-only: written at the fork, by offerPending and when the join
	// takes the job back; read by the owner alone.
	lazy bool
	// thief is 1 + the index of the worker that stole the job, 0 while
	// nobody did. Stored by the thief after its successful Steal and
	// before it runs the job; loaded by the owner waiting for the job
	// (waitJoin), which steals only from that worker; cleared by the
	// owner when it frees the frame (freeFrame), when no thief can touch
	// the frame any more.
	thief atomic.Int32
}

// paddedFrame keeps frames at neighbouring depths on separate cache lines: a
// thief writes the latch of depth d while the owner works at depth d+1. The
// job a frame points to is padded too, for the lines it shares with other
// heap objects (argFrame, below).
type paddedFrame struct {
	frame
	_ [atomics.CacheLineSize - unsafe.Sizeof(frameLayout{})%atomics.CacheLineSize]byte
}

// frameLayout mirrors frame's layout without naming Worker: the Go type
// checker rejects unsafe.Sizeof(frame{}) in paddedFrame as a cycle (frame ->
// half -> Worker -> frameStack -> paddedFrame). TestFrameLayout checks that
// the two sizes agree and that paddedFrame fills whole cache lines.
//
//lint:ignore U1000 the fields exist only for their sizes.
type frameLayout struct {
	latch    sleep.CoreLatch
	owner    int
	job      [2]unsafe.Pointer
	panicked unsafe.Pointer
	goexit   bool
	lazy     bool
	thief    int32
}

// A half is the second half of a join, stored in the joiner's frame:
// argFrame for JoinArgs (and Worker.Join), fnFrame for Join. Its run stores
// the result in itself, where the joiner reads it after the frame's latch.
type half interface {
	run(w *Worker)
}

// Frames and spawn slots live in geometric chunks that are never moved or
// freed while the pool runs (Pool.release drops them once it has shut
// down), so a thief that resolves a jobRef to an address
// can never read memory that an owner has since reallocated (the defect of
// freeing a grown deque buffer while a thief still reads it cannot arise).
//
// Chunk 0 holds chunkBase elements and chunk k holds chunkBase<<k, so chunk k
// starts at index chunkBase*(2^k - 1), and maxChunks chunks cover every
// 32-bit index.
const (
	chunkBaseLog = 6
	chunkBase    = 1 << chunkBaseLog
	maxChunks    = 32 - chunkBaseLog + 1
)

// refSlots holds the tasks one worker spawned (Scope.Spawn) while their
// refs sit in a deque. A deque carries integers only, so a task is parked
// in a slot of its worker and the deque carries a ref naming the worker and
// the slot (spawnRef); any worker that wins the ref (a pop or a steal)
// takes the task out of the slot and frees it (Worker.execute). A slot is
// 24 bytes.
//
// Every worker has its own slots, so a spawn touches no word shared by the
// whole pool:
//
//   - alloc (the owner, from Scope.Spawn) pops its private free
//     list: plain loads and stores. When it is empty, the owner takes every
//     slot that other workers freed meanwhile with one Swap of remote, and
//     only when that is empty too creates a new chunk.
//   - free by the owner (it ran its own task) pushes on the private list.
//   - free by another worker (a thief ran the task) pushes on remote, a
//     stack of slot numbers, with a CAS. Pushes by many and a take-all by
//     the owner cannot suffer ABA: nobody pops a single element, so a
//     successful CAS always links onto the very top it read.
//
// The slots live in never-moved geometric chunks (frame.go), created by the
// owner and published with an atomic store before any ref to their slots is
// pushed, so a thief resolving a ref always finds its chunk.
//
// BenchmarkScopeSpawn (scope_bench_test.go) measures a spawn; its figures
// against the former pool-wide free list are in
// bench/results/scope-spawn-amd64.txt.
type refSlots struct {
	// free is the slot number + 1 of the first slot of the owner's free
	// list (0: empty), linked through refSlot.next. n is the number of
	// chunks created. Both owner-only.
	free uint32
	n    int
	// chunks are written by the owner (grow) and loaded by any worker
	// resolving a ref (slot).
	chunks [maxChunks]atomic.Pointer[[]refSlot]

	_ atomics.Pad

	// remote is the slot number + 1 of the first slot freed by another
	// worker (0: none), linked through refSlot.next: pushed with CAS by
	// those workers (freeRemote), taken whole with Swap by the owner
	// (alloc). Alone on its line: thieves write it, the owner rarely
	// reads it.
	remote atomic.Uint32

	_ atomics.Pad
}

// refSlot is one parked job.
type refSlot struct {
	// val is written by the owner (Scope.Spawn) before
	// it pushes the ref, whose publication orders it; read and cleared by
	// the worker that won the ref (take), before it frees the slot.
	val spawnJob
	// next is the free-list link (slot number + 1): written by whoever
	// frees the slot, before the free publishes it (the owner's own list,
	// or remote's CAS), and read by the owner after it took it back.
	next uint32
}

// spawnJob is a task parked by Scope.Spawn: its scope and function.
type spawnJob struct {
	st *scopeState
	fn func(*Worker, *Scope)
}

// scopeState is shared by a scope's body and its tasks.
type scopeState struct {
	// pending counts the body plus spawned tasks not yet finished.
	// Incremented by Spawn (by a live task or the body, so it is >= 1
	// then), decremented by each finisher; whoever brings it to 0 sets
	// latch. It never rises from 0.
	pending atomic.Int64
	// latch is Set once pending reached 0; the owner waits on it.
	latch sleep.CoreLatch
	owner *Worker
	// origin is the submitted task whose context the scope's tasks run
	// in (taskctx.go): the owner's when it opened the scope. Immutable.
	origin *taskCtx
	// group is the Group task in force for the scope's tasks (taskctx.go:
	// enterJob): the owner's when it opened the scope. Immutable.
	group *groupTask
	// panicked holds the first panic (CAS from nil); goexit records that
	// a task called runtime.Goexit.
	panicked atomic.Pointer[PanicError]
	goexit   atomic.Bool
}

// groupTask is one task of a Group. claimed is CASed from false to true by
// whoever runs it: the pool worker that took its submission, or Wait.
type groupTask struct {
	g       *Group
	fn      func(*Worker) error
	claimed atomic.Bool
	// entry is the task's place at g's gate (SetLimit), with the Go that
	// waits for its admission, if any. Under g.mu.
	entry gateEntry
	// below is the group task that the worker running this one was
	// running when it started it (Worker.groupTask), and parent the one
	// that the goroutine calling Go was running: a task of a group waits,
	// through these links, for every group that Wait walks to. Written
	// before the task runs (parent by Go, below by run on the worker that
	// claimed it), read by Waits on that worker.
	below, parent *groupTask
	// sub is set, with g nil, on a link that stands for a task of a Sub
	// holding one of its slots (Sub.runOne): what runs within it may call
	// into the Sub in that slot (Sub.heldBy). Links with neither g nor sub
	// only join two chains (taskctx.go: enterJob).
	sub *Sub
	// rec is the task's context record, pushed by the worker that runs it
	// (enterGroupTask), once: a task runs at most once (claimed).
	rec taskCtx
	// seq is the task's number in g (Group.seq), written under g.mu
	// before the task is submitted; sink, if set, is told instead of fn
	// when the pool refuses the task (a ResultGroup's task records its
	// error there). Both read by the task's runner afterwards.
	seq  uint64
	sink refusalSink
	// labels are the profiler labels the task runs under (taskctx.go):
	// its Go's caller's, or the Sub task's; nil for none. Written before
	// the task is queued.
	labels profLabels
}

// A gateEntry is a task's place at a gate, under the gate owner's mutex.
type gateEntry struct {
	// inQueue: the task waits in the gate's queue; gone: it was withdrawn
	// from there.
	inQueue, gone bool
	// waiter is woken when the task is admitted; nil for nobody.
	waiter *waiter
}

// A refusalSink is told when the pool refuses the task numbered seq.
type refusalSink interface {
	refused(seq uint64, err error)
}

// The context of a task.
//
// A task submitted with a context (GoContext, DoContext, TryDo) can read it
// with Worker.Context, and so can everything it forks, on whichever worker
// it runs: the halves of its joins, the tasks of its scopes, the pieces of
// the data-parallel functions it calls. Everything else (a task submitted
// without a context, work forked from it, an idle worker) reads
// context.Background().
//
// A task also carries its submitter's profiler labels (taskctx.go), and
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
	// profiler labels of the task's submitter, nil for none (taskctx.go):
	// what the task and everything it forks run under.
	labels profLabels
	// prev is what the goroutine that pushed the record had as its labels
	// before; leaveCtx gives them back. Written and read by that push and
	// its leaveCtx alone (rewritten when enterLabels reuses the record).
	prev profLabels
}

// profLabels is a goroutine's profiler label set as the runtime holds it,
// opaque: copied from one goroutine to another, never read. nil is "no
// labels", and in a task or a context record it means the labels of the
// worker that runs the work (Worker.base).
type profLabels unsafe.Pointer

// requestBox holds the requests addressed to one worker.
type requestBox struct {
	// n is len(list): stored under mu by post and take, loaded by the
	// owner at each look (pending) without mu. sync/atomic; the post's
	// store comes before its Poke, which the owner's sleep handshake
	// orders before its next look.
	n    atomic.Int32
	mu   sync.Mutex
	list []func(*Worker)
}

// pending reports whether requests wait in the box.
func (b *requestBox) pending() bool { return b.n.Load() != 0 }

func (b *requestBox) post(r func(*Worker)) {
	b.mu.Lock()
	b.list = append(b.list, r)
	b.n.Store(int32(len(b.list)))
	b.mu.Unlock()
}

func (b *requestBox) take() []func(*Worker) {
	if !b.pending() {
		return nil
	}
	b.mu.Lock()
	l := b.list
	b.list = nil
	b.n.Store(0)
	b.mu.Unlock()
	return l
}

// workerStats are one worker's counters. All but the parking counts are
// written by the goroutine that runs the worker (its own, or one it is lent
// or borrowed by: wait.go, route.go), with a release store of the
// incremented value (no read-modify-write: cheap enough to leave on), and
// read by Pool.Stats with acquire loads. wakes is incremented by whichever
// goroutine unparks the worker, and sleeps and joinSleeps by whichever parks
// as it (the worker's goroutine parks on while a caller that borrowed the
// worker runs as it), so the three are atomic adds (on the parking path,
// which costs a syscall or a trip through the scheduler anyway).
type workerStats struct {
	executed, steals, stealRetries, joinsStolen uint64
	// callerRuns counts the calls run by a caller that borrowed this
	// worker (route.go).
	callerRuns uint64
	// offered counts the lazy join halves offered on request (offer.go);
	// read by the tests only.
	offered uint64
	// batched counts the submitted tasks this worker parked in its run
	// queue from batches it took from the injector (batch.go); read by the
	// tests only.
	batched uint64
	// finished counts the jobs this worker finished (execute) and the
	// calls run by a borrower that ended; the worker is busy while
	// executed+callerRuns is ahead of it (blocking.go). Read by the monitor.
	finished                  uint64
	sleeps, joinSleeps, wakes atomic.Uint64
}

// taskMetrics are one worker's server counters: the panics among the
// submitted tasks it ran, and histograms of queue wait and run time for the
// sampled ones (WithLatencySampling). Pool.Stats sums them over the workers
// into Stats.Panics, Stats.QueueWait and Stats.RunTime.
//
// Writers and readers. Every field is written by the goroutine that runs the
// worker, alone, after each submitted task (done), with a release store of
// the incremented value: no read-modify-write and no lock, because nobody
// else writes, so a record costs a few plain stores on amd64 (STLR on
// arm64). Pool.Stats reads the fields from any goroutine with acquire loads
// (addTo); see histogramCounts for the order that keeps Sum and Max
// consistent with the counts. The values only grow.
//
// Layout. The fields are written on every timed task and read rarely, so
// they sit between two pads: no other worker's writes and no thief polling
// the Worker's shared fields land on their cache lines, whatever the fields
// around taskMetrics in Worker are. The leading zero-length array of
// atomic.Uint64 gives the struct 8-byte alignment on 32-bit platforms, where
// the 64-bit atomics of the race and generic builds need it.
type taskMetrics struct {
	_ [0]atomic.Uint64 // 64-bit alignment on 386 and arm
	_ atomics.Pad

	panics    uint64          // submitted tasks that panicked
	queueWait histogramCounts // from acceptance to start, sampled tasks
	runTime   histogramCounts // from start to end, sampled tasks

	_ atomics.Pad
}

// histogramCounts is the writer's side of a Histogram: one worker's buckets.
//
// Every field is written by the owning worker goroutine alone, with a release
// store of the new value (StoreRelease64: a plain MOV on amd64, STLR on
// arm64; no read-modify-write, since nobody else writes), and read by
// Pool.Stats on any goroutine with acquire loads. The owner reads its own
// fields with plain loads. Values only grow.
//
// record stores sum, then max, then the bucket's count; addTo loads the
// counts first, then sum and max. An acquire load that sees a count pairs
// with the release store that published it, so the reader also sees the sum
// and max stored before it: Sum and Max cover every counted duration.
//
// The counts cannot overflow in practice (2^64 tasks); sum wraps after 2^64
// ns (584 years of accumulated time), which only skews Mean.
type histogramCounts struct {
	counts [HistogramBuckets]uint64
	sum    uint64 // nanoseconds
	max    uint64 // nanoseconds
}

// pinResult is the outcome of one worker goroutine's pin attempt.
type pinResult struct {
	pinned bool
	err    string
}

// poolPlacement is a pinned pool's placement state; Pool.place is nil for a
// pool without placement.
type poolPlacement struct {
	notes []string // immutable after New
	pin   func(cpu int) (unpin func(), err error)

	// started counts workers that have not yet made their first pin
	// attempt; New waits for it to reach zero. Each worker calls Done
	// once, on the start of its first goroutine.
	started sync.WaitGroup
}

// monitor is the blocked-worker monitor's state, embedded in Pool.
type monitor struct {
	// armed says whether a tick is scheduled or running; pending that a
	// worker woke since the last tick looked. Both sync/atomic: the Dekker
	// pair of Pool.woke and the disarming tick (see Blocked workers, 5).
	armed, pending atomic.Bool

	// The fields below are the tick's own: written and read under
	// resizeMu by monitorTick (and set up by New).
	timer    *time.Timer
	interval time.Duration
	quiet    int
	// blockedTicks counts the ticks in a row that saw workers blocked.
	blockedTicks int
	// lastWaiting is the number of submitted tasks the previous tick saw
	// waiting.
	lastWaiting int
	// lastGC is the count of GC cycles the forked-jobs rule last read.
	lastGC uint64
	// stuckNamed counts the ticks that named a stuck worker with work
	// behind it (nameStuck; tests).
	stuckNamed uint64
	// stallWakes counts the ticks that woke a sleeper for submitted
	// tasks that stalled with no worker busy (tests).
	stallWakes uint64
	// behindTicks counts the ticks that found tasks queued behind a grown
	// pool, and added workers for them up to the cap (tests).
	behindTicks uint64
	// lastActive is the active count the previous tick saw; workers in
	// [active, retiringTop) were retired by shrinks since the last tick
	// that saw every one of them retired (0 for none).
	lastActive, retiringTop int
	// seen holds each worker's counts at the previous tick.
	seen []workerSeen
	// idleSince is when the current run of idle ticks with nothing
	// waiting began (zero for none), and idleLeast the fewest idle workers
	// one of them saw.
	idleSince time.Time
	idleLeast int
	// retireAfter is defaultRetireAfter but in tests.
	retireAfter time.Duration
	// sched reads the scheduler's counts (nil where Go has none).
	sched []metrics.Sample
	// blind makes every tick see no worker blocked (tests:
	// withBlindMonitor). Immutable after New.
	blind bool

	// blockedNow counts the workers blocked in a call into another pool
	// or in Block: the sum of Worker.blocking, kept so that a call need
	// not read every worker. Added to by replaceForCall and taken back by
	// unblock, each on the blocked worker's goroutine; loaded by
	// replaceForCall, again under resizeMu before it adds a worker.
	// sync/atomic, with no ordering partner: a stale count makes one
	// replacement too many (retired when idle) or too few (the monitor
	// sees the blocked worker and adds it).
	blockedNow atomic.Int32

	// maxActive caps the active workers (WithMaxWorkers, at least the
	// pool's size). Immutable after New.
	maxActive int

	// The counters Stats reports. Written under resizeMu, loaded by
	// Stats; sync/atomic.
	blockedSeen, added, retired atomic.Uint64

	// ticked, if set, is called by every tick under resizeMu after it
	// acted (tests: export_test.go).
	ticked func()
}

// workerSeen is one worker's counts at a tick, and for how many ticks in a
// row it has been stuck.
type workerSeen struct {
	started, finished uint64
	stuckTicks        int
}

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

// follower is the GOMAXPROCS-following state of a pool made without
// WithWorkers.
type follower struct {
	timer *time.Timer // made by startFollowing, stopped by stopFollowing
	// armed is true while the timer is pending or its tick is running.
	// CASed false->true by a waking worker, stored false by the tick when
	// it leaves the timer disarmed. sync/atomic.
	armed atomic.Bool
	// pending says that a worker woke since the last tick. Stored true by
	// waking workers, swapped false by the tick. sync/atomic, sequentially
	// consistent: armed and pending are a Dekker pair. The tick stores
	// armed false, then loads pending; a waking worker stores pending,
	// then loads (CASes) armed; so one of the two sees the other and the
	// timer is never left disarmed while a wake went unseen.
	pending atomic.Bool
	// period is followPeriod but in tests. Immutable after New.
	period time.Duration
	// last is the executed sum the previous tick saw; the tick's alone.
	last uint64
	// seen is the size GOMAXPROCS asked for (followSize) when the
	// follower or Resize last looked: New's count at first. Stored under
	// resizeMu by the tick when it resizes to a new value and by Resize;
	// loaded by the tick and by followWake. sync/atomic.
	seen atomic.Int32
	// ticked, if set, is called by every tick, under the resize lock,
	// after it resized the pool or not (tests: export_test.go). Set before
	// the pool runs any work.
	ticked func(size int)
}

// subRegistry is a pool's open Subs, closed by the pool's Shutdown before
// it closes its injector (see the top of the file).
type subRegistry struct {
	mu     sync.Mutex
	subs   map[*Sub]struct{}
	closed bool
}

// A Scope lets a function spawn any number of tasks that may run in parallel
// and are all finished when Worker.Scope returns. Spawned tasks may spawn
// more into the same scope.
//
// Each function the scope calls receives a *Scope bound to the worker
// running it; like a *Worker it must be used only by that function, on its
// goroutine, while the function runs.
type Scope struct {
	st *scopeState
	w  *Worker
}
