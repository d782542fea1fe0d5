// Package sleep decides when the idle workers of a work-stealing pool go to
// sleep, and wakes them when work is posted. It is rayon-core's sleep
// protocol (rayon-core/src/sleep, Rayon RFC #5), with the parking primitive
// left to the caller: each worker blocks on a Parker, which the root package
// implements on a futex (Linux), a channel (everywhere) or a spin loop.
//
// # What a user calls
//
// A pool built on this package creates one Sleep with New, giving it a
// Parker per worker, and then:
//
//   - each worker, from its own goroutine: StartLooking when it runs out of
//     work (and ShortenRounds if it expects no work soon), NoWorkFound after
//     each failed search, WorkFound when a search
//     succeeds (or it stops looking); IsolatedNoWork instead of NoWorkFound
//     in a wait that may run only some jobs; NewInternalJobs after pushing
//     onto its own deque;
//   - any goroutine outside the pool: NewInjectedJobsLazy after pushing
//     onto the injector queue;
//   - whoever ends what a worker waits for: CoreLatch.Set on the worker's
//     latch, then NotifyWorkerLatchIsSet if Set reported it Sleeping. The
//     owner Probes and Resets its latch.
//
// The latch's transitions to and from sleep are the protocol's own (steps S4
// and S8 below); Sleep makes them for the worker inside NoWorkFound and
// IsolatedNoWork, and nothing else may.
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
// # The JEC
//
// The JEC tells a sleepy worker whether work was posted since it got
// sleepy, without counting every job. Its parity is the signal:
//
//   - a poster turns it from even to odd ("work was posted");
//   - a worker getting sleepy turns it from odd to even ("a worker is about
//     to sleep") and remembers the resulting value;
//   - before sleeping, the worker compares: any change means a job was
//     posted after it got sleepy, so it searches again instead.
//
// Both rules matter. The rule of Blitz's documentation (a sleepy worker also
// increments "if even") leaves the counter odd for ever after the first
// sleepy worker: posters then never change it, and a job posted between a
// worker's last search and its sleep goes unnoticed. TestJECParityMutantMissesPost
// (parity_test.go, which drives that rule by hand) and the BLITZ_PARITY
// mutant of model/sleep.pml show the loss.
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
// # Latches (CoreLatch)
//
// The pool Sets a worker's latch when what the worker waits for happened
// (its stolen job completed, the pool stops). Set reports whether the latch
// was Sleeping; then the setter calls NotifyWorkerLatchIsSet, which wakes
// the worker through the handshake above. A latch Set while Unset or Sleepy
// makes S4 fail, so the worker never sleeps past it.
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
// pop's fence O1 and StartLooking's barrier are needed while F1, F2 and the
// thief's fence are not: F1 because submit claims its position with a CAS of
// the tail that the final check S7 reads, which already orders the two sides
// as the argument above needs; F2 because S5 is itself a locked CAS. They
// stay, cheap and needed where loads reorder. The stress tests
// (stress_test.go) run real goroutines over a blocking, a spinning and a
// spuriously returning Parker, past a JEC wrap-around, and stop pools while
// workers fall asleep; the root package's TestBackendsRunSleepProtocol runs
// the protocol over the pool's own Parkers.
package sleep
