//go:build !race && !amd64 && !arm64

package atomics

import "sync/atomic"

// This file is the portable fallback for every GOARCH without assembly here.
// sync/atomic operations are sequentially consistent, which is stronger than
// every ordering promised below, so each primitive is implemented by the
// sync/atomic operation that subsumes it.

// SeqCstFence orders every earlier load and store against every later one.
// Here it is a sequentially consistent read-modify-write of a stack local
// (contention-free, never elided by the compiler). On this GOARCH the accesses made through this package are
// sync/atomic operations, which are sequentially consistent themselves; the
// fence adds the hardware barrier of an atomic read-modify-write around them.
func SeqCstFence() {
	var x uint32
	atomic.AddUint32(&x, 0)
}

// SpinHint is a spin-wait hint; this GOARCH has none wired up, so it does
// nothing.
func SpinHint() {}

// LoadAcquire64 atomically loads *p with (at least) acquire ordering.
func LoadAcquire64(p *uint64) uint64 { return atomic.LoadUint64(p) }

// StoreRelease64 atomically stores v into *p with (at least) release ordering.
func StoreRelease64(p *uint64, v uint64) { atomic.StoreUint64(p, v) }

// StoreRelease32 atomically stores v into *p with (at least) release ordering.
func StoreRelease32(p *uint32, v uint32) { atomic.StoreUint32(p, v) }
