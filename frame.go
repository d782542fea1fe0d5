package blitz

import (
	"math/bits"
	"sync/atomic"
	"unsafe"

	"github.com/blitz-go/blitz/atomics"
	"github.com/blitz-go/blitz/sleep"
)

// A frame is the shared part of one Join: the second half, published to
// thieves through the owner's deque as frameRef(owner, depth).
//
// Life of a frame at depth d of worker o (one join at a time per frame,
// because joins nest and depth d is in use until the join at depth d returns):
//
//  1. o stores the job (and its argument) into the frame, then pushes the
//     ref: the deque's release store of the new bottom publishes the frame.
//     A lazy frame (offer.go) is pushed later, if ever, by offerPending; a
//     lazy frame o takes back is never seen by anybody else.
//  2. Either o pops the ref back (the fast path: nobody else ever saw the
//     frame, no latch traffic), or exactly one thief wins it with a
//     successful Steal (whose acquire makes step 1 visible).
//  3. The thief runs the job, records a panic or a Goexit, then Sets the
//     latch (a SeqCst swap: releases the result). If the swap found the
//     owner Sleeping, it wakes it with NotifyWorkerLatchIsSet(owner); owner
//     and the pool are read into locals before the Set, because from the Set
//     on the frame belongs to o again and may be reused at once.
//  4. o, having seen Probe() true (acquire), reads the result, Resets the
//     latch and may reuse the frame.
//
// Invariant: a free frame's latch is Unset. Only a stolen join pays for
// Reset.
type frame struct {
	// latch: Unset while the frame is free or its job is pending or
	// running; the thief moves it to Set (step 3); the owner moves it
	// through Sleepy/Sleeping while waiting (sleep protocol) and back to
	// Unset with Reset after observing Set (step 4).
	latch sleep.CoreLatch
	// owner is the index of the worker that owns the frame. Written once
	// when the frame is created, before any ref to it exists.
	owner int
	// job is written by the owner before the push (step 1) and read by the
	// thief after the steal (step 2). It usually keeps the same dynamic
	// type at a given depth, and Join reuses it (no allocation).
	job half
	// panicked and goexit are written by the thief before the Set and read
	// (then cleared) by the owner after it observed the Set.
	panicked *PanicError
	goexit   bool
	// lazy says that the job is pending but not offered: its ref is in no
	// deque, so no thief can take it, and the owner runs it itself when
	// the first half returns unless it offers it before (offer.go).
	// Owner-only: written at the fork, by offerPending and when the join
	// takes the job back; read by the owner alone.
	lazy bool
	// thief is 1 + the index of the worker that stole the job, 0 while
	// nobody did. Stored by the thief after its successful Steal and
	// before it runs the job; loaded by the owner waiting for the job
	// (waitJoin), which steals only from that worker; cleared by the
	// owner when it frees the frame (freeFrame), when no thief can touch
	// the frame any more.
	thief atomic.Int32
}

// paddedFrame keeps frames at neighbouring depths on separate cache lines: a
// thief writes the latch of depth d while the owner works at depth d+1. The
// job a frame points to is padded too, for the lines it shares with other
// heap objects (argFrame, below).
type paddedFrame struct {
	frame
	_ [atomics.CacheLineSize - unsafe.Sizeof(frameLayout{})%atomics.CacheLineSize]byte
}

// frameLayout mirrors frame's layout without naming Worker: the Go type
// checker rejects unsafe.Sizeof(frame{}) in paddedFrame as a cycle (frame ->
// half -> Worker -> frameStack -> paddedFrame). TestFrameLayout checks that
// the two sizes agree and that paddedFrame fills whole cache lines.
//
//lint:ignore U1000 the fields exist only for their sizes.
type frameLayout struct {
	latch    sleep.CoreLatch
	owner    int
	job      [2]unsafe.Pointer
	panicked unsafe.Pointer
	goexit   bool
	lazy     bool
	thief    int32
}

// frameStack is a worker's frames, indexed by join depth, in geometric
// chunks created by the owner on first use and published with an atomic
// pointer store before any ref to them is pushed. The first chunk, the
// depths under chunkBase (recursive algorithms rarely go deeper than 64
// joins), is reached through a pointer of its own that the owner reads
// plainly: one load on Join's path. It is made at the worker's first join,
// so a worker that never joins (one that only runs submitted tasks, as most
// of the workers added for blocked ones do) never holds its 64 padded
// frames (8 KB where a line is 128 bytes).
type frameStack struct {
	// first is the first chunk, nil until the owner's first join.
	// Owner-only: written by ownerAtSlow and release, read by ownerAt
	// and peek.
	first *[chunkBase]paddedFrame
	// chunks are the chunks, first included (chunks[0]) for the workers
	// that resolve a ref (at). Stored by the owner, loaded by anyone.
	chunks [maxChunks]atomic.Pointer[[]paddedFrame]
}

// at returns the frame at depth d; any goroutine holding a ref to it may call
// it (the chunk exists: the owner created it before pushing the ref).
func (s *frameStack) at(d uint32) *frame {
	k, off := chunkOf(d)
	return &(*s.chunks[k].Load())[off].frame
}

// peek is at for the owner, returning nil where the chunk of depth d was
// never created (no join ever forked there).
func (s *frameStack) peek(d uint32) *frame {
	if d < chunkBase {
		if s.first == nil {
			return nil
		}
		return &s.first[d].frame
	}
	k, off := chunkOf(d)
	c := s.chunks[k].Load()
	if c == nil {
		return nil
	}
	return &(*c)[off].frame
}

// ownerAt is at for the owner, creating the chunk if needed. The first
// chunk's case is small enough to inline into Join.
func (s *frameStack) ownerAt(d uint32, owner int) *frame {
	if d < chunkBase && s.first != nil {
		return &s.first[d].frame
	}
	return s.ownerAtSlow(d, owner)
}

func (s *frameStack) ownerAtSlow(d uint32, owner int) *frame {
	if s.first == nil {
		c := new([chunkBase]paddedFrame)
		for i := range c {
			c[i].owner = owner
		}
		fs := c[:]
		s.chunks[0].Store(&fs)
		s.first = c
	}
	if d < chunkBase {
		return &s.first[d].frame
	}
	k, off := chunkOf(d)
	c := s.chunks[k].Load()
	if c == nil {
		fs := make([]paddedFrame, chunkLen(k))
		for i := range fs {
			fs[i].owner = owner
		}
		c = &fs
		s.chunks[k].Store(c)
	}
	return &(*c)[off].frame
}

// release drops the chunks, once the worker goroutine has exited for good
// (Pool.release).
func (s *frameStack) release() {
	s.first = nil
	for k := range s.chunks {
		s.chunks[k].Store(nil)
	}
}

// freeFrame makes the frame of the join at depth d free again after its job
// finished (the latch is Set, or the job ran inline): latch Unset, outcome
// and thief cleared, and the worker's depth back at d.
func (w *Worker) freeFrame(f *frame, d uint32) {
	f.latch.Reset()
	f.panicked, f.goexit = nil, false
	f.thief.Store(0)
	w.depth = d
}

// Frames and spawn slots live in geometric chunks that are never moved or
// freed while the pool runs (Pool.release drops them once it has shut
// down), so a thief that resolves a jobRef to an address
// can never read memory that an owner has since reallocated (the defect of
// freeing a grown deque buffer while a thief still reads it cannot arise).
//
// Chunk 0 holds chunkBase elements and chunk k holds chunkBase<<k, so chunk k
// starts at index chunkBase*(2^k - 1), and maxChunks chunks cover every
// 32-bit index.
const (
	chunkBaseLog = 6
	chunkBase    = 1 << chunkBaseLog
	maxChunks    = 32 - chunkBaseLog + 1
)

// chunkOf maps an element index to its chunk and the offset inside it.
func chunkOf(i uint32) (chunk int, off uint32) {
	j := uint64(i)>>chunkBaseLog + 1 // in [2^k, 2^(k+1)) for chunk k
	k := bits.Len64(j) - 1
	return k, uint32(uint64(i) - chunkBase*(1<<k-1))
}

// chunkLen is the number of elements of chunk k. It is a uint64 because the
// last chunks hold 2^31 and 2^32 elements, which overflow int on 32-bit
// platforms; make panics with "len out of range" there long before a join
// depth could reach them.
func chunkLen(k int) uint64 { return chunkBase << k }

// A half is the second half of a join, stored in the joiner's frame:
// argFrame for JoinArgs (and Worker.Join), fnFrame for Join. Its run stores
// the result in itself, where the joiner reads it after the frame's latch.
type half interface {
	run(w *Worker)
}

// The jobs are padded. The owner stores fn (and arg) into its job at every
// fork, so the job, like the frame (paddedFrame), must share no cache line
// with anything another worker writes. The frame lies in its worker's frame
// stack, but the job is a heap object of its own, made at the first join of
// its type at its depth, and the allocator places it wherever it has room:
// next to another worker's jobs when both were made from the cache of one P
// at different times (worker goroutines change Ps as they sleep and wake). A
// new pool usually makes its jobs at its first tree, while each worker holds
// one P; a long-lived pool makes those of each new depth when a larger tree
// first reaches it, and the deepest depths, where most of a tree's joins are,
// last. So on a 2-worker pool that had run fib(20), fib(22), ..., fib(28),
// jobs of both workers deep in the tree, where fib(30) makes most of its
// joins, shared lines, and 2 workers ran fib(30) no faster than one
// (bench/results/join-warm-amd64.txt). A line of padding on each side keeps
// the fields on lines of their own, wherever the object starts and whatever
// lies next to it (TestJoinJobLayout, TestJoinJobsUnsharedAfterWarmUp). The
// cost is 2*CacheLineSize bytes per job: one job per depth and type on each
// worker.

// argFrame is the job of JoinArgs: a non-capturing function and its argument.
// The fast path leaves fn and arg in place when the join returns (clearing
// them would cost stores with write barriers on every join), so the last
// argument joined at a depth stays reachable until the next join at that
// depth on that worker, or until Close: a bounded retention, one value per
// depth per worker.
type argFrame[B, R any] struct {
	_      atomics.Pad // see above: lines no other worker writes
	fn     func(*Worker, B) R
	arg    B
	result R
	_      atomics.Pad
}

func (f *argFrame[B, R]) run(w *Worker) { f.result = f.fn(w, f.arg) }

// fnFrame is the job of Join: a closure. Padded as argFrame is.
type fnFrame[R any] struct {
	_      atomics.Pad
	fn     func(*Worker) R
	result R
	_      atomics.Pad
}

func (f *fnFrame[R]) run(w *Worker) { f.result = f.fn(w) }

// runFrame runs a frame's job on w (a thief, or the owner running its own
// join's second half while the join unwinds) and completes the frame (step 3
// of the frame's life, frame.go). A panic is recovered into the frame; a Goexit is recorded and then
// goes on unwinding w's goroutine: it belongs to the job's joiner, which
// re-raises it, and every job on w's stack below this one descends from the
// same joiner (work isolation: see wait.go), so it ends nothing that did not
// fork it. The depth is restored however the job ends.
func (w *Worker) runFrame(f *frame, origin *taskCtx, group *groupTask) {
	p, owner := w.pool, f.owner
	if owner != w.index {
		f.thief.Store(int32(w.index) + 1)
	}
	d := w.depth
	outer, below, pushed := w.enterJob(origin, group)
	region := w.jobRegion(pushed)
	done := false
	defer func() {
		if !done {
			if pe := unwinding(recover()); pe != nil {
				f.panicked = pe
			} else {
				f.goexit = true
			}
			w.depth = d
			endRegion(region)
			w.leaveJob(outer, below, pushed)
			if f.latch.Set() {
				p.sleep.NotifyWorkerLatchIsSet(owner)
			}
		}
	}()
	f.job.run(w)
	done = true
	endRegion(region)
	w.leaveJob(outer, below, pushed)
	if f.latch.Set() {
		p.sleep.NotifyWorkerLatchIsSet(owner)
	}
}
