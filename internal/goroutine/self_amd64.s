#include "textflag.h"

// The runtime keeps the running goroutine's g in thread-local storage on
// amd64 (and in R14 under ABIInternal, which assembly of this package,
// being ABI0, may not rely on). MOVQ TLS, r then 0(r)(TLS*1) is the
// runtime's own get_tls/g(r) pair (runtime/go_tls.h); the linker turns it
// into the FS-relative load this binary's build mode needs.

// func self() uintptr
// Reads:
//	the address of the calling goroutine's g (no shared memory)
TEXT ·self(SB), NOSPLIT, $0-8
	MOVQ	TLS, CX
	MOVQ	0(CX)(TLS*1), AX
	MOVQ	AX, ret+0(FP)
	RET
