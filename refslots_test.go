package blitz

import (
	"sync"
	"testing"
	"unsafe"

	"github.com/blitz-go/blitz/atomics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRefSlotsRemoteFree has one owner allocate slots and hand most of
// them to other goroutines, which take them as thieves do (freed on
// remote), while the owner takes the rest itself: a slot is never handed out
// while it is held, the owner reuses remotely freed slots (the Swap path
// ran), and at the end every created slot is free exactly once.
func TestRefSlotsRemoteFree(t *testing.T) {
	var s refSlots
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
				j := s.take(i, false)
				if j.st != st || j.fn == nil {
					t.Errorf("slot %d: took (%p, nil=%v), want the stored task", i, j.st, j.fn == nil)
				}
			}
		}()
	}
	for n := range iters {
		i := s.alloc()
		require.Less(t, i, uint32(len(held)), "slot number")
		require.True(t, held[i].TryLock(), "slot %d handed out while held", i)
		s.slot(i).val = spawnJob{st, fn}
		if n%4 == 0 {
			held[i].Unlock()
			require.Same(t, st, s.take(i, true).st)
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
			require.Nil(t, s.slot(top-1).val.st, "a free slot keeps its task")
		}
	}
	require.Len(t, free, created, "free slots")
}

// TestRefSlotsOwnerOnly allocates and frees on the owner's path only: a
// LIFO free list that never grows past the first chunk.
func TestRefSlotsOwnerOnly(t *testing.T) {
	var s refSlots
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

// TestRefSlotsLayout checks that remote, which other workers write on
// every remote free, shares no cache line with the owner's fields before it
// nor with what follows the slots in the Worker.
func TestRefSlotsLayout(t *testing.T) {
	var s refSlots
	line := uintptr(atomics.CacheLineSize)
	lastOwner := unsafe.Offsetof(s.chunks) + unsafe.Sizeof(s.chunks)
	assert.GreaterOrEqual(t, unsafe.Offsetof(s.remote)-lastOwner, line, "remote is within a line of the owner's fields")
	assert.GreaterOrEqual(t, unsafe.Sizeof(s)-unsafe.Offsetof(s.remote)-unsafe.Sizeof(s.remote), line, "remote is within a line of what follows")
}

// TestRefSlotSizes pins a spawn's slot: three words (its scope, its
// function, the free-list link).
func TestRefSlotSizes(t *testing.T) {
	word := unsafe.Sizeof(uintptr(0))
	assert.EqualValues(t, 3*word, unsafe.Sizeof(refSlot{}), "a spawn's slot")
}
