// Package deque is the Chase-Lev work-stealing deque each worker of the pool
// owns: the owner pushes and pops at one end (LIFO, the newest job, whose
// data is hot in its cache), other workers steal from the other end (FIFO,
// the oldest job, usually the biggest piece of a divide-and-conquer).
//
// # What a user calls
//
// New makes a deque. Its owner, one goroutine, calls Push, TryPush, Pop,
// PopFenced and PopUnshared (the last only while no goroutine steals from
// it); any goroutine calls Steal, StealIf, Len, Cap and IsEmpty. Steal's Status
// says whether it took an element, found none, or lost a race (Retry).
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
// # Costs
//
// bench/results/deque-amd64.txt compares Push, Pop and Steal, alone and
// under contention, with a mutex-guarded slice and a buffered channel;
// bench/results/join-fastpath-amd64.txt measures the owner's fast paths.
// Nothing allocates in steady state (TestPushPopDoesNotAllocate,
// TestFastPathsDoNotAllocate).
//
// # The last-element race
//
// When one element is left, both the owner (O3) and a thief (S7) may try to
// take it; the CAS on top decides. Without O1's fence a thief could read the
// old bottom while the owner read the old top, and both would take it. When
// the thief wins, Pop reports false although the deque was not empty a moment
// before: the element went to exactly one taker.
//
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
//
// # Retry
//
// Steal returns Retry, not Empty, when it took nothing because of a race: a
// lost CAS (S7) or a ring swap (S6). The deque was not empty; a caller
// that wants an element should try again or try another victim, and a caller
// deciding whether to sleep must not treat Retry as "no work".
//
// # Indexes and wrap-around
//
// top and bottom are uint64 and only grow (bottom dips by one inside Pop).
// All arithmetic on them is modulo 2^64: the size is int64(bottom-top) and
// the slot is index&mask, both exact across the wrap, so a deque may run
// forever. The tests start indexes just below 2^64 to prove it.
package deque
