//go:build (amd64 || arm64) && !race

package atomics

// The functions below are implemented in atomics_amd64.s and atomics_arm64.s;
// atomics_generic.go (other GOARCHes) and atomics_race.go (-race) are their
// sync/atomic twins. What each one compiles to, and its cost, is in doc.go.
// Assembly is ABI0 and never inlined: every call costs a CALL/RET on top of the
// instruction itself, which is why the hot paths only use the ones that still
// beat sync/atomic after paying for it (see doc.go for the numbers).

// FullFence orders every load and store before it against every load and
// store after it: MFENCE on amd64, DMB ISH on arm64.
func FullFence()

// LockedFence is a full fence made of a LOCK-prefixed read-modify-write of a
// stack word (LOCK ORL $0, (SP)) on amd64, which is architecturally as strong
// as MFENCE for ordinary write-back memory and cheaper. On arm64 there is no
// cheaper full fence than DMB ISH, so it is the same instruction as FullFence.
func LockedFence()

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

// LoadAcquire32 is LoadAcquire64 for a 32-bit word: MOVL / LDARW.
//
//go:noescape
func LoadAcquire32(p *uint32) uint32

// StoreRelease32 is StoreRelease64 for a 32-bit word: MOVL / STLRW.
//
//go:noescape
func StoreRelease32(p *uint32, v uint32)
