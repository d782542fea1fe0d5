package blitz

import (
	"context"
	"fmt"
	"sync"
)

// Sub-pools.
//
// A Sub bounds one kind of work (an endpoint, a tenant) inside a shared
// pool: at most limit of its tasks are under way (in the parent's queue or
// running) and at most capacity more wait in its own queue, so a burst of
// that kind fills its own queue and takes at most limit workers, while the
// parent's queue and its other workers stay with the rest. It has no
// workers of its own: a task of a Sub is a task of the parent.
//
// Slots, and why a finishing task runs the next. A submission that finds a
// slot free takes it and goes into the parent's injector at once, over the
// parent's bound (the Sub's own bound already limits it to limit tasks
// there). Otherwise it waits in the Sub's queue. When a task of the Sub
// finishes, the worker that ran it keeps the slot and runs the next queued
// task itself (chain), instead of submitting it to the parent. Three
// reasons: a queued task never meets the parent's queue twice; the slot
// passes without a window in which the Sub looks idle; and the parent's
// Close, which counts the tasks of its injector, waits for the queued tasks
// too, since they run inside a task it counts. A queued task therefore
// exists only while every slot is taken, and some task holding a slot runs
// it. The chain costs fairness only within the limit: a bursting Sub keeps
// its limit of workers busy back to back, and no more.
//
// A task that calls runtime.Goexit ends its worker's goroutine; the chain
// goes on in the deferred call that sees it go, before the goroutine ends,
// so the queued tasks behind it lose nothing (a Goexit there nests, which
// the runtime allows).
//
// The parent's Close. A submission takes its slot and enters the parent's
// injector under the Sub's mutex; the parent's Shutdown, before it closes
// its injector, marks every open Sub closed under that mutex (subRegistry).
// So a Sub never accepts a task the parent then refuses: whatever it
// accepted is in the parent's injector or queued behind a task that is.
//
// The state is under one mutex per Sub: two or three short critical
// sections per task, on the server path where a task costs microseconds.

// A Sub is a bounded part of a pool (Pool.Sub): its tasks run on the
// parent's workers, at most Limit of them under way at once and at most
// Capacity more waiting, with its own counters (SubStats), refusals
// (ErrQueueFull) and shutdown. Give each kind of work its own Sub, and a
// burst of one cannot take the workers or fill the queue of the others.
//
// Submission is the pool's: Go, TryGo and GoContext, Run, and the generic
// Do, DoContext, TryDo and Submit given the Sub. A task waits in the Sub's
// queue, in submission order, until a slot is free; TryGo and TryDo refuse
// with ErrQueueFull when the queue is full, Go, Run and Do wait for room,
// GoContext and DoContext until their context ends (a task withdrawn while
// queued never runs). A task's panics and Goexits go where a pool task's
// would (Pool.Go, DoContext): the parent's panic handler, or the waiting
// caller.
//
// Called from a task of the parent pool (the Sub's own tasks included),
// the entry points follow the pool's rule for calls from its own tasks:
// Go is let in over the queue's bound and never waits, and Run, Do,
// DoContext and TryDo run fn on the caller's own worker at once,
// without a slot (the caller already holds a worker; waiting for a slot
// could wait for itself), counted in SubStats.Inline. Called from a task
// of another pool, they wait with its worker serving its own pool; but
// where that task runs within a task of the Sub (its call into the other
// pool, across any number of pools, is what the Sub's task waits for),
// they run in the slot that task holds, as a call into the parent pool,
// since no other slot may ever free (Do(sa, Do(sb, Do(sa, f))) with
// limits of 1); Go is let in over the bound there too.
//
// The parent's Stats count the Sub's tasks that enter its queue; a task
// that waited in the Sub's queue runs as part of the task before it (on
// the worker that ran that one), and the parent counts the two as one.
//
// A Sub is a Runner: a function of package par given one runs as one task
// of the Sub, whose forks any worker of the parent may take, and a Group
// or ResultGroup made on one counts each of its tasks against the Sub's
// bounds. A method called on a nil *Sub panics with a message that names
// it.
type Sub struct {
	p        *Pool
	capacity int

	mu sync.Mutex
	// gate holds the slots (gate.go): its entries admitted are the tasks
	// in the parent's injector or running, at most limit; those waiting
	// for a slot are in its queue, at most capacity of them unless let in
	// over the bound. Under mu, like every field below.
	gate slotGate[*subTask]
	// room are the submitters waiting for room in the full queue
	// (gate.go), woken one per task that leaves the queue or slot freed.
	room waitList
	// closed: Close or Shutdown began, or the parent's did.
	closed bool
	// pending counts the accepted tasks not finished; drained is closed
	// (once: drainedSig) when closed and pending is 0.
	pending    int
	drained    chan struct{}
	drainedSig bool

	running                                                int
	submitted, completed, rejected, abandoned, panics, inl uint64
}

// SubStats is a snapshot of a Sub's counters (Sub.Stats). Submitted =
// Queued + Running + Completed in every snapshot.
type SubStats struct {
	// Limit and Capacity are the Sub's bounds (Pool.Sub).
	Limit, Capacity int
	// Queued counts the accepted tasks not started: in the Sub's queue,
	// or holding a slot in the parent's queue. Running counts those
	// started and not finished; never more than Limit.
	Queued, Running int
	// Submitted counts the tasks accepted; Completed those finished,
	// however they ended (a DoContext task withdrawn while queued
	// included, without having run); Panics those that panicked.
	Submitted, Completed, Panics uint64
	// Rejected counts the submissions refused with ErrQueueFull (TryGo,
	// TryDo); Abandoned those that waited for room and gave up when
	// their context ended.
	Rejected, Abandoned uint64
	// Inline counts the Run, Do, DoContext and TryDo calls from tasks of
	// the parent pool, which ran on the caller's worker without a slot, and
	// those from work that a task of the Sub waits for in another pool,
	// which ran in that task's slot; they are not in the counts above.
	Inline uint64
}

// Sub returns a part of p whose tasks run on p's workers, at most limit at
// once, with at most capacity more waiting (see Sub). limit must be at
// least 1 and capacity at least 0, or Sub returns an error; on a closed
// pool it returns ErrClosed. Close the Sub when done with it (the parent's
// Close also closes it).
//
// capacity counts tasks, exactly, and bounds nothing else: a waiting task
// holds about 40 bytes and what its function captures, so a capacity of
// math.MaxInt is a queue bounded by memory alone, as the pool's own queue
// without WithCapacity. The Sub's bounds are its own: its at most limit
// tasks under way enter p's queue over p's bound (WithCapacity).
func (p *Pool) Sub(limit, capacity int) (*Sub, error) {
	if p == nil {
		panic("blitz: Pool.Sub: nil *Pool")
	}
	if limit < 1 {
		return nil, fmt.Errorf("blitz: Pool.Sub: limit %d: must be at least 1", limit)
	}
	if capacity < 0 {
		return nil, fmt.Errorf("blitz: Pool.Sub: capacity %d: must not be negative", capacity)
	}
	s := &Sub{p: p, capacity: capacity, drained: make(chan struct{})}
	s.gate.setLimit(limit)
	if !p.subs.add(s) {
		return nil, fmt.Errorf("blitz: Pool.Sub: %w", ErrClosed)
	}
	return s, nil
}

// Closed reports whether the Sub's Close, Shutdown, or the parent's, has
// begun: from then on the Sub refuses every submission from outside the
// parent's tasks.
func (s *Sub) Closed() bool {
	if s == nil {
		panic("blitz: Sub.Closed: nil *Sub")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed || s.p.Closed()
}

// Pool returns the Sub's parent pool.
func (s *Sub) Pool() *Pool {
	if s == nil {
		panic("blitz: Sub.Pool: nil *Sub")
	}
	return s.p
}

// Go submits fn to run once on a worker of the parent, as Pool.Go does, in
// the Sub's bounds: with a full queue it waits for room (from a task of the
// parent it is let in over the bound instead). It returns ErrClosed once
// the Sub's or the parent's Close has begun; if it returns nil, fn will
// run. A nil fn panics.
func (s *Sub) Go(fn func(w *Worker)) error {
	if s == nil {
		panic("blitz: Sub.Go: nil *Sub")
	}
	if fn == nil {
		panic("blitz: Sub.Go: nil function")
	}
	return s.submit(context.Background(), &subTask{s: s, t: goJob(fn)}, true, "Sub.Go")
}

// TryGo submits fn like Go but never waits: with a full queue it returns
// ErrQueueFull at once (SubStats.Rejected counts it) and fn never runs. A
// nil fn panics.
func (s *Sub) TryGo(fn func(w *Worker)) error {
	if s == nil {
		panic("blitz: Sub.TryGo: nil *Sub")
	}
	if fn == nil {
		panic("blitz: Sub.TryGo: nil function")
	}
	return s.submit(context.Background(), &subTask{s: s, t: goJob(fn)}, false, "Sub.TryGo")
}

// GoContext submits fn like Go, waiting for room in the Sub's full queue
// until ctx ends; then it returns an error wrapping ctx.Err() and fn never
// runs. fn and everything it forks see ctx as w.Context(), as with
// Pool.GoContext. A nil fn or a nil ctx panics.
func (s *Sub) GoContext(ctx context.Context, fn func(w *Worker)) error {
	if s == nil {
		panic("blitz: Sub.GoContext: nil *Sub")
	}
	if fn == nil {
		panic("blitz: Sub.GoContext: nil function")
	}
	if ctx == nil {
		panic("blitz: Sub.GoContext: nil context")
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("blitz: Sub.GoContext: %w", err)
	}
	return s.submit(ctx, &subTask{s: s, t: &ctxGoJob{fn: fn, ctx: ctx}}, true, "Sub.GoContext")
}

// A subTask is a task of a Sub: the pool's own task (goJob, callJob) and
// its place in the Sub's queue.
type subTask struct {
	s *Sub
	t task
	// labels are the submitter's profiler labels (taskctx.go), which the
	// task runs under, on whichever worker's chain reaches it. Written
	// by submit before the task is queued.
	labels profLabels
	// entry is the task's place at s's gate, under s.mu.
	entry gateEntry
}

func (st *subTask) gateEntry() *gateEntry { return &st.entry }

// run is the task as the parent runs it: it holds a slot, and runs the
// tasks queued behind it while there are any (see the top of the file),
// each under its own submitter's labels.
func (st *subTask) run(w *Worker, _ profLabels) {
	s := st.s
	s.mu.Lock()
	s.running++
	s.mu.Unlock()
	for st != nil {
		st = s.runOne(w, st)
	}
}

// finish does nothing: run handles the outcome of each task it runs.
func (*subTask) finish(*Worker, *PanicError, bool) {}

// runOne runs st's task as Worker.runTask runs a pool task, hands its
// outcome to the task's finish, counts it, and returns the next queued
// task, which then holds the slot (nil: the slot is free). After a Goexit
// it runs the rest of the chain itself, as the goroutine unwinds.
func (s *Sub) runOne(w *Worker, st *subTask) (next *subTask) {
	d := w.depth
	returned := false
	var pe *PanicError
	defer func() {
		next = s.after(pe != nil)
		if !returned && pe == nil {
			for t := next; t != nil; {
				t = s.runOne(w, t)
			}
		}
	}()
	// The task holds a slot: what runs within it, here or in other pools,
	// calls into s in that slot (heldBy).
	hold := &groupTask{sub: s, labels: st.labels}
	outer := w.enterGroupTask(hold)
	defer func() {
		if !returned {
			pe = unwinding(recover())
			w.depth = d
		}
		w.leaveGroupTask(hold, outer)
		st.t.finish(w, pe, !returned && pe == nil)
	}()
	st.t.run(w, st.labels)
	returned = true
	return nil
}

// after counts a task finished and returns the next queued one, counted
// started, or frees the slot and returns nil.
func (s *Sub) after(panicked bool) *subTask {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running--
	s.completed++
	if panicked {
		s.panics++
	}
	s.done()
	st, ok := s.gate.leave()
	s.room.wakeOne() // a task left the queue, or a slot is free: room either way
	if !ok {
		return nil
	}
	s.running++
	return st
}

// done counts an accepted task finished, and signals drained after Close
// when it was the last. s.mu is held.
func (s *Sub) done() {
	s.pending--
	if s.closed && s.pending == 0 && !s.drainedSig {
		s.drainedSig = true
		close(s.drained)
	}
}

// submit accepts st: into the parent's injector if a slot is free, else
// into the queue if it has room (or the caller is a task of the parent and
// may wait: over the bound), else it refuses (wait false) or waits for
// room until ctx ends.
func (s *Sub) submit(ctx context.Context, st *subTask, wait bool, name string) error {
	st.labels = currentLabels()
	over := wait && (s.p.inTask() || s.heldBy(currentWorker()))
	s.mu.Lock()
	for {
		if s.closed {
			s.mu.Unlock()
			return ErrClosed
		}
		if s.gate.enter() {
			s.accept()
			ok := s.p.injectOver(st)
			s.mu.Unlock()
			if !ok {
				// The parent marks its Subs closed before it closes
				// its injector (subRegistry), under s.mu.
				panic("blitz: Sub: the parent pool refused a task of an open Sub")
			}
			s.p.sleep.NewInjectedJobsLazy(1, s.p.queueWasEmpty)
			return nil
		}
		if s.gate.queued < s.capacity || over {
			s.accept()
			s.gate.wait(st, nil)
			s.mu.Unlock()
			return nil
		}
		if !wait {
			s.rejected++
			s.mu.Unlock()
			return ErrQueueFull
		}
		wt := newWaiter(currentWorker())
		s.room.push(wt)
		s.mu.Unlock()
		if wt.wait(ctx.Done()) {
			s.mu.Lock()
			s.room.cancel(wt) // woken already: the notice passes on
			s.abandoned++
			s.mu.Unlock()
			return fmt.Errorf("blitz: %s: waiting for room in the queue: %w", name, ctx.Err())
		}
		s.mu.Lock()
	}
}

// accept counts a task accepted. s.mu is held.
func (s *Sub) accept() {
	s.submitted++
	s.pending++
}

// unqueue takes a withdrawn task out of the queue if it is still there
// (otherwise it holds a slot, and the worker that takes it skips it).
func (s *Sub) unqueue(st *subTask) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.gate.withdraw(st) {
		return
	}
	s.completed++
	s.done()
	s.room.wakeOne()
}

// heldBy reports whether w (nil for a goroutine that is no worker) runs
// within a task of s, which holds a slot of s: a call from a task of the
// parent pool into another pool whose task calls s again, say. Such a
// call runs in that slot: the task holding it waits for the call, and
// waiting for another slot could wait for itself (a limit of 1 would).
func (s *Sub) heldBy(w *Worker) bool { return w.runningGroupTask().holds(s) }

func (s *Sub) countInline() {
	s.mu.Lock()
	s.inl++
	s.mu.Unlock()
}

// Stats returns the Sub's counters. It is safe to call at any time from
// any goroutine, including after Close.
func (s *Sub) Stats() SubStats {
	if s == nil {
		panic("blitz: Sub.Stats: nil *Sub")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return SubStats{
		Limit: s.gate.limit, Capacity: s.capacity,
		Queued: s.pending - s.running, Running: s.running,
		Submitted: s.submitted, Completed: s.completed, Panics: s.panics,
		Rejected: s.rejected, Abandoned: s.abandoned, Inline: s.inl,
	}
}

// Close is Shutdown without a deadline.
func (s *Sub) Close() error {
	if s == nil {
		panic("blitz: Sub.Close: nil *Sub")
	}
	return s.Shutdown(context.Background())
}

// Shutdown stops the Sub accepting work (its submissions fail with
// ErrClosed, and those waiting for room are woken with it) and waits until
// every task it accepted has finished, queued ones included; the parent
// pool and its other Subs go on. If ctx ends first it returns a
// *ShutdownError counting the tasks still queued and running (Workers is
// 0), and the Sub goes on draining. It is idempotent. Called from a task
// of the parent pool it returns ErrCloseInTask (it could wait for itself),
// leaving the Sub open. The parent's Close or Shutdown closes the Sub too,
// and waits for its tasks. A nil ctx panics.
func (s *Sub) Shutdown(ctx context.Context) error {
	if s == nil {
		panic("blitz: Sub.Shutdown: nil *Sub")
	}
	if ctx == nil {
		panic("blitz: Sub.Shutdown: nil context")
	}
	if s.p.inTask() {
		return ErrCloseInTask
	}
	s.close()
	select {
	case <-s.drained:
		return nil
	case <-ctx.Done():
		select {
		case <-s.drained:
			return nil
		default:
		}
		st := s.Stats()
		return &ShutdownError{Queued: st.Queued, Running: st.Running, Err: ctx.Err()}
	}
}

// close marks s closed, wakes the submitters waiting for room, and
// signals drained if nothing is pending.
func (s *Sub) close() {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		s.room.wakeAll()
		s.pending++
		s.done() // pending back as it was; drained if it is 0
	}
	s.mu.Unlock()
	s.p.subs.remove(s)
}

// add registers s, or reports false if the pool is closing.
func (r *subRegistry) add(s *Sub) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	if r.subs == nil {
		r.subs = make(map[*Sub]struct{})
	}
	r.subs[s] = struct{}{}
	return true
}

func (r *subRegistry) remove(s *Sub) {
	r.mu.Lock()
	delete(r.subs, s)
	r.mu.Unlock()
}

// closeAll closes every open Sub, and any made later. Called once, by the
// pool's first Close or Shutdown, before it closes its injector.
func (r *subRegistry) closeAll() {
	r.mu.Lock()
	r.closed = true
	subs := r.subs
	r.subs = nil
	r.mu.Unlock()
	for s := range subs {
		s.close()
	}
}

// injectOver queues t in p's injector over its bound (a Sub's task: see
// the top of the file), and reports false if the injector is closed. The
// caller tells the sleep protocol. t carries the labels it runs under.
func (p *Pool) injectOver(t *subTask) bool {
	pos, b, r := p.inj.claim()
	if r == claimClosed {
		return false
	}
	var enq int64
	if pos&p.sampleMask == 0 {
		enq = p.now()
	}
	p.inj.publish(pos, b, injTask{job: t, enq: enq})
	return true
}
