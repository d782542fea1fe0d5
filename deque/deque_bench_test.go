package deque

import (
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz/atomics"
)

// Benchmarks of the deque against the two things a Go programmer would use
// instead: a mutex-guarded slice (used as a ring, so that it too allocates
// nothing in steady state) and a buffered channel. Figures in
// bench/results/deque-*.txt.

// queue is the common shape of the three implementations.
type queue interface {
	push(v uint64)
	pop() (uint64, bool)   // owner end
	steal() (uint64, bool) // thief end
	size() int
}

type dequeQ struct{ d *Deque[uint64] }

func (q dequeQ) push(v uint64)         { q.d.Push(v) }
func (q dequeQ) pop() (uint64, bool)   { return q.d.Pop() }
func (q dequeQ) steal() (uint64, bool) { v, st := q.d.Steal(); return v, st == Success }
func (q dequeQ) size() int             { return q.d.Len() }

// mutexSlice is a slice used as a ring of fixed power-of-two size, behind a
// sync.Mutex: push/pop at the tail, steal at the head.
type mutexSlice struct {
	mu         sync.Mutex
	s          []uint64
	head, tail uint64
}

func newMutexSlice(capacity int) *mutexSlice { return &mutexSlice{s: make([]uint64, capacity)} }

func (q *mutexSlice) push(v uint64) {
	q.mu.Lock()
	if q.tail-q.head == uint64(len(q.s)) { // full: double, as the deque does
		ns := make([]uint64, 2*len(q.s))
		for i := q.head; i != q.tail; i++ {
			ns[i&uint64(len(ns)-1)] = q.s[i&uint64(len(q.s)-1)]
		}
		q.s = ns
	}
	q.s[q.tail&uint64(len(q.s)-1)] = v
	q.tail++
	q.mu.Unlock()
}

func (q *mutexSlice) pop() (uint64, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.tail == q.head {
		return 0, false
	}
	q.tail--
	return q.s[q.tail&uint64(len(q.s)-1)], true
}

func (q *mutexSlice) steal() (uint64, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.tail == q.head {
		return 0, false
	}
	v := q.s[q.head&uint64(len(q.s)-1)]
	q.head++
	return v, true
}

func (q *mutexSlice) size() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return int(q.tail - q.head)
}

// chanQ is a buffered channel: FIFO at both ends (a channel has no LIFO end).
type chanQ chan uint64

func (q chanQ) push(v uint64) { q <- v }
func (q chanQ) pop() (uint64, bool) {
	select {
	case v := <-q:
		return v, true
	default:
		return 0, false
	}
}
func (q chanQ) steal() (uint64, bool) { return q.pop() }
func (q chanQ) size() int             { return len(q) }

var impls = []struct {
	name string
	make func(capacity int) queue
}{
	{"deque", func(c int) queue { return dequeQ{New[uint64](c)} }},
	{"mutex-slice", func(c int) queue { return newMutexSlice(c) }},
	{"channel", func(c int) queue { return chanQ(make(chan uint64, c)) }},
}

// BenchmarkPushPop is the owner's fork-join fast path: push a job, pop it
// back (nobody stole it). One op = one push and one pop, one goroutine.
func BenchmarkPushPop(b *testing.B) {
	b.Run("impl=deque", func(b *testing.B) {
		// Direct calls, not through the interface, as the pool will make them.
		d := New[uint64](64)
		b.ReportAllocs()
		for b.Loop() {
			d.Push(1)
			d.Pop()
		}
	})
	b.Run("impl=deque-fast", func(b *testing.B) {
		// The pool's join: TryPush and PopFenced, both inlined here.
		d := New[uint64](64)
		b.ReportAllocs()
		for b.Loop() {
			if !d.TryPush(1) {
				d.Push(1)
			}
			d.PopFenced()
		}
	})
	for _, impl := range impls[1:] {
		b.Run("impl="+impl.name, func(b *testing.B) {
			q := impl.make(64)
			b.ReportAllocs()
			for b.Loop() {
				q.push(1)
				q.pop()
			}
		})
	}
}

// popWith is pop() with its O1 store-and-fence passed in, so that
// BenchmarkPopFence can compare ways of writing it through the same
// (indirect-call) path. Otherwise it is pop() line for line.
func (d *Deque[T]) popWith(o1 func(p *uint64, v uint64)) (T, bool) {
	var zero T
	b := d.bottom
	t := atomic.LoadUint64(&d.top)
	if int64(b-t) <= 0 {
		return zero, false
	}
	b--
	o1(&d.bottom, b)
	t = atomic.LoadUint64(&d.top)
	size := int64(b - t)
	if size < 0 {
		storeRelease(&d.bottom, b+1)
		return zero, false
	}
	v := T(*d.buf.Load().at(b))
	if size > 0 {
		return v, true
	}
	won := atomic.CompareAndSwapUint64(&d.top, t, t+1)
	storeRelease(&d.bottom, b+1)
	return v, won
}

// BenchmarkPopFence decides how Pop's store-then-fence (O1) is written on
// amd64. One op = Push + Pop with two elements in the deque (so the pop
// takes the size > 0 path, the common one). All o1= variants go through
// popWith's indirect call; impl=production is Pop itself (storeFenced,
// inlined), for reference.
func BenchmarkPopFence(b *testing.B) {
	variants := []struct {
		name string
		o1   func(p *uint64, v uint64)
	}{
		{"o1=xchg", atomic.StoreUint64},
		{"o1=asm-store+seqcst", func(p *uint64, v uint64) { atomics.StoreRelease64(p, v); atomics.SeqCstFence() }},
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			d := New[uint64](64)
			d.Push(0)
			for b.Loop() {
				d.Push(1)
				d.popWith(v.o1)
			}
		})
	}
	b.Run("o1=production", func(b *testing.B) {
		d := New[uint64](64)
		d.Push(0)
		for b.Loop() {
			d.Push(1)
			d.Pop()
		}
	})
}

// stealNoFence is steal() without S2. It is NOT correct (see deque.go: the
// owner and a thief could both take the last element) and exists only so
// BenchmarkPushSteal can show what S2 costs.
func (d *Deque[T]) stealNoFence() (T, bool) {
	var zero T
	t := atomic.LoadUint64(&d.top)
	b := atomic.LoadUint64(&d.bottom)
	if int64(b-t) <= 0 {
		return zero, false
	}
	buf := d.buf.Load()
	v := atomic.LoadUint64(buf.at(t))
	if d.buf.Load() != buf || !atomic.CompareAndSwapUint64(&d.top, t, t+1) {
		return zero, false
	}
	return T(v), true
}

// BenchmarkPushSteal is the cost of a steal itself, with no contention: one
// goroutine pushes one element and steals it back. One op = push + steal.
func BenchmarkPushSteal(b *testing.B) {
	b.Run("impl=deque", func(b *testing.B) {
		d := New[uint64](64)
		b.ReportAllocs()
		for b.Loop() {
			d.Push(1)
			d.Steal()
		}
	})
	b.Run("impl=deque-without-S2-fence", func(b *testing.B) {
		d := New[uint64](64)
		b.ReportAllocs()
		for b.Loop() {
			d.Push(1)
			d.stealNoFence()
		}
	})
	for _, impl := range impls[1:] {
		b.Run("impl="+impl.name, func(b *testing.B) {
			q := impl.make(64)
			b.ReportAllocs()
			for b.Loop() {
				q.push(1)
				q.steal()
			}
		})
	}
}

// BenchmarkSteal is steal under contention: the benchmark goroutine is the
// owner and pushes items (keeping at most 256 queued, yielding while full);
// 1-3 thief goroutines steal them. One op = one item pushed, and (within 256
// of the end) stolen: ns/op is the throughput of the pipeline. Reported
// metrics: failed steal attempts (Empty or Retry) per item.
func BenchmarkSteal(b *testing.B) {
	const bound = 256
	for _, impl := range impls {
		for thieves := 1; thieves <= 3; thieves++ {
			b.Run("impl="+impl.name+"/thieves="+strconv.Itoa(thieves), func(b *testing.B) {
				q := impl.make(bound)
				var (
					stop, misses atomic.Int64
					wg           sync.WaitGroup
				)
				for range thieves {
					wg.Add(1)
					go func() {
						defer wg.Done()
						var miss int64
						for stop.Load() == 0 {
							if _, ok := q.steal(); !ok {
								miss++
								runtime.Gosched()
							}
						}
						misses.Add(miss)
					}()
				}
				b.ReportAllocs()
				n := 0
				for b.Loop() {
					for q.size() >= bound {
						runtime.Gosched()
					}
					q.push(1)
					n++
				}
				stop.Store(1)
				wg.Wait()
				b.ReportMetric(float64(misses.Load())/float64(n), "misses/op")
			})
		}
	}
}
