package deque

import (
	"strconv"
	"sync/atomic"

	"github.com/blitz-go/blitz/atomics"
)

// Word is the set of element types: 64-bit integers. Elements are meant to
// be indexes (for example of job frames the owner keeps in an array), so the
// deque never holds a Go pointer: no GC write barrier on the owner's path,
// no allocation per element, and its slots may be written from assembly.
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
	// before it), a sequentially consistent store in Pop (the store-load
	// fence of the protocol), release store when Pop undoes its decrement.
	// Read by the owner with plain loads (it is the only writer) and by
	// thieves with atomic loads. top <= bottom+1 always; bottom-top is the
	// size, or -1 for the instant a Pop on an empty deque decrements it.
	bottom uint64

	// buf is the current ring. Written only by the owner (Store in grow,
	// after the new ring is filled: publishes its slots); read by the owner
	// and by thieves (Load). Replaced buffers are never written again.
	buf atomic.Pointer[buffer]

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
	d := &Deque[T]{top: start, bottom: start}
	d.buf.Store(newBuffer(c))
	return d
}

// Push adds v at the bottom. Owner only. It allocates only when the ring is
// full (it then doubles it).
func (d *Deque[T]) Push(v T) {
	b := d.bottom                  // plain: the owner is bottom's only writer
	t := atomic.LoadUint64(&d.top) // a stale top is smaller: it can only make us grow early
	buf := d.buf.Load()
	if b-t > buf.mask { // b-t == capacity: full
		buf = d.grow(buf, t, b)
	}
	// P1. Write the slot. Atomic (a thief holding a stale top may be reading
	// this very slot of the ring; its CAS will fail, but the read must not be
	// a data race), but needs no ordering of its own: P2 publishes it.
	storeRelease(buf.at(b), uint64(v))
	// P2. Release-store bottom: publishes the slot written in P1. Pairs with
	// the thief's acquire load of bottom (S3), after which it reads the slot.
	storeRelease(&d.bottom, b+1)
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
	d.buf.Store(nb)
	return nb
}

// Pop removes and returns the newest element (LIFO). Owner only. It reports
// false if the deque was empty, or if its last element went to a thief that
// won the race for it.
func (d *Deque[T]) Pop() (T, bool) {
	v, o := d.pop()
	return v, o >= popTook
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

func (d *Deque[T]) pop() (T, popOutcome) {
	var zero T
	b := d.bottom
	t := atomic.LoadUint64(&d.top)
	if int64(b-t) <= 0 {
		// Empty. top only grows, so a stale t overstates the size: if even
		// that says empty, it is. Skips the fence for the idle worker's
		// polling pop.
		return zero, popEmpty
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
	t = atomic.LoadUint64(&d.top)
	size := int64(b - t) // elements left below the one we claim
	if size < 0 {
		// O2a. Thieves took everything since our first look. Undo.
		storeRelease(&d.bottom, b+1)
		return zero, popLostRace
	}
	v := T(*d.buf.Load().at(b)) // plain: our own store; thieves only read slots
	if size > 0 {
		// O2b. At least one element remains between top and ours: a thief
		// that reaches index b must first see bottom > b, and it cannot any
		// more (O1).
		return v, popTook
	}
	// O3. The last element: a thief that read top == b before our fence may
	// be about to take it. Whoever moves top from b to b+1 owns it. The CAS
	// pairs with the thief's CAS (S7).
	won := atomic.CompareAndSwapUint64(&d.top, t, t+1)
	// Either way top is now b+1: restore bottom = b+1, the empty deque.
	storeRelease(&d.bottom, b+1)
	if !won {
		return zero, popLostLast
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

// IsEmpty reports whether Len() == 0. Any goroutine; approximate like Len.
func (d *Deque[T]) IsEmpty() bool { return d.Len() == 0 }

// noCopy makes go vet's copylocks check report a copied Deque: a copy would
// share the ring but not the indexes.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}
