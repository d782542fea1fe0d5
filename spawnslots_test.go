package blitz

import (
	"sync"
	"testing"
	"unsafe"

	"github.com/blitz-go/blitz/atomics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSpawnSlotsRemoteFree has one owner allocate slots and hand most of
// them to other goroutines, which take them as thieves do (freed on
// remote), while the owner takes the rest itself: a slot is never handed out
// while it is held, the owner reuses remotely freed slots (the Swap path
// ran), and at the end every created slot is free exactly once.
func TestSpawnSlotsRemoteFree(t *testing.T) {
	var s spawnSlots
	const thieves = 4
	iters := 200000
	if testing.Short() {
		iters = 20000
	}
	st := &scopeState{}
	fn := func(*Worker, *Scope) {}
	held := make([]sync.Mutex, 1<<16) // a slot's lock is held while it is out
	refs := make(chan uint32, 64)
	var wg sync.WaitGroup
	for range thieves {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range refs {
				held[i].Unlock()
				gst, gfn := s.take(i, false)
				if gst != st || gfn == nil {
					t.Errorf("slot %d: took (%p, nil=%v), want the stored task", i, gst, gfn == nil)
				}
			}
		}()
	}
	for n := range iters {
		i := s.alloc()
		require.Less(t, i, uint32(len(held)), "slot number")
		require.True(t, held[i].TryLock(), "slot %d handed out while held", i)
		sl := s.slot(i)
		sl.st, sl.fn = st, fn
		if n%4 == 0 {
			held[i].Unlock()
			gst, _ := s.take(i, true)
			require.Same(t, st, gst)
			continue
		}
		refs <- i
	}
	close(refs)
	wg.Wait()

	created := 0
	for k := range s.n {
		created += int(chunkLen(k))
	}
	require.Less(t, created, iters/2, "the owner reuses freed slots instead of growing")
	free := map[uint32]bool{}
	for _, top := range []uint32{s.free, s.remote.Load()} {
		for ; top != 0; top = s.slot(top - 1).next {
			require.False(t, free[top-1], "slot %d twice on the free lists", top-1)
			free[top-1] = true
			require.Nil(t, s.slot(top-1).st, "a free slot keeps its task")
		}
	}
	require.Len(t, free, created, "free slots")
}

// TestSpawnSlotsOwnerOnly allocates and frees on the owner's path only: a
// LIFO free list that never grows past the first chunk.
func TestSpawnSlotsOwnerOnly(t *testing.T) {
	var s spawnSlots
	var out []uint32
	for range 3 {
		for range chunkBase {
			out = append(out, s.alloc())
		}
		for _, i := range out {
			s.take(i, true)
		}
		out = out[:0]
	}
	require.Equal(t, 1, s.n, "chunks created")
	require.Zero(t, s.remote.Load(), "nothing freed remotely")
}

// TestSpawnSlotsLayout checks that remote, which other workers write on
// every remote free, shares no cache line with the owner's fields before it
// nor with what follows the slots in the Worker.
func TestSpawnSlotsLayout(t *testing.T) {
	var s spawnSlots
	line := uintptr(atomics.CacheLineSize)
	lastOwner := unsafe.Offsetof(s.chunks) + unsafe.Sizeof(s.chunks)
	assert.GreaterOrEqual(t, unsafe.Offsetof(s.remote)-lastOwner, line, "remote is within a line of the owner's fields")
	assert.GreaterOrEqual(t, unsafe.Sizeof(s)-unsafe.Offsetof(s.remote)-unsafe.Sizeof(s.remote), line, "remote is within a line of what follows")
}
