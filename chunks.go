package blitz

import "math/bits"

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
