package blitz

import (
	"fmt"
	"runtime"
	"sync/atomic"

	"github.com/blitz-go/blitz/atomics"
	"github.com/blitz-go/blitz/sleep"
)

// Parking selects how idle workers block. The choice matters for latency
// and for what the workers must be: futex parking pairs with workers locked
// to OS threads, portable parking with plain goroutines (the measured wake costs:
// bench/results/sleep-amd64.txt and bench/results/report-amd64.md).
type Parking int

const (
	// ParkingAuto is the default: portable parking, on every system. It is
	// the backend that cooperates with the Go scheduler, so it is right both
	// for servers (goroutines outside the pool that submit and wait get
	// their P and their result without a thread hand-off) and for fork-join
	// compute, which runs as fast on it as on futex parking. The figures
	// that chose it: bench/results/parking-choice-amd64.txt.
	ParkingAuto Parking = iota
	// ParkingFutex parks workers locked to OS threads on a futex word
	// (Linux only). A wake costs one FUTEX_WAKE syscall and skips the Go
	// scheduler's run queues, so a worker parked deep wakes sooner than a
	// portable one. The price: a locked worker holds its P through its idle
	// rounds and its futex wait, so goroutines outside the pool wait for a P,
	// and every hand-off between such a goroutine and a worker crosses OS
	// threads. Choose it for a program whose CPUs belong to the pool (the
	// work enters once and forks, nothing else runs), never for a server.
	ParkingFutex
	// ParkingPortable parks plain goroutines on a buffered channel; it works
	// on every system.
	ParkingPortable
	// ParkingSpin never blocks: an idle worker spins and yields until it is
	// woken. For experiments only: idle workers burn their CPUs.
	ParkingSpin
	// ParkingCond parks plain goroutines on a mutex and a sync.Cond per
	// worker, the design of the original Blitz and of Rayon; it works on
	// every system. It is there to be compared with futex parking.
	ParkingCond
)

// String returns the name used in benchmarks: auto, futex, portable, spin,
// cond.
func (p Parking) String() string {
	switch p {
	case ParkingAuto:
		return "auto"
	case ParkingFutex:
		return "futex"
	case ParkingPortable:
		return "portable"
	case ParkingSpin:
		return "spin"
	case ParkingCond:
		return "cond"
	}
	return fmt.Sprintf("Parking(%d)", int(p))
}

// autoParking is what ParkingAuto resolves to.
const autoParking = ParkingPortable

// resolveBackend maps a Parking choice to its backend: Auto to portable;
// Futex off Linux is an error.
func resolveBackend(kind Parking) (backend, error) {
	switch kind {
	case ParkingAuto:
		return resolveBackend(autoParking)
	case ParkingFutex:
		return futexBackend()
	case ParkingPortable:
		return backend{
			kind:      ParkingPortable,
			newParker: func() sleep.Parker { return newChanParker() },
			yield:     runtime.Gosched,
		}, nil
	case ParkingSpin:
		return backend{
			kind:      ParkingSpin,
			newParker: func() sleep.Parker { return new(spinParker) },
			yield:     runtime.Gosched,
		}, nil
	case ParkingCond:
		return condBackend(), nil
	}
	return backend{}, fmt.Errorf("blitz: unknown parking kind %v", kind)
}

// chanParker is the portable Parker: a channel of capacity one holds the
// token. Unpark is a non-blocking send (a second token is dropped), Park a
// receive.
//
// Chosen over a mutex + sync.Cond token (condParker, ParkingCond's parker in
// park_cond.go) by BenchmarkPortableParker (bench/results/sleep-amd64.txt):
// both wake through the scheduler's run queues; the channel is a little
// faster there and much cheaper where nobody waits, because a non-blocking
// send on a full channel returns without taking its lock.
type chanParker struct {
	c chan struct{}
}

func newChanParker() *chanParker { return &chanParker{c: make(chan struct{}, 1)} }

// Park receives the token, blocking until there is one.
func (p *chanParker) Park() { <-p.c }

// Unpark leaves a token unless one is already there.
func (p *chanParker) Unpark() {
	select {
	case p.c <- struct{}{}:
	default:
	}
}

// spinParker never blocks: Park spins, with a spin hint and a Gosched every
// spinParkerYieldEvery spins, until the token appears. Idle workers on it
// burn their CPUs; it exists to measure what parking costs.
type spinParker struct {
	// token: 1 when a token is available. Set to 1 by Unpark (any
	// goroutine, atomic store), cleared 1 -> 0 by Park (the owner, CAS).
	token atomic.Uint32
	_     atomics.Pad // keep neighbouring parkers off this cache line
}

// spinParked counts the goroutines in a spinParker's Park, of every pool in
// the process: each spins as a running or runnable goroutine, which the
// blocked-worker monitor, reading the scheduler's counts for the whole
// process, must not take for a busy worker that runs (blocking.go:
// monitor.blocked). Added to and taken back by Park, loaded by the
// monitors' ticks; sync/atomic, with no ordering partner: a stale count
// misjudges one tick.
var spinParked atomic.Int32

const spinParkerYieldEvery = 64

// Park spins until it consumes the token.
func (p *spinParker) Park() {
	spinParked.Add(1)
	defer spinParked.Add(-1)
	for i := 1; !p.token.CompareAndSwap(1, 0); i++ {
		if i%spinParkerYieldEvery == 0 {
			runtime.Gosched()
		} else {
			atomics.SpinHint()
		}
	}
}

// Unpark makes the token available.
func (p *spinParker) Unpark() { p.token.Store(1) }

// backend is a resolved parking choice: how the pool must run its workers and
// what they park on.
type backend struct {
	kind       Parking
	lockThread bool                // workers call runtime.LockOSThread for their whole life
	newParker  func() sleep.Parker // one per worker
	yield      func()              // one idle round's yield (sleep.Config.Yield)
}
