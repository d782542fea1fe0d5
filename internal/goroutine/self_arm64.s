#include "textflag.h"

// On arm64 the runtime keeps the running goroutine's g in R28, which the
// assembler names g and which ABI0 code may read (it must not write it).

// func self() uintptr
// Reads:
//	the address of the calling goroutine's g (no shared memory)
TEXT ·self(SB), NOSPLIT, $0-8
	MOVD	g, R0
	MOVD	R0, ret+0(FP)
	RET
