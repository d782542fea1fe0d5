// Package atomics provides the memory orderings that sync/atomic does not
// name: acquire loads and release stores of integer words, a full fence, a
// spin-wait hint, and cache-line padding sized per architecture.
//
// Every sync/atomic operation is sequentially consistent, and Go has no
// acquire/release API. A work-stealing deque or a sleep protocol needs less
// than that in some places and an explicit store-to-load fence in others;
// this package says which, in code.
//
// # Which function
//
//	to ...                                                  call
//	publish an integer word written by one goroutine        StoreRelease64, StoreRelease32
//	read that word, and what its writer wrote before it     LoadAcquire64
//	order a store before a later load (store, then check)   SeqCstFence
//	wait in a spin loop                                     SpinHint
//	keep two hot fields off one cache line                  Pad (CacheLineSize bytes)
//	report the running machine's cache line                 DetectedCacheLineSize
//
// # Rules
//
//   - A release store pairs with an acquire load of the same word: a reader
//     whose LoadAcquire64 returns the stored value also sees every write its
//     writer made before the store. Release and acquire order nothing else:
//     a release store followed by a load of another word may be reordered.
//   - SeqCstFence orders every earlier load and store of the calling
//     goroutine before every later one. It pairs with a fence (or a
//     sync/atomic operation) on the other side: two goroutines that each
//     store their own flag, fence, then load the other's cannot both miss
//     the other's store.
//   - The functions take integer words only, never memory that holds Go
//     pointers (the assembly skips the garbage collector's write barrier);
//     publish pointers with atomic.Pointer.
//   - On amd64 and arm64 the primitives are assembly, which the compiler
//     does not inline: each call costs a CALL on top of its instruction
//     (SeqCstFence on amd64 is Go and inlines). Under -race, and on every
//     other GOARCH, each primitive is the sync/atomic operation that
//     subsumes it, so the race detector sees every access as the
//     synchronisation it is. Code is correct either way; whether a
//     primitive beats sync/atomic at a given call site is for a benchmark
//     at that site to say.
//   - CacheLineSize is a constant per GOARCH, chosen to cover every part of
//     that architecture; on purpose it may exceed the line that
//     DetectedCacheLineSize reports. A Pad guarantees distance between two
//     fields, not the alignment of the struct.
//
// # Example
//
// The examples (example_test.go): StoreRelease64's publishes a result with a
// release store and reads it with an acquire load; Pad's keeps two counters
// written by different goroutines on different cache lines; SeqCstFence's
// is the announce-then-check pattern a fence exists for.
//
// What each primitive compiles to on each architecture, and why, is told at
// the top of atomics_asm.go; the padding size, in cacheline.go.
package atomics
