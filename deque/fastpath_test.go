package deque

import (
	"math"
	"sync/atomic"
	"testing"
)

// TryPush refuses exactly when the ring might be full, never loses or
// reorders an element, and Push then grows the ring and succeeds.
func TestTryPushFullRing(t *testing.T) {
	d := New[uint64](4)
	for i := uint64(1); i <= 4; i++ {
		if !d.TryPush(i) {
			t.Fatalf("TryPush(%d) into a ring of 4 holding %d: false", i, i-1)
		}
	}
	if d.TryPush(5) {
		t.Fatal("TryPush into a full ring of 4: true")
	}
	if n := d.Len(); n != 4 {
		t.Fatalf("a refused TryPush changed Len: %d, want 4", n)
	}
	d.Push(5) // grows
	if c := d.buf.Load().capacity(); c != 8 {
		t.Fatalf("capacity after Push into a full ring: %d, want 8", c)
	}
	if !d.TryPush(6) {
		t.Fatal("TryPush after growth: false")
	}
	for want := uint64(6); want >= 1; want-- {
		if v, ok := d.Pop(); !ok || v != want {
			t.Fatalf("Pop = (%d, %v), want (%d, true)", v, ok, want)
		}
	}
}

// topSeen may lag behind top after steals: TryPush then refuses a ring that
// has room, and Push must refresh topSeen instead of growing.
func TestPushRefreshesTopSeenWithoutGrowing(t *testing.T) {
	d := New[uint64](4)
	for i := uint64(1); i <= 4; i++ {
		d.Push(i)
	}
	for range 3 {
		if _, st := d.Steal(); st != Success {
			t.Fatalf("Steal: %v", st)
		}
	}
	if d.TryPush(5) {
		t.Fatal("TryPush with a stale topSeen: true (the bound must be conservative)")
	}
	d.Push(5)
	if c := d.buf.Load().capacity(); c != 4 {
		t.Errorf("Push into a ring with 3 free slots grew it to %d", c)
	}
	if d.topSeen != atomic.LoadUint64(&d.top) {
		t.Errorf("topSeen %d after Push's refresh, top %d", d.topSeen, d.top)
	}
	if !d.TryPush(6) || !d.TryPush(7) {
		t.Error("TryPush with room after the refresh: false")
	}
	for _, want := range []uint64{4, 5, 6, 7} {
		if v, st := d.Steal(); st != Success || v != want {
			t.Fatalf("Steal = (%d, %v), want (%d, Success)", v, st, want)
		}
	}
}

// The owner's private view of the ring (slots, mask) is the published ring
// after every growth.
func TestOwnerViewFollowsGrowth(t *testing.T) {
	d := New[uint64](1)
	for i := range uint64(100) {
		d.Push(i)
		buf := d.buf.Load()
		if &d.slots[0] != &buf.slots[0] || d.mask != buf.mask {
			t.Fatalf("after %d pushes: owner view (len %d, mask %d) is not the ring (len %d, mask %d)",
				i+1, len(d.slots), d.mask, len(buf.slots), buf.mask)
		}
	}
}

// PopFenced gives the same results as Pop, sequentially: LIFO, the last
// element through the CAS, false on an empty deque, and the deque left
// consistent (bottom restored) after an empty pop, across the 2^64 wrap.
func TestPopFencedSequential(t *testing.T) {
	for _, start := range []uint64{0, math.MaxUint64 - 2} {
		d := newAt[uint64](2, start)
		if v, ok := d.PopFenced(); ok {
			t.Fatalf("start %#x: PopFenced on a new deque = (%d, true)", start, v)
		}
		if d.bottom != start || d.top != start {
			t.Fatalf("start %#x: after an empty PopFenced top %#x bottom %#x", start, d.top, d.bottom)
		}
		for i := uint64(1); i <= 5; i++ {
			d.Push(i)
		}
		for want := uint64(5); want >= 2; want-- {
			if v, ok := d.PopFenced(); !ok || v != want {
				t.Fatalf("start %#x: PopFenced = (%d, %v), want (%d, true)", start, v, ok, want)
			}
		}
		top := d.top
		if v, ok := d.PopFenced(); !ok || v != 1 {
			t.Fatalf("start %#x: PopFenced of the last element = (%d, %v), want (1, true)", start, v, ok)
		}
		if d.top != top+1 || d.bottom != d.top {
			t.Errorf("start %#x: the last element's CAS left top %#x (was %#x), bottom %#x", start, d.top, top, d.bottom)
		}
		for range 2 {
			if v, ok := d.PopFenced(); ok {
				t.Fatalf("start %#x: PopFenced on a drained deque = (%d, true)", start, v)
			}
		}
		d.Push(9)
		if v, st := d.Steal(); st != Success || v != 9 {
			t.Fatalf("start %#x: Steal after empty PopFenced calls = (%d, %v), want (9, Success)", start, v, st)
		}
		if d.Len() != 0 || d.top != d.bottom {
			t.Errorf("start %#x: not empty at the end: top %#x bottom %#x", start, d.top, d.bottom)
		}
	}
}

// A thief that took the last element before the owner's fence makes
// PopFenced fail without taking anything: its CAS expects top == b and finds
// top past it.
func TestPopFencedAfterThiefTookLast(t *testing.T) {
	d := New[uint64](4)
	d.Push(1)
	d.Push(2)
	// A thief reads index 0 and is then delayed; meanwhile another thief
	// takes both elements.
	tIdx, buf, v, o := d.stealRead()
	if o != stealSuccess {
		t.Fatalf("stealRead: %v", o)
	}
	for range 2 {
		if _, st := d.Steal(); st != Success {
			t.Fatalf("Steal: %v", st)
		}
	}
	if v, ok := d.PopFenced(); ok {
		t.Fatalf("PopFenced after thieves emptied the deque = (%d, true)", v)
	}
	if _, o := d.stealClaim(tIdx, buf, v); o != stealLostCAS {
		t.Errorf("the delayed thief's claim: %v, want stealLostCAS", o)
	}
	if d.top != 2 || d.bottom != 2 {
		t.Errorf("top %d bottom %d, want 2 and 2", d.top, d.bottom)
	}
}

// The owner's fast paths allocate nothing. (Each run's last PopFenced takes
// the last element by CAS and so advances top: topSeen falls behind, and
// every 32 runs or so TryPush refuses and Push refreshes it, without
// growing.)
func TestFastPathsDoNotAllocate(t *testing.T) {
	d := New[uint64](64)
	allocs := testing.AllocsPerRun(1000, func() {
		for i := range uint64(32) {
			if !d.TryPush(i) {
				d.Push(i)
			}
		}
		for range 32 {
			d.PopFenced()
		}
	})
	if allocs != 0 {
		t.Errorf("TryPush/PopFenced: %v allocations per run, want 0", allocs)
	}
	if c := d.buf.Load().capacity(); c != 64 {
		t.Errorf("the ring grew to %d holding at most 32 elements", c)
	}
}

// PopUnshared is the sequential pop: LIFO, false on empty, the last element
// taken by lowering bottom to top (no CAS), and the deque consistent for Pop
// and Steal afterwards, across the 2^64 wrap.
func TestPopUnsharedSequential(t *testing.T) {
	for _, start := range []uint64{0, math.MaxUint64 - 1} {
		d := newAt[uint64](2, start)
		if v, ok := d.PopUnshared(); ok {
			t.Fatalf("start %#x: PopUnshared on a new deque = (%d, true)", start, v)
		}
		for i := uint64(1); i <= 5; i++ {
			d.Push(i)
		}
		if v, st := d.Steal(); st != Success || v != 1 {
			t.Fatalf("start %#x: Steal = (%d, %v), want (1, Success)", start, v, st)
		}
		for want := uint64(5); want >= 2; want-- {
			if v, ok := d.PopUnshared(); !ok || v != want {
				t.Fatalf("start %#x: PopUnshared = (%d, %v), want (%d, true)", start, v, ok, want)
			}
		}
		if d.top != start+1 || d.bottom != d.top {
			t.Errorf("start %#x: drained by PopUnshared: top %#x bottom %#x, want both %#x", start, d.top, d.bottom, start+1)
		}
		if v, ok := d.PopUnshared(); ok {
			t.Fatalf("start %#x: PopUnshared on a drained deque = (%d, true)", start, v)
		}
		d.Push(7)
		d.Push(8)
		if v, ok := d.Pop(); !ok || v != 8 {
			t.Errorf("start %#x: Pop after PopUnshared = (%d, %v), want (8, true)", start, v, ok)
		}
		if v, st := d.Steal(); st != Success || v != 7 {
			t.Errorf("start %#x: Steal after PopUnshared = (%d, %v), want (7, Success)", start, v, st)
		}
		if !d.IsEmpty() {
			t.Errorf("start %#x: Len %d at the end", start, d.Len())
		}
	}
}
