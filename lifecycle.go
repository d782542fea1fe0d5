package blitz

import (
	"context"
	"runtime"
	"time"

	"github.com/blitz-go/blitz/sleep"
)

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
	p.sampleMask = sampleMaskOf(c.sampleEvery)
	p.hasInjectedJobs = p.inj.ready
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
	if p.isDefault {
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
	// (worker.go: kick).
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
