package workload

import (
	"fmt"
	"sync/atomic"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

// The enumerate workload is Blitz's "enumerate + forEach": visiting every
// (index, element) pair of the int64 0, 1, ..., n-1 with a body that does
// nothing but look, so an op is the cost of the traversal. The body
// compares the element with its index (always equal) and counts mismatches
// in a variable the op returns, so no compiler can drop the loop. seq is
// the range loop, the plain-Go version goChunks, the pool's ForEachIndex.

// enumerateCases are the enumerate rows.
func enumerateCases(cfg Config) []Case {
	n := cfg.Sizes.TableN
	spec := opSpec{
		workload: "enumerate", params: fmt.Sprintf("n=%s", sizeLabel(n)),
		unit: "ns/elem", perOp: float64(n), peer: "goroutine-chunks",
	}
	return opCases(cfg, spec, func() opImpls[int64] {
		s := int64s(n)
		return opImpls[int64]{
			seq: func() int64 {
				var bad int64
				for i, x := range s {
					if int64(i) != x {
						bad++
					}
				}
				return bad
			},
			goPar: func() int64 {
				return goChunks(n, func(lo, hi int) int64 {
					var bad int64
					for i := lo; i < hi; i++ {
						if int64(i) != s[i] {
							bad++
						}
					}
					return bad
				}, func(a, b int64) int64 { return a + b })
			},
			pool: func(p *blitz.Pool) int64 {
				var bad atomic.Int64
				par.ForEachIndex(p, s, func(i int, x int64) {
					if int64(i) != x {
						bad.Add(1)
					}
				})
				return bad.Load()
			},
		}
	})
}
