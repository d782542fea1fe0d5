package blitz

import (
	"runtime"
	"time"

	"github.com/blitz-go/blitz/atomics"
)

// Following GOMAXPROCS.
//
// Go 1.25 and later change GOMAXPROCS while a program runs when its
// container's CPU limit changes, and say so to nobody: a program that wants
// to follow it has to look. A pool made without WithWorkers looks on a
// timer that runs only while the pool works:
//
//   - a tick every followPeriod reads runtime.GOMAXPROCS(0) (a lock and a
//     load in the runtime) and, if it differs from the value the follower
//     saw last (follower.seen), resizes the pool to it, then sums
//     the workers' executed counts; if they moved since the last tick, or a
//     worker woke from a park meanwhile, it re-arms the timer, otherwise it
//     leaves it disarmed. A fully idle pool therefore has at most one tick
//     after its last job, then no timer at all: nothing wakes up while the
//     workers are parked (a profile of an idle server shows nothing).
//   - a worker that wakes from a park (a slow path already, a futex or
//     channel wake) or finds work after it ran out of work marks the
//     follower pending and, if the timer is disarmed, arms it: at once if
//     GOMAXPROCS differs from the value seen last, after followPeriod
//     otherwise.
//
// So a change is applied within followPeriod while the pool works, and when
// an idle pool gets work, at once (what an idle pool's size is does not
// matter until then).
//
// The follower compares GOMAXPROCS with the value it saw last, never with
// the pool's size: a Resize sets a size that holds until GOMAXPROCS next
// changes, and Resize records the GOMAXPROCS of its time as seen, so that
// only a change after it undoes it. The workers the monitor adds for
// blocked ones (blocking.go) are not part of the size and do not matter
// here either. The cost is a tick per followPeriod while busy
// (microseconds: a runtime lock, a sum over the workers), and on a worker's
// wake or return to work two atomic loads, plus a store once per tick and
// a GOMAXPROCS read when it arms the timer.
//
// Disarming races with arming: the tick stores armed false and then loads
// pending; a waking worker stores pending and then CASes armed. Both
// sequentially consistent, so either the worker's CAS finds the timer
// disarmed and arms it, or the tick sees pending and re-arms it: a pool
// that starts working never stays without a timer.

// followPeriod is how often a working pool looks at GOMAXPROCS.
const followPeriod = time.Second

// startFollowing arms the first tick of a following pool.
func (p *Pool) startFollowing() {
	f := p.follower
	if f == nil {
		return
	}
	f.armed.Store(true)
	f.timer = time.AfterFunc(f.period, p.followTick)
}

// stopFollowing stops the timer, under the resize lock, as Close stops the
// workers. A tick already running sees the pool closing and stops there; a
// worker that armed the timer just before may leave one more tick, which
// does the same.
func (p *Pool) stopFollowing() {
	if f := p.follower; f != nil && f.timer != nil {
		f.armed.Store(true) // no waking worker arms it again
		f.timer.Stop()
	}
}

// followSize is GOMAXPROCS clamped to what the pool can have.
func (p *Pool) followSize() int {
	return min(max(runtime.GOMAXPROCS(0), 1), p.maxWorkers)
}

// followWake is called by a worker that woke from a park or found work
// after it was idle: it marks the follower pending (a load, and a store once
// per tick at most) and arms the timer if it is disarmed.
func (p *Pool) followWake() {
	f := p.follower
	if f == nil {
		return
	}
	if !f.pending.Load() {
		f.pending.Store(true)
	}
	if !f.armed.Load() && f.armed.CompareAndSwap(false, true) {
		d := f.period
		if p.followSize() != int(f.seen.Load()) {
			d = 0
		}
		f.timer.Reset(d)
	}
}

// followTick is the timer's function.
func (p *Pool) followTick() {
	f := p.follower
	p.resizeMu.Lock()
	defer p.resizeMu.Unlock()
	if p.closeStarted.Load() {
		return // stays armed: nobody arms it again
	}
	// pending first: a worker that woke after this Swap leaves it set for
	// the next tick, which reads GOMAXPROCS after the wake.
	woke := f.pending.Swap(false)
	p.followCheck()
	if f.ticked != nil {
		f.ticked(int(p.size.Load()))
	}
	sum := p.executedSum()
	busy := sum != f.last
	f.last = sum
	if woke || busy {
		f.timer.Reset(f.period)
		return
	}
	f.armed.Store(false)
	if f.pending.Load() && f.armed.CompareAndSwap(false, true) {
		f.timer.Reset(f.period)
	}
}

// followCheck resizes the pool to GOMAXPROCS if GOMAXPROCS changed since
// the follower last saw it. Under resizeMu, on an open pool.
func (p *Pool) followCheck() {
	f := p.follower
	n := p.followSize()
	if n == int(f.seen.Load()) {
		return // unchanged: a Resize since holds
	}
	if p.resizeLocked(n) == nil {
		f.seen.Store(int32(n))
	} // an error (the thread limit) leaves the size and seen: the next tick tries again
}

// executedSum sums the workers' executed counts.
func (p *Pool) executedSum() uint64 {
	var n uint64
	for _, w := range p.workerList() {
		n += atomics.LoadAcquire64(&w.stats.executed)
	}
	return n
}
