//go:build race

package atomics

import "sync/atomic"

// This file replaces the assembly under -race. The race detector cannot see
// memory accesses made from assembly, so a value published by an asm
// StoreRelease64 and read by an asm LoadAcquire64 would look unsynchronised
// (or, worse, the accesses would be invisible and real races would be
// missed). Every primitive here is the sync/atomic operation that subsumes
// it, which the detector understands as synchronisation.

// SeqCstFence orders every earlier load and store against every later one.
// Under -race it is a sequentially consistent read-modify-write of a stack
// local. It must not touch a shared variable:
// the detector would treat every pair of fence calls as a happens-before
// edge and hide real races between their callers. In the Go memory model a
// fence orders nothing by itself; what -race checks is the sync/atomic
// accesses around it, which are sequentially consistent.
func SeqCstFence() {
	var x uint32
	atomic.AddUint32(&x, 0)
}

// SpinHint is a spin-wait hint; under -race it does nothing.
func SpinHint() {}

// LoadAcquire64 atomically loads *p with (at least) acquire ordering.
func LoadAcquire64(p *uint64) uint64 { return atomic.LoadUint64(p) }

// StoreRelease64 atomically stores v into *p with (at least) release ordering.
func StoreRelease64(p *uint64, v uint64) { atomic.StoreUint64(p, v) }

// StoreRelease32 atomically stores v into *p with (at least) release ordering.
func StoreRelease32(p *uint32, v uint32) { atomic.StoreUint32(p, v) }
