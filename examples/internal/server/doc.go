// Package server is the example HTTP server of Blitz for Go: a handler that
// does a slice of CPU work per request (package work) and runs it in one of
// three modes, so that the same load test can compare them.
//
//   - inline: the work runs in the handler's own goroutine, as most Go
//     servers do. Nothing bounds it: under overload every request is
//     admitted, the Go scheduler shares the CPUs among all of them, and every
//     request gets slower together (processor sharing).
//   - ants: the work is submitted to an ants pool of Workers goroutines
//     (GOMAXPROCS by default) in blocking mode with WithMaxBlockingTasks
//     (Capacity): at most Capacity handlers wait in Submit for a free
//     goroutine, and the next one is refused (503).
//   - blitz: the work is submitted to a blitz Pool of Workers workers built
//     with WithCapacity(Capacity), with blitz.TryDo: at most Capacity tasks
//     wait in the pool's FIFO queue, and the next submission is refused
//     with ErrQueueFull (503). A task whose client goes away while it is
//     queued is withdrawn; a panic comes back as a *blitz.PanicError (500).
//
// The two pools are bounded the same way — Workers running, Capacity
// waiting, refusal beyond — so the comparison is between the pools, not
// between two bounds. A request's latency in them is its queue wait plus
// its own work, and the queue wait is bounded by Capacity.
//
// # Why ants is not a non-blocking pool of Capacity goroutines
//
// That was the first configuration, and under overload it refused almost
// nothing (0% at 120% load in the first preliminary sweep) while its
// latency grew as inline's. Its bound is on tasks running at once, and they
// never pile up there: instrumented at 120% load, at most 12 to 22 of its
// 64 goroutines ever held a task, while up to 505 handlers (all but a few
// of the generator's 512 connections) were inside ants' Submit at once.
// Submit takes one pool-wide mutex, which each goroutine also takes to put
// itself back on the idle list after a task; under overload the handlers
// queue on that mutex, before any capacity check, so the backlog is
// unbounded whatever the pool size. With the blocking configuration above
// the same mutex comes first too, but the refusal (WithMaxBlockingTasks)
// then has the blitz semantics: the comparison is of like with like.
// The server's PeakInExecutor, printed by the sweep's child servers, shows
// how many requests were inside the executor at once.
//
// # Request endpoints
//
// /work is CPU only. A realistic request also waits for something — a call
// to another service — and Config.Request adds endpoints that do both, in
// blitz mode: each request waits RequestConfig.Wait (a GET to a second HTTP
// server on loopback, which Start starts and Shutdown stops, when Backend is
// set; a sleep otherwise), then computes Parts parts of CPU work
// (RequestConfig.Work, work.Hasher.DoPart) in a pool task submitted with
// blitz.DoContext, which waits for room in a full queue rather than
// refusing. The answer is the SHA-256 of the parts' digests (Combine), the
// same in every variant:
//
//   - GET /request (ForkNone): the task computes the parts one after the
//     other.
//   - GET /request/group (ForkGroup): the task forks each part with a
//     blitz.Group made on its *Worker (NewGroup(ctx, w), Go, Wait).
//   - GET /request/par (ForkPar): the task runs the parts with
//     par.For(w, 0, Parts, 1, ...).
//
// RequestConfig.WaitIn puts the wait in the handler goroutine, before the
// task (WaitInHandler: the pool's workers only compute, and only the fork
// variants' joins wait on them), or inside the task (WaitInTask: the worker
// blocks for the whole wait). A forking task waits in Group.Wait or in
// par.For for the parts other workers took: issue 32 measured p99 in the
// hundreds of milliseconds at 95% load with the fork against tens without,
// because a worker waiting there runs nothing but those parts' descendants.
// The responses are counted by variant (Server.RequestCounts, and the
// "Request" field of the server's expvar entry): 200, or a failure (500 for
// a panic, 502 when the backend call fails, 503 when the pool is closed or
// the client went away).
//
// # Metrics
//
// Every server publishes its response counts in the expvar map "server"
// and, in blitz mode, the pool's Stats (Pool.Expvar) in the map "blitz",
// both under Config.Name, and serves them at /debug/vars. /metrics serves
// the same for Prometheus: response counters in every mode and the pool's
// series of package blitzprom in blitz mode.
//
// # Shutdown
//
// Server.Shutdown stops the listener and waits for in-flight handlers
// (http.Server.Shutdown), which wait for their tasks, and then shuts the
// executor down (Pool.Shutdown, ants' ReleaseContext), which drains what is
// left and leaves no goroutine behind.
package server
