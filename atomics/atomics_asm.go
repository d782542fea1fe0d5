//go:build (amd64 || arm64) && !race

package atomics

// The primitives, and why they exist.
//
// # Why not just sync/atomic
//
// Every sync/atomic operation is sequentially consistent. That is the right
// default and the hot paths use it wherever it is cheapest, but a
// work-stealing deque and a sleep protocol need less than SC in some places
// and Go exposes nothing weaker: there is no acquire/release API, and
// //go:linkname into internal/runtime/atomic stopped linking in Go 1.23. So
// this package provides the weaker operations in assembly, and a benchmark
// decides, primitive by primitive, whether the assembly pays for its CALL
// (user assembly is ABI0 and never inlined).
//
// Their users in this module: the pool's per-worker counters and its
// injector's ready flags use StoreRelease64/32 and LoadAcquire64;
// SeqCstFence is the fence of the store-then-load patterns that need one
// (the deque's Pop and steal, the sleep protocol's F1 and F2).
//
// # The primitives, per architecture
//
//	primitive          amd64 (TSO)            arm64 (weak)   other GOARCH, -race
//	LoadAcquire64      MOVQ                   LDAR           atomic.Load (SC)
//	StoreRelease64/32  MOVQ / MOVL            STLR / STLRW   atomic.Store (SC)
//	SeqCstFence        LOCK XADDL, inlined    DMB ISH        atomic RMW of a local
//	SpinHint           PAUSE                  ISB            nothing
//
// On amd64 every MOV load is an acquire and every MOV store a release
// (x86-TSO); the only reordering the hardware performs is a store passing a
// later load (the store buffer), and only a full fence forbids that. On arm64
// LDAR/STLR are the acquire/release instructions, and an STLR followed by an
// LDAR is also kept in order (RCsc), which is what makes Go's sync/atomic on
// arm64 sequentially consistent without fences.
//
// Why SeqCstFence is what it is on each architecture is told beside it, in
// seqcst_amd64.go and seqcst_arm64.go.
//
// SpinHint is PAUSE on amd64. On arm64 it is ISB rather than YIELD: YIELD is
// a hint that retires as a NOP on cores without SMT (Neoverse N1/V1/V2,
// Graviton, Apple M-series), so a YIELD loop probes the contended line at
// full speed; ISB flushes the pipeline and delays the next probe by a few
// tens of cycles, the closest analogue of PAUSE (Rust's spin_loop made the
// same choice). This is reasoned, not measured: the only arm64 here is qemu,
// which says nothing about timing.
//
// # What the assembly is for
//
// Assembly is ABI0 and never inlined, so each primitive has to beat
// sync/atomic after paying for its CALL (BenchmarkStore, BenchmarkLoad,
// BenchmarkFence and BenchmarkStoreFenceLoad; figures in
// bench/results/atomics-amd64.txt). On amd64:
//
//   - StoreRelease64/32 are a MOV where atomic.Store is an XCHG (a store and
//     a full fence): cheaper even behind the CALL, for single-writer words
//     that nothing needs fenced.
//   - LoadAcquire64 loses to atomic.Load, which is already a plain MOV and
//     inlines; it names the ordering at the pool's counter reads, which are
//     off the hot paths.
//   - The deque does not call StoreRelease64: its release stores are plain
//     Go stores, inlined, which TSO and the compiler's ordering of stores make
//     release stores (deque/release_amd64.go gives the argument).
//   - A store that must be followed by a full fence is one XCHG
//     (atomic.Store) in isolation, but inside the deque's Pop a plain store
//     plus SeqCstFence measured faster (BenchmarkPopFence,
//     bench/results/deque-amd64.txt); other users should measure in their
//     own context.
//
// On arm64 the asm and sync/atomic are the same STLR and LDAR instructions;
// only the CALL differs, so the hot paths use sync/atomic there, and DMB ISH
// where a fence is needed. Nothing here has been timed on arm64 hardware
// (qemu runs the tests, which checks encodings and ABI, not timing or weak
// ordering).
//
// # qemu is not arm64's memory model
//
// The arm64 tests run under qemu-user on an x86 host. It checks encodings,
// the ABI and most logic, but its memory ordering is neither the host's nor
// arm64's: it does not keep an STLR followed by an LDAR in order, which
// arm64 hardware does and Go's sync/atomic relies on for sequential
// consistency. A store-buffering litmus test on sync/atomic alone (x.Store;
// y.Load against y.Store; x.Load) shows both loads missing the other store
// in some rounds under qemu-aarch64, never natively. Protocols
// that need store->load order should say so with SeqCstFence (DMB ISH, which
// qemu does honour), as the deque's Pop does; it is also what the paper
// proofs assume.
//
// # Race detector and other architectures
//
// The race detector cannot see memory accesses made from assembly. Under
// -race (atomics_race.go) and on every GOARCH without assembly here
// (atomics_generic.go), each primitive is the sync/atomic operation that
// subsumes it, so -race sees every access as the synchronisation it is.
// The assembly never stores a Go pointer (that would skip the GC's write
// barrier): it is for integer words only; pointers are published from Go
// with atomic.Pointer.

// The functions below are implemented in atomics_amd64.s and atomics_arm64.s;
// atomics_generic.go (other GOARCHes) and atomics_race.go (-race) are their
// sync/atomic twins. SeqCstFence is in seqcst_amd64.go (Go, inlined) and
// atomics_arm64.s. What each one compiles to is in the table above. Assembly
// is ABI0 and never inlined: every call costs a CALL/RET on top of the
// instruction itself.

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
