package blitz

import (
	"sync/atomic"

	"github.com/blitz-go/blitz/atomics"
)

// A worker's run queue: the submitted tasks it took from the injector in a
// batch (batch.go) and has not started yet.
//
// It is a ring of runqSize slots that one worker (the owner) fills and
// empties from the same end, and that other workers steal from half at a
// time: the design of Go's per-P run queue (runqget, runqgrab) and of
// tokio's local queue, from which the two-part head comes.
//
// Positions grow for ever (uint32, wrapping; the ring holds far fewer than
// 2^31 tasks, so differences are exact). tail is the next position to fill,
// written only by the owner. head packs two positions: real, the next
// position to take, and steal, the first position a thief may still be
// copying. Outside a steal they are equal. The slots in [steal, tail) are
// occupied; the owner writes only slots outside them, so a thief copying a
// slot never races with a write to it:
//
//   - The owner fills positions tail.. (pushBatch) only where tail+n-steal
//     stays within the ring (room), then publishes them with a release
//     store of tail.
//   - The owner takes real with one CAS of head (pop): real+1, and steal
//     with it when no steal is under way. It reads the slot after the CAS.
//   - A thief claims the older half of [real, tail) with one CAS that
//     moves real past it and leaves steal where it was: the owner now takes
//     only after the claimed run, and will not overwrite it. The thief
//     copies (and clears) the run, then frees it with a CAS that moves
//     steal up to real. A thief that finds steal != real leaves the queue
//     alone (another steal is under way): at most one steal per queue at a
//     time, as in tokio.
//
// Taking half rather than one is what the run queue is for: the deque this
// replaced held a batch as one ref per task, and a thief took them one CAS
// and one line of the owner's at a time, so under a stream of empty tasks
// the second worker of a pool spent its time stealing from the first
// (bench/results/submit-runq-amd64.txt). Taking from the front, where the
// owner takes too, keeps submission order.
//
// Every head operation is a sync/atomic read-modify-write or load
// (sequentially consistent). Partners: the owner's release store of tail
// and the thief's acquire load of it (the slots written before); a thief's
// freeing CAS of steal and the owner's acquire load of head in room (the
// slots cleared before they are written again).
type runq struct {
	_ atomics.Pad

	// head is steal<<32 | real (above). CompareAndSwap by the owner (pop)
	// and by thieves (stealHalf); loaded by both.
	head atomic.Uint64

	// tail is the next position to fill. Stored by the owner (pushBatch,
	// release), loaded by thieves (acquire) and the owner.
	tail atomic.Uint32

	_ atomics.Pad

	// ring holds the slots, positions modulo runqSize: written by the
	// owner at [tail, tail+n) before its store of tail; read and cleared
	// by whoever claimed the position in head. Made by the owner before
	// it first writes a slot (slotsToFill) and stored before the store of
	// tail that publishes the first task, so whoever claimed a position
	// loads it made; nil until then, so that a worker that never batches
	// (a pool with a capacity, the workers added for blocked ones) does
	// not hold it. Dropped by Pool.release. sync/atomic.
	ring atomic.Pointer[[runqSize]injTask]
}

// slots returns the ring, for whoever claimed a position (made by then).
func (q *runq) slots() *[runqSize]injTask { return q.ring.Load() }

// slotsToFill returns the ring, making it if the owner never filled a
// slot. Owner-only.
func (q *runq) slotsToFill() *[runqSize]injTask {
	r := q.ring.Load()
	if r == nil {
		r = new([runqSize]injTask)
		q.ring.Store(r)
	}
	return r
}

// runqSize is the number of slots: twice a batch, so that a batch always
// fits beside the run a thief may still be copying (at most half of a
// batch: room).
const runqSize = 2 * injBatchMax

// The layout of head (TestRunqHeadLayout pins it): real in bits 0-31,
// steal in bits 32-63.
const runqStealLow = 32

func runqHead(steal, real uint32) uint64 { return uint64(steal)<<runqStealLow | uint64(real) }

func runqSplit(h uint64) (steal, real uint32) { return uint32(h >> runqStealLow), uint32(h) }

// room returns how many tasks pushBatch can take now. Owner-only; it can
// only grow until the owner's next push.
func (q *runq) room() int {
	steal, _ := runqSplit(q.head.Load())
	return runqSize - int(q.tail.Load()-steal)
}

// pushBatch appends ts, oldest first, and clears ts. Owner-only, with
// len(ts) <= room().
func (q *runq) pushBatch(ts []injTask) {
	t := q.tail.Load()
	slots := q.slotsToFill()
	for i := range ts {
		slots[(t+uint32(i))%runqSize] = ts[i]
		ts[i] = injTask{}
	}
	q.tail.Store(t + uint32(len(ts))) // partner: the thief's load of tail in stealHalf
}

// pop takes the oldest task. Owner-only.
func (q *runq) pop() (injTask, bool) {
	t := q.tail.Load()
	for {
		h := q.head.Load()
		steal, real := runqSplit(h)
		if real == t {
			return injTask{}, false
		}
		next := runqHead(steal, real+1)
		if steal == real {
			next = runqHead(real+1, real+1)
		}
		if q.head.CompareAndSwap(h, next) {
			s := &q.slots()[real%runqSize]
			it := *s
			*s = injTask{}
			return it, true
		}
	}
}

// empty reports whether q holds no task to pop: pop's own test, which
// inlines where pop (a loop) does not. Owner-only.
func (q *runq) empty() bool {
	_, real := runqSplit(q.head.Load())
	return real == q.tail.Load()
}

// len returns the number of tasks not yet claimed: a hint for anyone but
// the owner.
func (q *runq) len() int {
	_, real := runqSplit(q.head.Load())
	return int(int32(q.tail.Load() - real))
}

// stealHalf moves the older half (rounded up) of q's tasks, at most max, to
// dst, the thief's own queue, except the oldest, which it returns for the
// thief to run. It returns false when q is empty or another steal from q is
// under way. Called by dst's owner, with max <= dst.room()+1.
func (q *runq) stealHalf(dst *runq, max int) (injTask, bool) {
	real, n, ok := q.claimHalf(max)
	if !ok {
		return injTask{}, false
	}
	slots := q.slots()
	first := &slots[real%runqSize]
	it := *first
	*first = injTask{}
	if n > 1 {
		dt := dst.tail.Load()
		to := dst.slotsToFill()
		for i := uint32(1); i < n; i++ {
			s := &slots[(real+i)%runqSize]
			to[(dt+i-1)%runqSize] = *s
			*s = injTask{}
		}
		dst.tail.Store(dt + n - 1) // partner: a thief's load of dst's tail
	}
	q.endSteal()
	return it, true
}

// claimHalf is the first step of a steal: it claims the older half (rounded
// up, at most max) of q's tasks, positions [real, real+n), with one CAS of
// head that moves real past them and leaves steal below them. It fails if q
// is empty or another steal is under way. The thief then owns those slots:
// the owner takes after them and writes no slot from steal on.
func (q *runq) claimHalf(max int) (real, n uint32, ok bool) {
	for {
		h := q.head.Load()
		steal, real := runqSplit(h)
		if steal != real {
			return 0, 0, false // another thief is copying
		}
		t := q.tail.Load() // partner: the owner's store of tail in pushBatch
		avail := t - real
		if int32(avail) <= 0 {
			return 0, 0, false
		}
		if avail > runqSize {
			continue // head and tail read at different times; read again
		}
		n = min(avail-avail/2, uint32(max))
		if q.head.CompareAndSwap(h, runqHead(steal, real+n)) {
			return real, n, true
		}
	}
}

// endSteal is the last step of a steal, after the thief copied and cleared
// its slots: steal catches up with real, wherever the owner's pops have
// taken it meanwhile (only the owner changes head during a steal: other
// thieves back off). Partner: the owner's load of head in room.
func (q *runq) endSteal() {
	for {
		h := q.head.Load()
		_, real := runqSplit(h)
		if q.head.CompareAndSwap(h, runqHead(real, real)) {
			return
		}
	}
}
