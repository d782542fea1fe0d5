package deque

import (
	"strconv"
	"sync/atomic"

	"github.com/blitz-go/blitz/atomics"
)

// The Chase-Lev deque, step by step.
//
// # Vocabulary
//
//   - owner: the one goroutine that calls Push and Pop on a deque.
//   - thief: any goroutine calling Steal or StealIf (the owner may too).
//   - top: logical index of the oldest element; thieves advance it by CAS.
//   - bottom: one past the newest element; only the owner writes it.
//   - ring (buffer): the array of slots; index i lives in slot i&mask.
//   - size: bottom-top, computed as int64(bottom-top) so that the 64-bit
//     indexes may wrap around 2^64 without harm.
//
// Elements are 64-bit integers (the Word constraint). The pool passes
// indexes of job frames it keeps in per-worker arrays, so the owner's path
// stores no Go pointer (no GC write barrier) and allocates nothing.
//
// # The protocol
//
// The orderings are those of Lê, Pop, Cohen and Zappa Nardelli, "Correct
// and Efficient Work-Stealing for Weak Memory Models" (PPoPP 2013). The
// step labels below appear beside the code.
//
// Push (owner), P:
//
//  1. (P1) Store the element into slot bottom (atomic, relaxed is enough).
//  2. (P2) Release-store bottom+1: publishes P1 to a thief's acquire load of
//     bottom (S3). If the ring is full it is first replaced (grow, G1).
//
// Pop (owner), O:
//
//  1. If bottom-top <= 0 by a plain look, return empty (top only grows, so
//     a stale top can only overstate the size).
//  2. (O1) Store bottom = b-1, FULL FENCE, load top. Pairs with S2: the
//     owner and a thief cannot both miss each other's update.
//  3. (O2) If top > b-1, thieves emptied it meanwhile: restore bottom,
//     return empty. If top < b-1, element b-1 is ours alone: return it.
//  4. (O3) If top == b-1 it is the last element, and a thief that read top
//     before O1 may be taking it: CAS top from b-1 to b. Whoever wins the CAS
//     (the owner here, or a thief at S7) owns the element. Restore bottom =
//     b (the deque is empty either way).
//
// Steal (any goroutine), S:
//
//  1. (S1) Load top (acquire).
//  2. (S2) FULL FENCE: pairs with O1.
//  3. (S3) Load bottom (acquire: pairs with P2). If bottom-top <= 0, Empty.
//  4. (S4) Load the ring pointer (acquire: pairs with G1).
//  5. (S5) Load the element at slot top (atomic).
//  6. (S6) If the ring pointer has changed since S4, return Retry.
//  7. (S7) CAS top from t to t+1; if it fails, another thief or the owner's
//     O3 took element t: return Retry. Otherwise return it.
//
// Grow (owner, inside Push), G: allocate a ring twice the size, copy the
// live elements [top, bottom) to the same logical indexes, and (G1) publish
// it with an atomic pointer store, from Go (it is a pointer).
//
// How the fences are realised here (release_amd64.go, release_arm64.go,
// release_other.go). O1 is storeFenced: on amd64 a plain MOV store of bottom
// followed by atomics.SeqCstFence (an inlined LOCK XADD on a stack local),
// which BenchmarkPopFence measured faster inside Pop than a single XCHG
// (atomic.StoreUint64; bench/results/deque-amd64.txt); on arm64 an STLR
// followed by DMB ISH. (An STLR followed by the LDAR of top is already
// ordered on arm64 hardware, but qemu-user on an x86 host, where the arm64
// tests run, does not honour that: without the DMB the stress test takes
// items twice there.)
// Elsewhere it is atomic.StoreUint64, sequentially consistent with the load
// of top that follows. S2 is atomics.SeqCstFence (DMB ISH on arm64). P1 and
// P2 are release stores: on amd64 a plain Go store, one inlined MOVQ (TSO
// makes every MOV store a release store, and the gc compiler keeps stores in
// program order: release_amd64.go gives the argument); atomic.StoreUint64
// (an inlined STLR) on arm64 and elsewhere; and sync/atomic everywhere under
// -race, so that the race detector sees every publication. Loads of top and
// bottom are atomic.LoadUint64: a plain MOV on amd64.
//
// # The owner's fast paths
//
// A fork-join pool pushes and pops once per join, so the owner's side is
// written to be inlined into the caller, with no call left in it:
//
//   - TryPush is Push when the ring certainly has room: one compare and the
//     stores P1 and P2. It checks "full" against topSeen, a value top had
//     earlier (a lower bound, since top only grows), instead of loading top,
//     the line every thief's CAS writes; when the bound says "maybe full" it
//     returns false and Push refreshes topSeen from top, and grows the ring
//     only if it really is full.
//   - PopFenced is Pop without the first look at top (step 1 of Pop): for an
//     owner that expects an element, such as a joiner taking back the job it
//     just pushed. When top >= b-1 after the fence it runs the CAS of O3
//     without first telling O2a from O3: if thieves took everything (top >
//     b-1), top can never return to b-1, so the CAS fails and claims
//     nothing. That saves a compare, which is what keeps it under the
//     compiler's inlining budget.
//   - Both reach the ring through the owner's private copy of its slice and
//     mask (updated by grow together with the published pointer), so the
//     common case touches only bottom's cache line and the ring.
//
// Pop and Push stay the general forms (Pop skips the fence on an empty
// deque: the idle worker's polling pop).
//
// # The last-element race
//
// When one element is left, both the owner (O3) and a thief (S7) may try to
// take it; the CAS on top decides. Without O1's fence a thief could read the
// old bottom while the owner read the old top, and both would take it. When
// the thief wins, Pop reports false although the deque was not empty a moment
// before: the element went to exactly one taker.
//
// # Indexes and wrap-around
//
// top and bottom are uint64 and only grow (bottom dips by one inside Pop).
// All arithmetic on them is modulo 2^64: the size is int64(bottom-top) and
// the slot is index&mask, both exact across the wrap, so a deque may run
// forever. The tests start indexes just below 2^64 to prove it.
//
// # Costs
//
// bench/results/deque-amd64.txt compares Push, Pop and Steal, alone and
// under contention, with a mutex-guarded slice and a buffered channel;
// bench/results/join-fastpath-amd64.txt measures the owner's fast paths.
// Nothing allocates in steady state (TestPushPopDoesNotAllocate,
// TestFastPathsDoNotAllocate).
//
// Why a thief may read a ring the owner has replaced is in buffer.go; what
// Retry means to a caller, in steal.go.

// Word is the set of element types: 64-bit integers. Elements are meant to
// be indexes (for example of job frames the owner keeps in an array), so the
// deque never holds a Go pointer: no GC write barrier on the owner's path and
// no allocation per element.
type Word interface{ ~uint64 | ~int64 }

// DefaultCapacity is the initial capacity New uses when asked for 0.
const DefaultCapacity = 64

// maxCapacity bounds the ring; New panics above it and Push panics rather
// than grow past it: 2^40 slots (8 TiB) on 64-bit platforms, 2^28 (2 GiB)
// where int is 32 bits.
const maxCapacity = 1 << (28 + 12*(^uint(0)>>63))

// Deque is a Chase-Lev work-stealing deque of integers. One goroutine, the
// owner, calls Push and Pop (LIFO, at the bottom); any goroutine may call
// Steal (FIFO, at the top), Len and IsEmpty. The package documentation gives
// the rules.
//
// A Deque must be created with New and must not be copied.
type Deque[T Word] struct {
	_ noCopy
	_ atomics.Pad

	// top is the logical index of the oldest element. Written by thieves
	// (CAS top -> top+1 in Steal) and by the owner (the same CAS in Pop when
	// it takes the last element); read by everyone with atomic loads. It only
	// ever increases (modulo 2^64), one element per successful CAS.
	top uint64

	_ atomics.Pad

	// bottom is one past the logical index of the newest element. Written
	// only by the owner: release store in Push (publishes the slot written
	// before it), a store followed by a full fence in Pop (the store-load
	// fence of the protocol), release store when Pop undoes its decrement.
	// Read by the owner with plain loads (it is the only writer) and by
	// thieves with atomic loads. top <= bottom+1 always; bottom-top is the
	// size, or -1 for the instant a Pop on an empty deque decrements it.
	bottom uint64

	// buf is the current ring. Written only by the owner (Store in grow,
	// after the new ring is filled: publishes its slots); read by thieves
	// (Load). Replaced buffers are never written again.
	buf atomic.Pointer[buffer]

	// The owner's private view, on bottom's cache line: the line the owner
	// writes anyway, so Push and Pop touch no other line of the deque in
	// the common case.
	//
	// slots and mask are the current ring's (buf.Load().slots and .mask),
	// so that the owner reaches a slot without loading buf and then the
	// buffer. Written by the owner in grow together with buf; read by the
	// owner alone, plain.
	slots []uint64
	mask  uint64
	// topSeen is a value top had at some moment: a lower bound of top,
	// because top only grows. b-topSeen is therefore at least the size, so
	// Push may check "full" against it without loading top (the line every
	// thief's CAS writes), and loads top only when the bound says the ring
	// might be full (roomFor). Written and read by the owner alone.
	topSeen uint64

	_ atomics.Pad
}

// New returns an empty deque whose ring holds capacity elements before it
// first grows. capacity is rounded up to a power of two; 0 means
// DefaultCapacity. New panics if capacity is negative or larger than 2^40
// (2^28 on 32-bit platforms).
func New[T Word](capacity int) *Deque[T] {
	return newAt[T](capacity, 0)
}

// newAt is New with top and bottom starting at start instead of 0, so that
// tests can run the deque across the 2^64 wrap-around of its indexes.
func newAt[T Word](capacity int, start uint64) *Deque[T] {
	switch {
	case capacity < 0:
		panic("deque: New with negative capacity " + strconv.Itoa(capacity))
	case capacity > maxCapacity:
		panic("deque: New with capacity " + strconv.Itoa(capacity) + " above the maximum " + strconv.Itoa(maxCapacity))
	case capacity == 0:
		capacity = DefaultCapacity
	}
	c := 1
	for c < capacity {
		c <<= 1
	}
	d := &Deque[T]{top: start, bottom: start, topSeen: start}
	d.publish(newBuffer(c))
	return d
}

// Push adds v at the bottom. Owner only. It allocates only when the ring is
// full (it then doubles it), and panics rather than grow the ring past the
// largest capacity New accepts.
func (d *Deque[T]) Push(v T) {
	if !d.TryPush(v) {
		d.roomFor(d.bottom)
		d.TryPush(v) // cannot fail: roomFor left b-topSeen < capacity
	}
}

// TryPush is Push when the ring certainly has room, and otherwise does
// nothing and reports false (the caller then calls Push, which grows the
// ring). Owner only. It is Push's common case, written to be inlined into
// the caller (the pool's join): a compare and two stores, no call.
func (d *Deque[T]) TryPush(v T) bool {
	b := d.bottom // plain: the owner is bottom's only writer
	if b-d.topSeen > d.mask {
		// b-topSeen >= b-top = size: the ring may be full.
		return false
	}
	// P1. Write the slot. Atomic (a thief holding a stale top may be reading
	// this very slot of the ring; its CAS will fail, but the read must not be
	// a data race), but needs no ordering of its own: P2 publishes it.
	storeRelease(&d.slots[b&d.mask], uint64(v))
	// P2. Release-store bottom: publishes the slot written in P1. Pairs with
	// the thief's acquire load of bottom (S3), after which it reads the slot.
	storeRelease(&d.bottom, b+1)
	return true
}

// roomFor is Push's slow side, taken when topSeen says the ring might be
// full: it refreshes topSeen from top and grows the ring if it really is
// full (b-top == capacity). Afterwards b-topSeen < capacity. Owner only.
func (d *Deque[T]) roomFor(b uint64) {
	t := atomic.LoadUint64(&d.top) // acquire; a stale top is smaller: it can only make us grow early
	d.topSeen = t
	if b-t > d.mask {
		d.grow(d.buf.Load(), t, b)
	}
}

// publish makes nb the current ring: the owner's private view first, then
// buf, whose atomic store publishes nb's slots to thieves (G1). Owner only
// (and New, before the deque is shared).
func (d *Deque[T]) publish(nb *buffer) {
	d.slots, d.mask = nb.slots, nb.mask
	d.buf.Store(nb)
}

// grow replaces the full ring old, which holds [t, b), by one twice its size
// holding the same elements at the same logical indexes, and publishes it.
// Owner only.
func (d *Deque[T]) grow(old *buffer, t, b uint64) *buffer {
	if old.capacity() >= maxCapacity {
		panic("deque: Push beyond the maximum capacity " + strconv.Itoa(maxCapacity))
	}
	nb := newBuffer(int(2 * old.capacity()))
	for i := t; i != b; i++ {
		// Plain accesses: old's slots were written by this goroutine; nb is
		// not yet visible to anyone.
		*nb.at(i) = *old.at(i)
	}
	// G1. Publish the new ring. Pairs with the thieves' d.buf.Load (S4, S6):
	// a thief that loads nb sees its slots. old stays valid for thieves that
	// loaded it before this store; nobody writes it again.
	d.publish(nb)
	return nb
}

// Pop removes and returns the newest element (LIFO). Owner only. It reports
// false if the deque was empty, or if its last element went to a thief that
// won the race for it; the element is meaningful only with true.
func (d *Deque[T]) Pop() (T, bool) {
	v, o := d.pop()
	return v, o >= popTook
}

// PopFenced is Pop without Pop's first look at the size: it always claims
// the bottom element and fences, so on an empty deque it costs a fence where
// Pop costs two loads. It is for an owner that expects an element, such as a
// joiner taking back the job it just pushed, and is written to be inlined
// into such a caller (no call in it). Same result as Pop: false if the deque
// was empty or its last element went to a thief; the element is meaningful
// only with true. Owner only.
func (d *Deque[T]) PopFenced() (v T, ok bool) {
	// The steps of pop() after the first look (O1-O3), in one function:
	// TestPopFenced* and the stress and fuzz tests run both.
	b := d.bottom - 1
	// O1 (see pop): bottom = b, full fence, load top.
	storeFenced(&d.bottom, b)
	// Plain read of our own store; returned as ours only if it is.
	v = T(d.slots[b&d.mask])
	if int64(b-atomic.LoadUint64(&d.top)) > 0 {
		return v, true // O2b: no thief can reach index b any more
	}
	// top >= b. O3 if top == b: the last element, and whoever moves top
	// from b to b+1 owns it (pairs with the thief's CAS, S7). O2a if
	// top > b: thieves took everything; then top stays above b forever
	// (it only grows), so the same CAS fails and claims nothing. (pop
	// tells the two apart before the CAS, to count them; a CAS that
	// fails costs only on this rare path, and leaving the test out keeps
	// PopFenced small enough to inline.)
	ok = atomic.CompareAndSwapUint64(&d.top, b, b+1)
	// top is b+1 now in both cases: restore bottom = b+1, the empty deque.
	storeRelease(&d.bottom, b+1)
	return v, ok
}

// PopUnshared is Pop for a deque that no other goroutine steals from while
// it runs: no Steal or StealIf on it may be concurrent with the call (the
// pool uses it when it has a single worker, whose deque has no thieves). It
// is the sequential pop: no fence and no CAS, so it costs a few loads and one
// store, and it is small enough to be inlined. Owner only. Len and IsEmpty
// may still run concurrently. Called while a
// thief may steal, it breaks the deque: an element can be taken twice.
func (d *Deque[T]) PopUnshared() (v T, ok bool) {
	// bottom is stored as in Pop, so that Len and IsEmpty stay safe.
	b := d.bottom
	if int64(b-atomic.LoadUint64(&d.top)) <= 0 {
		return v, false
	}
	b--
	// No thief can be between top and b: the element is ours, and the
	// deque is empty again if b == top (bottom == top).
	storeRelease(&d.bottom, b)
	return T(d.slots[b&d.mask]), true
}

// popOutcome says how a pop ended; the tests count the rare ones.
type popOutcome uint8

const (
	popEmpty    popOutcome = iota // nothing there at the first look
	popLostRace                   // thieves emptied it between the first look and the fence
	popLostLast                   // the last element went to a thief's CAS
	popTook                       // took an element that no thief could reach (size > 1)
	popWonLast                    // took the last element, winning the CAS against thieves
)

// pop is Pop with its outcome. The last element and the lost race are in
// popContended.
func (d *Deque[T]) pop() (T, popOutcome) {
	b := d.bottom
	if int64(b-atomic.LoadUint64(&d.top)) <= 0 {
		// Empty. top only grows, so a stale top overstates the size: if even
		// that says empty, it is. Skips the fence for the idle worker's
		// polling pop.
		return 0, popEmpty
	}
	b--
	// O1. Claim the bottom element: bottom = b-1, then a full fence, then
	// read top. The fence orders our store of bottom before our load of
	// top; it pairs with the thief's fence between its load of top and its
	// load of bottom (S2): either the thief sees the decremented bottom, or
	// we see the thief's incremented top. storeFenced is the store and the
	// fence: MOV + LOCK XADD on amd64, STLR + DMB ISH on arm64
	// (release_*.go).
	storeFenced(&d.bottom, b)
	t := atomic.LoadUint64(&d.top)
	if int64(b-t) > 0 {
		// O2b. At least one element remains between top and ours: a thief
		// that reaches index b must first see bottom > b, and it cannot any
		// more (O1). Plain read: our own store; thieves only read slots.
		return T(d.slots[b&d.mask]), popTook
	}
	return d.popContended(b, t)
}

// popContended finishes a pop that claimed index b (bottom is b) and then
// read top t >= b: thieves took everything (t > b), or b is the last
// element and a thief may be taking it too (t == b). Owner only.
func (d *Deque[T]) popContended(b, t uint64) (T, popOutcome) {
	if t != b {
		// O2a. Thieves took everything since our first look. Undo.
		storeRelease(&d.bottom, b+1)
		return 0, popLostRace
	}
	v := T(d.slots[b&d.mask])
	// O3. The last element: a thief that read top == b before our fence may
	// be about to take it. Whoever moves top from b to b+1 owns it. The CAS
	// pairs with the thief's CAS (S7).
	won := atomic.CompareAndSwapUint64(&d.top, t, t+1)
	// Either way top is now b+1: restore bottom = b+1, the empty deque.
	storeRelease(&d.bottom, b+1)
	if !won {
		return 0, popLostLast
	}
	return v, popWonLast
}

// Len returns the number of elements, as seen at one moment during the call.
// Any goroutine. Concurrent Push, Pop and Steal make it approximate.
func (d *Deque[T]) Len() int {
	t := atomic.LoadUint64(&d.top)
	b := atomic.LoadUint64(&d.bottom)
	if n := int64(b - t); n > 0 {
		return int(n)
	}
	return 0
}

// Cap returns the number of elements the current ring holds before Push
// grows it: the deque's memory is Cap words. It only grows. Any goroutine.
func (d *Deque[T]) Cap() int { return int(d.buf.Load().capacity()) }

// IsEmpty reports whether Len() == 0. Any goroutine; approximate like Len.
func (d *Deque[T]) IsEmpty() bool { return d.Len() == 0 }

// noCopy makes go vet's copylocks check report a copied Deque: a copy would
// share the ring but not the indexes.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}
