package goroutine

import (
	"math/bits"
	"sync"
	"sync/atomic"
)

// ID is a goroutine's identity (Self): unique among live goroutines, never
// 0.
type ID uintptr

// slotsPerBucket is how many keys one bucket holds: eight IDs fill one
// 64-byte cache line.
const slotsPerBucket = 8

// A Table maps goroutines to values of type *V. The zero Table is empty and
// ready to use. See the package documentation for why Get is exact.
type Table[V any] struct {
	// cur is the current table: loaded by Get (sequentially consistent),
	// replaced only by Set under mu when a bucket is full. A replaced table
	// is never written again.
	cur atomic.Pointer[table[V]]
	mu  sync.Mutex // serialises Set and Clear
}

type table[V any] struct {
	mask    uint64 // len(buckets)-1; the length is a power of two
	buckets []bucket[V]
}

// bucket is eight slots. keys[i] is 0 for a free slot, and bit i of used
// is set while slot i holds a key, so that a Get whose bucket is empty (the
// usual case for a goroutine that has no entry) loads one word. A slot is
// written by Set and Clear under the Table's mutex: Set stores the value,
// the key, then the used bit; Clear clears the bit, then the key and the
// value. A Get only ever finds its own goroutine's key, which that goroutine
// wrote itself, so it finds the value that goes with it. Loaded by Get with
// sync/atomic.
type bucket[V any] struct {
	used atomic.Uint32
	keys [slotsPerBucket]atomic.Uintptr
	vals [slotsPerBucket]atomic.Pointer[V]
}

// initialBuckets is the first table's size: 64 buckets, 512 slots, 8 KB.
const initialBuckets = 64

// hash spreads g addresses, which share their low bits (a g is a few hundred
// bytes, allocated from one size class), over the buckets: a Fibonacci hash,
// high bits taken by the mask after the shift.
func (t *table[V]) bucketOf(id ID) *bucket[V] {
	h := uint64(id) * 0x9E3779B97F4A7C15
	return &t.buckets[(h>>32)&t.mask]
}

// Get returns the calling goroutine's value, or nil if it has none.
func (tb *Table[V]) Get() *V {
	t := tb.cur.Load()
	if t == nil {
		return nil
	}
	id := Self()
	b := t.bucketOf(id)
	for m := b.used.Load(); m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m) & (slotsPerBucket - 1)
		if ID(b.keys[i].Load()) == id {
			return b.vals[i].Load()
		}
	}
	return nil
}

// Set makes v the calling goroutine's value (replacing any it had). The
// calling goroutine must Clear it before it exits. A nil v panics.
func (tb *Table[V]) Set(v *V) {
	if v == nil {
		panic("goroutine: Table.Set: nil value")
	}
	id := Self()
	tb.mu.Lock()
	defer tb.mu.Unlock()
	t := tb.cur.Load()
	if t == nil {
		t = newTable[V](initialBuckets)
		tb.cur.Store(t)
	}
	for !t.put(id, v) {
		t = t.grown()
		tb.cur.Store(t)
	}
}

// Clear removes the calling goroutine's value, if it has one.
func (tb *Table[V]) Clear() {
	id := Self()
	tb.mu.Lock()
	defer tb.mu.Unlock()
	t := tb.cur.Load()
	if t == nil {
		return
	}
	b := t.bucketOf(id)
	for i := range b.keys {
		if ID(b.keys[i].Load()) == id {
			b.used.And(^uint32(1 << i))
			b.keys[i].Store(0)
			b.vals[i].Store(nil)
			return
		}
	}
}

// Len returns the number of goroutines that have a value.
func (tb *Table[V]) Len() int {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	t := tb.cur.Load()
	if t == nil {
		return 0
	}
	n := 0
	for i := range t.buckets {
		for j := range t.buckets[i].keys {
			if t.buckets[i].keys[j].Load() != 0 {
				n++
			}
		}
	}
	return n
}

func newTable[V any](buckets int) *table[V] {
	return &table[V]{mask: uint64(buckets - 1), buckets: make([]bucket[V], buckets)}
}

// put stores id's value in t, and reports false if id's bucket is full.
// The Table's mutex is held.
func (t *table[V]) put(id ID, v *V) bool {
	b := t.bucketOf(id)
	free := -1
	for i := range b.keys {
		switch ID(b.keys[i].Load()) {
		case id:
			b.vals[i].Store(v)
			return true
		case 0:
			if free < 0 {
				free = i
			}
		}
	}
	if free < 0 {
		return false
	}
	b.vals[free].Store(v)
	b.keys[free].Store(uintptr(id))
	b.used.Or(1 << free)
	return true
}

// grown returns a copy of t with twice the buckets (more if a bucket of the
// copy overflows). The Table's mutex is held; t is not changed.
func (t *table[V]) grown() *table[V] {
	for n := 2 * len(t.buckets); ; n *= 2 {
		c := newTable[V](n)
		if c.copyFrom(t) {
			return c
		}
	}
}

// copyFrom puts every entry of old into t, reporting false if a bucket
// overflowed.
func (t *table[V]) copyFrom(old *table[V]) bool {
	for i := range old.buckets {
		b := &old.buckets[i]
		for j := range b.keys {
			if id := ID(b.keys[j].Load()); id != 0 && !t.put(id, b.vals[j].Load()) {
				return false
			}
		}
	}
	return true
}
