package deque

import (
	"sync/atomic"

	"github.com/blitz-go/blitz/atomics"
)

// # Retry
//
// Steal returns Retry, not Empty, when it took nothing because of a race: a
// lost CAS (S7) or a ring swap (S6). The deque was not empty; a caller
// that wants an element should try again or try another victim, and a caller
// deciding whether to sleep must not treat Retry as "no work".

// Steal removes and returns the oldest element (FIFO). Any goroutine. It
// returns Success with the element, Empty if there was none, or Retry if it
// lost a race and took nothing.
func (d *Deque[T]) Steal() (T, Status) {
	v, r := d.steal()
	return v, r.status()
}

// StealIf is Steal with a last-moment condition: it finds and reads the
// oldest element as Steal does, then calls ok, and claims the element only if
// ok reports true; otherwise it takes nothing and reports Empty. ok runs
// after the element was found and read and before it is claimed, so when the
// claim succeeds, ok was true after this goroutine saw the Push that wrote
// the element: whatever the owner did before that Push (in its program
// order) happened before ok ran. A waiter uses it to take only elements
// pushed before some event that the owner signals before pushing anything
// else (the pool's isolated waits: ok = "the awaited latch is not Set yet").
// ok must not block.
func (d *Deque[T]) StealIf(ok func() bool) (T, Status) {
	// ok runs after the loads of top, bottom and the slot (S1-S5) and
	// before the claiming CAS (S7): a bottom at least as new as the Push
	// that wrote the element was read before it.
	t, buf, v, o := d.stealRead()
	if o != stealSuccess {
		return T(v), o.status()
	}
	if !ok() {
		var zero T
		return zero, Empty
	}
	v2, r := d.stealClaim(t, buf, v)
	return v2, r.status()
}

// stealOutcome says how a steal ended; the tests count the rare ones.
type stealOutcome uint8

const (
	stealEmpty       stealOutcome = iota
	stealSuccess                  // took the element at top
	stealLostCAS                  // another thief, or the owner's Pop of the last element, moved top first
	stealBufferMoved              // the owner replaced the ring while we read from it
)

func (r stealOutcome) status() Status {
	switch r {
	case stealEmpty:
		return Empty
	case stealSuccess:
		return Success
	}
	return Retry
}

func (d *Deque[T]) steal() (T, stealOutcome) {
	t, buf, v, o := d.stealRead()
	if o != stealSuccess {
		return T(v), o
	}
	return d.stealClaim(t, buf, v)
}

// stealRead is steps S1-S5: it finds the oldest element and reads it
// without claiming it. stealEmpty, or stealSuccess with the index, the ring
// it read from and the value. (Split from stealClaim so that tests can run
// the owner between the two halves and reach the retry paths on purpose.)
func (d *Deque[T]) stealRead() (t uint64, buf *buffer, v uint64, o stealOutcome) {
	// S1. Load top (acquire).
	t = atomic.LoadUint64(&d.top)
	// S2. Full fence between the loads of top and bottom; pairs with the
	// owner's store-then-fence of bottom in Pop (O1). Without it a thief and
	// the owner could each miss the other's update and both take the last
	// element.
	atomics.SeqCstFence()
	// S3. Load bottom (acquire). Pairs with Push's release store of bottom
	// (P2): every slot below the bottom we see has been written.
	b := atomic.LoadUint64(&d.bottom)
	if int64(b-t) <= 0 {
		return 0, nil, 0, stealEmpty
	}
	// S4. Load the ring (acquire; pairs with grow's publication G1). It is
	// loaded after bottom, so it is at least as new as the ring the slot at
	// t was written to.
	buf = d.buf.Load()
	// S5. Read the element. Atomic: the owner may be overwriting this slot
	// with a later index if our t is stale (then S7 fails).
	v = atomic.LoadUint64(buf.at(t))
	return t, buf, v, stealSuccess
}

// stealClaim is steps S6-S7: it decides whether the value stealRead read
// from ring buf at index t is ours.
func (d *Deque[T]) stealClaim(t uint64, buf *buffer, v uint64) (T, stealOutcome) {
	var zero T
	// S6. Re-check the ring (crossbeam-deque's fix for CVE-2021-32810). If
	// the owner published a new ring since S4, later elements live only
	// there; the value read from the old ring may still be right, but we do
	// not let a decision rest on a ring that is no longer current.
	if d.buf.Load() != buf {
		return zero, stealBufferMoved
	}
	// S7. Claim index t. Pairs with other thieves' S7 and the owner's O3:
	// exactly one of them moves top from t to t+1 and owns element t.
	if !atomic.CompareAndSwapUint64(&d.top, t, t+1) {
		return zero, stealLostCAS
	}
	return T(v), stealSuccess
}
