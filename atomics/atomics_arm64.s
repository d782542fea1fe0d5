//go:build !race

#include "textflag.h"

// ARMv8 is weakly ordered: plain LDR/STR may be reordered with each other in
// every combination. LDAR/STLR are the acquire/release forms (and, unlike
// C11 acquire/release, an STLR followed by an LDAR is also kept in order:
// RCsc). DMB ISH is the full barrier for the inner-shareable domain, which
// holds every CPU that runs this process. None of these functions store a Go
// pointer; they are for integer words only.

// func SeqCstFence()
// Atomically:
//	(no memory access) DMB ISH: every earlier load and store is ordered
//	before every later one, for all observers in the inner-shareable domain.
//	arm64 has no cheaper way to order an earlier store before a later load:
//	DMB ISHST orders only store->store, DMB ISHLD only load->load/store, and
//	a read-modify-write with acquire+release semantics (SWPAL, LDADDAL)
//	orders accesses against itself rather than the plain accesses around it.
TEXT ·SeqCstFence(SB), NOSPLIT, $0-0
	DMB	$0xb	// ISH
	RET

// func SpinHint()
// Atomically:
//	(no memory access) ISB. YIELD is architecturally a hint but retires as a
//	NOP on cores without SMT (Neoverse N1/V1/V2, Apple M1-M3, Graviton), so a
//	YIELD loop spins at full speed on the contended line; ISB flushes the
//	pipeline and delays the next probe by tens of cycles, the closest
//	analogue of x86 PAUSE (the choice Rust's core::hint::spin_loop made).
TEXT ·SpinHint(SB), NOSPLIT, $0-0
	ISB	$15
	RET

// func LoadAcquire64(p *uint64) uint64
// Atomically:
//	return *p   (acquire: LDAR)
TEXT ·LoadAcquire64(SB), NOSPLIT, $0-16
	MOVD	p+0(FP), R0
	LDAR	(R0), R0
	MOVD	R0, ret+8(FP)
	RET

// func StoreRelease64(p *uint64, v uint64)
// Atomically:
//	*p = v   (release: STLR)
TEXT ·StoreRelease64(SB), NOSPLIT, $0-16
	MOVD	p+0(FP), R0
	MOVD	v+8(FP), R1
	STLR	R1, (R0)
	RET

// func StoreRelease32(p *uint32, v uint32)
// Atomically:
//	*p = v   (release: STLRW)
TEXT ·StoreRelease32(SB), NOSPLIT, $0-12
	MOVD	p+0(FP), R0
	MOVWU	v+8(FP), R1
	STLRW	R1, (R0)
	RET
