package workload

import (
	"fmt"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

// The chain-sum workload is Blitz's "chain(2x5M) + sum": the sum of two
// slices of 5M int64 (0, 1, ..., n-1 each) as one sequence. seq is two
// loops, the plain-Go version goChunks over the 2n indexes of the chain,
// the pool's two par.Sum calls forked with Join.

// chainCases are the chain-sum rows.
func chainCases(cfg Config) []Case {
	n := cfg.Sizes.ChainN
	spec := opSpec{
		workload: "chain-sum", params: fmt.Sprintf("n=2x%s", sizeLabel(n)),
		unit: "ns/elem", perOp: float64(2 * n), peer: "goroutine-chunks",
	}
	return opCases(cfg, spec, func() opImpls[int64] {
		a, b := int64s(n), int64s(n)
		return opImpls[int64]{
			seq: func() int64 { return sumInts(a) + sumInts(b) },
			goPar: func() int64 {
				return goChunks(2*n, func(lo, hi int) int64 {
					var t int64
					if lo < n {
						t += sumInts(a[lo:min(hi, n)])
					}
					if hi > n {
						t += sumInts(b[max(lo, n)-n : hi-n])
					}
					return t
				}, func(x, y int64) int64 { return x + y })
			},
			pool: func(p *blitz.Pool) int64 {
				return blitz.Do(p, func(w *blitz.Worker) int64 {
					x, y := blitz.Join(w,
						func(w *blitz.Worker) int64 { return par.Sum(w, a) },
						func(w *blitz.Worker) int64 { return par.Sum(w, b) })
					return x + y
				})
			},
		}
	})
}
