package blitz

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
