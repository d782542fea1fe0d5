package workload

import (
	"fmt"
	"math"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

// sumInput returns n float64 whose sum is exact in any order: small integers
// (i mod 1000), so the total stays far below 2^53 and every association of
// the additions gives the same float64. That lets every parallel variant be
// checked with == against the sequential answer.
func sumInput(n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i % 1000)
	}
	return xs
}

// sumSeq is the sequential baseline.
func sumSeq(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}

// sumGo splits xs into GOMAXPROCS contiguous chunks, one goroutine each: the
// usual hand-written parallel loop in Go.
func sumGo(xs []float64) float64 {
	return goChunks(len(xs), func(lo, hi int) float64 { return sumSeq(xs[lo:hi]) },
		func(a, b float64) float64 { return a + b })
}

// sumCase returns a parallel-for sum row; the metric is ns per element.
func sumCase(n int, impl string, workers int, kind Kind) Case {
	return Case{
		Workload: "sum",
		Params:   fmt.Sprintf("n=%d", n),
		Impl:     impl,
		Workers:  workers,
		Unit:     "ns/elem",
		PerOp:    float64(n),
		Kind:     kind,
	}
}

// sumFor sums xs with For: each chunk adds its partial sum into one shared
// total with a CAS loop (a few hundred chunks per op, so the CAS is noise).
func sumFor(w *blitz.Worker, xs []float64, grain int) float64 {
	var total atomic.Uint64
	par.For(w, 0, len(xs), grain, func(_ *blitz.Worker, lo, hi int) {
		s := sumSeq(xs[lo:hi])
		for {
			old := total.Load()
			if total.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+s)) {
				return
			}
		}
	})
	return math.Float64frombits(total.Load())
}

// sumMapReduce sums xs with MapReduce.
func sumMapReduce(w *blitz.Worker, xs []float64, grain int) float64 {
	return par.MapReduce(w, 0, len(xs), grain, 0.0,
		func(_ *blitz.Worker, lo, hi int) float64 { return sumSeq(xs[lo:hi]) },
		func(a, b float64) float64 { return a + b })
}

// sumRow binds a sum to a row; the input is built once, outside the timed loop.
func sumRow(c Case, n int, run func(xs []float64) float64) Case {
	return bind(c, func(b *testing.B, c *Case) {
		xs := sumInput(n)
		want := sumSeq(xs)
		seqBaseline(c, nil, func() { keep(sumSeq(xs)) })
		check(b, c, run(xs), want)
		measure(b, c, nil, func() { keep(run(xs)) })
	})
}

// sumCases are the sum rows ("sum (10M)" of Blitz's table): sequential,
// GOMAXPROCS goroutines over chunks, and the pool's For, MapReduce and the
// layer's Sum.
func sumCases(cfg Config) []Case {
	n, grain := cfg.Sizes.SumN, cfg.Sizes.SumGrain
	out := []Case{sumRow(sumCase(n, "seq", 1, KindSeq), n, sumSeq)}
	for _, w := range cfg.Workers {
		out = append(out, procsRow(sumRow(sumCase(n, "goroutine-chunks", w, KindPeer), n, sumGo), w))
	}
	for _, impl := range []struct {
		name string
		sum  func(p *blitz.Pool, xs []float64) float64
	}{
		{"blitz-for", func(p *blitz.Pool, xs []float64) float64 {
			return blitz.Do(p, func(w *blitz.Worker) float64 { return sumFor(w, xs, grain) })
		}},
		{"blitz-mapreduce", func(p *blitz.Pool, xs []float64) float64 {
			return blitz.Do(p, func(w *blitz.Worker) float64 { return sumMapReduce(w, xs, grain) })
		}},
		{"blitz-sum", func(p *blitz.Pool, xs []float64) float64 { return par.Sum(p, xs) }},
	} {
		out = append(out, poolRows(cfg, func(w int) Case { return sumCase(n, impl.name, w, KindBlitz) },
			func(b *testing.B, c *Case, p *blitz.Pool) (func(), func()) {
				xs := sumInput(n)
				seqBaseline(c, nil, func() { keep(sumSeq(xs)) })
				check(b, c, impl.sum(p, xs), sumSeq(xs))
				return nil, func() { keep(impl.sum(p, xs)) }
			})...)
	}
	return out
}
