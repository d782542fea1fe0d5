package workload

import (
	"fmt"
	"sync"
	"testing"

	"github.com/blitz-go/blitz"
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

// fibArgs is fib with JoinArgs at every level: the pool's zero-allocation
// join.
func fibArgs(w *blitz.Worker, n int) int {
	if n < 2 {
		return n
	}
	x, y := blitz.JoinArgs(w, fibArgs, n-1, fibArgs, n-2)
	return x + y
}

// fibClosure is fib with Join and closures at every level.
func fibClosure(w *blitz.Worker, n int) int {
	if n < 2 {
		return n
	}
	x, y := blitz.Join(w,
		func(w *blitz.Worker) int { return fibClosure(w, n-1) },
		func(w *blitz.Worker) int { return fibClosure(w, n-2) })
	return x + y
}

// fibArg is the argument of fibArgsCutoff: n and the cutoff at or below
// which it runs the sequential recursion.
type fibArg struct{ n, cutoff int }

// fibArgsCutoff joins with JoinArgs above the cutoff and runs fib below it:
// "fib(n) parallel" of Blitz's table (cutoff 20 there).
func fibArgsCutoff(w *blitz.Worker, a fibArg) int {
	if a.n <= a.cutoff {
		return fib(a.n)
	}
	x, y := blitz.JoinArgs(w, fibArgsCutoff, fibArg{a.n - 1, a.cutoff}, fibArgsCutoff, fibArg{a.n - 2, a.cutoff})
	return x + y
}

// fibRow binds a fib implementation run(n) to a row: it checks the answer
// once against fib(n), then times it.
func fibRow(c Case, n int, run func(n int) int) Case {
	return bind(c, func(b *testing.B, c *Case) {
		want := fib(n)
		seqBaseline(c, nil, func() { keep(fib(n)) })
		check(b, c, run(n), want)
		measure(b, c, nil, func() { keep(run(n)) })
	})
}

// fibPoolRows are the pool's rows of fib(n) with fn at the root, on new
// and long-lived pools (longLivedRows).
func fibPoolRows(cfg Config, n int, impl string, fn func(w *blitz.Worker) int) []Case {
	return longLivedRows(cfg, func(w int) Case { return fibCase(n, impl, w, KindBlitz) },
		func(b *testing.B, c *Case, p *blitz.Pool) (func(), func()) {
			seqBaseline(c, nil, func() { keep(fib(n)) })
			check(b, c, blitz.Do(p, fn), fib(n))
			return nil, func() { keep(blitz.Do(p, fn)) }
		})
}

// fibCases are the fib rows: sequential, a goroutine per fork, goroutines
// above a cutoff, and the pool's joins in both forms; then Blitz's table's
// fib(35) and fib(40), parallel above n = 20.
func fibCases(cfg Config) []Case {
	s := cfg.Sizes
	var out []Case
	for _, n := range append([]int{s.Fib, s.FibNoCutoff, s.FibSpeedup}, s.FibTable...) {
		out = append(out, fibRow(fibCase(n, "seq", 1, KindSeq), n, fib))
	}
	for _, w := range cfg.Workers {
		cutoff := s.FibCutoff
		out = append(out, procsRow(fibRow(fibCase(s.FibNoCutoff, "goroutine-wg", w, KindPeer), s.FibNoCutoff, fibGo), w))
		out = append(out, procsRow(fibRow(fibCase(s.Fib, "goroutine-wg-cutoff", w, KindPeer), s.Fib,
			func(n int) int { return fibGoCutoff(n, cutoff) }), w))
		for _, n := range s.FibTable {
			out = append(out, procsRow(fibRow(fibCase(n, "goroutine-wg-cutoff", w, KindPeer), n,
				func(n int) int { return fibGoCutoff(n, s.FibTableCut) }), w))
		}
	}
	out = append(out, fibPoolRows(cfg, s.Fib, "blitz-args", func(w *blitz.Worker) int { return fibArgs(w, s.Fib) })...)
	out = append(out, fibPoolRows(cfg, s.Fib, "blitz-closure", func(w *blitz.Worker) int { return fibClosure(w, s.Fib) })...)
	out = append(out, fibPoolRows(cfg, s.FibSpeedup, "blitz-args", func(w *blitz.Worker) int { return fibArgs(w, s.FibSpeedup) })...)
	for _, n := range s.FibTable {
		arg := fibArg{n, s.FibTableCut}
		out = append(out, fibPoolRows(cfg, n, "blitz-args-cutoff", func(w *blitz.Worker) int { return fibArgsCutoff(w, arg) })...)
	}
	return out
}

// procsRow runs a goroutine-based row under GOMAXPROCS = workers.
func procsRow(c Case, workers int) Case {
	inner := c.Bench
	c.Bench = func(b *testing.B) { withProcs(workers, func() { inner(b) }) }
	return c
}
