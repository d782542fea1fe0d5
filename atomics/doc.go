// Package atomics holds the memory-ordering primitives the pool is built on:
// acquire loads and release stores of integer words, a full fence, a
// spin-wait hint, and cache-line padding sized per architecture.
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
// # What a user calls
//
//   - StoreRelease64 / StoreRelease32 and LoadAcquire64: publish an integer
//     word written by one goroutine (a counter, a ready flag) to readers on
//     others. The pool's per-worker counters and its injector's ready flags
//     use them.
//   - SeqCstFence: a full fence, for the store-then-load patterns that need
//     one (the deque's Pop and steal, the sleep protocol's F1 and F2).
//   - SpinHint: the body of a spin-wait loop.
//   - Pad, CacheLineSize and DetectedCacheLineSize: keep words that different
//     goroutines write on different cache lines.
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
// SeqCstFence is not assembly on amd64: `var x uint32; atomic.AddUint32(&x,
// 0)` compiles to a LOCK XADDL on a stack slot (x does not escape), inlines
// into the caller, and drains the store buffer like MFENCE for ordinary
// write-back memory, at a lower cost than MFENCE or an assembly LOCK OR that
// pays a CALL (bench/results/atomics-amd64.txt). On arm64 it is DMB ISH:
// nothing cheaper orders an earlier store before a later load (DMB ISHST
// orders store->store only, DMB ISHLD load->any only, and an
// acquire-release RMW orders accesses against itself).
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
// # Cache lines
//
// CacheLineSize is the padding granule, a constant per GOARCH with its
// reason beside it (cacheline_*.go), and Pad is that many bytes. On amd64 it
// is 128, not the 64-byte line: the adjacent-line prefetcher couples the
// two lines of a 128-byte pair, as crossbeam and Folly measured on hosts
// that expose it. The false-sharing benchmark (BenchmarkFalseSharing: two
// goroutines incrementing counters 8, 64, 128 and 256 bytes apart; figures
// in bench/results/atomics-amd64.txt) shows the same-line case several
// times slower, and cannot show the coupling on a guest whose host hides
// it. 128 costs 64 bytes per padded field on a handful of per-worker
// structures, while under-padding costs a multiple where the coupling
// exists. DetectedCacheLineSize reports the line the machine has,
// for reports; the tests check the compiled padding is never smaller.
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
package atomics
