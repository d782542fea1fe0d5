package blitz

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/blitz-go/blitz/atomics"
)

// The injector is the pool's FIFO queue for tasks that come from outside the
// workers' fork-join trees (Go, TryGo, GoContext, Run, Do, DoContext, TryDo):
// any number of producers, any number of consumers (the workers).
//
// It is a chain of rings. Each ring is a bounded queue of slots in the
// manner of Vyukov's bounded MPMC queue: positions grow for ever and are
// global across the chain (a ring starts at the position where the previous
// one stopped), and every slot carries a sequence number that says which
// position it is ready for:
//
//   - seq == p: the slot is free for position p (it maps p).
//   - seq == p+1: position p's task is written.
//   - seq == p+size: its task was taken; the slot is free for the next lap.
//
// A producer reads tail t, and if t's slot says free for t it claims t with
// one CAS of tail from t to t+1, writes the task and stores seq = t+1 with
// release ordering. A consumer reads head h, and if h's slot says written it
// takes h with a CAS of head from h to h+1, reads the task, clears the slot
// (so that the collector can free the task) and stores seq = h+size with
// release ordering, the store that lets a producer of the next lap in. A
// slot whose producer claimed it but has not written it reads as empty:
// that producer has not told the sleep protocol about its task yet either,
// and does so after the write (Pool.submit), so a worker that goes to sleep
// on this answer is woken. An idle worker of a pool of several may take a
// run of written positions h..h+n-1 with one CAS of head from h to h+n
// instead (popBatch, batch.go).
//
// A ring is reused for ever while it does not fill, so a task costs no
// garbage: the chain of blocks this replaced allocated 8 KiB per 256 tasks,
// and its producer paid for their zeroing and the collector's assists
// (bench/results/submit-ring-amd64.txt). When a producer finds t's slot not
// yet free (the ring holds size tasks, or the consumer of position t-size
// has not finished with it), it seals the ring (sealedBit in tail: no claim
// there any more), links a ring of twice the size (up to injRingMax) that
// starts at t, and moves on to it. Consumers drain a sealed ring up to t and
// then move to the next. A sealed ring is garbage once both ends left it; a
// ring never shrinks, so the injector keeps the memory of the longest queue
// it held, up to injRingMax slots (2 MiB) a ring.
//
// A mutex around a ring (the first version) cost 88-200 ns per task on the
// submit benchmark, most of it the lock's cache line moving between the
// submitter and the workers at every push and pop (bench/results).
//
// Closing sets closedBit in the tail of the last ring with one CAS, which
// both refuses every later claim (a closed ring is never sealed, so nothing
// follows it) and fixes the number of tasks ever accepted: the pool's Close
// waits until the workers finished exactly that many.
type injector struct {
	_ atomics.Pad

	// tailRing is the ring producers claim in: the last ring, or a sealed
	// one whose successor is linked or about to be. Moved forward with
	// CompareAndSwap by any producer that finds it sealed; read by
	// producers, close and the counts.
	tailRing atomic.Pointer[injRing]

	_ atomics.Pad

	// headRing is the ring consumers take from; moved forward with
	// CompareAndSwap by a consumer that drained it after it was sealed.
	headRing atomic.Pointer[injRing]

	_ atomics.Pad

	capacity uint64 // 0: unbounded; immutable after New
	maxRing  int    // the largest ring to link: injRingMax, or less in tests; immutable
	room     roomWaiters
}

// injRing is one bounded ring of the chain.
type injRing struct {
	_ atomics.Pad

	// tail is the next position to claim, with sealedBit once the ring is
	// sealed and closedBit once the queue is closed (at most one of them).
	// Producers claim with CompareAndSwap (claimIf); a producer that found
	// the next slot still occupied seals it with CompareAndSwap, close
	// sets closedBit with CompareAndSwap. All sync/atomic, sequentially
	// consistent.
	tail atomic.Uint64

	_ atomics.Pad

	// head is the next position to take; consumers advance it by one with
	// CompareAndSwap after seeing the slot written. Sequentially
	// consistent: the head CAS precedes the load of room.n (roomWaiters).
	head atomic.Uint64

	_ atomics.Pad

	// next is nil until the ring is sealed; then any producer (or close)
	// links the successor with CompareAndSwap from nil (one winner).
	next  atomic.Pointer[injRing]
	base  uint64    // the first position of the ring; immutable
	mask  uint64    // len(slots)-1, len(slots) a power of two; immutable
	slots []injSlot // immutable slice header; slots as described above
}

// injSlot is one slot of a ring. t is written by the producer that claimed
// the slot's position, before its release store of seq; read and cleared by
// the consumer that took the position, after its acquire load of seq and
// its head CAS, and before its release store of seq.
type injSlot struct {
	// seq: see the top of the file. Stored by producers and consumers with
	// atomics.StoreRelease64, loaded with atomic.LoadUint64 (acquire).
	seq uint64
	// The slots are an array: a slot's size is a multiple of 8 so that
	// every seq is 64-bit aligned, as 64-bit atomics on 32-bit platforms
	// require. The padding (none where a task's size is a multiple of 8)
	// goes before t: a zero-size last field would itself add padding.
	_ [(8 - unsafe.Sizeof(injTask{})%8) % 8]byte
	t injTask
}

// Every slot's seq is 64-bit aligned (see injSlot).
var _ = [1]struct{}{}[unsafe.Sizeof(injSlot{})%8]

// The two marks of a ring's tail. Positions never reach them (2^62 claims).
const (
	closedBit = 1 << 63
	sealedBit = 1 << 62
	tailMarks = closedBit | sealedBit
)

// The sizes of the rings: a queue starts with injRingMin slots (8 KiB), or
// the bounded capacity rounded up to a power of two, and each ring that
// fills is followed by one of twice its size, up to injRingMax.
const (
	injRingMin = 256
	injRingMax = 1 << 16
)

func newInjRing(base uint64, size int) *injRing {
	r := &injRing{base: base, mask: uint64(size - 1), slots: make([]injSlot, size)}
	for i := range r.slots {
		r.slots[i].seq = base + uint64(i)
	}
	r.tail.Store(base)
	r.head.Store(base)
	return r
}

// slot returns the slot that maps position pos.
func (r *injRing) slot(pos uint64) *injSlot { return &r.slots[(pos-r.base)&r.mask] }

func (q *injector) init(capacity int) { q.initSizes(capacity, injRingMin, injRingMax) }

// initSizes is init with other ring sizes (powers of two), for tests that
// want rings sealed often.
func (q *injector) initSizes(capacity, minRing, maxRing int) {
	size := minRing
	for size < capacity && size < maxRing {
		size *= 2
	}
	r := newInjRing(0, size)
	q.tailRing.Store(r)
	q.headRing.Store(r)
	q.capacity = uint64(capacity)
	q.maxRing = maxRing
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
func (q *injector) claim() (pos uint64, r *injRing, res claimResult) {
	return q.claimIf(false)
}

// tryClaim reserves the next position if the queue has room (always, when
// unbounded).
func (q *injector) tryClaim() (pos uint64, r *injRing, res claimResult) {
	return q.claimIf(q.capacity != 0)
}

// claimIf is one CAS of the tail ring's tail from t to t+1, refused if the
// queue is closed, and, when bounded, if t-head reached the capacity. It
// returns the ring that holds the claimed position, for publish.
//
// A CAS rather than an atomic add: an add cannot be refused, so a producer
// that lost the race with close would have to add and then take back its
// claim, and for that instant tail would overstate the tasks accepted
// (Stats.Injected would go down). On one uncontended line the two cost the
// same; under many producers a CAS may retry.
func (q *injector) claimIf(bounded bool) (pos uint64, r *injRing, res claimResult) {
	for {
		r = q.tailRing.Load()
		t := r.tail.Load()
		if t&closedBit != 0 {
			return 0, nil, claimClosed
		}
		if t&sealedBit != 0 {
			q.advanceTail(r, t&^tailMarks)
			continue
		}
		// head is read after tail, so the queue may have drained past t
		// meanwhile (h > t: plenty of room; t-h would wrap around).
		// Otherwise t-h can only overstate the length (head grows): the
		// bound is never exceeded, and a refusal is at worst one pop
		// early.
		if bounded {
			if h := q.taken(); h < t && t-h >= q.capacity {
				return 0, nil, claimFull
			}
		}
		seq := atomic.LoadUint64(&r.slot(t).seq)
		switch {
		case seq == t:
			if r.tail.CompareAndSwap(t, t+1) {
				return t, r, claimed
			}
		case seq < t:
			// The slot still holds position t-size (the ring is full,
			// or its consumer is still reading it): seal the ring, and
			// go on in a larger one.
			if r.tail.CompareAndSwap(t, t|sealedBit) {
				q.advanceTail(r, t)
			}
		}
		// seq > t: another producer claimed t meanwhile; tail has moved.
	}
}

// advanceTail links a successor to r, sealed at position end, unless one is
// linked already, and moves tailRing from r to it.
func (q *injector) advanceTail(r *injRing, end uint64) {
	next := r.next.Load()
	if next == nil {
		size := min(2*len(r.slots), q.maxRing)
		nr := newInjRing(end, size)
		if r.next.CompareAndSwap(nil, nr) {
			next = nr
		} else {
			next = r.next.Load()
		}
	}
	q.tailRing.CompareAndSwap(r, next)
}

// publish writes t into the claimed position pos of ring r and marks it
// written.
func (q *injector) publish(pos uint64, r *injRing, t injTask) {
	s := r.slot(pos)
	s.t = t
	atomics.StoreRelease64(&s.seq, pos+1) // partner: the acquire load of seq in pop
}

// pop takes the oldest written task. It answers false when the queue is
// empty or its oldest position is claimed but not yet written.
func (q *injector) pop() (t injTask, ok bool) {
	for {
		r := q.headRing.Load()
		h := r.head.Load()
		seq := atomic.LoadUint64(&r.slot(h).seq) // partner: publish's release store
		if seq == h+1 {
			if !r.head.CompareAndSwap(h, h+1) {
				continue // another worker took h
			}
			// Position h is ours alone until the store below frees the
			// slot; clear it so the collector can free the task. (Written
			// out here and in popBatch: a shared helper is past the
			// inliner's budget and cost this path 2 ns a task.)
			s := r.slot(h)
			t = s.t
			s.t = injTask{}
			// Partner: the producer's acquire load of seq in claimIf,
			// which must not reuse the slot before the reads above.
			atomics.StoreRelease64(&s.seq, h+uint64(len(r.slots)))
			q.tookTasks(1)
			return t, true
		}
		if seq > h+1 {
			continue // another worker took h and freed its slot
		}
		// Nothing written at h: empty, unless the ring is sealed there.
		if !q.moveHead(r, h) {
			return injTask{}, false
		}
	}
}

// tookTasks wakes a producer waiting for room in a bounded queue for each of
// the n tasks a consumer just took.
func (q *injector) tookTasks(n uint64) {
	if q.capacity != 0 && q.room.n.Load() != 0 {
		// The head CAS (sequentially consistent) precedes this load; a
		// waiter registers (n.Add) before re-checking for room. One of
		// the two sees the other (roomWaiters).
		for range n {
			q.room.wakeOne()
		}
	}
}

// popBatch takes the oldest written tasks, at most len(out) and at most
// 1/share of the queue's length plus one, with one CAS of head, and stores
// them into out, oldest first. It returns how many it took: 0 when pop
// would answer false. The positions taken are consecutive in one ring, all
// written when scanned; a written slot stays so until its position is
// taken, so the CAS from the head it read is all it needs to own them
// (Worker.takeBatch). Their slots are freed after they are read, as pop
// does.
func (q *injector) popBatch(out []injTask, share uint64) int {
	for {
		r := q.headRing.Load()
		h := r.head.Load()
		seq := atomic.LoadUint64(&r.slot(h).seq) // partner: publish's release store
		if seq != h+1 {
			if seq > h+1 {
				continue // another worker took h
			}
			if q.moveHead(r, h) {
				continue
			}
			return 0
		}
		n, want := uint64(1), uint64(1)
		if atomic.LoadUint64(&r.slot(h+1).seq) == h+2 {
			// More than one task is there: size the batch by the
			// length. tail is read after head, so t-h overstates the
			// length at worst (head only grows), and a claim not yet
			// written ends the scan. A lone task costs no load of a
			// tail, the line every producer writes.
			if t := q.accepted(); t > h {
				want = (t-h)/share + 1
			}
			want = min(want, uint64(len(out)), uint64(len(r.slots)))
			for n < want && atomic.LoadUint64(&r.slot(h+n).seq) == h+n+1 {
				n++
			}
		}
		if !r.head.CompareAndSwap(h, h+n) {
			continue
		}
		// Positions h..h+n-1 are ours alone until the stores below free
		// their slots, as in pop.
		for i := range n {
			s := r.slot(h + i)
			out[i] = s.t
			s.t = injTask{}
			// Partner: claimIf's acquire load of seq.
			atomics.StoreRelease64(&s.seq, h+i+uint64(len(r.slots)))
		}
		q.tookTasks(n)
		return int(n)
	}
}

// injTask is a submitted task as the injector and the run queues hold it:
// the task and its submit time (Pool.now) if it is sampled, else 0. A task
// submitted under profiler labels is a labelledTask (labels.go), which
// keeps them out of the slots, the run queues and the job a worker finds.
type injTask struct {
	job task
	enq int64
}

// moveHead moves headRing on from r if r is sealed at h, the position its
// head reached (everything it held was taken), and its successor is
// linked, and reports whether it did (or another consumer did). Until the
// successor is linked the queue reads as empty, and the sealer's task is
// not announced yet.
//
// next is tested first: it is nil until the ring is sealed, and its line
// is read-mostly (base, mask and the slots' header beside it never
// change), while tail is the line every producer's claim writes: an idle
// worker polls an empty queue through here, and a load of tail on each poll
// makes a running producer's next claim miss on it (a profile of 2 workers
// keeping up with one submitter had 14% of its samples on this load).
func (q *injector) moveHead(r *injRing, h uint64) bool {
	next := r.next.Load()
	if next == nil {
		return false
	}
	t := r.tail.Load()
	if t&sealedBit == 0 || t&^tailMarks != h {
		return false
	}
	q.headRing.CompareAndSwap(r, next)
	return true
}

// release drops the rings of a closed and drained queue (Pool.release): no
// consumer pops any more, and no claim gets past the closed tail. Both ends
// then point at a copy of the last ring's positions without slots, which
// answers the counts and refuses claims.
func (q *injector) release() {
	r := q.tailRing.Load()
	for r.tail.Load()&sealedBit != 0 && r.next.Load() != nil {
		r = r.next.Load()
	}
	end := &injRing{base: r.base}
	end.tail.Store(r.tail.Load())
	end.head.Store(r.head.Load())
	q.headRing.Store(end)
	q.tailRing.Store(end)
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
		r := q.tailRing.Load()
		t := r.tail.Load()
		switch {
		case t&closedBit != 0:
			return t &^ tailMarks
		case t&sealedBit != 0:
			q.advanceTail(r, t&^tailMarks)
		case r.tail.CompareAndSwap(t, t|closedBit):
			return t
		}
	}
}

// accepted returns the number of tasks accepted so far; it never goes down.
// A sealed ring's tail is where its successor starts, so a reader that
// finds tailRing not yet moved on reads a number no greater than the
// successor's.
func (q *injector) accepted() uint64 { return q.tailRing.Load().tail.Load() &^ tailMarks }

// taken returns the number of tasks taken by consumers so far; it never
// goes down, for the same reason.
func (q *injector) taken() uint64 { return q.headRing.Load().head.Load() }

// len returns the number of queued tasks (claimed and not yet taken); it
// counts claims whose slot is not written yet.
func (q *injector) len() int {
	t := q.accepted()
	h := q.taken()
	if h >= t {
		return 0
	}
	return int(t - h)
}

// roomWaiters are the producers waiting for room in a full bounded queue
// (Pool.waitClaim), a waitList (gate.go). A waiter registers (add: pushed
// under mu, then n stored), then tries to claim again, then waits; a
// consumer that took a task loads n after its head CAS and, if it is not
// zero, wakes the oldest waiter. n is sync/atomic (sequentially consistent)
// so that the pair (waiter: n's store then the claim's load of head;
// consumer: head CAS then n.Load) cannot both miss each other.
type roomWaiters struct {
	// n is the length of list: stored under mu after every change to it,
	// loaded by consumers without mu (tookTasks).
	n    atomic.Int32
	mu   sync.Mutex
	list waitList
}

// add registers wt, woken when room may have appeared.
func (r *roomWaiters) add(wt *waiter) {
	r.mu.Lock()
	r.list.push(wt)
	r.n.Store(int32(r.list.len()))
	r.mu.Unlock()
}

// cancel removes wt, which no longer waits. If a consumer had already
// woken it, the wake is handed to the next waiter, so that a cancelled
// waiter never swallows the only notice of room.
func (r *roomWaiters) cancel(wt *waiter) {
	r.mu.Lock()
	r.list.cancel(wt)
	r.n.Store(int32(r.list.len()))
	r.mu.Unlock()
}

// wakeAll wakes every waiter (Close: they find the queue closed).
func (r *roomWaiters) wakeAll() {
	r.mu.Lock()
	r.list.wakeAll()
	r.n.Store(0)
	r.mu.Unlock()
}

// wakeOne wakes the oldest waiter, if any.
func (r *roomWaiters) wakeOne() {
	r.mu.Lock()
	r.list.wakeOne()
	r.n.Store(int32(r.list.len()))
	r.mu.Unlock()
}
