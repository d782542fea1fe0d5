package main

import (
	"fmt"
	"sync"
	"testing"
)

// fib is the sequential baseline: the same recursion every parallel variant
// runs, with a plain call where they join.
//
//go:noinline
func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

// fibJoins is the number of joins fib(n) makes with a join at every level:
// one per call with n >= 2. fib(n) makes 2*fib(n+1)-1 calls of which
// fib(n+1) are leaves, so fib(n+1)-1 joins. Every fib row divides its time by
// this number, whatever its cutoff, so ns/join is a per-node cost comparable
// across implementations (for seq it is the cost of a plain call).
func fibJoins(n int) int {
	if n < 2 {
		return 0
	}
	a, b := 0, 1 // fib(0), fib(1)
	for i := 0; i < n; i++ {
		a, b = b, a+b
	}
	return b - 1 // b = fib(n+1)
}

// fibGo forks every call: a goroutine and a WaitGroup per join, the way a Go
// programmer parallelises a recursion without a pool.
func fibGo(n int) int {
	if n < 2 {
		return n
	}
	var x int
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		x = fibGo(n - 1)
		wg.Done()
	}()
	y := fibGo(n - 2)
	wg.Wait()
	return x + y
}

// fibGoCutoff forks with goroutines above the cutoff and runs the sequential
// recursion at or below it: the usual hand-tuned Go version.
func fibGoCutoff(n, cutoff int) int {
	if n < 2 || n <= cutoff {
		return fib(n)
	}
	var x int
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		x = fibGoCutoff(n-1, cutoff)
		wg.Done()
	}()
	y := fibGoCutoff(n-2, cutoff)
	wg.Wait()
	return x + y
}

// fibCase returns a fib row at size n with the metric set.
func fibCase(n int, impl string, workers int, kind Kind) Case {
	return Case{
		Workload: "fib",
		Params:   fmt.Sprintf("n=%d", n),
		Impl:     impl,
		Workers:  workers,
		Unit:     "ns/join",
		PerOp:    float64(fibJoins(n)),
		Kind:     kind,
	}
}

// fibRow binds a fib implementation run(n) to a row: it checks the answer
// once against fib(n), then times it.
func fibRow(c Case, n int, run func(n int) int) Case {
	return bind(c, func(b *testing.B, c *Case) {
		want := fib(n)
		seqBaseline(c, nil, func() { keep(fib(n)) })
		check(b, c, run(n), want)
		measure(b, c, func() { keep(run(n)) })
	})
}

func fibCases(cfg Config) []Case {
	s := cfg.Sizes
	var out []Case
	for _, n := range []int{s.Fib, s.FibNoCutoff, s.FibSpeedup} {
		out = append(out, fibRow(fibCase(n, "seq", 1, KindSeq), n, fib))
	}
	for _, w := range cfg.Workers {
		w := w
		cutoff := s.FibCutoff
		out = append(out, procsRow(fibRow(fibCase(s.FibNoCutoff, "goroutine-wg", w, KindPeer), s.FibNoCutoff, fibGo), w))
		out = append(out, procsRow(fibRow(fibCase(s.Fib, "goroutine-wg-cutoff", w, KindPeer), s.Fib,
			func(n int) int { return fibGoCutoff(n, cutoff) }), w))
	}
	return out
}

// procsRow runs a goroutine-based row under GOMAXPROCS = workers.
func procsRow(c Case, workers int) Case {
	inner := c.Bench
	c.Bench = func(b *testing.B) { withProcs(workers, func() { inner(b) }) }
	return c
}
