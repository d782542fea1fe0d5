package sleep

import "github.com/blitz-go/blitz/atomics"

// Borrowing a sleeping worker.
//
// A goroutine outside the pool that would hand a job to a worker and then
// block until it is done (a pool's Run or Do) can instead run the job itself
// as a worker that sleeps: it borrows the worker, becomes it for the length
// of the job (its deque, its frames, its index), and returns it. The job
// then costs no wake and no hand-off between goroutines, and the pool never
// has more goroutines running as workers than it has workers: the one it
// borrowed stays parked.
//
// Borrow takes only a worker that sleeps in the counters (NoWorkFound), on
// the latch its caller names, and not borrowed already. Under the worker's
// mutex it clears isBlocked, so that no waker picks it (the waker that would
// have woken it wakes another sleeper, or sees none), sets borrowed, and
// takes the worker off the sleeping and inactive counts in one atomic add:
// to posters it is a worker awake and busy, which it is. The worker's own
// goroutine parks on: its park loop parks again while borrowed is set, if a
// leftover token wakes it.
//
// While borrowed, the guest is the worker to the protocol. Its isolated
// waits (a join whose half was stolen) sleep on the guest's Parker, and
// isBlocked, uncounted, nudged and poked are the guest's; wakers Unpark
// whichever Parker the sleeper parked on (sleeper). Two signals meant for
// the worker's goroutine cannot reach it while it is borrowed, and Return
// looks at both: a Set of the latch it sleeps on (the setter finds
// isBlocked clear and wakes nobody) and a Poke, which pokes the guest as
// it would the worker (the guest may be the one the poker waits for) and
// also marks returnPoke. Poke checks and wakes in one critical section, so
// that a Borrow cannot come between them.
//
// Return ends the borrow. If the latch was Set or a Poke came, it wakes
// the worker's goroutine, counted inactive and awake, as a waker would
// have. Otherwise the worker goes back to sleep in the counters without
// having searched, which is safe because of what the guest leaves behind
// and what posters do:
//
//   - a job on the guest's own deque: the caller runs every job left on it
//     before Return (the pool's borrow does), so there is none;
//   - a job on another worker's deque: its poster runs it if nobody else
//     does (the internal-jobs rule of the protocol);
//   - a job on the shared queue: Return registers the sleeper, then fence
//     F2' and the final check hasInjectedJobs, as steps S5-S7 of sleep do.
//     Its partner is fence F1 in NewInjectedJobsLazy: either the poster's
//     F1 comes first, and the check sees the job and Return wakes the
//     worker, or F2' comes first, and the poster's read of the counters
//     sees the sleeper and wakes it.
//
// Return needs no JEC check (step S5's): the JEC guards the window between
// a worker's last search and its registration, and a returning worker
// made no search to be stale.

// HasSleepers reports whether some worker sleeps in the counters: a
// borrower's first test, one load.
func (s *Sleep) HasSleepers() bool { return s.counters.load().sleepingThreads() > 0 }

// Borrowed reports whether worker is borrowed now (under its sleep lock:
// a Borrow that returned true before Borrowed took the lock is seen).
func (s *Sleep) Borrowed(worker int) bool {
	w := s.state(worker)
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.borrowed
}

// Borrow takes worker for the calling goroutine if it sleeps in the counters
// on latch, and reports whether it did. The caller then runs as the worker
// (its deque and every owner-only state) until it calls Return; guest is
// the Parker its own isolated waits park on meanwhile. Borrow never blocks:
// it gives up if another goroutine holds the worker's sleep lock, which
// includes the worker itself between registering asleep and parking (steps
// S5-S8 of sleep), so HasSleepers may answer true and Borrow still false.
func (s *Sleep) Borrow(worker int, latch *CoreLatch, guest Parker) bool {
	w := s.state(worker)
	if !w.mu.TryLock() {
		return false
	}
	if !w.isBlocked || w.uncounted || w.borrowed || w.latch != latch || latch.Probe() {
		w.mu.Unlock()
		return false
	}
	w.isBlocked, w.borrowed, w.guest, w.home = false, true, guest, latch
	s.counters.borrow()
	w.mu.Unlock()
	return true
}

// Return gives worker back after Borrow. The guest must have run every job
// left on the worker's own deque. hasInjectedJobs is NoWorkFound's: the
// final check before the worker sleeps again, called under its sleep lock.
func (s *Sleep) Return(worker int, hasInjectedJobs func() bool) {
	w := s.state(worker)
	w.mu.Lock()
	poked := w.returnPoke
	w.borrowed, w.guest, w.nudged, w.poked, w.returnPoke = false, nil, false, false, false
	if !poked && !w.home.Probe() {
		s.markSleeper(w) // before it counts again, as in sleep's S5
		s.counters.giveBack()
		// F2': pairs with fence F1 in NewInjectedJobsLazy (above).
		atomics.SeqCstFence()
		if !hasInjectedJobs() {
			w.isBlocked, w.latch = true, w.home
			w.mu.Unlock()
			return
		}
		s.counters.subSleepingThread()
	} else {
		s.counters.addInactiveThread()
	}
	w.mu.Unlock()
	w.parker.Unpark() // outside mu, as in wakeSpecificThread
}
