package blitz

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// testPush claims a position (respecting the capacity) and publishes j.
func testPush(q *injector, j task) claimResult {
	pos, b, r := q.tryClaim()
	if r == claimed {
		q.publish(pos, b, j, 0)
	}
	return r
}

// seqJob carries a sequence number.
type seqJob struct{ n int }

func (seqJob) run(*Worker)                       {}
func (seqJob) finish(*Worker, *PanicError, bool) {}

func TestInjectorFIFOAcrossBlocksAndClose(t *testing.T) {
	var q injector
	q.init(0)
	const n = 3*injBlockSize + 7 // several block boundaries
	for i := 0; i < n; i++ {
		if r := testPush(&q, seqJob{i}); r != claimed {
			t.Fatalf("push %d: %v", i, r)
		}
	}
	if q.len() != n || q.accepted() != n {
		t.Fatalf("len %d accepted %d, want %d", q.len(), q.accepted(), n)
	}
	for i := 0; i < n; i++ {
		j, _, ok := q.pop()
		if !ok || j.(seqJob).n != i {
			t.Fatalf("pop %d: %v %v", i, j, ok)
		}
	}
	if _, _, ok := q.pop(); ok || q.len() != 0 {
		t.Fatal("pop from an empty injector succeeded")
	}
	if got := q.close(); got != n {
		t.Errorf("close reported %d accepted, want %d", got, n)
	}
	if got := q.close(); got != n {
		t.Errorf("second close reported %d accepted, want %d", got, n)
	}
	if r := testPush(&q, seqJob{}); r != claimClosed {
		t.Errorf("push after close: %v", r)
	}
	if _, _, r := q.claim(); r != claimClosed {
		t.Error("claim over the bound after close succeeded")
	}
	if q.accepted() != n {
		t.Errorf("a refused claim changed accepted to %d", q.accepted())
	}
	// The old blocks are unreachable from the queue's pointers.
	if hb, tb := q.headBlock.Load(), q.tailBlock.Load(); hb != tb || hb.start != 3*injBlockSize {
		t.Errorf("head block at %d, tail block at %d, want both at %d", hb.start, tb.start, 3*injBlockSize)
	}
}

func TestInjectorUnwrittenSlotReadsEmpty(t *testing.T) {
	var q injector
	q.init(0)
	pos, b, r := q.tryClaim() // claimed, not yet written
	if r != claimed {
		t.Fatal(r)
	}
	testPush(&q, seqJob{1}) // a later producer finished first
	if _, _, ok := q.pop(); ok {
		t.Fatal("pop took a task past an unwritten slot (FIFO broken)")
	}
	if q.len() != 2 {
		t.Errorf("len %d, want 2 (claims count)", q.len())
	}
	q.publish(pos, b, seqJob{0}, 5)
	for want := 0; want < 2; want++ {
		j, enq, ok := q.pop()
		if !ok || j.(seqJob).n != want {
			t.Fatalf("pop: %v %v, want %d", j, ok, want)
		}
		if want == 0 && enq != 5 {
			t.Errorf("enq %d, want 5", enq)
		}
	}
}

func TestInjectorCapacity(t *testing.T) {
	for _, capacity := range []int{1, 3, injBlockSize + 1} {
		var q injector
		q.init(capacity)
		for i := 0; i < capacity; i++ {
			if r := testPush(&q, seqJob{i}); r != claimed {
				t.Fatalf("cap %d: push %d refused: %v", capacity, i, r)
			}
		}
		if r := testPush(&q, seqJob{}); r != claimFull {
			t.Fatalf("cap %d: push over capacity: %v", capacity, r)
		}
		// A forced claim (a task of the pool) goes over the bound.
		pos, b, r := q.claim()
		if r != claimed {
			t.Fatal("forced claim refused")
		}
		q.publish(pos, b, seqJob{capacity}, 0)
		if q.len() != capacity+1 {
			t.Errorf("cap %d: len %d", capacity, q.len())
		}
		q.pop()
		if r := testPush(&q, seqJob{}); r != claimFull {
			t.Errorf("cap %d: room appeared while still over the bound: %v", capacity, r)
		}
		q.pop()
		if r := testPush(&q, seqJob{}); r != claimed {
			t.Errorf("cap %d: no room after two pops: %v", capacity, r)
		}
	}
}

// TestInjectorConcurrent: producers and consumers at once, bounded and not;
// every task is taken exactly once, and each consumer sees every producer's
// tasks in that producer's order (FIFO per producer).
func TestInjectorConcurrent(t *testing.T) {
	for _, capacity := range []int{0, 1, 64} {
		var q injector
		q.init(capacity)
		const producers, consumers = 3, 3
		each := 20000
		if testing.Short() {
			each = 2000
		}
		total := producers * each
		seen := make([]atomic.Int32, total)
		var taken atomic.Int64
		var fullSeen atomic.Int64
		start := make(chan struct{})
		var wg sync.WaitGroup
		for p := 0; p < producers; p++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for i := 0; i < each; {
					switch testPush(&q, seqJob{p*each + i}) {
					case claimed:
						i++
					case claimFull:
						fullSeen.Add(1)
						runtime.Gosched()
					case claimClosed:
						t.Error("closed")
						return
					}
				}
			}()
		}
		for c := 0; c < consumers; c++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				last := make([]int, producers)
				for i := range last {
					last[i] = -1
				}
				for taken.Load() < int64(total) {
					j, _, ok := q.pop()
					if !ok {
						runtime.Gosched()
						continue
					}
					taken.Add(1)
					n := j.(seqJob).n
					seen[n].Add(1)
					p, i := n/each, n%each
					if i <= last[p] {
						t.Errorf("consumer saw producer %d's task %d after %d", p, i, last[p])
					}
					last[p] = i
				}
			}()
		}
		within(t, "producers and consumers", func() {
			close(start)
			wg.Wait()
		})
		for i := range seen {
			if c := seen[i].Load(); c != 1 {
				t.Fatalf("cap %d: task %d taken %d times", capacity, i, c)
			}
		}
		if capacity == 1 {
			t.Logf("cap 1: %d full refusals", fullSeen.Load())
		}
	}
}

func TestRoomWaitersHandOffOnCancel(t *testing.T) {
	var r roomWaiters
	a, b := r.register(), r.register()
	r.wakeOne() // wakes a
	select {
	case <-a:
	default:
		t.Fatal("wakeOne did not wake the oldest waiter")
	}
	// a gives up after it was woken: the wake-up must pass to b.
	r.cancel(a)
	select {
	case <-b:
	default:
		t.Fatal("a cancelled, woken waiter swallowed the wake-up")
	}
	if r.n.Load() != 0 || len(r.list) != 0 {
		t.Errorf("n %d, list %d after all left", r.n.Load(), len(r.list))
	}
	c := r.register()
	r.cancel(c) // not woken: just leaves
	if r.n.Load() != 0 {
		t.Errorf("n %d", r.n.Load())
	}
	d, e := r.register(), r.register()
	r.wakeAll()
	for _, ch := range []chan struct{}{d, e} {
		select {
		case <-ch:
		default:
			t.Fatal("wakeAll missed a waiter")
		}
	}
}
