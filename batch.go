package blitz

// Taking submitted tasks in batches.
//
// Under a stream of submitted tasks every idle worker polls the injector,
// and each take is a CAS of the injector's head word: with two or more
// workers they take turns owning that line, which the producers' claims
// also read. So an idle worker of a pool of several takes a batch instead,
// as Go's scheduler takes up to a share of the global run queue into a P's
// local queue and crossbeam's Injector::steal_batch_and_pop does: one CAS
// of head moves up to the queue's length over the number of active workers
// (Resize), plus one, and at most injBatchMax, from the injector to the
// worker. It runs the
// oldest at once and parks the others in slots of its own (w.batches,
// refslots.go), their refs (kindBatch) pushed on its deque, newest first,
// so that its own pops start them in submission order. From there they are
// jobs like any other: the worker pops them, and other workers steal them
// (oldest pushed first: the newest tasks of the batch), and the push tells
// the sleep protocol, which wakes a sleeping worker to steal if no idle one
// is looking (NewInternalJobs, as a push of a join half does).
//
// What a submitted task was promised still holds there:
//
//   - It runs once: whoever wins its ref (a pop, a steal) takes it out of
//     the slot and runs it with Worker.runTask, which finishes it (Do's
//     caller is signalled) and counts it as finished (rootDone), so Close
//     and Shutdown, which wait for as many finished tasks as were accepted,
//     wait for the batched ones too.
//   - A DoContext task can still be withdrawn until it starts: withdrawal
//     is the task's own CAS (callJob), wherever the task waits.
//   - Its queue wait is measured from its submission to its start, as
//     before (the submit time travels in the slot).
//   - Stats counts a batched task as taken (Running), since a worker holds
//     it: Queued stays the injector's length.
//
// Where batches are not taken:
//
//   - A pool of one worker: nobody contends for head, and parking a task
//     costs more than the CAS it saves.
//   - A bounded pool (WithCapacity): the bound counts the tasks that have
//     not started, and the injector's length is how it is enforced; a
//     batch would start counting its tasks as started while they wait.
//   - Anywhere but the idle loop of the worker's own goroutine. A goroutine
//     the worker is lent to while its own waits on a call into another pool
//     (waitCall) returns as soon as the call is done, and would leave the
//     batch's refs on top of the deque of the task that made the call,
//     where its joins expect their own halves. In the idle loop nothing of
//     the worker waits below: the batch's refs lie below anything the
//     batch's tasks push, so the work isolation of joins and scopes
//     (wait.go) is untouched: a joiner or a scope's owner whose deque
//     holds them has had everything above stolen first, and a waiter
//     steals only from a worker that runs its own job, which took no batch
//     since (it signals the waiter before it goes back to its idle loop).

// injBatchMax is the most tasks a worker takes from the injector at once.
const injBatchMax = 32

// batchable reports whether findWork may take a batch (see above): a pool
// of several workers without a capacity, in the idle loop of the worker's
// own goroutine. Owner-only.
func (w *Worker) batchable() bool {
	return !w.alone && w.waitKind == waitTerminate && w.pool.inj.capacity == 0
}

// takeBatch takes a batch of submitted tasks from the injector: it returns
// the oldest, to run now, and parks the others in the worker's deque.
// Owner-only, from the idle loop (batchable).
func (w *Worker) takeBatch() (work, bool) {
	p := w.pool
	buf := &w.batch
	n := p.inj.popBatch(buf[:], uint64(max(p.size.Load(), 1)))
	if n == 0 {
		return work{}, false
	}
	first := buf[0]
	buf[0] = injTask{}
	if n > 1 {
		// The deque is empty (findWork popped it first), and so it
		// stays a stack of this batch only: push the newest first.
		for i := n - 1; i >= 1; i-- {
			s := w.batches.alloc()
			w.batches.slot(s).val = buf[i]
			buf[i] = injTask{}
			if r := batchRef(w.index, s); !w.deque.TryPush(r) {
				w.deque.Push(r)
			}
		}
		w.stats.add(&w.stats.batched, uint64(n-1))
		p.sleep.NewInternalJobs(n-1, true)
	}
	return work{ref: taskRef, task: first.job, enq: first.enq}, true
}
