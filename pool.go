package blitz

import (
	"sync/atomic"

	"github.com/blitz-go/blitz/atomics"
	"github.com/blitz-go/blitz/deque"
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

// dequeCapacity is the initial capacity of each worker's deque; it grows
// (and Close drops what it grew to). Small, as a worker holds it for the
// pool's life whether it forks or not: a tree's eager forks and the lazy
// halves it offers rarely pile up past it, and a scope that spawns more
// grows it once.
const dequeCapacity = 64

var poolSeq atomic.Uint64

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

// sampleMaskOf turns a sampling interval into a mask: the interval rounded up
// to a power of two, minus one.
func sampleMaskOf(every int) uint64 {
	m := uint64(1)
	for m < uint64(every) {
		m <<= 1
	}
	return m - 1
}

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
// runs on its caller (route.go). Called only after closing was seen true,
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

// lent reports whether a caller runs as one of p's workers (a slow path:
// Close's drain check).
func (p *Pool) lent() bool {
	if !p.callerRuns {
		return false
	}
	for i := range p.workerList() {
		if p.sleep.Borrowed(i) {
			return true
		}
	}
	return false
}
