package blitz

import (
	"sync/atomic"
	"unsafe"

	"github.com/blitz-go/blitz/atomics"
)

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
	claimOK claimResult = iota
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
				return t, r, claimOK
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

// ready reports whether pop would find a task now: the oldest position is
// written. Unlike len it does not count a claim whose slot is not written
// yet: that producer publishes, then reads the sleep counters and wakes a
// sleeper for its task, so a worker about to sleep may leave it to the
// producer. The fence F1 between the publish and that read is what makes
// this check sound (sleep/model: NO_F1 fails with it, and passed with
// len). This is the idle workers' final check (Pool.hasInjectedJobs):
// counted, such a claim kept every idle worker of a pool searching instead
// of sleeping, each returning from its sleep attempt to a pop that found
// nothing, for as long as the producer's goroutine waited for a CPU, and
// it waited behind those very workers. A burst of 10,000 blocking tasks on
// a pool grown to 8,000 workers ran for over a minute so, where it takes
// 20 ms.
func (q *injector) ready() bool {
	for {
		r := q.headRing.Load()
		if len(r.slots) == 0 {
			return false // released (Pool.release): closed and drained
		}
		h := r.head.Load()
		seq := atomic.LoadUint64(&r.slot(h).seq) // partner: publish's release store
		switch {
		case seq == h+1:
			return true
		case seq > h+1:
			continue // another worker took h and freed its slot
		case !q.moveHead(r, h):
			return false
		}
	}
}

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
