package sleep

import (
	"errors"
	"fmt"
	mathbits "math/bits"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/blitz-go/blitz/atomics"
)

// The sleep protocol, step by step.
//
// It is rayon-core's sleep protocol (rayon-core/src/sleep, Rayon RFC #5),
// with the parking primitive left to the caller: each worker blocks on a
// Parker, which the root package implements on a futex (Linux), a channel
// (everywhere) or a spin loop. The latch's transitions to and from sleep are
// the protocol's own (steps S4 and S8 below); Sleep makes them for the
// worker inside NoWorkFound and IsolatedNoWork, and nothing else may.
//
// # Vocabulary
//
// A worker is active while it runs a job, idle while it searches for work
// (its own deque, the other workers' deques, the injector queue), and
// sleeping while it is blocked in Parker.Park. Idle and sleeping workers
// together are inactive. A sleepy worker is an idle worker that has
// announced it is about to sleep and does one more search first.
//
// The shared state is one packed 64-bit word (counters.go): the number of
// sleeping workers, the number of inactive workers, and the jobs event
// counter (JEC). Each worker also has a CoreLatch (latch.go) that others Set
// to tell it that what it waits for happened, and a sleeping handshake
// (workerSleepState: a lock, an isBlocked flag and its Parker).
//
// # Posting work (NewInternalJobs, NewInjectedJobsLazy)
//
//	P1. Push the job: onto the poster's own deque (internal) or the
//	    injector queue (injected, from outside the pool).
//	P2. Injected jobs only: fence F1 (atomics.SeqCstFence). It pairs with F2.
//	P3. In one CAS: if the JEC is even, make it odd; read the counters.
//	P4. If nobody sleeps, return: no lock, no syscall. Otherwise wake as
//	    many sleepers as the awake-but-idle workers (inactive - sleeping)
//	    cannot absorb, or one per job if the queue already held work.
//	    NewInjectedJobsLazy asks whether the queue held work only here,
//	    when someone sleeps: finding out may cost the poster a cache miss.
//
// # Falling asleep (IdleState, NoWorkFound)
//
//	S1. StartLooking: inactive += 1. Search; each failed search is a round.
//	S2. Rounds 0..R-1 (R = RoundsUntilSleepy): yield and search again.
//	    Round R: get sleepy: if the JEC is odd make it even; remember it.
//	S3. Round R+1: one more search (the caller's), and if it fails:
//	S4. CoreLatch Unset -> Sleepy (fails if Set: the awaited event came).
//	    Take the worker's lock. CoreLatch Sleepy -> Sleeping (fails if Set
//	    meanwhile).
//	S5. In one CAS: if the JEC still equals the remembered value,
//	    sleeping += 1. If it moved, unlock, CoreLatch back to Unset, and
//	    return to S2's round R (search once more, get sleepy again).
//	S6. Fence F2 (atomics.SeqCstFence). It pairs with F1.
//	S7. The final check: if the injector holds a job, sleeping -= 1 (nobody
//	    will wake us for it), unlock, and return to S1's round 0.
//	S8. isBlocked = true; unlock; Park until a waker has cleared isBlocked
//	    (a return with isBlocked still set is spurious: park again). Then
//	    CoreLatch back to Unset and start again at round 0.
//
// A worker that finds work calls WorkFound: inactive -= 1, and if others
// sleep it wakes up to two of them, in case the job it found was the first
// of many (Rayon's heuristic). Unlike Rayon's loop, the pool's worker then
// keeps running the jobs it finds and calls StartLooking again only after a
// search fails: a worker between two jobs is not counted idle. That spares
// the counters word two writes per job under a stream of submitted tasks,
// and can only understate the awake-but-idle count, so P4 may wake a
// sleeper it did not need, never fewer.
//
// # Waking (wakeSpecificThread)
//
// The waker takes the sleeper's lock, and if isBlocked is set it clears it
// and decrements sleeping, then unlocks and Unparks the sleeper. The waker,
// not the sleeper, decrements: the sleeper runs only after the wake's
// latency, and until then posters would count it as asleep and wake it again.
//
// The lock is the handshake. The sleeper holds it from before its latch
// becomes Sleeping (S4) until isBlocked is set (S8): a few instructions,
// never across Park. A waker that read sleeping > 0 after S5, or a setter
// that saw the latch Sleeping, then either waits for the lock and finds
// isBlocked set, or finds the worker gone back to searching. Without the
// lock a waker could look at isBlocked between S5 and S8, find it clear,
// wake nobody, and the sleeper would park with the job (or a Set latch)
// unnoticed: the NO_HANDSHAKE mutant of the model finds exactly that.
// Unpark leaves a token if the sleeper is not parked yet; Park then returns
// at once, and the isBlocked re-check makes stale tokens harmless.
//
// # Sleeping on a latch alone (IsolatedNoWork)
//
// A worker in an isolated wait may run only work that descends from what it
// waits for (the pool's isolated waits): a joiner steals only from its thief. If it
// slept through S5, it would count as sleeping, and a poster of a job it may
// not take could wake it instead of a worker that can. So it sleeps outside
// the counters (IsolatedNoWork: the idle rounds, then sleepOnLatch): S4 and
// S8 alone, with no sleeping increment and no JEC, and only its latch's Set
// ends its wait. Under the lock it marks itself uncounted: wakeAnyThreads
// passes it by, and NotifyWorkerLatchIsSet wakes it without touching the
// sleeping count. The handshake argument above is unchanged: the lock covers
// the latch's Sleeping state and isBlocked alike. No fence is needed: nothing
// but the Set can end its wait, and the Set is a sequentially consistent
// swap that the sleeper's CASes on the same word order.
//
// Nudge is that wake without the Set, for the one worker an isolated waiter
// may take work from, when it pushes some: under the lock, an uncounted
// blocked worker is unblocked and unparked, and returns with its latch
// Unset, as from a spurious wake; it searches, and sleeps again if it finds
// nothing. A Nudge and a Set racing each other unblock the worker once (the
// lock decides who), and the latch stays Set for it to see (wakeUp's CAS
// from Sleeping fails on Set): TestNudgeRacesLatchSet. A Nudge that finds
// the worker awake is kept (nudged, under the lock), and its next latch
// sleep returns before parking: the Nudge may have come between the
// worker's last search and its commit to park, and the lock orders the two,
// so it is never lost there.
//
// # Deadlock freedom
//
// Internal jobs need no fence: a job that a sleepy worker misses is still on
// its poster's deque, and the poster is an awake worker that will run it (or
// a later post or WorkFound will wake someone). The JEC only recovers the
// parallelism.
//
// An injected job has no such owner: if every worker slept past it, it
// would never run. Model the injection as PushJob (the queue write), F1,
// ReadSleepers (P3's read of the counters), and the sleeper's side as
// IncSleepers (S5), F2, ReadJob (S7). The two fences are sequentially
// consistent, so one comes first in their single total order:
//
//   - F1 first: PushJob happens before F1, F1 before F2, F2 before ReadJob,
//     so ReadJob sees the job and the worker does not sleep (S7);
//   - F2 first: IncSleepers happens before ReadSleepers, so the poster sees
//     the sleeper and wakes it (P4; the handshake makes the wake land).
//
// Either way the job is seen. The argument uses neither the JEC nor its
// value, which is why a JEC that wrapped around (counters.go) cannot strand
// an injected job: the final check S7 is what protects them.
//
// # Progressive sleep
//
// The idle rounds exist because waking a parked worker is slow next to
// running a job that a still-yielding worker finds: a worker that yields for
// about one wake's cost after its last job catches the next job without
// anybody paying a wake. DefaultRoundsUntilSleepy gives the choice and
// bench/results/sleep-amd64.txt the measurements behind it. Parked workers
// cost no CPU (BenchmarkIdleCPU in the root package). A worker that knows
// its next job will come from someone who must first run on its CPU (the
// root package's worker after handing a result to a waiting caller) calls
// ShortenRounds: it parks after a round or two, and the caller's next post
// wakes it. The rounds only decide when a worker gets sleepy; steps S2-S8
// are the same whatever their number.
//
// # Evidence
//
// model/sleep.pml is a Promela model of this protocol and of the pool code
// that drives it (the idle loop, the injector, the deques, isolated joins,
// Goexit and respawn, Close's drain), checked by model/check.sh with spin in
// a sequentially consistent mode and in an x86-TSO mode with store buffers,
// with a mutant per fence, barrier and handshake that must fail
// (model/README.md gives the table). The TSO mode found that, on amd64, the
// pop's fence O1, StartLooking's barrier and F1 are needed while F2 and the
// thief's fence are not. F1 orders the publish (a plain store) before P3's
// load of the counters, which the final check S7 relies on: it looks at the
// published slot where pop looks, not at the tail a claim moves (a claim
// not yet written is a job nobody can take). F2 is redundant because S5 is
// itself a locked CAS. F2 and the thief's fence stay, cheap and needed
// where loads reorder. The stress tests
// (stress_test.go) run real goroutines over a blocking, a spinning and a
// spuriously returning Parker, past a JEC wrap-around, and stop pools while
// workers fall asleep; the root package's TestBackendsRunSleepProtocol runs
// the protocol over the pool's own Parkers.
//
// The JEC and its parity rules are told in counters.go, beside the counters
// word; the latch and its states, in latch.go.

// Parker is the blocking primitive a worker sleeps on: a binary token, as in
// java.util.concurrent.locks.LockSupport or the Go runtime's notes. The pool
// in the root package brings its own (a futex on Linux, a channel, a spin
// loop: blitz.WithParking); this package's tests bring theirs.
type Parker interface {
	// Park blocks until a token is available and consumes it. It may return
	// spuriously; callers re-check their condition and park again.
	Park()
	// Unpark makes the token available (at most one: two Unparks before a
	// Park leave one token), waking a parked caller. It never blocks.
	Unpark()
}

// Config configures a Sleep.
type Config struct {
	// Parkers holds one Parker per worker; len(Parkers) is the worker count.
	Parkers []Parker
	// Yield is called once per idle round before the worker gets sleepy; nil
	// means runtime.Gosched. Workers locked to OS threads should pass a
	// sched_yield (runtime.Gosched on a locked thread hands its P away).
	Yield func()
	// RoundsUntilSleepy is the number of idle rounds (searches followed by a
	// Yield) before a worker announces itself sleepy. 0 means
	// DefaultRoundsUntilSleepy; a negative value means no yield rounds: the
	// worker gets sleepy on its first failed search.
	RoundsUntilSleepy int
}

// The measurements behind DefaultRoundsUntilSleepy (BenchmarkWake,
// BenchmarkRounds and BenchmarkIdleCPU in the root package) are in
// bench/results/sleep-amd64.txt.

// DefaultRoundsUntilSleepy is the number of idle rounds a worker yields
// before it gets sleepy. Rayon and Blitz use 32; 64 rounds keep a worker
// reachable (running a posted job without anybody paying a wake) for about
// what waking a parked worker costs, and no longer: the competitive choice
// between spinning and parking. Idle CPU over a longer idle period does not
// depend on it: parked workers cost nothing.
const DefaultRoundsUntilSleepy = 64

// Sleep decides when idle workers sleep and wakes them when work is posted.
// It implements rayon-core's sleep protocol.
type Sleep struct {
	counters counters
	_        atomics.Pad // keep the counters off the workers' lines

	// workers is every worker's sleeping handshake, indexed by worker: an
	// immutable slice of pointers, replaced by a longer copy when Grow adds
	// workers (stored by Grow, whose callers serialize; loaded by the
	// sleepers and wakers, sequentially consistent). A state, once
	// published, stays at its index for the Sleep's life.
	workers atomic.Pointer[[]*workerSleepState]

	// sleepers has a bit per worker that may sleep in the counters, so
	// that a wake meant for any sleeper (wakeAnyThreads) finds one without
	// taking the lock of every worker in turn: with thousands of workers
	// busy in blocking tasks (the pool adds them: blocking.go in package
	// blitz), that scan made every submission's wake cost a lock per
	// worker. A worker sets its bit under its mu before it registers as
	// sleeping (S5: the counters' CAS), so a waker that read the sleeping
	// count after that registration (NewInjectedJobsLazy's load, after F1)
	// finds the bit in a later load. A set bit is a hint: the waker takes
	// the mu and checks isBlocked, as before. Nobody clears a bit on the
	// way to or from a park (a worker that sleeps again finds its bit set
	// and writes nothing: a wake's round trip pays no locked instruction
	// for it); wakeAnyThreads clears the bit of a worker it finds awake,
	// under that worker's mu, where the worker cannot be between S5 and S8.
	// sync/atomic (Or, And, Load).
	sleepers [(MaxWorkers + 63) / 64]atomic.Uint64

	// Immutable after New.
	yield             func()
	roundsUntilSleepy int // the round in which a worker announces itself sleepy; it sleeps in the next
}

// workerSleepState is the sleeping handshake of one worker.
type workerSleepState struct {
	// index is the worker's index, its bit in Sleep.sleepers. Immutable.
	index int
	// mu protects isBlocked. The sleeper holds it from before its latch
	// becomes Sleeping until isBlocked is true (a few instructions, never
	// across Park), so a waker that saw the sleeping count cannot look at
	// isBlocked in between and miss the sleeper.
	mu sync.Mutex
	// isBlocked is set by the worker (under mu) when it commits to Park, and
	// cleared by exactly one waker (under mu), who then takes the worker off
	// the sleeping count and Unparks it. The worker, back from Park, re-reads
	// it under mu and parks again while it is still set.
	isBlocked bool
	// uncounted says that the blocked worker sleeps on its latch alone
	// (sleepOnLatch): it is not in the sleeping count, so its waker must
	// not take it off, and wakes meant for any sleeper (wakeAnyThreads)
	// pass it by. Written with isBlocked, under mu.
	uncounted bool
	// nudged says that a Nudge found the worker awake: its next
	// sleepOnLatch returns instead of parking, so that a Nudge sent
	// between the worker's last search and its commit to park is not
	// lost. Set by Nudge and cleared by sleepOnLatch, under mu.
	nudged bool
	// poked says that a Poke found the worker awake: its next sleep or
	// sleepOnLatch returns instead of parking, for the same reason as
	// nudged. Set by Poke and cleared by sleep and sleepOnLatch, under mu.
	poked bool
	// returnPoke says that a Poke came while the worker was borrowed:
	// it was meant for the worker's goroutine too, which Return wakes.
	// Set by Poke, cleared by Return, under mu.
	returnPoke bool
	// borrowed says that a goroutine outside the pool runs as this worker
	// while the worker's own goroutine stays parked (borrow.go): set by
	// Borrow and cleared by Return, under mu. While it is set, the
	// worker's goroutine parks again whatever isBlocked says, and
	// isBlocked, uncounted and the parker to Unpark are the guest's.
	borrowed bool
	// latch is the latch the blocked sleeper sleeps on, written with
	// isBlocked under mu: Borrow takes only a worker asleep on the latch
	// its caller names. home is that latch, kept by Borrow for Return to
	// probe and restore (the guest's own sleeps overwrite latch).
	latch, home *CoreLatch
	// parker is the worker goroutine's, immutable; guest is the one the
	// worker's guest parks on while it is borrowed (Borrow's argument),
	// written by Borrow under mu.
	parker Parker
	guest  Parker
	_      atomics.Pad
}

// sleeper returns the Parker of whoever sleeps as this worker: the guest
// while it is borrowed, the worker's own goroutine otherwise. Called
// under mu.
func (w *workerSleepState) sleeper() Parker {
	if w.borrowed {
		return w.guest
	}
	return w.parker
}

// IdleState is a worker's progress through the idle rounds, kept by the
// worker between StartLooking and WorkFound.
type IdleState struct {
	worker int    // the worker's index
	rounds int    // idle rounds so far
	jec    uint64 // the JEC value remembered when getting sleepy, or jecDummy
	// quick says that the worker gets sleepy without yielding
	// (ShortenRounds with n = 0).
	quick bool
}

// New returns a Sleep for len(cfg.Parkers) workers. It fails if there are no
// workers, more than MaxWorkers, or a nil Parker.
func New(cfg Config) (*Sleep, error) {
	n := len(cfg.Parkers)
	if n == 0 {
		return nil, errors.New("sleep: no workers (Config.Parkers is empty)")
	}
	if n > MaxWorkers {
		return nil, fmt.Errorf("sleep: %d workers, more than MaxWorkers (%d) that the 16-bit thread counters can hold", n, MaxWorkers)
	}
	s := &Sleep{yield: cfg.Yield}
	ws := make([]*workerSleepState, n)
	for i, p := range cfg.Parkers {
		if p == nil {
			return nil, fmt.Errorf("sleep: Config.Parkers[%d] is nil", i)
		}
		ws[i] = &workerSleepState{parker: p, index: i}
	}
	s.workers.Store(&ws)
	if s.yield == nil {
		s.yield = runtime.Gosched
	}
	switch r := cfg.RoundsUntilSleepy; {
	case r == 0:
		s.roundsUntilSleepy = DefaultRoundsUntilSleepy
	case r < 0:
		s.roundsUntilSleepy = 0
	default:
		s.roundsUntilSleepy = r
	}
	return s, nil
}

// AwakeIdle is the number of workers that are idle but not asleep in the
// counters: searching, yielding through their idle rounds, or getting
// sleepy. One load; a moment's reading, for the pool's monitor, which takes
// them for running goroutines that are not busy workers.
func (s *Sleep) AwakeIdle() int {
	w := s.counters.load()
	return int(w.inactiveThreads()) - int(w.sleepingThreads())
}

// Sleeping is the number of workers asleep in the counters. One load; a
// moment's reading (benchmarks wait on it for a pool gone idle).
func (s *Sleep) Sleeping() int { return int(s.counters.load().sleepingThreads()) }

// Workers returns the number of workers the Sleep tracks.
func (s *Sleep) Workers() int { return len(*s.workers.Load()) }

// Grow adds one worker per Parker, with the next indexes, and returns the
// index of the first. It fails, adding none, if a Parker is nil or the
// count would exceed MaxWorkers. Calls to Grow must not overlap (the caller
// serializes them); every other method may run concurrently with it. A
// worker added must not call any method before Grow returned. The new
// workers start neither sleeping nor idle: they join the counters through
// StartLooking, like any worker.
//
// A waker that read the counters after a new worker joined them loads the
// slice after that, and so finds the new worker: Grow stores the slice
// before it returns, so before the worker starts.
func (s *Sleep) Grow(parkers ...Parker) (int, error) {
	old := *s.workers.Load()
	if len(old)+len(parkers) > MaxWorkers {
		return 0, fmt.Errorf("sleep: %d workers, more than MaxWorkers (%d) that the 16-bit thread counters can hold", len(old)+len(parkers), MaxWorkers)
	}
	ws := make([]*workerSleepState, len(old), len(old)+len(parkers))
	copy(ws, old)
	for i, p := range parkers {
		if p == nil {
			return 0, fmt.Errorf("sleep: Grow: Parker %d is nil", i)
		}
		ws = append(ws, &workerSleepState{parker: p, index: len(ws)})
	}
	s.workers.Store(&ws)
	return len(old), nil
}

// state returns worker i's sleeping handshake.
func (s *Sleep) state(i int) *workerSleepState { return (*s.workers.Load())[i] }

// StartLooking is called by a worker that ran out of work and starts
// searching: it joins the inactive count. It is one sequentially consistent
// atomic add, a full barrier: the pool's drain check relies on that.
func (s *Sleep) StartLooking(worker int) IdleState {
	s.counters.addInactiveThread()
	return IdleState{worker: worker, jec: jecDummy}
}

// ShortenRounds leaves idle at most n yielding rounds before it gets
// sleepy, for a worker whose next job is unlikely to come soon from another
// worker: it parks after about n searches instead of the configured count.
// With n = 0 it does not yield at all: its next NoWorkFound announces it
// sleepy, and the one after it, if the search in between found nothing,
// puts it to sleep. It never lengthens the rounds, and changes nothing once
// the worker is sleepy. Only the worker that owns idle may call it.
func (s *Sleep) ShortenRounds(idle *IdleState, n int) {
	if r := s.roundsUntilSleepy - n; idle.rounds < r {
		idle.rounds = r
		idle.quick = n <= 0
	}
}

// SleepyNow announces the worker sleepy at once, for a worker that has
// just searched and found nothing and whose next job is unlikely to come
// from another worker soon: its next search is the one after the
// announcement (step S2), and if that finds nothing the next NoWorkFound
// puts it to sleep. One search fewer than ShortenRounds with n = 0, which
// announces only after a further search. Safe at any point of the idle
// rounds: the protocol needs a search after the announcement, not before
// it. Only the worker that owns idle may call it. It reports whether it
// announced: a sleepy idle is left as it is, and the caller goes on to
// NoWorkFound.
func (s *Sleep) SleepyNow(idle *IdleState) bool {
	if idle.rounds > s.roundsUntilSleepy {
		return false
	}
	idle.jec = s.announceSleepy()
	idle.rounds = s.roundsUntilSleepy + 1
	idle.quick = true
	return true
}

// WorkFound is called by a worker that found work (or stops looking): it
// leaves the inactive count and, if others are sleeping, wakes up to two of
// them in case more work follows.
func (s *Sleep) WorkFound() {
	s.wakeAnyThreads(s.counters.subInactiveThread())
}

// WorkFoundAlone is WorkFound for a worker whose job was submitted (a
// submitted task wakes a sleeper as it is posted, NewInjectedJobsLazy) in a
// pool whose sleepers are many, where waking two more for every job found
// sets off a cascade of searches that find nothing. It wakes one sleeper,
// and only where the worker was the last one awake and idle and the shared
// queue still holds a job (more, the same check as NoWorkFound's
// hasInjectedJobs). Go's scheduler has the same rule: the last spinning M
// to find work wakes one more (resetspinning).
//
// That wake is owed. A poster that found workers awake but idle (P4) woke
// nobody, counting on them; each of them leaves idleness by finding work or
// by sleeping, and a sleeper's final check (S7) sees the poster's job. Of
// those that find work, the last to leave, if the job is still there, is
// the one left to wake a sleeper for it: the poster's push precedes its P3,
// which read these workers as inactive, so P3 precedes the subtraction
// here in the counters word's order, and more, called after it, sees the
// push. Without the wake, two one-worker pools whose tasks submitted to
// each other's full queues stalled in one run in a few hundred: every
// worker but a sleeper blocked, a task queued, nobody awake to take it
// (TestBoundedPoolsSubmittingToEachOther). A wake whenever the queue holds
// more, rather than only from the last idle worker, cost a burst of 10,000
// blocking tasks a third of its speed.
func (s *Sleep) WorkFoundAlone(more func() bool) {
	if c := s.counters.subInactive(); c.sleepingThreads() > 0 && c.awakeButIdleThreads() == 0 && more() {
		s.wakeAnyThreads(1)
	}
}

// NoWorkFound is called by an idle worker after a search failed. It yields
// for the first rounds, then announces the worker sleepy, lets it search once
// more, and then puts it to sleep until it is woken, its latch is Set, or it
// notices new work. It returns when the worker should search again.
// hasInjectedJobs reports whether the shared queue (the one
// NewInjectedJobsLazy announces) holds a job a worker could take now (a
// position claimed and not yet written is none: its poster announces it
// after writing it). Sleep calls it as the last check before the worker
// parks, under the worker's sleep lock, so it must not block, and in
// particular must not wait for anything a poster holds while it calls
// NewInjectedJobsLazy.
func (s *Sleep) NoWorkFound(idle *IdleState, latch *CoreLatch, hasInjectedJobs func() bool) {
	// hasInjectedJobs is the final check S7, called after fence F2.
	switch {
	case idle.rounds < s.roundsUntilSleepy:
		s.yield()
		idle.rounds++
	case idle.rounds == s.roundsUntilSleepy:
		idle.jec = s.announceSleepy()
		idle.rounds++
		if !idle.quick {
			s.yield()
		}
	default:
		s.sleep(idle, latch, hasInjectedJobs)
	}
}

// wakeFully restarts the idle rounds after the worker slept or its latch was
// Set.
func (idle *IdleState) wakeFully() {
	idle.rounds = 0
	idle.jec = jecDummy
	idle.quick = false
}

// wakePartly returns to just before getting sleepy, after the worker saw the
// JEC move: one more search, then sleepy again.
func (s *Sleep) wakePartly(idle *IdleState) {
	idle.rounds = s.roundsUntilSleepy
	idle.jec = jecDummy
	idle.quick = false
}

// announceSleepy is step S2 of falling asleep (above): turn the JEC from odd
// (work posted since the last sleepy worker) to even, and return the final
// value, which the worker compares before sleeping.
// Its partner is P3 in newJobs, which turns the JEC from even to odd: the two
// rules must differ, or a post after this step leaves the JEC unchanged
// (TestJECParityMutantMissesPost drives the wrong rule).
func (s *Sleep) announceSleepy() uint64 {
	return s.counters.incrementJECIf(jecIsActive).jec()
}

// sleep is steps S4-S8 of falling asleep (above).
func (s *Sleep) sleep(idle *IdleState, latch *CoreLatch, hasInjectedJobs func() bool) {
	// S4: Unset -> Sleepy. A Set latch means the awaited event happened.
	if !latch.getSleepy() {
		idle.wakeFully()
		return
	}
	w := s.state(idle.worker)
	w.mu.Lock()
	// Sleepy -> Sleeping, under mu: from here a setter that sees Sleeping
	// calls NotifyWorkerLatchIsSet, which waits for mu and then finds
	// isBlocked true, or finds it false after we gave up sleeping.
	if !latch.fallAsleep() {
		w.mu.Unlock()
		idle.wakeFully()
		return
	}
	if w.poked {
		// A Poke came since the worker last looked: search again.
		w.poked = false
		w.mu.Unlock()
		idle.wakeFully()
		latch.wakeUp()
		return
	}
	// S5: register as sleeping, in one CAS that also checks that the JEC has
	// not moved since we got sleepy; the sleepers bit first.
	s.markSleeper(w)
	for {
		c := s.counters.load()
		if c.jec() != idle.jec {
			// A job was posted since we announced ourselves sleepy, and our
			// last search missed it: search again, then get sleepy again.
			w.mu.Unlock()
			s.wakePartly(idle)
			latch.wakeUp()
			return
		}
		if s.counters.tryAddSleepingThread(c) {
			break
		}
	}
	// S6: fence F2. Pairs with fence F1 in NewInjectedJobsLazy: either a poster's
	// F1 comes first and its push is visible to the hasInjectedJobs read
	// below, or this F2 comes first and our sleeping increment is visible to
	// the poster's read of the counters, and it wakes us.
	atomics.SeqCstFence()
	// S7: the final injector check (it covers a JEC rollover; see
	// "Deadlock freedom" above).
	if hasInjectedJobs() {
		// Nobody will wake us for this job: take ourselves off the count.
		s.counters.subSleepingThread()
		w.mu.Unlock()
	} else {
		// S8: commit, then park until a waker clears isBlocked.
		w.isBlocked, w.latch = true, latch
		pk, guest := w.sleeper(), w.borrowed
		w.mu.Unlock()
		w.park(pk, guest)
	}
	idle.wakeFully()
	latch.wakeUp()
}

// NotifyWorkerLatchIsSet wakes worker if it is asleep. Call it after
// CoreLatch.Set reported that the worker was Sleeping.
func (s *Sleep) NotifyWorkerLatchIsSet(worker int) {
	s.wakeSpecificThread(worker, true)
}

// Nudge wakes worker if it sleeps on its latch alone (in IsolatedNoWork),
// without Setting the latch: the worker returns from its sleep with the
// latch Unset, searches again, and sleeps again after its idle rounds if it
// finds nothing. It is for a waiter whose one source of work has new work
// that posts do not announce to it (the thief a joiner waits for pushed a
// job). It is the wake of NotifyWorkerLatchIsSet without the Set, so the
// sleeper takes it as the early return its loop already handles. A worker
// awake is marked instead, and its next sleep in IsolatedNoWork returns
// without parking: the Nudge may have come between its last search and its
// commit to park, and must not be lost there. A worker asleep after
// NoWorkFound is left alone.
func (s *Sleep) Nudge(worker int) {
	w := s.state(worker)
	w.mu.Lock()
	if !w.isBlocked {
		// Awake, perhaps between its last search and its commit to
		// park: its next sleepOnLatch will not park.
		w.nudged = true
		w.mu.Unlock()
		return
	}
	if !w.uncounted {
		w.mu.Unlock()
		return
	}
	w.isBlocked, w.uncounted = false, false
	pk := w.sleeper()
	w.mu.Unlock()
	pk.Unpark() // outside mu, as in wakeSpecificThread
}

// Poke wakes worker wherever it sleeps, in the counters or on its latch
// alone, without Setting any latch: it returns from its sleep, searches
// again, and sleeps again after its idle rounds if it finds nothing. It is
// for work addressed to one worker that neither the counters nor a latch
// announce (the pool's per-worker requests). A worker awake is marked
// instead, and its next sleep returns without parking, so that a Poke sent
// between its last search and its commit to park is not lost: the caller
// publishes the work before it calls Poke, and the worker looks for it
// after it took its sleep lock and found no mark, or after it was woken.
func (s *Sleep) Poke(worker int) {
	w := s.state(worker)
	w.mu.Lock()
	if w.borrowed {
		// For the worker's own goroutine, parked meanwhile: Return
		// wakes it. The guest is poked below like any worker.
		w.returnPoke = true
	}
	if !w.isBlocked {
		w.poked = true
		w.mu.Unlock()
		return
	}
	// Wake it in the same critical section: a Borrow between a check and
	// a later wake would take the worker and leave the Poke to nobody.
	pk := s.unblock(w)
	w.mu.Unlock()
	pk.Unpark()
}

// IsolatedNoWork is NoWorkFound for a worker in an isolated wait: one that
// may run only work descending from what it waits for (a stolen join half,
// a scope's tasks, a call into another pool), so that it must not absorb a
// wake meant for a worker that can run any posted job. It stays out of the
// counters: it yields for the idle rounds (*rounds counts them; the caller
// sets it to 0 whenever it found work), then sleeps on latch alone until
// latch is Set or a Nudge comes. It returns when the worker should search
// again.
func (s *Sleep) IsolatedNoWork(rounds *int, worker int, latch *CoreLatch) {
	if *rounds < s.roundsUntilSleepy {
		*rounds++
		s.yield()
		return
	}
	*rounds = 0
	s.sleepOnLatch(worker, latch)
}

// sleepOnLatch parks worker until latch is Set, without joining the
// counters: only the latch's setter wakes it (Set reports Sleeping, and the
// setter calls NotifyWorkerLatchIsSet), or a Nudge. It returns at once if
// latch is already Set, and may return early (a spurious return, or a
// Nudge), with the latch Unset or Set; callers Probe and decide.
//
// The handshake is the one of sleep (steps S4 and S8) without the counters:
// Unset -> Sleepy, then, under the worker's mutex, Sleepy -> Sleeping and
// isBlocked. A setter that swaps in Set after fallAsleep finds Sleeping and
// calls NotifyWorkerLatchIsSet, which takes the mutex after the sleeper
// released it and so finds isBlocked; a Set before fallAsleep makes
// fallAsleep fail and the sleeper returns without parking.
func (s *Sleep) sleepOnLatch(worker int, latch *CoreLatch) {
	if !latch.getSleepy() {
		return // Set
	}
	w := s.state(worker)
	w.mu.Lock()
	if !latch.fallAsleep() {
		w.mu.Unlock()
		return // Set since getSleepy: it stays Set
	}
	if w.nudged || w.poked {
		// A Nudge came since the worker last parked: it may have
		// been sent after the worker's last search. Search again.
		w.nudged, w.poked = false, false
		w.mu.Unlock()
		latch.wakeUp()
		return
	}
	w.isBlocked, w.uncounted, w.latch = true, true, latch
	pk, guest := w.sleeper(), w.borrowed
	w.mu.Unlock()
	w.park(pk, guest)
	latch.wakeUp()
}

// park parks the sleeper on pk until a waker has cleared isBlocked (step
// S8): a return from Park with isBlocked still set is spurious, and it
// parks again. guest says whether the sleeper is a borrowed worker's guest;
// the worker's own goroutine also parks again while it is borrowed.
func (w *workerSleepState) park(pk Parker, guest bool) {
	for {
		pk.Park()
		w.mu.Lock()
		blocked := w.isBlocked || !guest && w.borrowed
		w.mu.Unlock()
		if !blocked {
			return
		}
	}
}

// NewInternalJobs is called after a worker pushed n jobs onto its own deque;
// queueWasEmpty says whether the deque was empty before. Needs no fence: an
// internal job missed by a worker going to sleep is still run by its poster.
func (s *Sleep) NewInternalJobs(n int, queueWasEmpty bool) {
	// The common case in one load and no call: the JEC is already odd
	// (work posted since the last sleepy announcement, so P3 would not
	// increment it) and nobody sleeps (P4 would wake nobody).
	if c := s.counters.load(); jecIsActive(c.jec()) && c.sleepingThreads() == 0 {
		return
	}
	s.newJobs(n, queueWasEmpty, nil)
}

// NewInjectedJobsLazy is called after n jobs were pushed onto the shared
// queue that workers check with NoWorkFound's hasInjectedJobs (the
// injector). queueWasEmpty reports whether the queue was empty before the
// push; it is called only when some worker sleeps, the one case where the
// answer matters, so that a poster for whom finding out costs a load of the
// consumers' cache line pays it only then. It must not block.
func (s *Sleep) NewInjectedJobsLazy(n int, queueWasEmpty func() bool) {
	// P2: fence F1, after the push (P1) and before reading the counters (P3).
	// Pairs with fence F2 in sleep, between the sleeping increment and the
	// final injector check.
	atomics.SeqCstFence()
	s.newJobs(n, false, queueWasEmpty)
}

// newJobs is steps P3-P4 of posting work (above). If lazy is not nil it
// replaces queueWasEmpty.
func (s *Sleep) newJobs(n int, queueWasEmpty bool, lazy func() bool) {
	if n <= 0 {
		return
	}
	// P3: tell sleepy workers that work was posted (even -> odd), and read
	// the counters in the same atomic operation.
	c := s.counters.incrementJECIf(jecIsSleepy)
	sleepers := c.sleepingThreads()
	if sleepers == 0 {
		return // nobody to wake: no lock, no syscall
	}
	if lazy != nil {
		queueWasEmpty = lazy()
	}
	// P4: wake only as many sleepers as the awake-but-idle workers cannot
	// absorb. If the queue already held work, those idle workers evidently
	// are not keeping up: wake one per job.
	jobs := uint32(min(n, MaxWorkers))
	idle := c.awakeButIdleThreads()
	switch {
	case !queueWasEmpty:
		s.wakeAnyThreads(min(jobs, sleepers))
	case idle < jobs:
		s.wakeAnyThreads(min(jobs-idle, sleepers))
	}
}

// wakeAnyThreads wakes up to n sleeping workers, scanning the sleepers bits
// from worker 0.
func (s *Sleep) wakeAnyThreads(n uint32) {
	if n == 0 {
		return
	}
	s.wakeAnyOf(*s.workers.Load(), n)
}

// wakeAnyOf is wakeAnyThreads over the workers ws, loaded by the caller. A
// Grow since that load may have added workers whose bits are set already:
// they are beyond ws, and passed by (the wake goes to those in ws).
func (s *Sleep) wakeAnyOf(ws []*workerSleepState, n uint32) {
	for k := 0; k*64 < len(ws); k++ {
		bits := s.sleepers[k].Load()
		if rest := len(ws) - k*64; rest < 64 {
			bits &= 1<<rest - 1
		}
		for ; bits != 0; bits &= bits - 1 {
			if s.wakeSleeper(ws[k*64+mathbits.TrailingZeros64(bits)]) {
				n--
				if n == 0 {
					return
				}
			}
		}
	}
}

// wakeSleeper is wakeSpecificThread for a wake meant for any sleeper, given
// a worker whose sleepers bit is set: it clears the bit if the worker is
// not asleep in the counters (under its mu, so not between S5 and S8; a
// borrowed worker keeps it, as Return counts it asleep again).
func (s *Sleep) wakeSleeper(w *workerSleepState) bool {
	w.mu.Lock()
	if !w.isBlocked || w.uncounted {
		if !w.borrowed {
			s.sleepers[w.index>>6].And(^(uint64(1) << (w.index & 63)))
		}
		w.mu.Unlock()
		return false
	}
	pk := s.unblock(w)
	w.mu.Unlock()
	pk.Unpark()
	return true
}

// markSleeper sets worker w's bit in sleepers, unless it is set already;
// w.mu is held.
func (s *Sleep) markSleeper(w *workerSleepState) {
	bit := uint64(1) << (w.index & 63)
	if word := &s.sleepers[w.index>>6]; word.Load()&bit == 0 {
		word.Or(bit)
	}
}

// wakeSpecificThread wakes worker i if it is blocked and reports whether it
// did. The waker, not the sleeper, takes the worker off the sleeping count, so
// that posters stop counting it as asleep at once, not when it runs again
// after the wake's latency. latch says whether the caller Set the latch the worker sleeps on; a
// worker sleeping on its latch alone (sleepOnLatch) is woken only then.
func (s *Sleep) wakeSpecificThread(i int, latch bool) bool {
	w := s.state(i)
	w.mu.Lock()
	if !w.isBlocked || (w.uncounted && !latch) {
		w.mu.Unlock()
		return false
	}
	pk := s.unblock(w)
	w.mu.Unlock()
	// Outside mu: the worker, if it returns from Park early, re-reads
	// isBlocked under mu and leaves; a token left over makes one of its later
	// Parks return at once, and that loop re-checks isBlocked.
	pk.Unpark()
	return true
}

// unblock clears the blocked sleeper w's isBlocked, takes it off the
// sleeping count if it is counted, and returns the Parker to Unpark once
// w.mu is released. w.mu is held.
func (s *Sleep) unblock(w *workerSleepState) Parker {
	w.isBlocked = false
	if w.uncounted {
		w.uncounted = false
	} else {
		s.counters.subSleepingThread()
	}
	return w.sleeper()
}
