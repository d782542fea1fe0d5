package blitz

import (
	"sync"
	"sync/atomic"
)

// spawnSlots holds the jobs of Scope.Spawn while their refs sit in a deque.
// A deque carries integers only, so a spawned job (a heap object) is parked in
// a slot and the deque carries spawnRef(slot).
//
// The slots live in never-moved geometric chunks (chunks.go). Free slots form
// a lock-free stack of slot numbers whose head word packs a tag with the top:
//
//	bits  0-31  top: slot number + 1 of the first free slot (0: none free)
//	bits 32-63  tag: incremented by every successful CAS
//
// The tag defeats ABA: a pop that read top=i and next=j cannot succeed after
// i was popped and pushed back in between, because the tag moved. It wraps
// after 2^32 operations, harmless unless one CAS is delayed across exactly a
// multiple of 2^32 others and sees the same top.
type spawnSlots struct {
	// head: CAS by alloc (pop) and free (push), any goroutine.
	head atomic.Uint64
	// mu serialises growth; n is the number of chunks created (under mu).
	mu     sync.Mutex
	n      int
	chunks [maxChunks]atomic.Pointer[[]spawnSlot]
}

type spawnSlot struct {
	// next is the free-list link (slot number + 1), written before the
	// push CAS that publishes it and read by pops; atomic because a stale
	// pop may read it while another goroutine relinks it.
	next atomic.Uint32
	// job is written by the allocating owner before the deque push and read
	// and cleared by the goroutine that wins the ref (pop or steal), before
	// it frees the slot.
	job runner
}

const (
	spawnTopMask = 1<<32 - 1
	spawnTagOne  = 1 << 32
)

func (s *spawnSlots) slot(i uint32) *spawnSlot {
	k, off := chunkOf(i)
	return &(*s.chunks[k].Load())[off]
}

// alloc takes a free slot, creating a chunk when none is free.
func (s *spawnSlots) alloc() uint32 {
	for {
		h := s.head.Load()
		top := uint32(h & spawnTopMask)
		if top == 0 {
			s.grow()
			continue
		}
		next := s.slot(top - 1).next.Load()
		if s.head.CompareAndSwap(h, (h&^spawnTopMask)+spawnTagOne|uint64(next)) {
			return top - 1
		}
	}
}

// free returns slot i to the free stack.
func (s *spawnSlots) free(i uint32) {
	sl := s.slot(i)
	for {
		h := s.head.Load()
		sl.next.Store(uint32(h & spawnTopMask))
		if s.head.CompareAndSwap(h, (h&^spawnTopMask)+spawnTagOne|uint64(i+1)) {
			return
		}
	}
}

// grow creates the next chunk and pushes all its slots as one chain.
func (s *spawnSlots) grow() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.head.Load()&spawnTopMask != 0 {
		return // another goroutine grew it, or slots were freed meanwhile
	}
	if s.n == maxChunks {
		panic("blitz: too many pending spawned tasks")
	}
	k := s.n
	c := make([]spawnSlot, chunkLen(k))
	base := uint32(chunkBase * (1<<k - 1))
	for i := range c[:len(c)-1] {
		c[i].next.Store(base + uint32(i) + 2) // slot number + 1 of the next one
	}
	s.chunks[k].Store(&c)
	s.n++
	last := &c[len(c)-1]
	for {
		h := s.head.Load()
		last.next.Store(uint32(h & spawnTopMask))
		if s.head.CompareAndSwap(h, (h&^spawnTopMask)+spawnTagOne|uint64(base+1)) {
			return
		}
	}
}
