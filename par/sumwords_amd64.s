//go:build !race && !purego

#include "textflag.h"

// func sumWordsSSE2(p *uint64, n int) uint64
//
// n is a positive multiple of 8. Eight running sums, two per register in
// X0-X3, each loaded 64 bytes at a time without alignment, added
// together at the end.
TEXT ·sumWordsSSE2(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	PXOR X0, X0
	PXOR X1, X1
	PXOR X2, X2
	PXOR X3, X3

loop:
	MOVOU 0(SI), X4
	MOVOU 16(SI), X5
	MOVOU 32(SI), X6
	MOVOU 48(SI), X7
	PADDQ X4, X0
	PADDQ X5, X1
	PADDQ X6, X2
	PADDQ X7, X3
	ADDQ  $64, SI
	SUBQ  $8, CX
	JNZ   loop

	PADDQ  X1, X0
	PADDQ  X3, X2
	PADDQ  X2, X0
	PSHUFD $0xEE, X0, X1 // the high word into the low one
	PADDQ  X1, X0
	MOVQ   X0, AX
	MOVQ   AX, ret+16(FP)
	RET
