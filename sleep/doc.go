// Package sleep decides when the idle workers of a work-stealing pool go to
// sleep, and wakes them when work is posted: rayon-core's sleep protocol,
// with the blocking primitive (a Parker per worker) supplied by the caller.
// Idle workers search for a while, then park and cost no CPU; posting work
// wakes only as many sleepers as the workers still awake cannot absorb.
//
// # Which function
//
//	who         when                                           call
//	the pool    at start, with one Parker per worker           New
//	a worker    it runs out of work                            StartLooking
//	            a search for work failed                       NoWorkFound
//	            a search failed, in a wait that may run only   IsolatedNoWork
//	              some jobs (then without StartLooking)
//	            it expects no work soon                        ShortenRounds
//	            a search found work, or it stops looking       WorkFound
//	            it pushed jobs onto its own deque              NewInternalJobs
//	            checks or re-arms its own latch                CoreLatch.Probe, Reset
//	anyone      it pushed jobs onto the shared queue           NewInjectedJobsLazy
//	anyone      what a worker waits for happened               CoreLatch.Set, and if it
//	                                                           reports true,
//	                                                           NotifyWorkerLatchIsSet
//	anyone      an isolated waiter's one source has new work   Nudge
//	a goroutine it would hand a job to a worker and wait:      HasSleepers, Borrow,
//	outside     run it itself as a sleeping worker instead     then Return
//
// # Rules
//
//   - Workers are numbered 0 to n-1, n = len(Config.Parkers) (at most
//     MaxWorkers). A worker makes its own calls from its own goroutine, one
//     at a time, and keeps its IdleState between StartLooking and WorkFound.
//   - Post after the push, never before: the job must be visible in the
//     deque or the queue when NewInternalJobs or NewInjectedJobsLazy runs.
//     Then no job is slept past: a job on the shared queue is either seen by
//     a worker's last check before it parks (the hasInjectedJobs function it
//     passes to NoWorkFound) or its poster wakes a sleeper. A job on a
//     worker's own deque is run by that worker if nobody else wakes for it.
//   - hasInjectedJobs and the queueWasEmpty function of NewInjectedJobsLazy
//     must not block: Sleep calls the first under the worker's sleep lock.
//   - A worker never sleeps past its Set latch: Set from any goroutine, and
//     when Set reports true (the worker was asleep), call
//     NotifyWorkerLatchIsSet for that worker. Only the owner Probes and
//     Resets its latch, and Resets only once nobody can still Set it for the
//     previous event. The latch's other transitions are Sleep's own.
//   - A worker in IsolatedNoWork stays out of the sleeping count, so posts
//     never wake it: only its latch's Set or a Nudge does.
//   - A goroutine that Borrowed a worker is that worker, for every rule
//     above, until it calls Return; it runs every job left on the worker's
//     deque before Return. The worker's own goroutine stays parked
//     meanwhile (borrow.go tells why nothing is slept past).
//   - Parker.Park may return spuriously and Parker.Unpark must never block;
//     Sleep re-checks after every return. Workers locked to OS threads
//     should pass a Config.Yield that yields the thread (sched_yield):
//     runtime.Gosched on a locked thread hands its P away.
//
// # Example
//
// The package example (example_test.go) is the idle loop of two workers
// over package sleep: they take jobs from a shared queue, sleep when there
// are none, are woken by NewInjectedJobsLazy, and stop when their latches
// are Set.
//
// The protocol (its steps, fences and deadlock-freedom argument) is told at
// the top of sleep.go; the counters and the jobs event counter, in
// counters.go; the latch's states, in latch.go. sleep/model holds its
// Promela model.
package sleep
