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
// worker. It runs the oldest at once and parks the others in its run queue
// (runq.go), oldest first, where it pops them in order and where other
// workers steal the older half of them at a time; the push tells the sleep
// protocol, which wakes a sleeping worker to steal if no idle one is
// looking (NewInternalJobs, as a push of a join half does).
//
// Where a worker looks (findWork): its own deque, its own run queue, the
// other workers' deques (join halves and spawns: work already started,
// rayon's order), the other workers' run queues (older submissions), and
// only then the injector. A thief that finds another worker's run queue
// takes half of it with one CAS, so two workers draining a stream move
// tasks between them a batch at a time, and a task parked behind a worker
// that runs a long task waits only until an idle worker looks: each look
// takes half of what is left.
//
// What a submitted task was promised still holds there:
//
//   - It runs once: whoever claims its position in a run queue (the owner's
//     pop, a thief's steal) runs it with Worker.runTask, which finishes it
//     (Do's caller is signalled) and counts it as finished (rootDone), so
//     Close and Shutdown, which wait for as many finished tasks as were
//     accepted, wait for the batched ones too.
//   - A DoContext task can still be withdrawn until it starts: withdrawal
//     is the task's own CAS (callJob), wherever the task waits.
//   - Its queue wait is measured from its submission to its start, as
//     before (the submit time travels with it).
//   - Stats counts a batched task as taken (Running), since a worker holds
//     it: Queued stays the injector's length.
//
// Where batches are not taken (and runs not stolen into a run queue):
//
//   - A pool of one worker: nobody contends for head, and parking a task
//     costs more than the CAS it saves.
//   - A pool running workers added for blocked ones (blocking.go): tasks
//     block there, and a task parked behind a blocked one waits for a
//     thief, which would park half of the rest behind its own first task.
//     Each worker takes one task at a time, as a goroutine per task would.
//   - A bounded pool (WithCapacity): the bound counts the tasks that have
//     not started, and the injector's length is how it is enforced; a
//     batch would start counting its tasks as started while they wait.
//   - Anywhere but the idle loop of the worker's own goroutine. A goroutine
//     the worker is lent to while its own waits on a call into another pool
//     (waitCall) returns as soon as the call is done, and tasks it parked
//     would wait for the task that made the call, or for a thief. It takes
//     single tasks, from the injector or from a run queue.
//
// The run queue is separate from the deque, so joins and scopes never see
// its tasks: a joiner or a scope's owner pops and steals only deque refs
// (wait.go), and a worker retiring (Resize) runs what both hold.

// batchable reports whether findWork may park tasks in the worker's run
// queue, from a batch or from another run queue (see above): a pool of
// several workers without a capacity and without added workers, in the
// idle loop of the worker's own goroutine. Owner-only.
func (w *Worker) batchable() bool {
	p := w.pool
	return !w.alone && w.waitKind == waitTerminate && p.inj.capacity == 0 && p.active.Load() <= p.size.Load()
}

// takeBatch takes a batch of submitted tasks from the injector: it returns
// the oldest, to run now, and parks the others in the worker's run queue.
// Owner-only, from the idle loop (batchable).
func (w *Worker) takeBatch() (work, bool) {
	p := w.pool
	buf := w.batch
	if buf == nil {
		buf = new([injBatchMax]injTask)
		w.batch = buf
	}
	n := p.inj.popBatch(buf[:min(len(buf), w.runq.room()+1)], uint64(max(p.active.Load(), 1)))
	if n == 0 {
		return work{}, false
	}
	first := buf[0]
	buf[0] = injTask{}
	if n > 1 {
		w.runq.pushBatch(buf[1:n])
		w.stats.add(&w.stats.batched, uint64(n-1))
		p.sleep.NewInternalJobs(n-1, true)
	}
	return first.work(), true
}
