package sleep

import "sync/atomic"

// # Latches (CoreLatch)
//
// The pool Sets a worker's latch when what the worker waits for happened
// (its stolen job completed, the pool stops). Set reports whether the latch
// was Sleeping; then the setter calls NotifyWorkerLatchIsSet, which wakes
// the worker through the handshake (sleep.go, "Waking"). A latch Set while
// Unset or Sleepy makes S4 fail, so the worker never sleeps past it.

// CoreLatch states. A worker's CoreLatch is the one thing other threads Set
// to tell it "what you wait for has happened" (its joined job completed, the
// pool is stopping); the intermediate states let the setter know whether it
// must also wake the worker.
//
//	Unset ──getSleepy──▶ Sleepy ──fallAsleep──▶ Sleeping
//	  ▲                                             │
//	  └──────────────────wakeUp─────────────────────┘
//	any state ──Set──▶ Set ──Reset──▶ Unset
//
// The transitions to and from sleep (getSleepy, fallAsleep, wakeUp) belong to
// the protocol: Sleep makes them on the owning worker's behalf inside
// NoWorkFound and IsolatedNoWork. A user of the package calls only Set (any
// goroutine), Probe and Reset (the owner).
const (
	latchUnset    uint32 = iota // the worker is awake (active or idle)
	latchSleepy                 // the worker is about to register as sleeping
	latchSleeping               // the worker is registered as sleeping or parked
	latchSet                    // the event happened; the worker must not sleep
)

// CoreLatch is a worker's latch: a one-shot event that other goroutines Set
// and that the owning worker probes in its idle loop. Its zero value is
// Unset. What a goroutine wrote before its Set is visible to the owner once
// its Probe reports the latch Set.
type CoreLatch struct {
	// state is written by the owning worker (getSleepy, fallAsleep,
	// wakeUp, Reset: CAS or store) and by any setter (Set: swap); it is
	// read by the owner (Probe). All accesses are sequentially consistent
	// atomics; Set's swap releases the setter's writes to the owner's
	// acquiring Probe.
	state atomic.Uint32
}

// getSleepy moves the latch Unset -> Sleepy (step S4, sleep.go). It fails if
// the latch was Set, in which case the worker must not go to sleep. Owner
// only.
func (l *CoreLatch) getSleepy() bool {
	return l.state.CompareAndSwap(latchUnset, latchSleepy)
}

// fallAsleep moves the latch Sleepy -> Sleeping, under the worker's sleep
// lock (step S4). It fails if the latch was Set since getSleepy, in which
// case the worker must not go to sleep. Owner only.
func (l *CoreLatch) fallAsleep() bool {
	return l.state.CompareAndSwap(latchSleepy, latchSleeping)
}

// wakeUp moves the latch Sleeping -> Unset after the worker decided not to
// sleep after all or was woken. A latch Set meanwhile stays Set. Owner only.
func (l *CoreLatch) wakeUp() {
	l.state.CompareAndSwap(latchSleeping, latchUnset)
}

// Set moves the latch to Set from any state and reports whether the worker
// was Sleeping: then the caller must wake it (Sleep.NotifyWorkerLatchIsSet).
// A worker that was not yet asleep sees Set in its next Probe or attempt to
// sleep, and does not sleep.
func (l *CoreLatch) Set() bool {
	return l.state.Swap(latchSet) == latchSleeping
}

// Probe reports whether the latch is Set.
func (l *CoreLatch) Probe() bool {
	return l.state.Load() == latchSet
}

// Reset moves a Set latch back to Unset so that the owner can wait on it
// again. Only the owner calls it, and only once nobody can still Set it for
// the previous event.
func (l *CoreLatch) Reset() {
	l.state.Store(latchUnset)
}
