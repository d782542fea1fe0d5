package blitz

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blitz-go/blitz/atomics"
	"github.com/blitz-go/blitz/deque"
	"github.com/blitz-go/blitz/sleep"
)

// Shutdown.
//
// Close (Shutdown without a deadline) closes the injector with one atomic OR
// on its tail, which refuses every later submission and fixes the number of
// tasks ever accepted, wakes submitters waiting for room (they get
// ErrClosed), and waits until the workers' finished-task counts sum to that
// number — every job forked from those tasks has finished by then, so all
// deques are empty and no worker waits on a frame or scope latch. It then
// Sets every worker's terminate latch, waking those asleep on it; a worker
// that was only getting sleepy fails its Sleepy->Sleeping transition and sees
// the Set. Close returns when every worker goroutine has exited. Shutdown
// whose context ends first returns a *ShutdownError counting what is still
// queued and running and the workers not yet exited; the pool drains and
// stops by itself.

// A Pool is a set of workers that run fork-join work and submitted tasks.
// Create one with New and release it with Close. All methods are safe for
// concurrent use. A method called on a nil *Pool panics with a message that
// names it ("blitz: Pool.Go: nil *Pool"); a function that takes a Runner
// given a nil *Pool panics with "nil Runner" ("blitz: Do: nil Runner").
type Pool struct {
	name string
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

	// hasInjectedJobs is the injector's emptiness check as a func value,
	// made once (a method value made per call would allocate).
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
	// every thief and idle worker (wait.go: serve). sync/atomic: a stale
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
	// sleeping worker (borrow.go, WithCallerRuns). Immutable after New.
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

// dequeCapacity is the initial capacity of each worker's deque; it grows
// (and Close drops what it grew to). Small, as a worker holds it for the
// pool's life whether it forks or not: a tree's eager forks and the lazy
// halves it offers rarely pile up past it, and a scope that spawns more
// grows it once.
const dequeCapacity = 64

var poolSeq atomic.Uint64

// New creates a pool and starts its workers. Options are applied in order;
// an invalid option makes New return an error and start nothing. Without
// options the pool has runtime.GOMAXPROCS(0) workers (read now, not later)
// and the ParkingAuto backend.
func New(opts ...Option) (*Pool, error) {
	var c config
	for _, o := range opts {
		if o == nil {
			c.fail("New: nil Option")
			continue
		}
		o(&c)
	}
	if err := c.resolve(); err != nil {
		return nil, err
	}
	be, err := resolveBackend(c.parking)
	if err != nil {
		return nil, err
	}
	if c.yield != nil {
		be.yield = c.yield
	}
	n := c.workers
	pl, err := c.place.plan(n, c.stealTiers)
	if err != nil {
		return nil, err
	}
	locked := 0 // OS threads the workers hold locked (threads.go)
	if be.lockThread || pl.cpus != nil {
		if err := reserveThreads("New", n, be.kind, pl.cpus != nil); err != nil {
			return nil, err
		}
		locked = n
	}
	p := &Pool{
		name:          c.name,
		backend:       be,
		panicHandler:  c.panicHandler,
		drained:       make(chan struct{}),
		closed:        make(chan struct{}),
		place:         newPoolPlacement(pl, &c.place),
		flatSteal:     pl.tiers == nil,
		callerRuns:    !c.noCallerRuns && !be.lockThread && be.kind != ParkingSpin && pl.cpus == nil && c.workerStart == nil && c.workerExit == nil,
		lockedThreads: locked,
	}
	p.inj.init(c.capacity)
	p.setProcs(runtime.GOMAXPROCS(0))
	p.epoch = time.Now()
	p.sampleMask = sampleMask(c.sampleEvery)
	p.hasInjectedJobs = func() bool { return p.inj.len() > 0 }
	p.queueWasEmpty = func() bool { return p.inj.len() <= 1 }
	parkers := make([]sleep.Parker, n)
	ws := make([]*Worker, n)
	p.seed = uint64(time.Now().UnixNano()) ^ poolSeq.Add(1)<<32
	p.initResizing(&c, n)
	for i := range ws {
		w := p.newWorker(i)
		w.alone = n == 1
		w.stealable.Store(n != 1)
		if pl.tiers != nil {
			w.tiers = pl.tiers[i]
		}
		if pl.cpus != nil {
			w.cpu = pl.cpus[i]
		}
		ws[i] = w
		parkers[i] = w.parker
	}
	p.workers.Store(&ws)
	p.sleep, err = sleep.New(sleep.Config{Parkers: parkers, Yield: be.yield, RoundsUntilSleepy: c.spinRounds})
	if err != nil {
		releaseThreads(locked)
		return nil, err
	}
	p.initMonitor(&c, n)
	for _, w := range p.workerList() {
		p.startWorker(w)
	}
	if p.place != nil {
		p.place.started.Wait() // every worker tried to pin: Stats shows the outcome
	}
	p.startFollowing()
	return p, nil
}

// newWorker makes worker i of p, not yet published nor started.
func (p *Pool) newWorker(i int) *Worker {
	w := &Worker{
		pool:  p,
		index: i,
		deque: deque.New[jobRef](dequeCapacity),
		rng:   splitmix64(p.seed + uint64(i)),
		cpu:   -1,
	}
	w.seenSize = int32(p.active.Load())
	w.parker = &countingParker{Parker: p.backend.newParker(), w: w}
	if p.callerRuns {
		w.guest = &countingParker{Parker: p.backend.newParker(), w: w}
	}
	return w
}

// workerList returns every worker the pool ever had (see Pool.workers).
func (p *Pool) workerList() []*Worker { return *p.workers.Load() }

// splitmix64 turns a counter into a well-mixed non-zero seed.
func splitmix64(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	x ^= x >> 31
	if x == 0 {
		x = 1
	}
	return x
}

func (p *Pool) startWorker(w *Worker) {
	p.wg.Add(1)
	p.live.Add(1)
	go w.run()
}

// workerExited is the last thing a worker goroutine does.
func (p *Pool) workerExited() {
	p.live.Add(-1)
	p.wg.Done()
}

// Workers returns the number of workers the pool is sized to: New's count,
// or the last Resize's (or the GOMAXPROCS the pool follows). Workers
// retired by a shrink may still be finishing the work they held.
func (p *Pool) Workers() int {
	if p == nil {
		panic("blitz: Pool.Workers: nil *Pool")
	}
	return int(p.size.Load())
}

// Closed reports whether Close or Shutdown has begun and closed the pool to
// new work. From then on the pool accepts no task: Go, TryGo and GoContext
// return an error matching ErrClosed whoever calls them, the pool's own
// tasks included (Close waits for every task it accepted, and tasks that
// could still submit tasks could keep it waiting for ever), and Run, Do,
// DoContext and TryDo called from outside the pool's tasks refuse too. A
// task the closing pool still runs may call into it with Run, Do,
// DoContext, TryDo or a function that takes a Runner: that queues nothing,
// and runs on the task's own worker (see "Calls from inside a task" in the
// package documentation).
func (p *Pool) Closed() bool {
	if p == nil {
		panic("blitz: Pool.Closed: nil *Pool")
	}
	// closing, not closeStarted: Shutdown closes the injector (and the
	// Subs) between the two, and from closing on every submission is
	// refused.
	return p.closing.Load()
}

// Name returns the pool's name (WithName).
func (p *Pool) Name() string {
	if p == nil {
		panic("blitz: Pool.Name: nil *Pool")
	}
	return p.name
}

// Parking returns the parking backend the pool resolved to (never
// ParkingAuto).
func (p *Pool) Parking() Parking {
	if p == nil {
		panic("blitz: Pool.Parking: nil *Pool")
	}
	return p.backend.kind
}

// sampleMask turns a sampling interval into a mask: the interval rounded up
// to a power of two, minus one.
func sampleMask(every int) uint64 {
	m := uint64(1)
	for m < uint64(every) {
		m <<= 1
	}
	return m - 1
}

// now is the pool's clock for latency sampling: nanoseconds since New, plus
// one so that a sampled time is never 0 (0 marks an unsampled task).
func (p *Pool) now() int64 { return int64(time.Since(p.epoch)) + 1 }

// inTask reports whether the caller is a task running on a worker of p
// (current.go).
func (p *Pool) inTask() bool {
	w := currentWorker()
	return w != nil && w.pool == p
}

// rootDone is called by worker w once for every submitted task it finished
// (or skipped as withdrawn).
func (p *Pool) rootDone(w *Worker) {
	atomics.StoreRelease64(&w.roots, w.roots+1)
	if p.closing.Load() {
		p.checkDrained()
	}
}

// idleCheck is the drain check of a worker that ran out of work, called
// right after StartLooking (see the Pool's completion comment).
func (p *Pool) idleCheck() {
	if p.closing.Load() {
		p.checkDrained()
	}
}

// completed sums the workers' finished-task counts.
func (p *Pool) completed() uint64 {
	var n uint64
	for _, w := range p.workerList() {
		n += atomics.LoadAcquire64(&w.roots)
	}
	return n
}

// checkDrained signals drained if every accepted task finished and no call
// runs on its caller (borrow.go). Called only after closing was seen true,
// so finalRoots is set.
func (p *Pool) checkDrained() {
	if p.drainSig.Load() {
		return // signalled already: every worker of a large pool checks once it idles
	}
	if p.completed() == p.finalRoots && !p.lent() {
		p.signalDrained()
	}
}

func (p *Pool) signalDrained() {
	if p.drainSig.CompareAndSwap(false, true) {
		close(p.drained)
	}
}

// Close shuts the pool down gracefully: it stops accepting work (Go returns
// ErrClosed, Run and Do panic with an error wrapping it), lets every task
// already accepted run to completion — including the work they fork — then
// stops the workers, wakes the sleeping ones, and returns when every worker
// goroutine has exited. Nothing is left running (goleak-clean), and the
// memory the workers used for running work (their deques, join frames and
// spawn slots, however much a storm of work grew them) is released: a
// closed pool that stays referenced keeps only what Stats reports, which
// stays readable. It is Shutdown without a deadline.
//
// Close is idempotent: later and concurrent calls wait for the first one to
// finish and return nil. Called from a task of the same pool it cannot wait
// for itself: it returns ErrCloseInTask and leaves the pool open (call it
// from a new goroutine instead). Called from a worker of another pool, it
// blocks that worker until this pool is drained. The default pool (Default)
// is never closed: Close on it returns ErrDefaultPool and leaves it open.
func (p *Pool) Close() error {
	if p == nil {
		panic("blitz: Pool.Close: nil *Pool")
	}
	return p.Shutdown(context.Background())
}

// Shutdown shuts the pool down like Close, but stops waiting when ctx ends.
// It stops accepting work at once (submissions fail with ErrClosed, and
// submitters waiting for room are woken with it), then waits until every
// accepted task has finished and the workers have exited. If ctx ends first,
// it returns by then, with a *ShutdownError giving the numbers of tasks
// still queued and running and of workers not yet exited, matching ctx.Err()
// with errors.Is; that includes a pool whose tasks have all finished but
// whose workers are still exiting (no task queued or running, some
// workers), as a pool of thousands of workers can be for a while. Nothing
// accepted is dropped: the pool goes on draining after such a return and
// releases its workers by itself when done; a later Close or Shutdown waits
// for that.
//
// Shutdown is idempotent and safe to call concurrently with Close and
// itself. Called from a task of the same pool it returns ErrCloseInTask and
// leaves the pool open, and on the default pool (Default) ErrDefaultPool,
// leaving it open. A nil ctx is a programmer error: Shutdown panics
// before it changes anything, so the pool stays open and usable.
func (p *Pool) Shutdown(ctx context.Context) error {
	if p == nil {
		panic("blitz: Pool.Shutdown: nil *Pool")
	}
	if ctx == nil {
		panic("blitz: Pool.Shutdown: nil context")
	}
	if p == defaultPool.Load() {
		return ErrDefaultPool
	}
	if p.inTask() {
		return ErrCloseInTask
	}
	if p.closeStarted.CompareAndSwap(false, true) {
		p.subs.closeAll()
		p.finalRoots = p.inj.close()
		p.inj.room.wakeAll()
		p.closing.Store(true)
		p.checkDrained()
		if ctx.Done() == nil {
			p.finishClose()
			return nil
		}
		go p.finishClose()
	}
	select {
	case <-p.closed:
		return nil
	case <-ctx.Done():
		select {
		case <-p.closed: // both were ready: the pool has shut down
			return nil
		default:
		}
		live := int(p.live.Load())
		if live == 0 {
			// Every worker goroutine has exited (a worker waiting on a
			// loan of itself cannot: live counts it): the pool has
			// drained, and finishClose has only its bookkeeping left,
			// which waits for nothing. An error would report nothing.
			<-p.closed
			return nil
		}
		// Still draining, or drained with workers left to exit (which
		// takes a while for thousands of workers): report what is left.
		var st Stats
		p.queueStats(&st) // the same consistent reading as Stats
		return &ShutdownError{Queued: st.Queued, Running: st.Running, Workers: live, Err: ctx.Err()}
	}
}

// finishClose waits for the accepted tasks to finish, then stops the
// workers. Run once, by the first Close or Shutdown (or a goroutine it
// started).
func (p *Pool) finishClose() {
	<-p.drained
	// Every accepted task finished: the deques and the injector are empty
	// and no worker waits on a frame or scope latch. Terminate the idle
	// loops; a worker that is Sleeping on its terminate latch is woken, and
	// one that is not yet asleep fails its Sleepy->Sleeping transition.
	// Under resizeMu, so that no Resize adds a worker from here on, and
	// after stopping, which the idle loop reads after it Reset its latch
	// (resize.go: the kick).
	p.resizeMu.Lock()
	p.stopping.Store(true)
	p.stopFollowing()
	p.stopMonitor()
	for _, w := range p.workerList() {
		w.kick()
		w.wakeDormant()
	}
	p.resizeMu.Unlock()
	p.wg.Wait()
	p.release()
	releaseThreads(p.lockedThreads)
	close(p.closed)
}

// release drops what only running work needs, once every worker goroutine
// has exited: the workers' deques (whose rings a storm of forks can have
// grown to megabytes), their frames and the jobs these reference, their
// run queues' rings and batch buffers, the spawn slots, the scope and
// context records, and the injector's rings. A closed pool that stays referenced
// then keeps only what Stats, Shutdown and the refused submissions read:
// the counters and histograms, the injector's positions, the workers'
// goroutine ids and placement. Nothing else can touch these any more:
// they belong to worker goroutines, and p.wg.Wait ordered their exit
// before this; a submission to the closed queue is refused before it
// looks at a slot.
func (p *Pool) release() {
	for _, w := range p.workerList() {
		w.deque = nil
		w.batch = nil
		w.runq.ring.Store(nil) // every slot was cleared as it was taken
		w.frames.release()
		w.spawns.release()
		w.lastScope, w.origin, w.lastLabelled = nil, nil, nil
		w.ctxs.Store(nil)
	}
	p.inj.release()
}
