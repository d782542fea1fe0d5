//go:build !amd64 || race

package deque

import "sync/atomic"

// storeRelease stores an index or a slot with (at least) release ordering.
//
// Everywhere but amd64 it is atomic.StoreUint64. On arm64 that is an inlined
// STLR, the very instruction atomics.StoreRelease64 would execute after a
// CALL, so the assembly cannot win there. Under -race it must be sync/atomic
// so that the detector sees the publication.
func storeRelease(p *uint64, v uint64) { atomic.StoreUint64(p, v) }

// storeFenced stores v into *p and then fences: no later load is performed
// before the store is visible (Pop's step O1).
//
// atomic.StoreUint64 is sequentially consistent, so the following
// atomic.LoadUint64 of top cannot be performed before it: on arm64 an STLR
// followed by an LDAR is kept in order (RCsc), with no DMB; elsewhere it is
// the sync/atomic mapping's own fence.
func storeFenced(p *uint64, v uint64) { atomic.StoreUint64(p, v) }
