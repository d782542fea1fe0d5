// Package atomics holds the memory-ordering primitives the pool is built on:
// acquire loads and release stores of integer words, full fences, a
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
// # The primitives, per architecture
//
//	primitive          amd64 (TSO)            arm64 (weak)   other GOARCH, -race
//	LoadAcquire64/32   MOVQ / MOVL            LDAR / LDARW   atomic.Load (SC)
//	StoreRelease64/32  MOVQ / MOVL            STLR / STLRW   atomic.Store (SC)
//	FullFence          MFENCE                 DMB ISH        atomic RMW of a local
//	LockedFence        LOCK ORL $0, (SP)      DMB ISH        atomic RMW of a local
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
// FullFence is the architectural full barrier. LockedFence is the cheaper
// full fence where one exists: on amd64 any LOCK-prefixed read-modify-write
// drains the store buffer like MFENCE for ordinary write-back memory (it does
// not order non-temporal stores, which Go never emits); it touches the
// caller's return-address word, a line no other thread writes, and ORs in 0.
// arm64 has nothing cheaper than DMB ISH that orders an earlier store before
// a later load (DMB ISHST orders store->store only, DMB ISHLD load->any only,
// and an acquire-release RMW orders accesses against itself), so LockedFence
// is DMB ISH there.
//
// SeqCstFence is the one the hot paths call. On amd64 it is not assembly at
// all: `var x uint32; atomic.AddUint32(&x, 0)` compiles to a LOCK XADDL on a
// stack slot (checked with -gcflags=-m: x does not escape; and with objdump),
// inlines into the caller, and is the cheapest full fence measured here (an
// XCHGL or LOCK ORL on the local costs the same). On arm64 it is DMB ISH.
//
// SpinHint is PAUSE on amd64. On arm64 it is ISB rather than YIELD: YIELD is
// a hint that retires as a NOP on cores without SMT (Neoverse N1/V1/V2,
// Graviton, Apple M-series), so a YIELD loop probes the contended line at
// full speed; ISB flushes the pipeline and delays the next probe by a few
// tens of cycles, the closest analogue of PAUSE (Rust's spin_loop made the
// same choice). This was reasoned, not measured: the only arm64 here is
// qemu, which says nothing about timing.
//
// # The numbers, and what the hot paths use
//
// Measured on the development machine (2-vCPU KVM guest, Intel Xeon, Go
// 1.26; 10 interleaved runs, benchstat medians; raw data and the command in
// bench/results/atomics-amd64.txt):
//
//	release store     asm MOV 0.87 ns        atomic.Store (XCHG) 4.88 ns    asm 5.6x cheaper
//	acquire load      asm MOV 1.01 ns        atomic.Load (MOV, inlined) 0.32 ns   asm 3.1x dearer
//	full fence alone  MFENCE 15.5 ns, asm LOCK OR 9.6 ns,
//	                  inlined LOCK XADD / XCHG / LOCK OR on a local 7.4 ns (SeqCstFence 7.4 ns)
//	store+fence+load  XCHG + MOV 6.8 ns; asm MOV + SeqCstFence + MOV 8.2 ns;
//	                  asm MOV + LOCK OR 11.4 ns; asm MOV + MFENCE 17.3 ns
//	spin hint         PAUSE 15.5 ns per call (on this Xeon, about 40 cycles)
//
// So, on amd64:
//
//   - Release stores of integer words (the deque's slots and bottom index)
//     use StoreRelease64: a plain MOV that beats atomic.Store's XCHG by 5.6x
//     even after paying for the CALL.
//   - Acquire loads use atomic.Load, not LoadAcquire64: atomic.Load is
//     already a plain MOV, and it inlines; the asm load loses by exactly its
//     CALL (1.01 vs 0.32 ns). LoadAcquire64/32 are kept for symmetry and for
//     code that wants to name the ordering; on arm64 they are the same LDAR
//     as atomic.Load, behind a CALL, so nothing hot uses them there either.
//   - A fence on its own is SeqCstFence: the inlined locked RMW, 2.1x cheaper
//     than MFENCE and 1.3x cheaper than the asm LOCK OR (which pays a CALL).
//   - A store that must be followed by a full fence: in isolation one XCHG
//     (atomic.Store) is cheapest (6.8 vs 8.2 ns), but inside the deque's Pop
//     a MOV store + SeqCstFence measured 23% faster than XCHG
//     (bench/results/deque-amd64.txt, BenchmarkPopFence), so Pop uses that;
//     other users should measure in their own context.
//
// On arm64 the same Go code runs with STLR stores and LDAR loads, all of
// which (asm or sync/atomic) are the same instructions; only the CALL
// differs, so the hot paths use sync/atomic there, and DMB ISH where a
// fence is needed. Nothing here has been timed on arm64 hardware (qemu runs
// the tests, which checks encodings and ABI, not timing or weak ordering).
//
// # Cache lines
//
// CacheLineSize is the padding granule, a constant per GOARCH with its
// reason beside it (cacheline_*.go), and Pad is that many bytes. On amd64 it
// is 128, not the 64-byte line. The false-sharing benchmark (two goroutines
// incrementing counters 8, 64, 128 and 256 bytes apart) shows the same-line
// case 5.2x slower (LOCK XADD, 37.6 vs 7.2 ns) but no difference at all
// between 64 and 128 bytes on this 2-vCPU guest: its host does not expose
// adjacent-line coupling to us. That cannot show SMT siblings, other
// sockets, or hosts with the spatial prefetcher enabled, where crossbeam and
// Folly measured it; 128 costs 64 bytes per padded field on a handful of
// per-worker structures, while under-padding costs a 5x slowdown where the
// coupling exists. DetectedCacheLineSize reports the line the machine has,
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
// in about 3% of rounds under qemu-aarch64 here, never natively. Protocols
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
