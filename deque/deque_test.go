package deque

import (
	"math"
	"strings"
	"testing"
	"unsafe"

	"github.com/blitz-go/blitz/atomics"
)

func TestNewCapacity(t *testing.T) {
	for in, want := range map[int]uint64{0: DefaultCapacity, 1: 1, 2: 2, 3: 4, 5: 8, 64: 64, 100: 128} {
		if got := New[uint64](in).Cap(); got != int(want) {
			t.Errorf("New(%d): capacity %d, want %d", in, got, want)
		}
	}
}

func TestNewPanicsOnBadCapacity(t *testing.T) {
	for _, c := range []int{-1, math.MinInt, maxCapacity + 1} {
		func() {
			defer func() {
				r := recover()
				msg, _ := r.(string)
				if !strings.HasPrefix(msg, "deque: New with") {
					t.Errorf("New(%d): recovered %v, want a \"deque: New with ...\" panic", c, r)
				}
			}()
			New[int64](c)
		}()
	}
}

func TestPopIsLIFOStealIsFIFO(t *testing.T) {
	d := New[uint64](4)
	for i := uint64(1); i <= 6; i++ { // grows once
		d.Push(i)
	}
	if n := d.Len(); n != 6 {
		t.Fatalf("Len = %d, want 6", n)
	}
	if v, ok := d.Pop(); !ok || v != 6 {
		t.Errorf("Pop = (%d, %v), want (6, true)", v, ok)
	}
	if v, st := d.Steal(); st != Success || v != 1 {
		t.Errorf("Steal = (%d, %v), want (1, Success)", v, st)
	}
	if v, st := d.Steal(); st != Success || v != 2 {
		t.Errorf("Steal = (%d, %v), want (2, Success)", v, st)
	}
	for _, want := range []uint64{5, 4, 3} {
		if v, ok := d.Pop(); !ok || v != want {
			t.Errorf("Pop = (%d, %v), want (%d, true)", v, ok, want)
		}
	}
	if v, ok := d.Pop(); ok {
		t.Errorf("Pop on empty = (%d, true)", v)
	}
	if v, st := d.Steal(); st != Empty || v != 0 {
		t.Errorf("Steal on empty = (%d, %v), want (0, Empty)", v, st)
	}
	if !d.IsEmpty() || d.Len() != 0 {
		t.Errorf("IsEmpty = %v, Len = %d after draining", d.IsEmpty(), d.Len())
	}
}

// A Pop on an empty deque must leave it usable: bottom restored, top intact.
func TestEmptyPopsKeepInvariant(t *testing.T) {
	d := New[int64](2)
	for range 3 {
		if _, ok := d.Pop(); ok {
			t.Fatal("Pop on a new deque succeeded")
		}
	}
	d.Push(-7)
	if v, st := d.Steal(); st != Success || v != -7 {
		t.Fatalf("Steal = (%d, %v), want (-7, Success)", v, st)
	}
	for range 3 {
		if _, ok := d.Pop(); ok {
			t.Fatal("Pop after the only element was stolen succeeded")
		}
	}
	if d.top != d.bottom {
		t.Errorf("top %d != bottom %d on an empty deque", d.top, d.bottom)
	}
}

func TestOutcomesSequential(t *testing.T) {
	d := New[uint64](2)
	if _, o := d.pop(); o != popEmpty {
		t.Errorf("pop on empty: outcome %d, want popEmpty", o)
	}
	d.Push(1)
	d.Push(2)
	if _, o := d.pop(); o != popTook {
		t.Errorf("pop with 2 elements: outcome %d, want popTook", o)
	}
	if _, o := d.pop(); o != popWonLast {
		t.Errorf("pop of the last element, no thieves: outcome %d, want popWonLast", o)
	}
}

// A grown deque keeps every element at its logical index, in order.
func TestGrowthPreservesOrder(t *testing.T) {
	d := New[uint64](1)
	const n = 1000
	for i := uint64(0); i < n; i++ {
		d.Push(i)
	}
	if c := d.Cap(); c != 1024 {
		t.Errorf("Cap after %d pushes from 1: %d, want 1024", n, c)
	}
	for i := uint64(0); i < n/2; i++ {
		if v, st := d.Steal(); st != Success || v != i {
			t.Fatalf("Steal #%d = (%d, %v)", i, v, st)
		}
	}
	for i := uint64(n - 1); i >= n/2; i-- {
		if v, ok := d.Pop(); !ok || v != i {
			t.Fatalf("Pop = (%d, %v), want (%d, true)", v, ok, i)
		}
	}
	if c := d.Cap(); c != 1024 {
		t.Errorf("Cap of the emptied deque: %d, want 1024 (a ring never shrinks)", c)
	}
}

// TestWrapAround runs the indexes across 2^64: the size is computed as
// int64(bottom-top) and slots as index&mask, both exact modulo 2^64.
func TestWrapAround(t *testing.T) {
	for _, start := range []uint64{math.MaxUint64 - 5, math.MaxUint64, math.MaxInt64 - 2} {
		d := newAt[uint64](2, start)
		var want []uint64 // model: oldest first
		for i := uint64(1); i <= 40; i++ {
			d.Push(i)
			want = append(want, i)
			if i%3 == 0 {
				v, ok := d.Pop()
				if !ok || v != want[len(want)-1] {
					t.Fatalf("start %#x: Pop = (%d, %v), want %d", start, v, ok, want[len(want)-1])
				}
				want = want[:len(want)-1]
			}
			if i%5 == 0 {
				v, st := d.Steal()
				if st != Success || v != want[0] {
					t.Fatalf("start %#x: Steal = (%d, %v), want %d", start, v, st, want[0])
				}
				want = want[1:]
			}
			if d.Len() != len(want) {
				t.Fatalf("start %#x: Len = %d, want %d", start, d.Len(), len(want))
			}
		}
		// The run must cross the boundary it was placed next to: 2^64 for
		// uint64 arithmetic, 2^63 for the int64 size computation.
		if crossedUint, crossedInt := d.bottom < start, int64(start) > 0 && int64(d.bottom) < 0; !crossedUint && !crossedInt {
			t.Fatalf("start %#x: bottom %#x crossed neither wrap point", start, d.bottom)
		}
		for len(want) > 0 {
			v, st := d.Steal()
			if st != Success || v != want[0] {
				t.Fatalf("start %#x: draining Steal = (%d, %v), want %d", start, v, st, want[0])
			}
			want = want[1:]
		}
		if _, st := d.Steal(); st != Empty {
			t.Errorf("start %#x: Steal on drained deque: %v", start, st)
		}
	}
}

type jobIndex int64

func TestNamedElementType(t *testing.T) {
	d := New[jobIndex](0)
	d.Push(-1)
	d.Push(math.MinInt64)
	if v, ok := d.Pop(); !ok || v != math.MinInt64 {
		t.Errorf("Pop = (%d, %v)", v, ok)
	}
	if v, st := d.Steal(); st != Success || v != -1 {
		t.Errorf("Steal = (%d, %v)", v, st)
	}
}

func TestStatusString(t *testing.T) {
	for s, want := range map[Status]string{Empty: "Empty", Success: "Success", Retry: "Retry", 9: "Status(9)"} {
		if got := s.String(); got != want {
			t.Errorf("Status(%d).String() = %q, want %q", s, got, want)
		}
	}
	for o, want := range map[stealOutcome]Status{stealEmpty: Empty, stealSuccess: Success, stealLostCAS: Retry, stealBufferMoved: Retry} {
		if got := o.status(); got != want {
			t.Errorf("stealOutcome %d maps to %v, want %v", o, got, want)
		}
	}
}

// TestLayout pins the padding: top and bottom (written by different
// goroutines) at least a padding granule apart, and 8-byte aligned for
// 64-bit atomics on 32-bit platforms.
func TestLayout(t *testing.T) {
	var d Deque[uint64]
	top, bottom, buf := unsafe.Offsetof(d.top), unsafe.Offsetof(d.bottom), unsafe.Offsetof(d.buf)
	if top%8 != 0 || bottom%8 != 0 {
		t.Errorf("top at %d, bottom at %d: not 8-byte aligned", top, bottom)
	}
	if bottom-top < atomics.CacheLineSize {
		t.Errorf("top..bottom = %d bytes, want >= CacheLineSize %d", bottom-top, atomics.CacheLineSize)
	}
	if top < atomics.CacheLineSize || unsafe.Sizeof(d)-buf < atomics.CacheLineSize {
		t.Errorf("deque not padded at both ends: top at %d, %d bytes after buf", top, unsafe.Sizeof(d)-buf)
	}
}

// The owner's steady state allocates nothing.
func TestPushPopDoesNotAllocate(t *testing.T) {
	d := New[uint64](64)
	allocs := testing.AllocsPerRun(1000, func() {
		for i := range uint64(32) {
			d.Push(i)
		}
		for range 32 {
			d.Pop()
		}
		d.Push(1)
		d.Steal()
	})
	if allocs != 0 {
		t.Errorf("push/pop/steal steady state: %v allocations per run, want 0", allocs)
	}
}

// The retry paths, driven deterministically: the owner (or another thief)
// acts between a thief's read (S1-S5) and its claim (S6-S7).
func TestStealRetryPaths(t *testing.T) {
	t.Run("ring swapped", func(t *testing.T) {
		d := New[uint64](2)
		d.Push(10)
		d.Push(11)
		top, buf, v, o := d.stealRead()
		if o != stealSuccess || v != 10 {
			t.Fatalf("stealRead = (%d, %d)", v, o)
		}
		d.Push(12) // full: grows, publishes a new ring
		if d.buf.Load() == buf {
			t.Fatal("Push into a full ring did not replace it")
		}
		if _, o := d.stealClaim(top, buf, v); o != stealBufferMoved {
			t.Errorf("claim after a ring swap: outcome %d, want stealBufferMoved", o)
		}
		// The element was not taken: the next steal gets it, from the new ring.
		if v, st := d.Steal(); st != Success || v != 10 {
			t.Errorf("Steal after the retry = (%d, %v), want (10, Success)", v, st)
		}
	})
	t.Run("owner popped the last element", func(t *testing.T) {
		d := New[uint64](2)
		d.Push(20)
		top, buf, v, _ := d.stealRead()
		if w, o := d.pop(); o != popWonLast || w != 20 {
			t.Fatalf("owner pop = (%d, %d), want (20, popWonLast)", w, o)
		}
		if _, o := d.stealClaim(top, buf, v); o != stealLostCAS {
			t.Errorf("claim after the owner took it: outcome %d, want stealLostCAS", o)
		}
	})
	t.Run("another thief took it", func(t *testing.T) {
		d := New[uint64](4)
		d.Push(30)
		d.Push(31)
		top, buf, v, _ := d.stealRead()
		if w, st := d.Steal(); st != Success || w != 30 {
			t.Fatalf("other thief: (%d, %v)", w, st)
		}
		if _, o := d.stealClaim(top, buf, v); o != stealLostCAS {
			t.Errorf("claim after another thief: outcome %d, want stealLostCAS", o)
		}
		if w, st := d.Steal(); st != Success || w != 31 {
			t.Errorf("next steal = (%d, %v), want (31, Success)", w, st)
		}
	})
}
