package workload

import (
	"fmt"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

// The chunks-sum workload is Blitz's "chunks(1000) + sum": the int64 0, 1,
// ..., n-1 cut into chunks of 1000, each chunk summed, the chunk sums added.
// seq is the loop over chunks, the plain-Go version goChunks over chunk
// indexes, the pool's par.Chunks writing each chunk's sum into its slot
// (the slots are allocated once per row) and a loop adding the slots.

// sumInts is the sum of s, the leaf of every impl.
func sumInts(s []int64) int64 {
	var t int64
	for _, x := range s {
		t += x
	}
	return t
}

// chunksCases are the chunks-sum rows.
func chunksCases(cfg Config) []Case {
	n, size := cfg.Sizes.TableN, cfg.Sizes.ChunkLen
	spec := opSpec{
		workload: "chunks-sum", params: fmt.Sprintf("chunk=%d/n=%s", size, sizeLabel(n)),
		unit: "ns/elem", perOp: float64(n), peer: "goroutine-chunks",
	}
	return opCases(cfg, spec, func() opImpls[int64] {
		s := int64s(n)
		chunks := (n + size - 1) / size
		slots := make([]int64, chunks)
		chunk := func(i int) []int64 { return s[i*size : min((i+1)*size, n)] }
		return opImpls[int64]{
			seq: func() int64 {
				var t int64
				for i := 0; i < chunks; i++ {
					t += sumInts(chunk(i))
				}
				return t
			},
			goPar: func() int64 {
				return goChunks(chunks, func(lo, hi int) int64 {
					var t int64
					for i := lo; i < hi; i++ {
						t += sumInts(chunk(i))
					}
					return t
				}, func(a, b int64) int64 { return a + b })
			},
			pool: func(p *blitz.Pool) int64 {
				par.Chunks(p, s, size, func(_ *blitz.Worker, i int, c []int64) { slots[i] = sumInts(c) })
				return sumInts(slots)
			},
		}
	})
}
