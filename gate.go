package blitz

import (
	"slices"
)

// Gates: admission under a limit, and waiting for it.
//
// A gate admits entries into at most limit slots at once. Group.SetLimit
// puts one in front of a Group's tasks (an entry is a task given to Go,
// admitted when it may be submitted to the pool), and every Sub has one (an
// entry is a task of the Sub, admitted when it may enter the parent's queue
// or run); a Sub adds a bound of its own on top, its queue's capacity, and
// the submitters that wait for room in a full queue. The gate knows nothing
// of pools, tasks or mutexes: its owner guards it with its own mutex and
// does outside that mutex what an admission leads to (submitting the task,
// running it).
//
// The rule is FIFO, and the same for both owners:
//
//  1. An entry takes a free slot at once (enter) only if no entry waits:
//     otherwise it waits in the gate's queue (wait), behind the others.
//  2. An entry that leaves frees its slot (leave), and the oldest waiting
//     entry takes it (admit), as does every one that fits when the limit
//     is raised (SetLimit). So a waiting entry exists only while every slot
//     is taken, and it is admitted by whoever frees one.
//  3. A waiting entry may be withdrawn (a DoContext whose context ended):
//     it is marked gone where it stands, at no cost to the others, and
//     skipped when it comes to the head. An entry withdrawn holds no slot,
//     so there is nothing to hand on.
//
// The queue is a slice read from head; it is reset when it empties and
// compacted when the read half outgrows the rest, so under a load that never
// lets it empty its memory stays proportional to what waits.
//
// Who waits, and how. A waiter is one goroutine waiting for something that
// another goroutine announces with one wake: its entry's admission (a
// Group's Go), room in a full queue (a Sub's, or the pool's own bounded
// queue: Pool.waitClaim), or a Group's last task (a Wait of another pool's
// task). How it waits depends on what the goroutine runs:
//
//   - a plain goroutine blocks on a channel, which wake closes;
//   - a task of another pool waits as in a call into another pool
//     (Worker.waitCall, wait.go): its worker sleeps on a latch that wake
//     Sets, and its pool goes on serving meanwhile (it adds a worker in
//     its place, or lends the worker to a goroutine that serves), so a slot
//     held by a task that calls back into the waiter's pool still frees.
//   - a task of the gate's own pool never waits: the slot or the room it
//     would wait for may be held by itself, or by a task queued behind it
//     on its own worker. Its owner lets it in over the bound instead
//     (Group.Go queues its task and returns, a Sub queues it over the
//     capacity, the pool's queue claims over its capacity).
//
// A waitList is a FIFO of waiters, each woken once, by whoever takes it
// off the list (the oldest, when one unit of room appears; all of them at a
// Close). A waiter that gives up (its context ended) leaves the list. If it
// is no longer there, it was woken already, and its wake may have been the
// only notice of room: it hands the wake on to the next waiter, which finds
// the room or waits again, so a cancelled waiter never swallows it.

// A slotGate is a gate: at most limit entries admitted at once, the others
// waiting in FIFO order (see above). The zero slotGate has no limit. Its
// owner's mutex guards every field.
type slotGate[T gated] struct {
	limited bool // a limit is set (setLimit); false in the zero gate
	limit   int  // the slots, when limited
	active  int  // the slots taken
	// queue holds the waiting entries from head, withdrawn ones among
	// them (marked gone); queued counts those not withdrawn.
	queue  []T
	head   int
	queued int
}

// gated is what waits at a gate: a task that carries its gate entry.
type gated interface {
	gateEntry() *gateEntry
}

// setLimit sets the number of slots; a negative n removes the limit. The
// caller then admits what the new limit lets in (admit).
func (q *slotGate[T]) setLimit(n int) { q.limited, q.limit = n >= 0, max(n, 0) }

// free reports whether a slot is free.
func (q *slotGate[T]) free() bool { return !q.limited || q.active < q.limit }

// enter takes a slot if one is free and no entry waits (rule 1), and
// reports whether it did.
func (q *slotGate[T]) enter() bool {
	if !q.free() || q.queued > 0 {
		return false
	}
	q.active++
	return true
}

// wait queues t, which enter refused or which is let in over a bound of the
// owner's; wt, if not nil, is woken when t is admitted.
func (q *slotGate[T]) wait(t T, wt *waiter) {
	e := t.gateEntry()
	e.inQueue, e.waiter = true, wt
	q.queue = append(q.queue, t)
	q.queued++
}

// admit gives a free slot to the oldest waiting entry and wakes its waiter,
// and returns it; false if no slot is free or no entry waits.
func (q *slotGate[T]) admit() (T, bool) {
	for q.free() && q.queued > 0 {
		t := q.pop()
		e := t.gateEntry()
		if e.gone {
			continue
		}
		e.inQueue = false
		q.queued--
		q.active++
		if wt := e.waiter; wt != nil {
			e.waiter = nil
			wt.wake()
		}
		return t, true
	}
	var none T
	return none, false
}

// leave frees an admitted entry's slot and admits the next entry, if one
// waits and the limit lets it in, which it returns (rule 2).
func (q *slotGate[T]) leave() (T, bool) {
	q.active--
	return q.admit()
}

// withdraw takes t out of the queue if it still waits there (rule 3), and
// reports whether it did; false: t was admitted, or never waited. Its
// waiter, if any, is not woken.
func (q *slotGate[T]) withdraw(t T) bool {
	e := t.gateEntry()
	if !e.inQueue {
		return false
	}
	e.inQueue, e.gone, e.waiter = false, true, nil
	q.queued--
	if q.queued == 0 {
		clear(q.queue[q.head:])
		q.queue, q.head = q.queue[:0], 0
	}
	return true
}

// pop takes the entry at the head of the queue, which is not empty.
func (q *slotGate[T]) pop() T {
	t := q.queue[q.head]
	var none T
	q.queue[q.head] = none
	q.head++
	switch {
	case q.head == len(q.queue):
		q.queue, q.head = q.queue[:0], 0
	case q.head >= 64 && 2*q.head >= len(q.queue):
		// Never empty under steady load: move what is left to the
		// front, so the array stays proportional to it.
		n := copy(q.queue, q.queue[q.head:])
		clear(q.queue[n:])
		q.queue, q.head = q.queue[:n], 0
	}
	return t
}

// newWaiter returns a waiter for the calling goroutine, which runs w (nil
// for none), the result of currentWorker. A worker of the pool whose gate
// or queue the waiter waits at must not wait (see the top of the file).
func newWaiter(w *Worker) *waiter {
	if w != nil {
		return &waiter{w: w}
	}
	return &waiter{ch: make(chan struct{})}
}

// wait waits for wake, or until stop is closed; then it reports true (a nil
// stop never closes). A worker waits as in a call into another pool
// (Worker.waitCall), its pool serving meanwhile. If stop and the wake come
// together it may report true though woken: a caller that gives up then
// leaves its waitList (cancel), which hands the wake on.
func (wt *waiter) wait(stop <-chan struct{}) (stopped bool) {
	if wt.w == nil {
		select {
		case <-wt.ch:
			return false
		case <-stop:
			return true
		}
	}
	return wt.w.waitCall(&wt.l, stop)
}

// wake ends wt's wait. It is called once, by whoever took wt off its list
// (or admitted its entry).
func (wt *waiter) wake() {
	if wt.w == nil {
		close(wt.ch)
		return
	}
	if wt.l.Set() {
		wt.w.pool.sleep.NotifyWorkerLatchIsSet(wt.w.index)
	}
}

// push adds wt at the end.
func (l *waitList) push(wt *waiter) { l.list = append(l.list, wt) }

// len returns the number of waiters.
func (l *waitList) len() int { return len(l.list) }

// wakeOne wakes the oldest waiter, if any.
func (l *waitList) wakeOne() {
	if len(l.list) > 0 {
		wt := l.list[0]
		l.list[0] = nil
		l.list = l.list[1:]
		wt.wake()
	}
}

// wakeAll wakes every waiter.
func (l *waitList) wakeAll() {
	for _, wt := range l.list {
		wt.wake()
	}
	l.list = nil
}

// cancel takes wt, which gives up, off the list; if it was woken already
// (it is no longer there), it wakes the next waiter in its place.
func (l *waitList) cancel(wt *waiter) {
	if i := slices.Index(l.list, wt); i >= 0 {
		l.list = slices.Delete(l.list, i, i+1)
		return
	}
	l.wakeOne()
}
