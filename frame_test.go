package blitz

import (
	"testing"
	"unsafe"

	"github.com/blitz-go/blitz/atomics"
)

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
	if s.peek(0) != nil {
		t.Fatal("a frame before the first join")
	}
	seen := map[*frame]bool{}
	for d := uint32(0); d < 5000; d++ {
		f := s.ownerAt(d, 3)
		if f != s.at(d) || f.owner != 3 || seen[f] {
			t.Fatalf("depth %d: frame %p (owner %d) inconsistent or reused", d, f, f.owner)
		}
		seen[f] = true
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
