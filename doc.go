// Package blitz is a work-stealing pool for Go: fork-join compute and
// latency-sensitive server work on one set of workers, one work-stealing
// deque each, with rayon's sleep protocol and workers placed by CPU
// topology. Its data-parallel layer (parallel loops, sorts, searches and
// reductions over slices) is package par.
//
// # Which function
//
//	to ...                                          call
//	make a pool, stop it                            New (options: WithWorkers, WithCapacity, ...),
//	                                                Close, Shutdown; Default for the shared one
//	run a function on the pool and wait for it      Do, Pool.Run (from any goroutine)
//	  with a deadline or for a request handler      DoContext; TryDo refuses when the queue is full
//	submit without waiting                          Pool.Go, Sub.Go; TryGo refuses, GoContext gives up
//	  and wait for the result later                 Submit, Future.Wait, WaitContext
//	fork two functions inside a task                Join, JoinArgs (no allocation), Worker.Join
//	fork three or many                              Join3, JoinAll; Worker.Scope for a dynamic set
//	run tasks that return errors, errgroup-style    NewGroup (or a zero Group, on Default), Group.Go,
//	                                                Group.Wait; Go after Wait reuses the group
//	  at most n at once                             Group.SetLimit; Group.TryGo returns ErrQueueFull
//	  with golang.org/x/sync/errgroup's API         package errgroup (change the import line)
//	  returning results, in the order of Go         NewResultGroup (or a zero ResultGroup), Go, Wait
//	bound one kind of work inside a pool            Pool.Sub; give the *Sub where a *Pool goes
//	loops and slices in parallel                    package par
//	call something that blocks, from a task         nothing (the pool adds workers); Block hands over at once
//	see what the pool does                          Pool.Stats, Pool.Expvar
//	resize; set up or visit every worker            Pool.Resize; WithWorkerStart, WithWorkerExit, Broadcast
//
// Every function the pool runs receives a *Worker, which fork-join code
// passes on. Functions that take a Runner (Do, DoContext, TryDo, Submit,
// NewGroup, NewResultGroup and package par's) accept a *Pool, a *Sub or a
// *Worker; Pool and Sub have the same methods to submit (Go, TryGo,
// GoContext, Run). A call that returns an error reports a closed pool as
// ErrClosed; one that has no error to return (Do, Run, the Join forms,
// par's functions) panics with an error wrapping it.
//
// # Example
//
//	package main
//
//	import (
//		"fmt"
//
//		"github.com/blitz-go/blitz"
//	)
//
//	func fib(w *blitz.Worker, n int) int {
//		if n < 2 {
//			return n
//		}
//		a, b := blitz.JoinArgs(w, fib, n-1, fib, n-2)
//		return a + b
//	}
//
//	func main() {
//		p := blitz.Default() // or blitz.New(options...), then Close
//		fmt.Println(blitz.Do(p, func(w *blitz.Worker) int { return fib(w, 30) }))
//	}
//
// # Servers
//
// A pool made with no options suits a server: its idle workers park through
// the Go scheduler and cost nothing. Bound the queue with WithCapacity and
// call TryDo from handlers: it returns ErrQueueFull at once when the pool is
// saturated (answer 503), ErrClosed after Close, the context's error when
// the request ends first, and a task's panic as a *PanicError (ErrPanic).
// Shutdown drains what was accepted and returns by its context's deadline.
// Pool.Sub gives one kind of work its own limit and queue on the pool's
// workers, so that a burst of it cannot starve the rest.
//
// # Profiles
//
// A task runs under the pprof labels of the goroutine that submitted it, as
// a goroutine started with go does, on whichever worker runs it, and so
// does the work it forks; so a CPU profile of a server divides the pool's
// work by the labels its handlers set (pprof.Do). A task submitted with a
// context that carries a runtime/trace task (trace.NewTask) runs in a
// region of type "blitz.task" of that task, on every worker that runs its
// work. A task whose submitter had no labels runs under the worker's own:
// none, or those a start hook set (WithWorkerStart).
//
// # Size
//
// A pool made without WithWorkers (Default too) follows GOMAXPROCS, which
// Go 1.25 changes with the container's CPU limit: it looks once a second
// while it works, and when it next gets work after idling. A pool made
// WithWorkers(n) keeps n. Pool.Resize sets the size of either; on a pool
// that follows GOMAXPROCS, until GOMAXPROCS next changes.
//
// # Blocking
//
// A task may block as a goroutine may: on a database or RPC call, a file,
// a lock, a channel, another task. When the pool's workers are blocked while
// work waits, the pool adds workers that take the waiting work, and retires
// them once they have idled for a second; so tasks that block run as many
// at once as goroutines would, and tasks that wait for later tasks
// complete. A monitor that runs only while the pool works (ticks 0.5 to
// 10 ms apart) sees a worker in a job as blocked when the Go scheduler
// counts it neither running nor runnable on two ticks in a row while
// submitted tasks wait (on three, and only if it stayed in one job, while
// only join halves and spawned tasks wait): a task that computes for long
// is not blocked, and gets no company. A worker waiting for the half of a
// join that another worker took is blocked too, to the requests queued
// behind it. Once the pool has grown so, until it shrinks back, it adds a
// worker for each submitted task waiting at a tick that follows another
// with tasks waiting, while no worker is idle, whether or not it sees a
// worker blocked: under CPU saturation the scheduler's counts cannot show
// which busy workers are blocked. CPU-bound work alone never makes a pool
// grow. Worker.Block (or Block, for code without a *Worker) hands over at
// once, for a call known to block. WithMaxWorkers caps the workers (10,000
// by default); Stats counts the blocked workers seen and the workers added
// and retired.
//
// # Calls from inside a task
//
// A task may call into any pool, its own included. Into its own pool (Do,
// Run, DoContext, TryDo, a par function or a Group given the *Pool or
// Default(), Group.Wait, Future.Wait for a Future no worker has started),
// the call runs on the task's own worker, as if the task had passed its
// *Worker, with the same results, panics and contexts as from outside
// (DoContext returns the context's error if the context ended before fn
// returned); it is never queued behind the task, so neither a full queue nor
// a closing pool refuses it, TryDo's included. Into another pool, the call
// is queued there and the task's worker waits as a blocked one, which its
// pool replaces at once unless a worker sleeps or as many workers as its
// size run unblocked (a pool at its cap lends the waiting worker to a
// goroutine that serves the pool instead), so pools that call each other, in
// a cycle too, never run out of workers. The same holds for waits on another
// pool's Group, Sub slot or full queue, and on a Future another worker runs,
// of any pool. Calls back into a Sub whose slot the caller's task holds,
// through any number of pools, run in that slot. What queues a task is
// refused as from outside, but for waiting: Go and GoContext from a task
// (and Group.Go, Sub.Go) are let in over a full queue's bound or a group's
// limit (the task could be waiting for itself), TryGo refuses as it does for
// anyone, and after Close has begun they refuse with ErrClosed (Group.Go
// through its Wait), to the pool's own tasks too. A Group's task that waits for its own group panics,
// from whichever worker the waiting part runs on: it would wait for itself.
//
// # Panics and Goexit
//
// These rules hold for every function the pool runs, however many panics and
// Goexits happen at once or nest:
//
//  1. A panic is recovered on the worker and raised again in whoever waits
//     for the function (the joiner, the Scope caller, the Do caller) as a
//     *PanicError carrying the value and the stack where it happened;
//     DoContext, TryDo and a Future's Wait return it as an error. A panic
//     in a Go task, which nobody waits for, goes to the panic handler
//     (WithPanicHandler), or crashes the program when there is none, as in
//     a plain goroutine.
//  2. Both halves of a join always run, and every task spawned in a scope
//     runs, even when another part panics; a join or scope returns or
//     panics only after all its parts finished. The first half's panic
//     outranks the second's.
//  3. runtime.Goexit ends the function that called it and, as if that
//     function had run inline, the fork-join it belongs to, up to the task
//     that started it; a Do caller's goroutine exits too, and DoContext and
//     a Future's Wait return ErrGoexit. It never ends a task that did not
//     cause it.
//  4. panic(nil) is a panic, also under GODEBUG=panicnil=1.
//
// # Locks
//
// Holding a lock around Join, Scope or a par function called with a *Worker
// is safe: while it waits for stolen work, its worker runs only parts of
// that computation. What deadlocks, as it does with plain goroutines: a
// part taking the lock held around it (a goroutine taking a lock that its
// starter holds while it waits for the goroutine), and tasks waiting for
// tasks queued behind them on a pool capped at its size (WithMaxWorkers),
// as on a fixed set of goroutines. Two cases deadlock here and not with
// goroutines: on a pool of one worker, a join's first half waiting for its
// second (the worker keeps its deque to itself while it runs a job, and no
// worker added can take the second half); and, on a pool at its cap only,
// a lock held across a call into another pool that a task of the caller's
// pool takes, when that task runs on the goroutine the caller's worker is
// lent to meanwhile (the caller waits for its worker back).
//
// The design of each part is told at the top of the file that holds it.
package blitz
