package blitz

import "github.com/blitz-go/blitz/internal/goroutine"

// Calls into a pool from its own tasks.
//
// A task that calls Run, Do, DoOn (and so any par function) or Group.Wait
// with a *Pool (often Default()) instead of its *Worker would, if the call were
// queued like one from outside, block its worker until another worker
// served the call; with every worker doing that, or a pool of one worker,
// nothing would move. So every entry point first asks which worker, if any,
// the calling goroutine is running (currentWorker), as rayon's in_worker
// asks its thread-local registry:
//
//   - a worker of the same pool: the call runs on that worker, as if the
//     task had passed its *Worker (Run, Do, DoOn and so every par
//     function: callOwn or callInline; DoContext and TryDo: on a
//     goroutine the worker is lent to, so that a Goexit ends fn only;
//     Group.Wait: it runs the group's unstarted tasks itself);
//   - a worker of another pool: the call is queued in the pool it names,
//     and the caller's worker waits as a blocked one that its pool replaces
//     (Worker.waitCall), as in RunFrom, so pools that call each other in
//     a cycle never run out of workers;
//   - no worker: the call is queued and the caller blocks.
//
// Go has no goroutine-local storage; running is a table from goroutine
// identities to the worker each one runs (internal/goroutine: why it is
// exact). A worker goroutine enters itself when it starts and leaves before
// it ends, a replacement after a Goexit enters itself anew, and so does each
// goroutine a worker is lent to (waitCall, runLent) for the loan's
// duration. A goroutine whose worker is lent keeps its entry: it is blocked
// until the loan ends, so it makes no call meanwhile. The look-up costs a
// few nanoseconds (an assembly read of the goroutine's identity and one load
// of a table bucket), on a path that then queues a task and blocks.

// running maps each goroutine that runs a worker to that worker.
var running goroutine.Table[Worker]

// currentWorker returns the worker the calling goroutine runs, or nil.
func currentWorker() *Worker { return running.Get() }

// Current returns the worker of p that the calling goroutine runs (the
// *Worker its task was handed), or nil if the caller is not running a task
// of p. It costs a few nanoseconds. Code that was not handed its *Worker
// can get it here; like any *Worker, the result belongs to the calling
// goroutine for the duration of the task.
func (p *Pool) Current() *Worker {
	if w := currentWorker(); w != nil && w.pool == p {
		return w
	}
	return nil
}
