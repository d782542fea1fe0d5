package blitz

import (
	"math/bits"

	"github.com/blitz-go/blitz/atomics"
)

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
// join's second half while the join unwinds) and completes the frame (step 3 of
// the frame's life: the frame type, state.go). A panic is recovered into the
// frame; a Goexit is recorded and then goes on unwinding w's goroutine: it
// belongs to the job's joiner, which re-raises it, and every job on w's stack
// below this one descends from the same joiner (work isolation: see wait.go),
// so it ends nothing that did not fork it. The depth is restored however the
// job ends.
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
