//go:build !race

#include "textflag.h"

// x86-64 is TSO: every MOV load already has acquire and every MOV store
// release semantics, so the acquire/release functions are plain MOVs and the
// only reordering a fence has to forbid is a store followed by a later load.
// None of these functions store a Go pointer (the GC write barrier would be
// skipped); they are for integer words only.

// func SpinHint()
// Atomically:
//	(no memory access) PAUSE: yields the core's pipeline to its sibling
//	hyperthread and avoids the memory-order machine clear on loop exit.
TEXT ·SpinHint(SB), NOSPLIT, $0-0
	PAUSE
	RET

// func LoadAcquire64(p *uint64) uint64
// Atomically:
//	return *p   (acquire: an aligned MOVQ under TSO)
TEXT ·LoadAcquire64(SB), NOSPLIT, $0-16
	MOVQ	p+0(FP), AX
	MOVQ	0(AX), AX
	MOVQ	AX, ret+8(FP)
	RET

// func StoreRelease64(p *uint64, v uint64)
// Atomically:
//	*p = v   (release: an aligned MOVQ under TSO; no XCHG, no fence)
TEXT ·StoreRelease64(SB), NOSPLIT, $0-16
	MOVQ	p+0(FP), AX
	MOVQ	v+8(FP), BX
	MOVQ	BX, 0(AX)
	RET

// func StoreRelease32(p *uint32, v uint32)
// Atomically:
//	*p = v   (release: an aligned MOVL under TSO; no XCHG, no fence)
TEXT ·StoreRelease32(SB), NOSPLIT, $0-12
	MOVQ	p+0(FP), AX
	MOVL	v+8(FP), BX
	MOVL	BX, 0(AX)
	RET
