//go:build !race

package deque

import "github.com/blitz-go/blitz/atomics"

// storeRelease stores an index or a slot with release ordering.
//
// amd64: atomics.StoreRelease64, a plain MOV behind a CALL, about 5x cheaper
// than atomic.StoreUint64's XCHG (bench/results/atomics-amd64.txt). The
// release is all these stores need: the fences the protocol requires are
// placed explicitly (see doc.go).
func storeRelease(p *uint64, v uint64) { atomics.StoreRelease64(p, v) }

// storeFenced stores v into *p and then fences: no later load is performed
// before the store is visible to all CPUs (Pop's step O1).
//
// amd64: a MOV store and SeqCstFence (an inlined LOCK XADD on a stack
// local). The alternative, atomic.StoreUint64 (one XCHG: store and fence in
// one instruction), measured slower inside Pop (BenchmarkPopFence,
// bench/results/deque-amd64.txt), although the two tie in isolation.
func storeFenced(p *uint64, v uint64) {
	atomics.StoreRelease64(p, v)
	atomics.SeqCstFence()
}
