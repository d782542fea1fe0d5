// Package blitz is a work-stealing pool for Go, tuned per CPU architecture.
//
// It follows the design of rayon-core (Rust) and Blitz (Zig): one Chase-Lev
// deque per worker, Rayon's sleep protocol (packed counters with a jobs event
// counter, a four-state CoreLatch, progressive sleep), a futex parking backend
// on Linux with a portable fallback everywhere else, and workers placed by CPU
// topology. The subsystems live in their own packages:
//
//   - atomics: acquire/release loads and stores, full fences and spin hints in
//     per-architecture assembly, and cache-line padding sized per GOARCH;
//   - deque: the Chase-Lev work-stealing deque;
//   - sleep: the sleep/wake protocol;
//   - topology: CPU topology detection and worker placement.
//
// The root package is the pool itself and its API.
//
// # Using it
//
// New starts a Pool of workers (runtime.GOMAXPROCS(0) by default); Close
// drains and stops it. Code outside the pool enters it with Pool.Run or Do,
// which run a function on a worker and block the caller until it returns, or
// submits fire-and-forget tasks with Pool.Go; servers bound the queue
// (WithCapacity) and use TryGo, TryDo, GoContext, DoContext and Shutdown,
// which report refusals, panics and cancellations as errors. Every function the pool runs
// receives a *Worker, and fork-join code passes it on (Go has no thread-local
// storage; Spice passes its *Task the same way):
//
//   - Join and JoinArgs run two functions, potentially in parallel, and return
//     both results; JoinArgs, with non-capturing functions and explicit
//     arguments, allocates nothing;
//   - Worker.Scope spawns any number of tasks, nested, and waits for all;
//   - For and MapReduce split an index range, with a fixed grain or
//     adaptively.
//
// # The data-parallel layer
//
// Most programs call the layer above the pool: functions named after Go's
// slices package that take a Runner first — Default (a shared pool created
// on first use), any *Pool, or the *Worker of a running task, on which the
// work runs without re-entering the pool — and split their input over the
// workers. Element callbacks are plain functions; chunk callbacks (Chunks,
// ForContext, Group tasks) receive the *Worker, for nested parallel work.
//
//   - element loops: ForEach, ForEachIndex, MapInPlace, Map, Fill, Filter
//     (order kept), Chunks; Partition (stable);
//   - reductions: Reduce, Sum, Count, Min, Max, MinFunc, MaxFunc, MinByKey,
//     MaxByKey, combined in index order, ties to the leftmost element;
//   - searches that stop once the answer is known: Any, All, Contains,
//     ContainsFunc, IndexAnyFunc, FindAny (any match), IndexFunc, Index
//     (leftmost) and LastIndexFunc (rightmost);
//   - prefix scans: InclusiveScan, ExclusiveScan;
//   - fork-join of several functions: Join3, JoinAll; an error group bound
//     to the pool: NewGroup;
//   - loops that stop when a context ends: ForContext, MapReduceContext;
//   - an iter.Seq consumed in parallel: ForEachSeq.
//
// The one-pass families split adaptively, as For does without a grain
// (layer.go): a budget of one split per worker, reset when a piece is
// stolen; families without a callback never cut pieces under a few
// thousand elements, and on a *Pool they run short inputs on the calling
// goroutine. The searches check a shared result before each block of
// elements and skip every piece that can no longer improve it; the
// ordered ones search in windows from their end, so no window past the
// answer's starts (search.go). Filter, Partition and the scans take two
// passes over a fixed set of pieces (count or reduce, then place). Panics
// in callbacks reach the caller as a *PanicError after every piece
// finished, whichever Runner was used.
//
// # Vocabulary
//
// A worker is a goroutine (locked to its OS thread with the futex backend)
// that owns a deque. A job is anything a worker runs: the second half of a
// join (behind a frame), a spawned scope task (behind a spawn slot), or an
// injected task (Go, Run, Do). A jobRef is the integer a deque carries to name
// a frame or a slot: deques never hold Go pointers. A latch is a one-shot
// event a worker waits for (sleep.CoreLatch). A root job is an injected one;
// every other job descends from one and finishes before it.
//
// # Join
//
// Each worker keeps its frames in a stack indexed by join depth, in chunks
// that are never moved, so a thief can resolve a jobRef to a frame at any
// time. A join at depth d:
//
//  1. stores the second half (function and argument) into frame d, reusing
//     the frame's typed job object when the types match (so no allocation),
//     and pushes frameRef(worker, d) — the deque's release store publishes
//     the frame;
//  2. tells the sleep protocol (NewInternalJobs), which wakes a sleeper only
//     when no idle worker can take the job;
//  3. runs the first half inline;
//  4. pops: if it gets its own ref back (the common case) it runs the second
//     half inline — no latch, no atomic read-modify-write beyond the deque's;
//  5. otherwise a thief won the ref with a successful Steal (acquire). The
//     joiner waits on frame d's latch: it runs other work (its own deque,
//     steals, the injector), then sleeps through the sleep protocol with the
//     latch as its CoreLatch. The thief runs the half, records a panic or a
//     Goexit in the frame, reads the owner's index, and Sets the latch (a
//     SeqCst swap that releases the result); if the swap found the owner
//     Sleeping it wakes it with NotifyWorkerLatchIsSet. The owner, having
//     seen the Set, reads the result and Resets the latch: a free frame's
//     latch is always Unset, so only stolen joins pay for the Reset.
//
// # Entering the pool
//
// Submission goes through the injector (injector.go): a lock-free FIFO of
// blocks of slots indexed by two ever-growing positions, which any number of
// goroutines fill and the workers drain with one atomic operation each (the
// first version's mutex cost 88-200 ns per task in lock-line traffic). A
// capacity (WithCapacity) bounds it exactly: a bounded claim is a CAS that
// refuses when tail-head reached it. TryGo and TryDo then answer
// ErrQueueFull; Go, GoContext, Run, Do and DoContext wait for room (one
// waiter woken per task taken); a waiting submission from a task of the pool
// itself is let in over the bound instead, since it could be waiting for
// itself. DoContext can withdraw a job that has not started (one CAS decides
// between the worker starting it and the caller withdrawing it). An outside
// caller of Run, Do or DoContext blocks on its job's own channel without
// burning CPU; callers share nothing, so any number can wait at once. A
// worker of another pool uses
// RunFrom or DoFrom instead: its job carries a CoreLatch owned by the waiting
// worker, which meanwhile runs its own pool's work and sleeps in its own pool;
// the target pool's worker Sets the latch and, if the waiter was asleep, wakes
// it through the waiter's pool. A worker of the same pool runs the function
// inline. Run from a task of the pool blocks that worker (there is no cheap
// way to detect it without thread-local storage): use RunFrom there.
//
// # Shutdown
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
// queued and running; the pool drains and stops by itself.
//
// # Observability
//
// Stats is one snapshot: scheduler counters (jobs executed, steals, sleeps,
// wakes), queue depth, running, completed, rejected and panicked tasks, and
// histograms of queue wait and run time over a sample of submitted tasks
// (WithLatencySampling; reading the clock costs ~25 ns). Every counter is
// written by one worker alone and summed on demand; Pool.Expvar publishes it.
//
// # Panics and Goexit
//
// A panic in a join half, a scope task, or a Run/Do function is recovered on
// the worker, the rest of the fork-join finishes (both halves of a join
// always run; a scope waits for all its tasks), and the caller panics with a
// *PanicError carrying the original value and stack; the first half's panic
// outranks the second's. A panic in a Go task goes to the panic handler, or
// crashes the program when there is none. runtime.Goexit in a task behaves as
// if the task had run inline: after the fork-join finished, the waiting
// caller's goroutine exits too. The worker goroutine that Goexit ended is
// replaced by a new one serving the same worker (Stats.Respawns).
//
// # Splitting loops
//
// For and MapReduce halve their range recursively with JoinArgs (no
// allocation per split). With a grain, pieces are at most grain long. Without
// one, splitting follows rayon's adaptive rule: a budget of one split per
// worker, halved by each split and reset when a piece is stolen — so loops
// split finely only while other workers are hungry.
//
// # Why it cannot deadlock
//
// A worker only blocks in the parking backend, and only through the sleep
// protocol, whose latch and jobs-event-counter handshake (package sleep)
// guarantees that whoever Sets the latch it sleeps on, or posts a job it
// could run, either sees it registered as sleeping and wakes it, or is seen
// by it before it parks. Every latch a worker waits on is Set by a job that
// was already published (a stolen frame, a spawned task, an injected job), and
// every published job is run by some worker: its owner pops it, or a thief
// stole it, or it sits in the injector, which every idle worker polls and
// which the final pre-sleep check re-reads after a SeqCst fence. Waits nest
// only downwards (a waiting worker runs other jobs on top of its stack), and a
// job never waits for a job pushed after it on the same worker, so there is no
// cycle. The exceptions are documented misuse: Run called from a task of the
// same pool, and a task that blocks on something only another task of a
// one-worker pool would provide.
package blitz
