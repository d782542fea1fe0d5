//go:build !race

package atomics

import "sync/atomic"

// SeqCstFence is not assembly on amd64: `var x uint32; atomic.AddUint32(&x,
// 0)` compiles to a LOCK XADDL on a stack slot (x does not escape), inlines
// into the caller, and drains the store buffer like MFENCE for ordinary
// write-back memory, at a lower cost than MFENCE or an assembly LOCK OR that
// pays a CALL (bench/results/atomics-amd64.txt). The arm64 choice is in
// seqcst_arm64.go; the table of every primitive, in atomics_asm.go.

// SeqCstFence orders every earlier load and store against every later one.
// On amd64 it is a locked read-modify-write of a stack local (LOCK XADD),
// written in Go so that it inlines into the caller and costs no CALL.
func SeqCstFence() {
	var x uint32
	atomic.AddUint32(&x, 0) // pairs with whatever the caller's protocol names
}
