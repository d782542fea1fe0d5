//go:build (!amd64 && !arm64) || race

package deque

import "sync/atomic"

// storeRelease stores an index or a slot with (at least) release ordering.
//
// Off amd64 and arm64, and under -race everywhere, it is atomic.StoreUint64:
// sequentially consistent, so at least a release store on every port, and
// under -race the detector must see the publication.
func storeRelease(p *uint64, v uint64) { atomic.StoreUint64(p, v) }

// storeFenced stores v into *p and then fences: no later load is performed
// before the store is visible (Pop's step O1).
//
// atomic.StoreUint64 is sequentially consistent, and so is the following
// atomic.LoadUint64 of top: in the Go memory model the load cannot be
// ordered before the store, whatever instructions the port uses for it.
func storeFenced(p *uint64, v uint64) { atomic.StoreUint64(p, v) }
