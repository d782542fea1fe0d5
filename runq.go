package blitz

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
