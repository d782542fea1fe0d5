package blitz

import (
	"sync"
	"sync/atomic"

	"github.com/blitz-go/blitz/atomics"
)

// The injector is the pool's FIFO queue for tasks that come from outside the
// workers' fork-join trees (Go, TryGo, GoContext, Run, Do, DoContext, TryDo):
// any number of producers, any number of consumers (the workers).
//
// It is a lock-free linked list of blocks of slots, indexed by two
// ever-growing positions, tail (the next position a producer claims) and
// head (the next position a consumer takes):
//
//   - A producer claims position t with one CAS of tail from t to t+1
//     (refused when the queue is closed, or bounded and t-head reached
//     the capacity), finds or links the block holding t, writes the task into
//     the slot and marks the slot ready with a release store.
//   - A consumer reads head h, finds the block holding h, and if the slot is
//     ready takes it with a CAS of head from h to h+1. A slot that is not
//     ready yet (its producer claimed it but has not written it) reads as
//     empty: that producer has not yet told the sleep protocol about its
//     task either, and will do so after the write (Pool.submit), so a
//     worker that goes to sleep on this answer is woken.
//
// Positions make the queue FIFO in claim order and ABA-free (they never
// repeat); slots are never reused, so a lagging consumer can only fail its
// CAS, never read a recycled slot. Old blocks are freed by the garbage
// collector once headBlock and tailBlock moved past them.
//
// A mutex around a ring (the first version) cost 88-200 ns per task on the
// submit benchmark, most of it the lock's cache line moving between the
// submitter and the workers at every push and pop (bench/results).
//
// Closing sets closedBit in tail with one atomic OR, which both refuses every
// later claim and fixes the number of tasks ever accepted: the pool's Close
// waits until the workers finished exactly that many.
type injector struct {
	_ atomics.Pad

	// tail is the next position to claim, with closedBit once closed.
	// Producers claim with CompareAndSwap (claimIf); close sets closedBit
	// with Or, after which every claim is refused and tail&^closedBit is
	// the number of tasks ever accepted, for good.
	// tailBlock is a block with start <= every position claimed from now
	// on (it holds an already-claimed position); producers load it
	// before claiming and move it forward with CompareAndSwap.
	tail      atomic.Uint64
	tailBlock atomic.Pointer[injBlock]

	_ atomics.Pad

	// head is the next position to take; consumers advance it by one with
	// CompareAndSwap after seeing the slot ready. headBlock has start <=
	// head; loaded before head, moved forward by consumers with
	// CompareAndSwap. Both sync/atomic, sequentially consistent: the
	// head CAS precedes the load of room.n (roomWaiters).
	head      atomic.Uint64
	headBlock atomic.Pointer[injBlock]

	_ atomics.Pad

	capacity uint64 // 0: unbounded; immutable after New
	room     roomWaiters
}

// closedBit marks a closed queue in tail. Positions never reach it (2^63
// claims).
const closedBit = 1 << 63

// injBlockSize is the number of slots per block: one 8 KiB allocation per
// 256 tasks.
const injBlockSize = 256

// injSlot is one queued task. job and enq are written by the producer that
// claimed the slot, before its release store of ready; read by the consumer
// that took the slot, after it loaded ready == 1 and won the head CAS.
type injSlot struct {
	job   task
	enq   int64  // the submit time of a sampled task (Pool.now), 0 if not sampled
	ready uint32 // 0 -> 1 once, by the producer (atomics.StoreRelease32); loaded by consumers
}

type injBlock struct {
	slots [injBlockSize]injSlot
	// next is nil until a producer claims a position past this block and
	// links a new block with CompareAndSwap (one winner; losers use it).
	next  atomic.Pointer[injBlock]
	start uint64 // the position of slots[0]; immutable
}

func (q *injector) init(capacity int) {
	b := &injBlock{}
	q.tailBlock.Store(b)
	q.headBlock.Store(b)
	q.capacity = uint64(capacity)
}

// Outcomes of a claim.
type claimResult uint8

const (
	claimed claimResult = iota
	claimFull
	claimClosed
)

// claim reserves the next position, ignoring the capacity (a submission
// from a task of the pool, which must not wait for itself), or reports the
// queue closed.
func (q *injector) claim() (pos uint64, b *injBlock, r claimResult) {
	return q.claimIf(false)
}

// tryClaim reserves the next position if the queue has room (always, when
// unbounded).
func (q *injector) tryClaim() (pos uint64, b *injBlock, r claimResult) {
	return q.claimIf(q.capacity != 0)
}

// claimIf is one CAS of tail from t to t+1, refused if tail has closedBit,
// and, when bounded, if t-head reached the capacity.
//
// A CAS rather than an atomic add: an add cannot be refused, so a producer
// that lost the race with close would have to add and then take back its
// claim, and for that instant tail would overstate the tasks accepted
// (Stats.Injected would go down). On one uncontended line the two cost the
// same; under many producers a CAS may retry.
func (q *injector) claimIf(bounded bool) (pos uint64, b *injBlock, r claimResult) {
	for {
		b = q.tailBlock.Load() // before tail: b.start <= t
		t := q.tail.Load()
		if t&closedBit != 0 {
			return 0, nil, claimClosed
		}
		// head is read after tail, so the queue may have drained past t
		// meanwhile (h > t: plenty of room; t-h would wrap around).
		// Otherwise t-h can only overstate the length (head grows): the
		// bound is never exceeded, and a refusal is at worst one pop
		// early.
		if bounded {
			if h := q.head.Load(); h < t && t-h >= q.capacity {
				return 0, nil, claimFull
			}
		}
		if q.tail.CompareAndSwap(t, t+1) {
			return t, b, claimed
		}
	}
}

// publish writes j into the claimed position pos, looking for its block
// from b, and marks it ready.
func (q *injector) publish(pos uint64, b *injBlock, j task, enq int64) {
	for pos >= b.start+injBlockSize {
		next := b.next.Load()
		if next == nil {
			nb := &injBlock{start: b.start + injBlockSize}
			if b.next.CompareAndSwap(nil, nb) {
				next = nb
			} else {
				next = b.next.Load()
			}
		}
		b = next
	}
	// Move tailBlock forward to b, which holds a claimed position, so
	// later producers walk less. Best effort: a newer block may already
	// be there.
	for {
		cur := q.tailBlock.Load()
		if cur.start >= b.start || q.tailBlock.CompareAndSwap(cur, b) {
			break
		}
	}
	s := &b.slots[pos-b.start]
	s.job, s.enq = j, enq
	atomics.StoreRelease32(&s.ready, 1)
}

// pop takes the oldest ready task. It answers false when the queue is empty
// or its oldest position is claimed but not yet written.
func (q *injector) pop() (j task, enq int64, ok bool) {
	for {
		b0 := q.headBlock.Load() // before head: b0.start <= h
		h := q.head.Load()
		b := b0
		for h >= b.start+injBlockSize {
			b = b.next.Load()
			if b == nil {
				return nil, 0, false // no producer claimed h yet
			}
		}
		if b != b0 {
			q.headBlock.CompareAndSwap(b0, b) // b.start <= h <= head from now on
		}
		s := &b.slots[h-b.start]
		if atomic.LoadUint32(&s.ready) == 0 {
			return nil, 0, false
		}
		if !q.head.CompareAndSwap(h, h+1) {
			continue // another worker took h
		}
		// The slot is ours alone now; clear it so the collector can
		// free the task while the block lives on.
		j, enq = s.job, s.enq
		s.job = nil
		if q.capacity != 0 && q.room.n.Load() != 0 {
			// The head CAS (sequentially consistent) precedes this
			// load; a waiter registers (n.Add) before re-checking for
			// room. One of the two sees the other (roomWaiters).
			q.room.wakeOne()
		}
		return j, enq, true
	}
}

// release drops the blocks of a closed and drained queue (Pool.release):
// no consumer pops any more, and a claim is refused before it uses the
// block it loaded. head and tail stay, for Stats.
func (q *injector) release() {
	q.headBlock.Store(nil)
	q.tailBlock.Store(nil)
}

// close refuses every later claim and returns the number of tasks ever
// accepted. Idempotent: later calls return the same number.
//
// It is a CompareAndSwap loop rather than tail.Or(closedBit), whose result
// Go 1.24.0 miscompiles on amd64 once close is inlined: the register that
// held the address of the injector's room field was reused for the OR, and
// Shutdown then called room.wakeAll on the old tail value (a fault at the
// first Close; Go 1.24.1 and later are right). Close is a slow path.
func (q *injector) close() uint64 {
	for {
		t := q.tail.Load()
		if t&closedBit != 0 || q.tail.CompareAndSwap(t, t|closedBit) {
			return t &^ closedBit
		}
	}
}

// accepted returns the number of tasks accepted so far; it never goes down.
func (q *injector) accepted() uint64 { return q.tail.Load() &^ closedBit }

// len returns the number of queued tasks (claimed and not yet taken); it
// counts claims whose slot is not written yet.
func (q *injector) len() int {
	t := q.tail.Load() &^ closedBit
	h := q.head.Load()
	if h >= t {
		return 0
	}
	return int(t - h)
}

// roomWaiters are the producers waiting for room in a full bounded queue.
// A waiter registers (appends a channel under mu, then increments n), then
// tries to claim again, then blocks on its channel; a consumer that took a
// task loads n after its head CAS and, if it is not zero, closes the oldest
// waiter's channel. n is sync/atomic (sequentially consistent) so that the
// pair (waiter: n.Add then the claim's load of head; consumer: head CAS then
// n.Load) cannot both miss each other.
type roomWaiters struct {
	n    atomic.Int32
	mu   sync.Mutex
	list []chan struct{} // FIFO of registered waiters, under mu
}

// register adds a waiter and returns its channel, closed when room may
// have appeared.
func (r *roomWaiters) register() chan struct{} {
	ch := make(chan struct{})
	r.mu.Lock()
	r.list = append(r.list, ch)
	r.n.Add(1)
	r.mu.Unlock()
	return ch
}

// cancel removes the waiter of ch. If a consumer had already woken it, the
// wake-up is handed to the next waiter, so that a cancelled waiter never
// swallows the only notice of room.
func (r *roomWaiters) cancel(ch chan struct{}) {
	r.mu.Lock()
	for i, c := range r.list {
		if c == ch {
			r.list = append(r.list[:i], r.list[i+1:]...)
			r.n.Add(-1)
			r.mu.Unlock()
			return
		}
	}
	r.mu.Unlock()
	r.wakeOne()
}

// wakeAll wakes every waiter (Close: they find the queue closed).
func (r *roomWaiters) wakeAll() {
	r.mu.Lock()
	for _, ch := range r.list {
		close(ch)
	}
	r.n.Add(-int32(len(r.list)))
	r.list = nil
	r.mu.Unlock()
}

// wakeOne wakes the oldest waiter, if any.
func (r *roomWaiters) wakeOne() {
	r.mu.Lock()
	if len(r.list) > 0 {
		ch := r.list[0]
		r.list[0] = nil
		r.list = r.list[1:]
		r.n.Add(-1)
		close(ch)
	}
	r.mu.Unlock()
}
