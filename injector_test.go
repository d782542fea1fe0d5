package blitz

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

// testPush claims a position (respecting the capacity) and publishes j.
func testPush(q *injector, j task) claimResult {
	pos, b, r := q.tryClaim()
	if r == claimOK {
		q.publish(pos, b, injTask{job: j, enq: 0})
	}
	return r
}

// seqJob carries a sequence number.
type seqJob struct{ n int }

// popJob is q.pop with the task's fields apart.
func popJob(q *injector) (task, int64, bool) {
	t, ok := q.pop()
	return t.job, t.enq, ok
}

func (seqJob) run(*Worker, profLabels)           {}
func (seqJob) finish(*Worker, *PanicError, bool) {}

// TestInjectorFIFOAcrossRingsAndClose queues more than the first ring holds,
// so that the queue seals two rings and links larger ones, and takes every
// task back in order.
// TestInjectorSlotSize pins a slot's size: a sequence word and a task (an
// interface and a submit time), 32 bytes on 64-bit platforms and 24 on
// 32-bit ones, where the sequence word must stay 8-byte aligned. A task's
// labels travel in a labelledTask, not in the slot.
func TestInjectorSlotSize(t *testing.T) {
	word := unsafe.Sizeof(uintptr(0))
	assert.Equal(t, 8+2*word+8, unsafe.Sizeof(injSlot{}))
	assert.Zero(t, unsafe.Sizeof(injSlot{})%8)
	assert.Zero(t, unsafe.Offsetof(injSlot{}.t)%word)
}

func TestInjectorFIFOAcrossRingsAndClose(t *testing.T) {
	var q injector
	q.init(0)
	first := q.headRing.Load()
	const n = 3*injRingMin + 7 // past the first ring (256) and the second (512)
	for i := 0; i < n; i++ {
		if r := testPush(&q, seqJob{i}); r != claimOK {
			t.Fatalf("push %d: %v", i, r)
		}
	}
	if q.len() != n || q.accepted() != n {
		t.Fatalf("len %d accepted %d, want %d", q.len(), q.accepted(), n)
	}
	for i := 0; i < n; i++ {
		if !q.ready() { // at a sealed ring's end too: ready moves on
			t.Fatalf("not ready before pop %d", i)
		}
		j, _, ok := popJob(&q)
		if !ok || j.(seqJob).n != i {
			t.Fatalf("pop %d: %v %v", i, j, ok)
		}
	}
	if _, _, ok := popJob(&q); ok || q.len() != 0 || q.ready() {
		t.Fatal("pop from an empty injector succeeded, or it reads ready")
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
	// The sealed rings are unreachable from the queue's pointers: both
	// ends are on the third ring, which starts where the second stopped.
	hr, tr := q.headRing.Load(), q.tailRing.Load()
	if hr != tr || hr.base != 3*injRingMin || len(hr.slots) != 4*injRingMin {
		t.Errorf("head ring at %d, tail ring at %d (%d slots), want both at %d with %d slots",
			hr.base, tr.base, len(tr.slots), 3*injRingMin, 4*injRingMin)
	}
	if first.tail.Load() != injRingMin|sealedBit || first.next.Load().base != injRingMin {
		t.Errorf("first ring's tail %#x, successor at %d", first.tail.Load(), first.next.Load().base)
	}
}

// TestInjectorRingReused: a queue that never holds more than its ring is
// reused lap after lap, and a task costs no allocation.
func TestInjectorRingReused(t *testing.T) {
	var q injector
	q.init(0)
	r := q.headRing.Load()
	var job task = seqJob{}
	allocs := testing.AllocsPerRun(20, func() {
		for i := 0; i < 3*injRingMin; i++ { // three laps, half full
			if i%2 == 0 {
				testPush(&q, job)
				testPush(&q, job)
			} else {
				q.pop()
				q.pop()
			}
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per %d tasks, want 0", allocs, 3*injRingMin)
	}
	if q.headRing.Load() != r || q.tailRing.Load() != r {
		t.Error("the queue left its first ring though it never filled it")
	}
	if q.accepted() < 60*injRingMin || q.len() != 0 {
		t.Errorf("accepted %d, len %d", q.accepted(), q.len())
	}
}

// TestInjectorRingSizes: each sealed ring is followed by one of twice its
// size, up to injRingMax, then by rings of injRingMax; a bounded queue
// starts with its capacity rounded up to a power of two.
func TestInjectorRingSizes(t *testing.T) {
	var q injector
	q.init(0)
	n := 2 * injRingMax
	if testing.Short() {
		n = injRingMax + injRingMax/2
	}
	for i := 0; i < n; i++ {
		testPush(&q, seqJob{i})
	}
	want, base := injRingMin, uint64(0)
	for r := q.headRing.Load(); r != nil; r = r.next.Load() {
		if len(r.slots) != want || r.base != base {
			t.Fatalf("ring at %d with %d slots, want at %d with %d", r.base, len(r.slots), base, want)
		}
		base += uint64(want)
		want = min(2*want, injRingMax)
	}
	for i := 0; i < n; i++ {
		if j, _, ok := popJob(&q); !ok || j.(seqJob).n != i {
			t.Fatalf("pop %d: %v %v", i, j, ok)
		}
	}
	for _, c := range []struct{ capacity, size int }{{1, injRingMin}, {300, 512}, {1024, 1024}, {1 << 20, injRingMax}} {
		var b injector
		b.init(c.capacity)
		if got := len(b.headRing.Load().slots); got != c.size {
			t.Errorf("capacity %d: first ring of %d slots, want %d", c.capacity, got, c.size)
		}
	}
}

// TestInjectorCloseAfterSeal: a ring sealed by a claim and closed before any
// producer linked its successor: close links it and closes that one, so the
// count is exact and no later claim gets in.
func TestInjectorCloseAfterSeal(t *testing.T) {
	var q injector
	q.init(0)
	for i := 0; i < injRingMin; i++ {
		testPush(&q, seqJob{i})
	}
	r := q.tailRing.Load()
	// Seal by hand, as a producer that lost the CPU right after its seal
	// CAS would leave it.
	if !r.tail.CompareAndSwap(injRingMin, injRingMin|sealedBit) {
		t.Fatal("seal")
	}
	if got := q.close(); got != injRingMin {
		t.Fatalf("close counted %d, want %d", got, injRingMin)
	}
	if r.next.Load() == nil || q.tailRing.Load() != r.next.Load() {
		t.Fatal("close did not move to the successor")
	}
	if res := testPush(&q, seqJob{}); res != claimClosed {
		t.Fatalf("claim after close: %v", res)
	}
	for i := 0; i < injRingMin; i++ {
		if j, _, ok := popJob(&q); !ok || j.(seqJob).n != i {
			t.Fatalf("pop %d: %v %v", i, j, ok)
		}
	}
	if _, _, ok := popJob(&q); ok || q.len() != 0 || q.accepted() != injRingMin {
		t.Errorf("after draining: len %d accepted %d", q.len(), q.accepted())
	}
}

func TestInjectorUnwrittenSlotReadsEmpty(t *testing.T) {
	var q injector
	q.init(0)
	pos, b, r := q.tryClaim() // claimOK, not yet written
	if r != claimOK {
		t.Fatal(r)
	}
	testPush(&q, seqJob{1}) // a later producer finished first
	if _, _, ok := popJob(&q); ok {
		t.Fatal("pop took a task past an unwritten slot (FIFO broken)")
	}
	if q.len() != 2 {
		t.Errorf("len %d, want 2 (claims count)", q.len())
	}
	if q.ready() {
		t.Error("ready with the oldest slot unwritten: pop would find nothing")
	}
	q.publish(pos, b, injTask{job: seqJob{0}, enq: 5})
	if !q.ready() {
		t.Error("not ready with the oldest slot written")
	}
	for want := 0; want < 2; want++ {
		j, enq, ok := popJob(&q)
		if !ok || j.(seqJob).n != want {
			t.Fatalf("pop: %v %v, want %d", j, ok, want)
		}
		if want == 0 && enq != 5 {
			t.Errorf("enq %d, want 5", enq)
		}
	}
	if q.ready() {
		t.Error("ready on an empty queue")
	}
}

func TestInjectorCapacity(t *testing.T) {
	for _, capacity := range []int{1, 3, injRingMin + 1} {
		var q injector
		q.init(capacity)
		for i := 0; i < capacity; i++ {
			if r := testPush(&q, seqJob{i}); r != claimOK {
				t.Fatalf("cap %d: push %d refused: %v", capacity, i, r)
			}
		}
		if r := testPush(&q, seqJob{}); r != claimFull {
			t.Fatalf("cap %d: push over capacity: %v", capacity, r)
		}
		// A forced claim (a task of the pool) goes over the bound.
		pos, b, r := q.claim()
		if r != claimOK {
			t.Fatal("forced claim refused")
		}
		q.publish(pos, b, injTask{job: seqJob{capacity}, enq: 0})
		if q.len() != capacity+1 {
			t.Errorf("cap %d: len %d", capacity, q.len())
		}
		q.pop()
		if r := testPush(&q, seqJob{}); r != claimFull {
			t.Errorf("cap %d: room appeared while still over the bound: %v", capacity, r)
		}
		q.pop()
		if r := testPush(&q, seqJob{}); r != claimOK {
			t.Errorf("cap %d: no room after two pops: %v", capacity, r)
		}
	}
}

// TestInjectorConcurrent: producers and consumers at once, bounded and not,
// with the usual rings and with rings of 2 to 8 slots that are sealed and
// replaced all the time (claims that find a slot whose consumer is still
// reading it seal too); every task is taken exactly once, and each consumer
// sees every producer's tasks in that producer's order (FIFO per producer).
func TestInjectorConcurrent(t *testing.T) {
	for _, c := range []struct{ capacity, minRing, maxRing int }{
		{0, injRingMin, injRingMax}, {1, injRingMin, injRingMax}, {64, injRingMin, injRingMax},
		{0, 2, 8}, {12, 2, 8}, // a bound over the largest ring: seals too
	} {
		var q injector
		q.initSizes(c.capacity, c.minRing, c.maxRing)
		first := q.headRing.Load()
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
					case claimOK:
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
		for range consumers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				last := make([]int, producers)
				for i := range last {
					last[i] = -1
				}
				for taken.Load() < int64(total) {
					j, _, ok := popJob(&q)
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
			if k := seen[i].Load(); k != 1 {
				t.Fatalf("%+v: task %d taken %d times", c, i, k)
			}
		}
		rings := 0
		for r := first; r != nil; r = r.next.Load() {
			rings++
		}
		if q.len() != 0 || q.accepted() != uint64(total) {
			t.Errorf("%+v: len %d, accepted %d", c, q.len(), q.accepted())
		}
		if c.maxRing == 8 && rings < 2 {
			t.Errorf("%+v: no ring was sealed", c)
		}
		t.Logf("%+v: %d rings, %d full refusals", c, rings, fullSeen.Load())
	}
}

func TestRoomWaitersHandOffOnCancel(t *testing.T) {
	var r roomWaiters
	register := func() *waiter {
		wt := newWaiter(nil)
		r.add(wt)
		return wt
	}
	woken := func(wt *waiter) bool {
		select {
		case <-wt.ch:
			return true
		default:
			return false
		}
	}
	a, b := register(), register()
	r.wakeOne() // wakes a
	if !woken(a) || woken(b) {
		t.Fatal("wakeOne did not wake the oldest waiter alone")
	}
	// a gives up after it was woken: the wake-up must pass to b.
	r.cancel(a)
	if !woken(b) {
		t.Fatal("a cancelled, woken waiter swallowed the wake-up")
	}
	if r.n.Load() != 0 || r.list.len() != 0 {
		t.Errorf("n %d, list %d after all left", r.n.Load(), r.list.len())
	}
	c := register()
	r.cancel(c) // not woken: just leaves
	if r.n.Load() != 0 || woken(c) {
		t.Errorf("n %d, woken %v", r.n.Load(), woken(c))
	}
	d, e := register(), register()
	if r.n.Load() != 2 {
		t.Errorf("n %d with two waiters", r.n.Load())
	}
	r.wakeAll()
	for _, wt := range []*waiter{d, e} {
		if !woken(wt) {
			t.Fatal("wakeAll missed a waiter")
		}
	}
	if r.n.Load() != 0 {
		t.Errorf("n %d after wakeAll", r.n.Load())
	}
}

// TestInjectorCloseStorm closes a queue of tiny rings while producers seal
// and link them and consumers drain them: the count close returns is
// exactly the number of tasks taken, each once, and every claim after it
// is refused. Each producer claims at most 5,000, yielding every 64 claims
// so that the closer runs even at GOMAXPROCS 1; the rounds go on until the
// close came while some were still claiming (at most 20 times as many).
func TestInjectorCloseStorm(t *testing.T) {
	rounds := 50
	if testing.Short() {
		rounds = 10
	}
	closedEarly := 0 // rounds where close came while a producer was still claiming
	for round := 0; round < rounds || closedEarly == 0; round++ {
		if round == 20*rounds {
			t.Fatalf("in %d rounds the close never came while producers were claiming", round)
		}
		var q injector
		q.initSizes(0, 2, 8)
		const producers, consumers = 3, 2
		var wg, prodWG sync.WaitGroup
		var refusedAfter, acceptedBefore atomic.Int64
		var closed atomic.Bool
		seen := sync.Map{}
		var taken atomic.Int64
		start := make(chan struct{})
		for p := range producers {
			prodWG.Add(1)
			go func() {
				defer prodWG.Done()
				<-start
				for i := 0; i < 5000; i++ {
					if i%64 == 63 {
						runtime.Gosched() // let the closer in at GOMAXPROCS 1
					}
					wasClosed := closed.Load()
					switch testPush(&q, seqJob{p*5000 + i}) {
					case claimClosed:
						refusedAfter.Add(1)
						return
					case claimOK:
						if wasClosed {
							t.Errorf("a claim after close was accepted")
						}
						acceptedBefore.Add(1)
					}
				}
			}()
		}
		var final atomic.Uint64
		final.Store(^uint64(0))
		for range consumers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for {
					j, _, ok := popJob(&q)
					if ok {
						if _, dup := seen.LoadOrStore(j.(seqJob).n, true); dup {
							t.Errorf("task %d taken twice", j.(seqJob).n)
						}
						taken.Add(1)
						continue
					}
					if uint64(taken.Load()) == final.Load() {
						return
					}
					runtime.Gosched()
				}
			}()
		}
		close(start)
		for q.accepted() < 50 {
			runtime.Gosched()
		}
		n := q.close()
		closed.Store(true)
		final.Store(n)
		within(t, "draining after close", func() { prodWG.Wait(); wg.Wait() })
		if uint64(taken.Load()) != n || uint64(acceptedBefore.Load()) != n || q.accepted() != n {
			t.Fatalf("close counted %d, taken %d, producers accepted %d, accepted() %d",
				n, taken.Load(), acceptedBefore.Load(), q.accepted())
		}
		if refusedAfter.Load() > 0 {
			closedEarly++
		}
	}
}
