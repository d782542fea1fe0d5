package workload

import (
	"fmt"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

// The flatten-sum workload is Blitz's "flatten(1000x10k) + sum": the sum of
// 1000 slices of 10k int64 (chunk c holds c*10k, ..., c*10k+10k-1). seq is
// the nested loop, the plain-Go version goChunks over the outer slices, the
// pool's MapReduce over the outer slices (grain 1: each is 10k elements).

// sumNested is the sum of every element of outer[lo:hi].
func sumNested(outer [][]int64, lo, hi int) int64 {
	var t int64
	for _, in := range outer[lo:hi] {
		t += sumInts(in)
	}
	return t
}

// flattenCases are the flatten-sum rows.
func flattenCases(cfg Config) []Case {
	outerN, innerN := cfg.Sizes.FlattenOut, cfg.Sizes.FlattenIn
	spec := opSpec{
		workload: "flatten-sum", params: fmt.Sprintf("n=%dx%s", outerN, sizeLabel(innerN)),
		unit: "ns/elem", perOp: float64(outerN * innerN), peer: "goroutine-chunks",
	}
	return opCases(cfg, spec, func() opImpls[int64] {
		outer := make([][]int64, outerN)
		for c := range outer {
			outer[c] = make([]int64, innerN)
			for i := range outer[c] {
				outer[c][i] = int64(c*innerN + i)
			}
		}
		add := func(x, y int64) int64 { return x + y }
		return opImpls[int64]{
			seq:   func() int64 { return sumNested(outer, 0, outerN) },
			goPar: func() int64 { return goChunks(outerN, func(lo, hi int) int64 { return sumNested(outer, lo, hi) }, add) },
			pool: func(p *blitz.Pool) int64 {
				return blitz.Do(p, func(w *blitz.Worker) int64 {
					return par.MapReduce(w, 0, outerN, 1, 0, func(_ *blitz.Worker, lo, hi int) int64 { return sumNested(outer, lo, hi) }, add)
				})
			},
		}
	})
}
