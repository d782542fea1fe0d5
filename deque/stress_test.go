package deque

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// watchdog bounds every wait in these tests: a round that has not finished
// after this long fails with every goroutine's stack instead of hanging. A
// round takes milliseconds; the margin is for a 2-vCPU machine shared with
// other test runs, -race, and qemu.
const watchdog = 2 * time.Minute

func waitOrDump(t *testing.T, what string, wg *sync.WaitGroup) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(watchdog):
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Fatalf("watchdog: %s not finished after %v\n%s", what, watchdog, buf)
	}
}

// rarePaths counts the interleavings the stress test exists to produce.
type rarePaths struct {
	popWonLast       atomic.Int64 // owner's CAS won the last element against a thief
	popLostLast      atomic.Int64 // a thief's CAS won the last element against the owner
	popLostRace      atomic.Int64 // thieves emptied the deque between the owner's first look and its fence
	stealLostCAS     atomic.Int64 // a steal returned Retry because top moved under it
	stealBufferMoved atomic.Int64 // a steal returned Retry because the owner grew the ring under it
	growths          atomic.Int64
	// The same last-element race through PopFenced, which does not report
	// its outcome; popFencedOutcome tells them apart from top afterwards.
	fencedWonLast atomic.Int64 // PopFenced's CAS won the last element
	fencedLost    atomic.Int64 // PopFenced returned false: a thief took the last element, before or after its fence
}

func (r *rarePaths) String() string {
	return fmt.Sprintf("popWonLast=%d popLostLast=%d popLostRace=%d stealLostCAS=%d stealBufferMoved=%d growths=%d fencedWonLast=%d fencedLost=%d",
		r.popWonLast.Load(), r.popLostLast.Load(), r.popLostRace.Load(),
		r.stealLostCAS.Load(), r.stealBufferMoved.Load(), r.growths.Load(),
		r.fencedWonLast.Load(), r.fencedLost.Load())
}

// allSeen reports whether every rare path this test asserts has run. The
// ring swap (stealBufferMoved) is counted here too but asserted by
// TestStressRingSwap, which makes growths thousands of times more frequent.
func (r *rarePaths) allSeen() bool {
	return r.popWonLast.Load() > 0 && r.popLostLast.Load() > 0 && r.stealLostCAS.Load() > 0 &&
		r.fencedWonLast.Load() > 0 && r.fencedLost.Load() > 0
}

// popFencedOutcome is d.PopFenced() with its outcome, read off top
// afterwards by the owner. With b0 the bottom before the call: a pop that took
// an element below others leaves bottom = b0-1, and top can never pass it
// (thieves stop at bottom) until the owner pushes again; a pop that won the
// last element by its CAS moved top to b0 itself. So top == b0 after a
// successful PopFenced tells exactly that it went through the CAS. A failed
// one on a deque that was not empty just before means a thief took the last
// element meanwhile (before the fence or at the CAS: it does not say which);
// on a deque that was empty it is popEmpty, which for PopFenced is the path
// through the fence and a CAS that fails.
func popFencedOutcome[T Word](d *Deque[T]) (T, popOutcome) {
	b0 := d.bottom // the owner's own field
	empty := atomic.LoadUint64(&d.top) == b0
	v, ok := d.PopFenced()
	switch {
	case !ok && empty:
		return v, popEmpty
	case !ok:
		return v, popLostLast
	case atomic.LoadUint64(&d.top) == b0:
		return v, popWonLast
	}
	return v, popTook
}

// TestStress runs one owner and N thieves (N = 1..4) on deques that start
// with 2 slots and grow several times, with indexes starting at 0 and just
// below 2^64. The owner pushes items 1..n in bursts and pops some after each
// burst; thieves steal until the owner is done and the deque is empty. At
// the end every item must have been taken exactly once (per-item count,
// total count and sum).
//
// In full mode with GOMAXPROCS >= 2, rounds repeat until every rare path has
// run (the owner losing the last element to a thief and winning it, through
// Pop and through PopFenced, a steal retrying after a lost CAS), up to a bound, and the test fails if one never did. With GOMAXPROCS=1 goroutines
// interleave only at preemption points, milliseconds apart, so windows a few
// instructions wide are hit by chance at best: the counts are logged, not
// asserted.
func TestStress(t *testing.T) {
	items, minRounds, maxRounds := 20000, 8, 1000
	switch {
	case testing.Short():
		items, minRounds, maxRounds = 2000, 4, 4
	case raceEnabled:
		maxRounds = 200
	}
	parallel := runtime.GOMAXPROCS(0) >= 2
	if !parallel {
		maxRounds = minRounds
	}
	var rare rarePaths
	rounds := 0
	for ; rounds < maxRounds && (rounds < minRounds || !rare.allSeen()); rounds++ {
		thieves := 1 + rounds%4
		start := uint64(0)
		if rounds%2 == 1 {
			start = math.MaxUint64 - uint64(items)/2 // wraps mid-round
		}
		stressRound(t, &rare, uint64(rounds), thieves, start, items)
		if t.Failed() {
			return
		}
	}
	t.Logf("GOMAXPROCS=%d, %d rounds of %d items: %v", runtime.GOMAXPROCS(0), rounds, items, &rare)
	if testing.Short() || !parallel {
		return
	}
	if !rare.allSeen() {
		t.Errorf("after %d rounds a rare path never ran: %v", rounds, &rare)
	}
}

func stressRound(t *testing.T, rare *rarePaths, seed uint64, thieves int, start uint64, items int) {
	d := newAt[uint64](2, start)
	seen := make([]atomic.Uint32, items+1) // seen[v]: how many times item v was taken
	var (
		count, sum atomic.Uint64
		ownerDone  atomic.Bool
		running    atomic.Int32 // thieves past the start barrier
		ready, wg  sync.WaitGroup
		go_        = make(chan struct{})
	)
	take := func(v uint64) {
		if v == 0 || v > uint64(items) {
			t.Errorf("took %d, never pushed (items are 1..%d)", v, items)
			return
		}
		seen[v].Add(1)
		count.Add(1)
		sum.Add(v)
	}

	ready.Add(1 + thieves)
	wg.Add(1 + thieves)
	go func() { // the owner
		defer wg.Done()
		rng := rand.New(rand.NewPCG(seed, 0x5eed))
		ready.Done()
		<-go_
		// Second half of the start barrier: begin only once every thief is
		// running, so the early growths (2 -> 4 -> 8 ...) happen under
		// steals, not before the thieves have woken up.
		for running.Load() < int32(thieves) {
			runtime.Gosched()
		}
		capacity := d.buf.Load().capacity()
		next := uint64(1)
		for next <= uint64(items) {
			// Mostly short bursts that keep the deque near empty (the
			// last-element race), sometimes a long one (growth while
			// thieves are reading).
			// Half the bursts are a single push then a pop of it: the
			// owner's pop of the last element while thieves go for it.
			burst := 1
			switch r := rng.IntN(32); {
			case r == 0:
				burst = 1 + rng.IntN(256)
			case r < 16:
				burst = 1 + rng.IntN(8)
			}
			for i := 0; i < burst && next <= uint64(items); i++ {
				d.Push(next)
				next++
			}
			if c := d.buf.Load().capacity(); c != capacity {
				rare.growths.Add(1)
				capacity = c
			}
			pops := rng.IntN(burst + 2)
			if burst == 1 {
				pops = 1
			}
			// Half the bursts pop with PopFenced, half with Pop.
			fenced := rng.IntN(2) == 0
			for range pops {
				if fenced {
					v, o := popFencedOutcome(d)
					switch o {
					case popTook:
						take(v)
					case popWonLast:
						take(v)
						rare.fencedWonLast.Add(1)
					case popLostLast:
						rare.fencedLost.Add(1)
					}
					continue
				}
				v, o := d.pop()
				switch o {
				case popTook:
					take(v)
				case popWonLast:
					take(v)
					rare.popWonLast.Add(1)
				case popLostLast:
					rare.popLostLast.Add(1)
				case popLostRace:
					rare.popLostRace.Add(1)
				}
			}
		}
		for {
			v, o := d.pop()
			if o < popTook {
				break
			}
			take(v)
		}
		ownerDone.Store(true)
	}()
	for range thieves {
		go func() {
			defer wg.Done()
			ready.Done()
			<-go_
			running.Add(1)
			// Every other attempt is a StealIf whose condition holds: its
			// read and claim are split around the call to the condition.
			for i := 0; ; i++ {
				finished := ownerDone.Load() // read before the steal: Empty after this is final
				if i%2 == 1 {
					if v, st := d.StealIf(func() bool { return true }); st == Success {
						take(v)
						continue
					}
				}
				v, o := d.steal()
				switch o {
				case stealSuccess:
					take(v)
				case stealLostCAS:
					rare.stealLostCAS.Add(1)
				case stealBufferMoved:
					rare.stealBufferMoved.Add(1)
				case stealEmpty:
					if finished {
						return
					}
					runtime.Gosched() // let the owner run when GOMAXPROCS is small
				}
			}
		}()
	}
	waitOrDump(t, "start barrier", &ready)
	close(go_)
	waitOrDump(t, fmt.Sprintf("round %d (%d thieves)", seed, thieves), &wg)

	n := uint64(items)
	if got := count.Load(); got != n {
		t.Errorf("round %d: %d items taken, want %d", seed, got, n)
	}
	if got, want := sum.Load(), n*(n+1)/2; got != want {
		t.Errorf("round %d: checksum %d, want %d", seed, got, want)
	}
	for v := 1; v <= items; v++ {
		if c := seen[v].Load(); c != 1 {
			t.Errorf("round %d: item %d taken %d times", seed, v, c)
			break
		}
	}
	if !d.IsEmpty() {
		t.Errorf("round %d: deque not empty at the end: Len %d", seed, d.Len())
	}
}

// TestStressRingSwap targets S6, the re-check of the ring: the owner keeps
// starting a fresh 1-slot deque and pushing a few elements into it, so that
// it grows (1 -> 2 -> 4 -> 8 -> 16) over and over while thieves steal from
// it. A steal that read a ring which was replaced before its claim must
// return Retry without taking anything. Every item is taken exactly once
// (count and sum), and at least one steal must have seen a ring swap, at
// every GOMAXPROCS and however loaded the machine is.
//
// The window between a steal's read (S4-S5) and its claim (S6) is a few
// instructions wide, so on a busy machine free-running thieves may never be
// inside it when the owner grows the ring. The test does not wait for luck:
// every pauseEvery-th steal, and the first after a thief yields, is
// stealPaused, which holds the window open until the owner replaced the ring
// it read or left the deque; and every yieldEvery-th cycle the owner yields
// right after its first push (one element in a full 1-slot ring: its next
// push grows it), so that thieves read a ring about to be replaced even at
// GOMAXPROCS=1. A thief reading there must see the swap at its claim. The
// owner runs at least cycles cycles and goes on until a swap was seen, up to
// 10x as many: a bound on work, not on time.
func TestStressRingSwap(t *testing.T) {
	cycles := 200000
	switch {
	case testing.Short():
		cycles = 5000
	case raceEnabled:
		cycles = 30000
	}
	maxCycles := 10 * cycles
	const (
		perCycle   = 12 // pushes per fresh deque: four growths
		thieves    = 2
		pauseEvery = 16 // every 16th steal attempt holds its window open (stealPaused)
		yieldEvery = 16 // every 16th cycle the owner yields after its first push
	)
	var (
		cur              atomic.Pointer[Deque[uint64]]
		ownerDone        atomic.Bool
		count, sum       atomic.Uint64
		moved, lostCAS   atomic.Int64
		paused           atomic.Int64
		running          atomic.Int32
		ready, wg        sync.WaitGroup
		go_              = make(chan struct{})
		ran              int    // cycles the owner ran
		total            uint64 // items the owner pushed
		popped, poppedSm uint64
	)
	cur.Store(New[uint64](1))
	ready.Add(1 + thieves)
	wg.Add(1 + thieves)
	for range thieves {
		go func() {
			defer wg.Done()
			ready.Done()
			<-go_
			running.Add(1)
			var n, s uint64
			var lc, ps int64
			yielded := false
			for i := 0; ; i++ {
				finished := ownerDone.Load()
				d := cur.Load()
				var v uint64
				var o stealOutcome
				// The first attempt after a yield is paused: at
				// GOMAXPROCS=1 that is when the owner has just
				// yielded after its first push.
				if yielded || i%pauseEvery == 0 {
					ps++
					v, o = stealPaused(d, func() bool { return cur.Load() != d })
				} else {
					v, o = d.steal()
				}
				yielded = false
				switch o {
				case stealSuccess:
					n++
					s += v
				case stealBufferMoved:
					moved.Add(1) // at once: the owner stops when it sees one
				case stealLostCAS:
					lc++
				case stealEmpty:
					if finished {
						count.Add(n)
						sum.Add(s)
						lostCAS.Add(lc)
						paused.Add(ps)
						return
					}
					if i%16 == 0 {
						runtime.Gosched()
						yielded = true
					}
				}
			}
		}()
	}
	go func() { // the owner
		defer wg.Done()
		ready.Done()
		<-go_
		for running.Load() < thieves {
			runtime.Gosched()
		}
		next := uint64(1)
		for ; ran < cycles || (ran < maxCycles && moved.Load() == 0); ran++ {
			d := New[uint64](1)
			cur.Store(d)
			for k := range perCycle {
				d.Push(next)
				next++
				if k == 0 && ran%yieldEvery == 0 {
					runtime.Gosched()
				}
			}
			for { // take back what the thieves left before moving on
				v, ok := d.Pop()
				if !ok {
					break
				}
				popped++
				poppedSm += v
			}
		}
		total = next - 1
		// The last deque is empty; a new one tells paused thieves to let go.
		cur.Store(New[uint64](1))
		ownerDone.Store(true)
	}()
	waitOrDump(t, "start barrier", &ready)
	close(go_)
	waitOrDump(t, "ring-swap stress", &wg)

	if got := count.Load() + popped; got != total {
		t.Errorf("%d items taken, want %d", got, total)
	}
	if got, want := sum.Load()+poppedSm, total*(total+1)/2; got != want {
		t.Errorf("checksum %d, want %d", got, want)
	}
	t.Logf("GOMAXPROCS=%d: %d cycles, steals retried on a ring swap %d times, on a lost CAS %d times (%d steals paused); thieves took %d, owner %d",
		runtime.GOMAXPROCS(0), ran, moved.Load(), lostCAS.Load(), paused.Load(), count.Load(), popped)
	if moved.Load() == 0 {
		t.Errorf("no steal saw a ring swap in %d cycles", ran)
	}
}

// stealPaused is steal with its window held open: after the read (S1-S5) it
// waits, yielding, until the owner has replaced the ring it read, or
// leftDeque reports that the owner has left d for good, and only then claims
// (S6-S7). A claim after a replacement must answer stealBufferMoved.
func stealPaused[T Word](d *Deque[T], leftDeque func() bool) (T, stealOutcome) {
	t, buf, v, o := d.stealRead()
	if o != stealSuccess {
		return T(v), o
	}
	for d.buf.Load() == buf && !leftDeque() {
		runtime.Gosched()
	}
	return d.stealClaim(t, buf, v)
}
