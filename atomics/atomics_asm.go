//go:build (amd64 || arm64) && !race

package atomics

// The functions below are implemented in atomics_amd64.s and atomics_arm64.s;
// atomics_generic.go (other GOARCHes) and atomics_race.go (-race) are their
// sync/atomic twins. SeqCstFence is in seqcst_amd64.go (Go, inlined) and
// atomics_arm64.s. What each one compiles to is in doc.go. Assembly is ABI0
// and never inlined: every call costs a CALL/RET on top of the instruction
// itself.

// SpinHint tells the core that the caller is in a spin-wait loop: PAUSE on
// amd64, ISB on arm64.
func SpinHint()

// LoadAcquire64 atomically loads *p with acquire ordering: no later load or
// store is performed before it. MOVQ on amd64 (TSO), LDAR on arm64.
//
//go:noescape
func LoadAcquire64(p *uint64) uint64

// StoreRelease64 atomically stores v into *p with release ordering: no earlier
// load or store is performed after it. MOVQ on amd64 (TSO), STLR on arm64.
// p must not point to memory that holds Go pointers.
//
//go:noescape
func StoreRelease64(p *uint64, v uint64)

// StoreRelease32 is StoreRelease64 for a 32-bit word: MOVL / STLRW.
//
//go:noescape
func StoreRelease32(p *uint32, v uint32)
