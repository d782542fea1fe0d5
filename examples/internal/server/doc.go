// Package server is the example HTTP server of Blitz for Go: a handler that
// does a slice of CPU work per request (package work) and runs it in one of
// three modes, so that the same load test can compare them.
//
//   - inline: the work runs in the handler's own goroutine, as most Go
//     servers do. Nothing bounds it: under overload every request is
//     admitted, the Go scheduler shares the CPUs among all of them, and every
//     request gets slower together (processor sharing).
//   - ants: the work is submitted to an ants pool of Capacity goroutines in
//     non-blocking mode; a request that finds every goroutine busy gets 503.
//     Admitted requests still share the CPUs among up to Capacity running
//     tasks.
//   - blitz: the work is submitted to a blitz Pool (one worker per CPU by
//     default) and the handler waits for it. At most Capacity requests are
//     in flight (queued in the pool's FIFO injector or running); the next
//     gets 503. Admitted requests run to completion one per worker, in
//     arrival order, so a request's latency is its queue wait plus its own
//     work, and the queue wait is bounded by Capacity.
//
// # Admission in blitz mode (a stand-in)
//
// The pool does not yet have a bounded injection queue: its API has Go, Run
// and Do, which never refuse work while the pool is open. Until it has one
// (a capacity option, TryGo returning ErrQueueFull, a context-aware
// submit-and-wait), the blitz executor bounds admission itself with an
// atomic in-flight counter capped at Capacity. Everything that will change
// when the pool's own API lands is in one function, blitzExecutor.Execute
// (blitz.go), and in the pool's construction in newBlitzExecutor.
//
// # Shutdown
//
// Server.Shutdown stops the listener and waits for in-flight handlers
// (http.Server.Shutdown), which wait for their tasks, and then closes the
// executor, which drains what is left and leaves no goroutine behind.
package server
