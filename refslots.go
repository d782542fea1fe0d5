package blitz

import (
	"sync/atomic"

	"github.com/blitz-go/blitz/atomics"
)

// refSlots holds the tasks one worker spawned (Scope.Spawn) while their
// refs sit in a deque. A deque carries integers only, so a task is parked
// in a slot of its worker and the deque carries a ref naming the worker and
// the slot (spawnRef); any worker that wins the ref (a pop or a steal)
// takes the task out of the slot and frees it (Worker.execute). A slot is
// 24 bytes.
//
// Every worker has its own slots, so a spawn touches no word shared by the
// whole pool:
//
//   - alloc (the owner, from Scope.Spawn) pops its private free
//     list: plain loads and stores. When it is empty, the owner takes every
//     slot that other workers freed meanwhile with one Swap of remote, and
//     only when that is empty too creates a new chunk.
//   - free by the owner (it ran its own task) pushes on the private list.
//   - free by another worker (a thief ran the task) pushes on remote, a
//     stack of slot numbers, with a CAS. Pushes by many and a take-all by
//     the owner cannot suffer ABA: nobody pops a single element, so a
//     successful CAS always links onto the very top it read.
//
// The slots live in never-moved geometric chunks (frame.go), created by the
// owner and published with an atomic store before any ref to their slots is
// pushed, so a thief resolving a ref always finds its chunk.
//
// BenchmarkScopeSpawn (scope_bench_test.go) measures a spawn; its figures
// against the former pool-wide free list are in
// bench/results/scope-spawn-amd64.txt.
type refSlots struct {
	// free is the slot number + 1 of the first slot of the owner's free
	// list (0: empty), linked through refSlot.next. n is the number of
	// chunks created. Both owner-only.
	free uint32
	n    int
	// chunks are written by the owner (grow) and loaded by any worker
	// resolving a ref (slot).
	chunks [maxChunks]atomic.Pointer[[]refSlot]

	_ atomics.Pad

	// remote is the slot number + 1 of the first slot freed by another
	// worker (0: none), linked through refSlot.next: pushed with CAS by
	// those workers (freeRemote), taken whole with Swap by the owner
	// (alloc). Alone on its line: thieves write it, the owner rarely
	// reads it.
	remote atomic.Uint32

	_ atomics.Pad
}

// refSlot is one parked job.
type refSlot struct {
	// val is written by the owner (Scope.Spawn) before
	// it pushes the ref, whose publication orders it; read and cleared by
	// the worker that won the ref (take), before it frees the slot.
	val spawnJob
	// next is the free-list link (slot number + 1): written by whoever
	// frees the slot, before the free publishes it (the owner's own list,
	// or remote's CAS), and read by the owner after it took it back.
	next uint32
}

// spawnJob is a task parked by Scope.Spawn: its scope and function.
type spawnJob struct {
	st *scopeState
	fn func(*Worker, *Scope)
}

// slot returns slot i; any worker holding a ref to it may call it.
func (s *refSlots) slot(i uint32) *refSlot {
	k, off := chunkOf(i)
	return &(*s.chunks[k].Load())[off]
}

// alloc takes a free slot. Owner only.
func (s *refSlots) alloc() uint32 {
	if s.free == 0 {
		s.free = s.remote.Swap(0)
		if s.free == 0 {
			s.grow()
		}
	}
	i := s.free - 1
	s.free = s.slot(i).next
	return i
}

// take empties slot i, frees it and returns its job; the caller won the
// slot's ref. byOwner says that the caller is the owner, which frees the
// slot on its private list; any other worker frees it on remote.
func (s *refSlots) take(i uint32, byOwner bool) spawnJob {
	sl := s.slot(i)
	v := sl.val
	sl.val = spawnJob{}
	if byOwner {
		sl.next = s.free
		s.free = i + 1
	} else {
		s.freeRemote(sl, i)
	}
	return v
}

// freeRemote pushes slot i (sl) on remote: a worker other than the owner
// frees it.
func (s *refSlots) freeRemote(sl *refSlot, i uint32) {
	for {
		h := s.remote.Load()
		sl.next = h
		if s.remote.CompareAndSwap(h, i+1) {
			return
		}
	}
}

// release drops every chunk, once no worker goroutine of the pool can
// resolve a ref any more (Pool.release). The slots are free then: every
// parked job ran before the pool drained.
func (s *refSlots) release() {
	for k := range s.chunks {
		s.chunks[k].Store(nil)
	}
	s.free, s.n = 0, 0
	s.remote.Store(0)
}

// grow creates the next chunk and makes its slots the free list. Owner
// only, with the free list empty.
func (s *refSlots) grow() {
	if s.n == maxChunks {
		panic("blitz: Scope.Spawn: too many pending spawned tasks on one worker")
	}
	k := s.n
	c := make([]refSlot, chunkLen(k))
	base := uint32(chunkBase * (1<<k - 1))
	for i := range c[:len(c)-1] {
		c[i].next = base + uint32(i) + 2 // slot number + 1 of the next one
	}
	s.chunks[k].Store(&c) // before any ref to these slots is pushed
	s.n++
	s.free = base + 1
}
