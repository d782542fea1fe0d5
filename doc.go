// Package blitz is a work-stealing pool for Go, tuned per CPU architecture.
//
// It follows the design of rayon-core (Rust) and Blitz (Zig): one Chase-Lev
// deque per worker, Rayon's sleep protocol (packed counters with a jobs event
// counter, a four-state CoreLatch, progressive sleep), parking backends
// (portable, the default, which cooperates with the Go scheduler; futex on
// Linux for pools that own their CPUs; condvar for comparison), and workers
// placed by CPU topology. The subsystems live in their own packages:
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
//   - Join3 and JoinAll run three or any number of functions;
//   - par.For and par.MapReduce split an index range, with a fixed grain or
//     adaptively.
//
// # The data-parallel layer
//
// Most programs call package par, the layer above the pool: loops (For,
// MapReduce and their context forms) and functions named after Go's slices
// package (Sum, SortFunc, IndexFunc, ...) that take a Runner first — Default
// (a shared pool created on first use), any *Pool, or the *Worker of a
// running task — and split their input over the workers. It is built on
// this package's exported API alone; DoOn is its one way onto a worker, and
// functions of your own that take a Runner can use it the same way.
//
// # Calls from inside a task
//
// A task may call into any pool, its own included, with any Runner: the
// calling goroutine is recognised as a worker (current.go), never queued
// behind itself.
//
//   - Into its own pool (Run, Do, DoContext, TryDo, DoOn, a function of
//     package par or NewGroup given the *Pool or Default(), Group.Wait): the call runs on
//     the task's own worker, exactly as if the task had passed its *Worker,
//     with the results, panics, Goexits and contexts of the same call from
//     outside. DoContext and TryDo then return when fn returns (fn runs on
//     the caller's worker) and never refuse for a full queue.
//   - Into another pool: the call is queued there, and the task's worker
//     serves its own pool while the task waits (as RunFrom does), so pools
//     that call each other, in a cycle too, never run out of workers.
//   - Go and TryGo stay fire-and-forget. Go and GoContext from a task never
//     wait for room in their own pool's full queue (the task could be
//     waiting for itself): they are let in over the bound. TryGo refuses as
//     it does for anyone.
//
// Example_callFromTask shows it.
//
// # Vocabulary
//
// A worker is a goroutine (locked to its OS thread with the futex backend)
// that owns a deque. A job is anything a worker runs (job.go): the second
// half of a join (behind a frame), a spawned scope task (behind a spawn slot
// of the spawning worker), or an injected task (Go, Run, Do). A jobRef is the
// integer a deque carries to name a frame or a slot: deques never hold Go
// pointers. A latch is a one-shot
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
//     the frame's typed job object when the types match (so no allocation);
//  2. offers it, or leaves it lazy (share.go). In the first levels of the
//     worker's tree (d < eagerDepth), or when another worker has asked for
//     work, it pushes frameRef(worker, d) — the deque's release store
//     publishes the frame — and tells the sleep protocol
//     (NewInternalJobs), which wakes a sleeper only when no idle worker can
//     take the job; a request also pushes every half left lazy before,
//     oldest first. Otherwise it marks the frame lazy: in no deque, so
//     only this worker can run it;
//  3. runs the first half inline;
//  4. if the frame is still lazy, runs the second half inline with plain
//     stores only (no fence, no sleep-protocol traffic: the common case
//     deep in a tree). Otherwise it pops: if it gets its own ref back it
//     runs the second half inline — no latch, no atomic read-modify-write
//     beyond the deque's;
//  5. otherwise a thief won the ref with a successful Steal (acquire) and
//     stored its index in the frame. The joiner waits on frame d's latch,
//     running only work that descends from the stolen half: it steals only
//     from that thief, and only what the thief pushed while running the half
//     (work isolation, wait.go). With nothing to take it asks the thief for
//     work (share.go), yields, then sleeps on the latch alone, outside the
//     sleep protocol's counters, until the Set or until the thief pushes
//     work and nudges it (sleep.Nudge). The thief
//     runs the half, records a panic or a Goexit in the frame, reads the
//     owner's index, and Sets the latch (a SeqCst swap that releases the
//     result); if the swap found the owner Sleeping it wakes it with
//     NotifyWorkerLatchIsSet. The owner, having seen the Set, reads the
//     result and Resets the latch: a free frame's latch is always Unset, so
//     only stolen joins pay for the Reset.
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
// burning CPU; callers share nothing, so any number can wait at once. Each
// of them first asks which worker the calling goroutine runs, if any
// (current.go: a table from goroutine identities to workers, a few
// nanoseconds). A worker of the same pool runs the function inline. A
// worker of another pool queues a job that carries a CoreLatch owned by the
// waiting worker, which meanwhile keeps serving its own pool on a goroutine
// it lends the worker to (so that pools calling each other never deadlock,
// and what that goroutine runs cannot unwind the caller); the target pool's
// worker Sets the latch and, if the lent goroutine was asleep, wakes it
// through the waiter's pool.
//
// A task submitted with a context (GoContext, DoContext, TryDo) reads it as
// Worker.Context, and so does everything it forks on any worker: each worker
// keeps a chain of immutable context records with the join depth where each
// began, and a thief running a join half at depth d takes the owner's
// innermost record at depth <= d (taskctx.go). Joins themselves never touch
// it.
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
// queued and running and the workers not yet exited; the pool drains and
// stops by itself.
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
// These rules hold for every function the pool runs (a join half, a scope
// task, the function of Run, Do, RunFrom, DoFrom, DoContext, TryDo, Go,
// TryGo, GoContext, and everything built on them), however many panics and
// Goexits happen at once or nest; the rest of the documentation refers here.
//
//  1. A panic is recovered on the worker and raised again in whoever waits
//     for the function — the joiner, the Scope caller, the Do caller — as a
//     *PanicError carrying the original value and the stack where it
//     happened; DoContext and TryDo return it as an error (ErrPanic). A
//     panic in a Go task, which nobody waits for, goes to the panic handler
//     (WithPanicHandler), or crashes the program when there is none.
//  2. Both halves of a join always run, and every task spawned in a scope
//     runs, even when another part panics or calls Goexit. A join or scope
//     returns, panics or exits only after all its parts finished: a join
//     never returns, unwinds past its frame or reuses it while its stolen
//     half runs.
//  3. The first half's panic outranks the second's; a scope raises the first
//     panic recorded. A panic outranks a Goexit, except that nothing can stop
//     a Goexit that runs on the waiting caller's own goroutine (a half run
//     inline, a scope body): that goroutine then exits, after the other
//     parts finished, and a panic of another part is dropped.
//  4. runtime.Goexit ends the function that called it and, as if that
//     function had run inline, the fork-join it belongs to: its joiner (up to
//     the task that started the fork-join) exits too once the rest finished;
//     a Do or Run caller's goroutine exits, and DoContext returns ErrGoexit.
//     It never ends a task that did not cause it: a worker that waits runs
//     only work of the fork-join it waits for (work isolation, wait.go), and a
//     worker waiting on a call into another pool serves its own pool on a
//     goroutine of its own. A worker goroutine that Goexit ended is replaced
//     by a new one (Stats.Respawns).
//  5. With GODEBUG=panicnil=1, where recover returns nil for panic(nil) as
//     for a Goexit, panic(nil) is still a panic: the *PanicError's Value is a
//     *runtime.PanicNilError.
//
// # Locks around fork-join
//
// Holding a lock (a sync.Mutex, say) around Join, JoinArgs, Scope, or any
// function of package par called with a *Worker is safe: while the holder waits for a stolen half or a scope's
// tasks, its worker runs only parts of that same computation, never an
// unrelated task that might want the lock (Example_mutexAroundJoin). What
// still deadlocks, as it would with plain goroutines or any pool:
//
//   - a part of the computation taking the lock held around it (sync.Mutex
//     is not reentrant: it deadlocks run sequentially too);
//   - the first half of a join waiting for the second (a channel the second
//     closes, say): the second half may run on the same goroutine once the
//     first returned, and deep in a tree it is offered to other workers
//     only at a later fork of the first half (share.go), so a first half
//     that blocks instead never lets it go;
//   - tasks that block on something only a task still queued in the same
//     pool would provide, once every worker is blocked so;
//   - a lock held, in a task, across a call into another pool (Run, Do,
//     DoContext, a layer function, RunFrom, DoFrom, Group.Wait) that tasks
//     of the caller's own pool take: the worker, lent out while the caller
//     waits, may be running one of them when the call returns, and the
//     caller waits for it.
//
// # Why it cannot deadlock
//
// A worker only blocks in the parking backend, and only through the sleep
// protocol, whose latch and jobs-event-counter handshake (package sleep)
// guarantees that whoever Sets the latch it sleeps on, or posts a job it
// could run, either sees it registered as sleeping and wakes it, or is seen
// by it before it parks. Every latch a worker waits on is Set by a job that
// was already published (a stolen frame, a spawned task, an injected job), and
// every published job is run by some worker: its owner pops it (joins pop
// their own second half, scopes run their tasks), or a thief stole it, or it
// sits in the injector, which every idle worker polls and which the final
// pre-sleep check re-reads after a SeqCst fence. A waiting worker that runs
// nothing else (an isolated wait with nothing to steal from its thief) waits
// only for work that is already running on another worker. Waits nest only
// downwards (a waiting worker runs other jobs on top of its stack), and a
// job never waits for a job pushed after it on the same worker, so there is
// no cycle. The exceptions are the misuses listed under "Locks around
// fork-join".
package blitz
