package blitz

import (
	"runtime"
	"sync"

	"github.com/blitz-go/blitz/sleep"
)

// condBackend is ParkingCond's backend: plain goroutines, each parking on its
// own condParker, yielding with runtime.Gosched between idle rounds.
func condBackend() backend {
	return backend{
		kind:      ParkingCond,
		newParker: func() sleep.Parker { return newCondParker() },
		yield:     runtime.Gosched,
	}
}

// condParker is the condition-variable Parker of ParkingCond: a token under a
// mutex, and a sync.Cond the owner waits on while there is none. It is the
// design of the original Blitz and of Rayon (a mutex and a condvar per
// worker), written with Go's primitives: Wait parks the goroutine in the Go
// scheduler, so a wake goes through the scheduler's run queues as
// chanParker's does.
//
// Invariant: token is read and written only with mu held; Park consumes it
// (true -> false), Unpark sets it and signals, and a second Unpark before a
// Park leaves one token, not two.
type condParker struct {
	mu    sync.Mutex
	cond  sync.Cond
	token bool
	waits int // times Park waited on cond: the blocking path ran (tests)
}

func newCondParker() *condParker {
	p := &condParker{}
	p.cond.L = &p.mu
	return p
}

// Park consumes the token, waiting on the condition variable until there is
// one. Only the parker's owner calls it.
func (p *condParker) Park() {
	p.mu.Lock()
	for !p.token {
		p.waits++
		p.cond.Wait()
	}
	p.token = false
	p.mu.Unlock()
}

// Unpark leaves the token and wakes the owner if it waits. Any goroutine may
// call it. The signal is sent after the unlock, so the woken owner does not
// block again at once on a mutex the waker still holds.
func (p *condParker) Unpark() {
	p.mu.Lock()
	p.token = true
	p.mu.Unlock()
	p.cond.Signal()
}

// state returns whether a token is waiting, without consuming it, and how
// many times Park has waited.
func (p *condParker) state() (token bool, waits int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.token, p.waits
}
