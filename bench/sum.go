package main

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
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
	p := runtime.GOMAXPROCS(0)
	partial := make([]float64, p)
	var wg sync.WaitGroup
	wg.Add(p)
	for i := 0; i < p; i++ {
		lo, hi := i*len(xs)/p, (i+1)*len(xs)/p
		go func(i int) {
			partial[i] = sumSeq(xs[lo:hi])
			wg.Done()
		}(i)
	}
	wg.Wait()
	var s float64
	for _, x := range partial {
		s += x
	}
	return s
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

// sumRow binds a sum to a row; the input is built once, outside the timed loop.
func sumRow(c Case, n int, run func(xs []float64) float64) Case {
	return bind(c, func(b *testing.B, c *Case) {
		xs := sumInput(n)
		want := sumSeq(xs)
		seqBaseline(c, nil, func() { keep(sumSeq(xs)) })
		check(b, c, run(xs), want)
		measure(b, c, func() { keep(run(xs)) })
	})
}

func sumCases(cfg Config) []Case {
	n := cfg.Sizes.SumN
	out := []Case{sumRow(sumCase(n, "seq", 1, KindSeq), n, sumSeq)}
	for _, w := range cfg.Workers {
		out = append(out, procsRow(sumRow(sumCase(n, "goroutine-chunks", w, KindPeer), n, sumGo), w))
	}
	return out
}
