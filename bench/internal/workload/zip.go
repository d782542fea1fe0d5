package workload

import (
	"fmt"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

// The zip-dot workload is Blitz's "zip + dot product": the sum of a[i]*b[i]
// over two slices of 5M int64 (0, 1, ..., n-1 each). The products overflow
// int64 and wrap, the same way in every order, so every impl is checked
// with ==. seq is the loop, the plain-Go version goChunks, the pool's
// MapReduce with adaptive splitting (grain 0).

// dot is the sum of a[i]*b[i] for i in [lo, hi).
func dot(a, b []int64, lo, hi int) int64 {
	var t int64
	for i := lo; i < hi; i++ {
		t += a[i] * b[i]
	}
	return t
}

// zipCases are the zip-dot rows.
func zipCases(cfg Config) []Case {
	n := cfg.Sizes.ChainN
	spec := opSpec{
		workload: "zip-dot", params: fmt.Sprintf("n=%s", sizeLabel(n)),
		unit: "ns/elem", perOp: float64(n), peer: "goroutine-chunks",
	}
	return opCases(cfg, spec, func() opImpls[int64] {
		a, b := int64s(n), int64s(n)
		add := func(x, y int64) int64 { return x + y }
		return opImpls[int64]{
			seq:   func() int64 { return dot(a, b, 0, n) },
			goPar: func() int64 { return goChunks(n, func(lo, hi int) int64 { return dot(a, b, lo, hi) }, add) },
			pool: func(p *blitz.Pool) int64 {
				return blitz.Do(p, func(w *blitz.Worker) int64 {
					return par.MapReduce(w, 0, n, 0, 0, func(_ *blitz.Worker, lo, hi int) int64 { return dot(a, b, lo, hi) }, add)
				})
			},
		}
	})
}
