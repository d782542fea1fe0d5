package blitz

import (
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/blitz-go/blitz/atomics"
)

func TestJobRefLayout(t *testing.T) {
	r := frameRef(0xBEEF, 0xDEADBEEF)
	if uint64(r) != 0x0000BEEF_DEADBEEF {
		t.Errorf("frameRef = %#x", uint64(r))
	}
	if r.kind() != kindFrame || r.worker() != 0xBEEF || r.index() != 0xDEADBEEF {
		t.Errorf("frameRef fields: kind %d worker %#x index %#x", r.kind(), r.worker(), r.index())
	}
	s := spawnRef(0xFFFFFFFF)
	if uint64(s) != 1<<62|0xFFFFFFFF {
		t.Errorf("spawnRef = %#x", uint64(s))
	}
	if s.kind() != kindSpawn || s.index() != 0xFFFFFFFF || s.worker() != 0 {
		t.Errorf("spawnRef fields: kind %d worker %d index %#x", s.kind(), s.worker(), s.index())
	}
	if frameRef(1, 0) == spawnRef(0) || frameRef(0, 5) == spawnRef(5) {
		t.Error("frame and spawn refs collide")
	}
}

func TestChunkOf(t *testing.T) {
	// Walk the first chunks element by element.
	k, off := 0, uint32(0)
	for i := uint32(0); i < chunkBase*(1<<10-1); i++ {
		gk, goff := chunkOf(i)
		if gk != k || goff != off {
			t.Fatalf("chunkOf(%d) = (%d,%d), want (%d,%d)", i, gk, goff, k, off)
		}
		off++
		if uint64(off) == chunkLen(k) {
			k, off = k+1, 0
		}
	}
	if k, off := chunkOf(^uint32(0)); k >= maxChunks || uint64(off) >= chunkLen(k) {
		t.Errorf("chunkOf(max) = (%d,%d): outside %d chunks", k, off, maxChunks)
	}
}

func TestFrameLayout(t *testing.T) {
	if unsafe.Sizeof(frame{}) != unsafe.Sizeof(frameLayout{}) {
		t.Errorf("frame is %d bytes, frameLayout %d: keep them in step", unsafe.Sizeof(frame{}), unsafe.Sizeof(frameLayout{}))
	}
	if unsafe.Sizeof(paddedFrame{})%atomics.CacheLineSize != 0 {
		t.Errorf("paddedFrame is %d bytes, not whole %d-byte lines", unsafe.Sizeof(paddedFrame{}), atomics.CacheLineSize)
	}
}

func TestFrameStackDeep(t *testing.T) {
	var s frameStack
	s.init(3)
	seen := map[*frame]bool{}
	for d := uint32(0); d < 5000; d++ {
		f := s.ownerAt(d, 3)
		if f != s.at(d) || f.owner != 3 || seen[f] {
			t.Fatalf("depth %d: frame %p (owner %d) inconsistent or reused", d, f, f.owner)
		}
		seen[f] = true
	}
}

// TestSpawnSlotsConcurrent allocates and frees slots from many goroutines; a
// slot is never held by two at once (the ABA tag at work).
func TestSpawnSlotsConcurrent(t *testing.T) {
	var s spawnSlots
	const goroutines = 8
	iters := 20000
	if testing.Short() {
		iters = 2000
	}
	var owner sync.Map
	var dup atomic.Int64
	start := make(chan struct{})
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			held := make([]uint32, 0, 8)
			for i := 0; i < iters; i++ {
				if len(held) < 8 && (i%3 != 0 || len(held) == 0) {
					x := s.alloc()
					if _, loaded := owner.LoadOrStore(x, g); loaded {
						dup.Add(1)
					}
					held = append(held, x)
				} else {
					x := held[len(held)-1]
					held = held[:len(held)-1]
					owner.Delete(x)
					s.free(x)
				}
			}
			for _, x := range held {
				owner.Delete(x)
				s.free(x)
			}
		}()
	}
	close(start)
	within(t, "slots", wg.Wait)
	if dup.Load() != 0 {
		t.Fatalf("%d slots handed out twice", dup.Load())
	}
	// Everything is free again: the chain holds every created slot once.
	n := 0
	for k := 0; k < s.n; k++ {
		n += int(chunkLen(k))
	}
	free := map[uint32]bool{}
	for top := uint32(s.head.Load() & spawnTopMask); top != 0; top = s.slot(top - 1).next.Load() {
		if free[top-1] {
			t.Fatalf("slot %d twice on the free list", top-1)
		}
		free[top-1] = true
	}
	if len(free) != n {
		t.Errorf("%d free slots, %d created", len(free), n)
	}
}
