package blitz

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/blitz-go/blitz/deque"
	"github.com/blitz-go/blitz/sleep"
)

// A Pool is a set of workers that run fork-join work and submitted tasks.
// Create one with New and release it with Close. All methods are safe for
// concurrent use.
type Pool struct {
	name         string
	workers      []*Worker
	sleep        *sleep.Sleep
	backend      backend
	panicHandler func(v any, stack []byte)

	// hasInjectedJobs is the injector's emptiness check as a func value,
	// made once (a method value made per call would allocate).
	hasInjectedJobs func() bool

	inj    injector
	spawns spawnSlots

	// pending counts accepted root jobs (injected by Go, Run, Do) that have
	// not finished. Every other job descends from one of them and
	// finishes before it, so pending == 0 means the pool is idle.
	// Incremented by submitters before the push (and decremented again if
	// the push is refused), decremented by the worker that finished the
	// job. sync/atomic's sequential consistency makes the pair
	// (closing, pending) a Dekker handshake: Close stores closing then
	// loads pending; a finisher decrements pending then loads closing;
	// at least one of them sees the other, so the last finisher after
	// Close always signals drained.
	pending  atomic.Int64
	closing  atomic.Bool
	drained  chan struct{} // closed (once, by signalDrained) when pending reached 0 after closing
	drainSig atomic.Bool   // whoever flips it false->true closes drained

	closeStarted atomic.Bool   // the first Close flips it and does the work
	closed       chan struct{} // closed when the first Close has finished
	wg           sync.WaitGroup

	respawns atomic.Uint64

	// place is the placement state of a pool that pins its workers (nil
	// otherwise); immutable after New but for its started count.
	place *poolPlacement
}

// dequeCapacity is the initial capacity of each worker's deque; it grows.
const dequeCapacity = 256

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
	n := c.workers
	pl, err := c.place.plan(n, c.stealTiers)
	if err != nil {
		return nil, err
	}
	tiers := pl.tiers
	p := &Pool{
		name:         c.name,
		backend:      be,
		panicHandler: c.panicHandler,
		drained:      make(chan struct{}),
		closed:       make(chan struct{}),
		place:        newPoolPlacement(pl, &c.place),
	}
	p.hasInjectedJobs = func() bool { return p.inj.len() > 0 }
	parkers := make([]sleep.Parker, n)
	p.workers = make([]*Worker, n)
	seed := uint64(time.Now().UnixNano()) ^ poolSeq.Add(1)<<32
	for i := range p.workers {
		w := &Worker{
			pool:  p,
			index: i,
			deque: deque.New[jobRef](dequeCapacity),
			rng:   splitmix64(seed + uint64(i)),
			tiers: tiers[i],
			alone: n == 1,
			cpu:   -1,
		}
		if pl.cpus != nil {
			w.cpu = pl.cpus[i]
		}
		w.frames.init(i)
		p.workers[i] = w
		parkers[i] = &countingParker{Parker: be.newParker(), w: w}
	}
	p.sleep, err = sleep.New(sleep.Config{Parkers: parkers, Yield: be.yield, RoundsUntilSleepy: c.spinRounds})
	if err != nil {
		return nil, err
	}
	for _, w := range p.workers {
		p.startWorker(w)
	}
	if p.place != nil {
		p.place.started.Wait() // every worker tried to pin: Stats shows the outcome
	}
	return p, nil
}

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
	go w.run()
}

// Workers returns the number of workers.
func (p *Pool) Workers() int { return len(p.workers) }

// Name returns the pool's name (WithName).
func (p *Pool) Name() string { return p.name }

// Parking returns the parking backend the pool resolved to (never
// ParkingAuto).
func (p *Pool) Parking() Parking { return p.backend.kind }

// inject accepts a root job from any goroutine, or refuses it with ErrClosed.
func (p *Pool) inject(j runner) error {
	p.pending.Add(1)
	wasEmpty, err := p.inj.push(j)
	if err != nil {
		p.rootDone()
		return err
	}
	p.sleep.NewInjectedJobs(1, wasEmpty)
	return nil
}

// rootDone is called once for every accepted (or refused) root job, after it
// finished.
func (p *Pool) rootDone() {
	if p.pending.Add(-1) == 0 && p.closing.Load() {
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
// goroutine has exited. Nothing is left running (goleak-clean).
//
// Close is idempotent: later and concurrent calls wait for the first one to
// finish and return nil. Called from a task of the same pool it cannot wait
// for itself: it returns ErrCloseInTask and leaves the pool open (call it
// from a new goroutine instead). Called from a worker of another pool, it
// blocks that worker until this pool is drained.
func (p *Pool) Close() error {
	gid := curGoid()
	for _, w := range p.workers {
		if w.goid.Load() == gid {
			return ErrCloseInTask
		}
	}
	if !p.closeStarted.CompareAndSwap(false, true) {
		<-p.closed
		return nil
	}
	p.inj.close()
	p.closing.Store(true)
	if p.pending.Load() != 0 {
		<-p.drained
	}
	// Every accepted job finished: the deques and the injector are empty
	// and no worker waits on a frame or scope latch. Terminate the idle
	// loops; a worker that is Sleeping on its terminate latch is woken, and
	// one that is not yet asleep fails its Sleepy->Sleeping transition.
	for _, w := range p.workers {
		if w.terminate.Set() {
			p.sleep.NotifyWorkerLatchIsSet(w.index)
		}
	}
	p.wg.Wait()
	close(p.closed)
	return nil
}
