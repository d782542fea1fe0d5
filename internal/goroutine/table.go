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
	// replaced only by grow, under mu and every bucket lock of the table
	// it replaces, when a bucket is full. A replaced table is never
	// written again.
	cur atomic.Pointer[table[V]]
	mu  sync.Mutex // serialises making the first table and growing
}

type table[V any] struct {
	mask    uint64 // len(buckets)-1; the length is a power of two
	buckets []bucket[V]
}

// bucket is eight slots. keys[i] is 0 for a free slot, and bit i of used
// is set while slot i holds a key, so that a Get whose bucket is empty (the
// usual case for a goroutine that has no entry) loads one word. A slot is
// written by Set and Clear under the bucket's mutex: Set stores the value,
// the key, then the used bit; Clear clears the bit, then the key and the
// value. A Get only ever finds its own goroutine's key, which that goroutine
// wrote itself, so it finds the value that goes with it. Loaded by Get with
// sync/atomic. One mutex per bucket, not one per Table: goroutines that
// Set and Clear at once (callers that borrow workers, route.go in the
// root package, on every call) meet only when they hash to one bucket.
type bucket[V any] struct {
	mu   sync.Mutex
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
	for {
		t := tb.cur.Load()
		if t == nil {
			tb.first()
			continue
		}
		b, ok := tb.lock(t, id)
		if !ok {
			continue // replaced meanwhile: put it in the new table
		}
		done := t.put(id, v)
		b.mu.Unlock()
		if done {
			return
		}
		tb.grow(t)
	}
}

// Clear removes the calling goroutine's value, if it has one.
func (tb *Table[V]) Clear() {
	id := Self()
	for {
		t := tb.cur.Load()
		if t == nil {
			return
		}
		b, ok := tb.lock(t, id)
		if !ok {
			continue
		}
		for i := range b.keys {
			if ID(b.keys[i].Load()) == id {
				b.used.And(^uint32(1 << i))
				b.keys[i].Store(0)
				b.vals[i].Store(nil)
				break
			}
		}
		b.mu.Unlock()
		return
	}
}

// lock locks id's bucket of t and reports true if t is still the current
// table; otherwise it unlocks it and reports false. A grower holds every
// bucket lock of t from before it copies t until after it replaced it, so
// a bucket locked in the current table is copied, if ever, after the
// writes made under this lock.
func (tb *Table[V]) lock(t *table[V], id ID) (*bucket[V], bool) {
	b := t.bucketOf(id)
	b.mu.Lock()
	if tb.cur.Load() != t {
		b.mu.Unlock()
		return nil, false
	}
	return b, true
}

// first makes the first table, unless another goroutine did.
func (tb *Table[V]) first() {
	tb.mu.Lock()
	if tb.cur.Load() == nil {
		tb.cur.Store(newTable[V](initialBuckets))
	}
	tb.mu.Unlock()
}

// grow replaces t, one of whose buckets is full, by a larger copy, unless
// another goroutine replaced it already.
func (tb *Table[V]) grow(t *table[V]) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if tb.cur.Load() != t {
		return
	}
	for i := range t.buckets {
		t.buckets[i].mu.Lock()
	}
	tb.cur.Store(t.grown())
	for i := range t.buckets {
		t.buckets[i].mu.Unlock()
	}
}

// Len returns the number of goroutines that have a value (exact when no
// Set or Clear runs meanwhile).
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
// The bucket's mutex is held.
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
// copy overflows). Every bucket lock of t is held; t is not changed. The
// copy's buckets are unlocked: nobody has it yet.
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
