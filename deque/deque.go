package deque

import (
	"strconv"
	"sync/atomic"

	"github.com/blitz-go/blitz/atomics"
)

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
// Steal (FIFO, at the top), Len and IsEmpty. See the package documentation
// for the protocol.
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
// full (it then doubles it).
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

// PopFenced is Pop without Pop's first look at top: it always claims the
// bottom index and fences (O1-O3 below), so on an empty deque it costs a
// fence where Pop costs two loads. It is for an owner that expects an
// element, such as a joiner taking back the job it just pushed, and is
// written to be inlined into such a caller (no call in it). Same result as
// Pop: false if the deque was empty or its last element went to a thief;
// the element is meaningful only with true.
//
// It is the steps of pop() after the first look, in one function:
// TestPopFenced* and the stress and fuzz tests run both.
func (d *Deque[T]) PopFenced() (v T, ok bool) {
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
// may still run concurrently (bottom is stored as in Pop). Called while a
// thief may steal, it breaks the deque: an element can be taken twice.
func (d *Deque[T]) PopUnshared() (v T, ok bool) {
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
