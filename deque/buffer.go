package deque

// # Why old rings are safe
//
// A thief may load the ring pointer (S4), be delayed, and read a slot (S5)
// after the owner has replaced the ring. The old ring is never written
// again and never reused: nothing frees it (freeing it at the swap would be
// a use-after-free for such a thief) and the garbage collector keeps it alive
// while any thief holds it. The slot it reads still holds what it held when the ring
// was current. S6 then re-checks the ring, as crossbeam-deque does since its
// fix for CVE-2021-32810 (a steal racing a ring swap), so that no decision
// rests on a ring that is no longer the current one, and S7 checks that
// element t has not been taken by anyone else.

// buffer is one ring of slots. Its capacity is a power of two; logical index
// i (a uint64 that only grows, and may wrap) lives in slots[i&mask].
//
// Who touches a buffer:
//   - the owner writes slots (release store) while the buffer is current, and
//     reads them back in Pop (plain reads of its own stores);
//   - thieves read slots (atomic load) of whichever buffer they loaded, even
//     one that has since been replaced;
//   - once replaced by grow, a buffer is never written again and never
//     reused; the garbage collector frees it when the last thief holding it
//     lets go. That is what makes a thief's read of a stale buffer harmless:
//     the slot still holds the element it held when the buffer was current,
//     and the thief's re-check and CAS decide whether that read counts.
//
// Slots hold integers, never Go pointers, so the owner's stores into them
// need no GC write barrier, and Push allocates nothing until the ring is
// full.
type buffer struct {
	mask  uint64   // len(slots) - 1; immutable
	slots []uint64 // len is a power of two; immutable slice header
}

func newBuffer(capacity int) *buffer {
	return &buffer{mask: uint64(capacity) - 1, slots: make([]uint64, capacity)}
}

// at returns the slot of logical index i.
func (b *buffer) at(i uint64) *uint64 { return &b.slots[i&b.mask] }

// capacity is the number of slots.
func (b *buffer) capacity() uint64 { return b.mask + 1 }
