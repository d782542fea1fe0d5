//go:build !race

package deque

import (
	"sync/atomic"

	"github.com/blitz-go/blitz/atomics"
)

// storeRelease stores an index or a slot with release ordering.
//
// arm64: atomic.StoreUint64, an inlined STLR, the very instruction
// atomics.StoreRelease64 would execute after a CALL, so the assembly cannot
// win here.
func storeRelease(p *uint64, v uint64) { atomic.StoreUint64(p, v) }

// storeFenced stores v into *p and then fences: no later load is performed
// before the store is visible to all CPUs (Pop's step O1).
//
// arm64: STLR, then DMB ISH (atomics.SeqCstFence). Architecturally an STLR
// followed by an LDAR is already ordered (RCsc), so the LDAR of top alone
// would do on hardware; but qemu-user, which runs our arm64 tests, does not
// honour that pairing on an x86 host (the stress test took items twice
// there without the DMB), and Lê et al.'s protocol has the explicit fence.
// The DMB is what every arm64 port of Chase-Lev emits (crossbeam's
// fence(SeqCst)).
func storeFenced(p *uint64, v uint64) {
	atomic.StoreUint64(p, v)
	atomics.SeqCstFence()
}
