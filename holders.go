package blitz

import (
	mathbits "math/bits"
	"sync/atomic"

	"github.com/blitz-go/blitz/sleep"
)

// Holders: where a grown pool's thieves look.
//
// A pool that grew far past its sweep (steal.go) for blocked workers
// (blocking.go) holds thousands of workers, nearly all of them in a task
// that blocked, with empty deques. A thief that samples sweep victims at
// random pays a cache miss per probe for nothing, once per task that ends
// in a quiet queue (a tenth of the CPU of 10,000 tasks that sleep 1 ms),
// and finds a worker that does fork (a request's handler splitting its
// CPU part) by chance only: sweep of thousands.
//
// So in such a pool a worker that pushes a job, or offers its lazy halves,
// sets its bit in holders, a bit per worker as the sleep protocol keeps
// its sleepers (sleep.Sleep), and thieves try the workers whose bits are
// set before a small random sample. A thief that finds a holder's deque
// empty asks it for its lazy halves (offer.go), clears its bit and looks
// at the deque once more, setting the bit again if a job arrived between
// its probe and the clear. The owner announces after its push, the thief
// clears before its second look: the pair is the Dekker shape, but the
// owner only loads its bit before setting it, with no fence between its
// push and that load, so a bit can be lost. A lost bit costs parallelism,
// never progress: every job in a deque is run by its owner if no thief
// comes (steal.go), and the monitor names a blocked owner that holds work
// for the thieves (Pool.stuck). A pool within its sweep never reads or
// writes holders: its thieves probe every victim.

// holderSet is a bit per worker index: the workers of a grown pool that
// pushed or offered a job since a thief last found them empty.
// Set by the owner (announce, sync/atomic Or after a load), cleared by
// thieves (clear, sync/atomic And); loaded by thieves (next). No ordering
// beyond sync/atomic's: the bits are hints (see above).
// count is the number of bits set, so that a thief of a pool where nobody
// forks reads one word, not a bit per worker: changed by whoever flips a
// bit, after the flip (sync/atomic; a thief that reads it stale misses a
// holder or scans for none, as with a stale bit).
//
// found counts the jobs thieves took from holders (tests): added to by
// the thief, loaded by tests.
type holderSet struct {
	count atomic.Int32
	found atomic.Uint64
	bits  [(sleep.MaxWorkers + 63) / 64]atomic.Uint64
}

// announce sets worker i's bit, unless it is set already.
func (h *holderSet) announce(i int) {
	word, bit := &h.bits[i>>6], uint64(1)<<(i&63)
	if word.Load()&bit == 0 && word.Or(bit)&bit == 0 {
		h.count.Add(1)
	}
}

// clear clears worker i's bit.
func (h *holderSet) clear(i int) {
	bit := uint64(1) << (i & 63)
	if h.bits[i>>6].And(^bit)&bit != 0 {
		h.count.Add(-1)
	}
}

// next returns the first worker index set in [from, n), or -1.
func (h *holderSet) next(from, n int) int {
	for k := from >> 6; k*64 < n; k++ {
		b := h.bits[k].Load()
		if k == from>>6 {
			b &= ^uint64(0) << (from & 63)
		}
		if b == 0 {
			continue
		}
		if i := k*64 + mathbits.TrailingZeros64(b); i < n {
			return i
		}
		return -1
	}
	return -1
}

// grown reports whether the pool has more active workers than one steal
// pass samples (steal.go: the sweep): its thieves then look at holders.
func (p *Pool) grown() bool {
	return int(p.active.Load())-1 > int(p.sweep.Load())
}
