package blitz

import (
	"sync"
	"sync/atomic"
)

// The injector is the pool's FIFO queue for work that comes from outside the
// workers (Go, Run, Do): any number of producers, any number of consumers.
//
// It is a growable ring guarded by a mutex. Injection is the slow path of
// the pool (the caller is about to block, or to hand work to a worker that
// may be asleep: both cost microseconds), so a short critical section is
// cheap next to it, and a mutex gives FIFO order, no ABA, and an exact
// length for free (the LIFO Treiber stack of the original had an ABA bug on
// pop and starved old work: DESIGN.md §4.5).
//
// The one lock-free part is n, so that idle workers and the sleep protocol's
// final check (hasInjectedJobs) read the queue's emptiness without the lock.
type injector struct {
	// n is the number of queued jobs. Written under mu (after the ring
	// changed), read lock-free by hasInjectedJobs and by pop's fast
	// empty check. sync/atomic is sequentially consistent, which is what
	// the sleep protocol's injection fences pair with: the store of n in
	// push precedes the SeqCst fence in sleep.NewInjectedJobs, and a
	// sleepy worker's load of n follows the fence after it registered as
	// sleeping.
	n atomic.Int64

	mu     sync.Mutex
	buf    []runner // ring; len(buf) is a power of two or zero
	head   int      // index of the oldest job
	closed bool     // set once by Pool.Close; push fails afterwards
	pushed uint64   // jobs accepted so far (Stats.Injected), under mu
}

// push appends j unless the queue is closed. It reports whether the queue
// was empty before, for sleep.NewInjectedJobs.
func (q *injector) push(j runner) (wasEmpty bool, err error) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return false, ErrClosed
	}
	n := int(q.n.Load())
	if n == len(q.buf) {
		q.grow()
	}
	q.buf[(q.head+n)&(len(q.buf)-1)] = j
	q.n.Store(int64(n + 1))
	q.pushed++
	q.mu.Unlock()
	return n == 0, nil
}

func (q *injector) grow() {
	size := 2 * len(q.buf)
	if size == 0 {
		size = 64
	}
	nb := make([]runner, size)
	n := int(q.n.Load())
	for i := 0; i < n; i++ {
		nb[i] = q.buf[(q.head+i)&(len(q.buf)-1)]
	}
	q.buf, q.head = nb, 0
}

// pop removes the oldest job.
func (q *injector) pop() (runner, bool) {
	if q.n.Load() == 0 {
		return nil, false
	}
	q.mu.Lock()
	n := int(q.n.Load())
	if n == 0 {
		q.mu.Unlock()
		return nil, false
	}
	j := q.buf[q.head]
	q.buf[q.head] = nil
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.n.Store(int64(n - 1))
	q.mu.Unlock()
	return j, true
}

// close makes every later push fail with ErrClosed. It reports whether this
// call closed the queue.
func (q *injector) close() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	was := q.closed
	q.closed = true
	return !was
}

// len is the number of queued jobs (exact at the instant of the load).
func (q *injector) len() int { return int(q.n.Load()) }

// accepted returns the number of jobs ever pushed.
func (q *injector) accepted() uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.pushed
}
