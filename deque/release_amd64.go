//go:build !race

package deque

import "github.com/blitz-go/blitz/atomics"

// storeRelease stores an index or a slot with release ordering.
//
// amd64: a plain Go store, which the gc compiler turns into one MOVQ and
// inlines into Push and Pop. Why that is a release store here:
//
//   - x86-64 is TSO: every aligned MOV store already has release semantics
//     (no earlier load or store is made visible after it), which is why
//     atomics.StoreRelease64 is a MOVQ too (atomics/atomics_amd64.s).
//   - The store is a single aligned 8-byte MOVQ: it is not torn (the Go
//     memory model also requires a word-sized access to observe a value
//     actually written).
//   - The compiler keeps it in program order: gc threads every store and
//     every sync/atomic operation through one memory chain, and no pass
//     moves a store past another store or an atomic (dead-store elimination
//     only drops a store overwritten before any load, call or atomic, which
//     never holds for bottom or a slot: Push is followed by the caller's
//     work, Pop by its fence). So P1 (slot) stays before P2 (bottom), and
//     O1's store of bottom stays before its fence.
//
// The Go memory model does not call a plain store a release store: the
// guarantee rests on the ISA and the compiler, as an assembly store behind
// a CALL would (atomics.StoreRelease64), without the CALL. Under -race
// release_other.go uses atomic.StoreUint64 instead, so the detector sees
// every publication (P2 -> S3). BenchmarkPushPop and the pool's
// BenchmarkFib measure the difference (bench/results/join-fastpath-amd64.txt).
func storeRelease(p *uint64, v uint64) { *p = v }

// storeFenced stores v into *p and then fences: no later load is performed
// before the store is visible to all CPUs (Pop's step O1).
//
// amd64: a MOV store (storeRelease) and SeqCstFence (an inlined LOCK XADD
// on a stack local). The alternative, atomic.StoreUint64 (one XCHG: store
// and fence in one instruction), measured slower inside Pop
// (BenchmarkPopFence, bench/results/deque-amd64.txt).
func storeFenced(p *uint64, v uint64) {
	*p = v                // storeRelease
	atomics.SeqCstFence() // pairs with the thief's fence S2 (steal.go)
}
