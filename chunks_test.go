package blitz

import "testing"

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
