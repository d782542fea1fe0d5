package main

import (
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz"
)

// This file holds our pool's rows: the same workloads as the sequential and
// peer rows, written the way a user of the pool writes them. Join comes in
// its two forms: blitz-args (JoinArgs, non-capturing functions plus
// arguments, zero allocations per join) and blitz-closure (Join with
// closures, the convenient form).

func init() {
	blitzSuite = blitzCases
	blitzAvailable = true
	resolveParking = func(name string) (string, error) {
		kind, ok := parkings[name]
		if !ok {
			return "", fmt.Errorf("unknown parking backend %q", name)
		}
		p, err := blitz.New(blitz.WithWorkers(1), blitz.WithParking(kind))
		if err != nil {
			return "", err
		}
		defer p.Close()
		return p.Parking().String(), nil
	}
}

// parkings maps the -parking names to the pool's backends.
var parkings = map[string]blitz.Parking{
	"auto":     blitz.ParkingAuto,
	"futex":    blitz.ParkingFutex,
	"portable": blitz.ParkingPortable,
	"spin":     blitz.ParkingSpin,
}

// newPool starts a pool for one row, failing b if the options are refused
// (ParkingFutex off Linux, for example).
func newPool(b *testing.B, c *Case) *blitz.Pool {
	kind, ok := parkings[c.Parking]
	if !ok {
		fail(b, c, "unknown parking backend %q", c.Parking)
	}
	p, err := blitz.New(blitz.WithWorkers(c.Workers), blitz.WithParking(kind))
	if err != nil {
		fail(b, c, "blitz.New: %v", err)
	}
	return p
}

// closePool closes p at the end of a row, failing b on an error.
func closePool(b *testing.B, c *Case, p *blitz.Pool) {
	if err := p.Close(); err != nil {
		fail(b, c, "Close: %v", err)
	}
}

// blitzRow binds a pool body to a row: a pool with the row's workers and
// backend is started before the timed loop and closed after it; run executes
// one op on it.
func blitzRow(c Case, setup func(b *testing.B, c *Case) (run func(p *blitz.Pool))) Case {
	return bind(c, func(b *testing.B, c *Case) {
		run := setup(b, c)
		p := newPool(b, c)
		defer closePool(b, c, p)
		run(p) // warm the workers up once, untimed
		measure(b, c, func() { run(p) })
	})
}

// fibArgs is fib with JoinArgs at every level.
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

// treeArgs sums a tree with JoinArgs at every node.
func treeArgs(w *blitz.Worker, n *node) int64 {
	if n == nil {
		return 0
	}
	l, r := blitz.JoinArgs(w, treeArgs, n.left, treeArgs, n.right)
	return n.val + l + r
}

// treeClosure sums a tree with Join and closures at every node.
func treeClosure(w *blitz.Worker, n *node) int64 {
	if n == nil {
		return 0
	}
	l, r := blitz.Join(w,
		func(w *blitz.Worker) int64 { return treeClosure(w, n.left) },
		func(w *blitz.Worker) int64 { return treeClosure(w, n.right) })
	return n.val + l + r
}

// sortArg is one quicksort job's argument: the part to sort and the cutoff
// below which it sorts sequentially.
type sortArg struct {
	a      []int
	cutoff int
}

// quicksortArgs forks both parts of every partition longer than the cutoff
// with JoinArgs.
func quicksortArgs(w *blitz.Worker, s sortArg) struct{} {
	if len(s.a) <= s.cutoff || len(s.a) <= insertionLimit {
		quicksortSeq(s.a)
		return struct{}{}
	}
	j := partition(s.a)
	blitz.JoinArgs(w, quicksortArgs, sortArg{s.a[:j+1], s.cutoff}, quicksortArgs, sortArg{s.a[j+1:], s.cutoff})
	return struct{}{}
}

// quicksortClosure forks both parts of every partition longer than the
// cutoff with Join and closures.
func quicksortClosure(w *blitz.Worker, a []int, cutoff int) {
	if len(a) <= cutoff || len(a) <= insertionLimit {
		quicksortSeq(a)
		return
	}
	j := partition(a)
	blitz.Join(w,
		func(w *blitz.Worker) struct{} { quicksortClosure(w, a[:j+1], cutoff); return struct{}{} },
		func(w *blitz.Worker) struct{} { quicksortClosure(w, a[j+1:], cutoff); return struct{}{} })
}

// sumFor sums xs with For: each chunk adds its partial sum into one shared
// total with a CAS loop (a few hundred chunks per op, so the CAS is noise).
func sumFor(w *blitz.Worker, xs []float64, grain int) float64 {
	var total atomic.Uint64
	blitz.For(w, 0, len(xs), grain, func(_ *blitz.Worker, lo, hi int) {
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
	return blitz.MapReduce(w, 0, len(xs), grain, 0.0,
		func(_ *blitz.Worker, lo, hi int) float64 { return sumSeq(xs[lo:hi]) },
		func(a, b float64) float64 { return a + b })
}

func blitzCases(cfg Config, parking string) []Case {
	s := cfg.Sizes
	var out []Case
	for _, w := range cfg.Workers {
		// fib: both join forms at n = Fib, and the speedup size.
		for _, n := range []int{s.Fib, s.FibSpeedup} {
			n := n
			for _, impl := range []string{"blitz-args", "blitz-closure"} {
				if n == s.FibSpeedup && impl != "blitz-args" {
					continue
				}
				fibFn := fibArgs
				if impl == "blitz-closure" {
					fibFn = fibClosure
				}
				c := fibCase(n, impl, w, KindBlitz)
				c.Parking = parking
				out = append(out, blitzRow(c, func(b *testing.B, c *Case) func(*blitz.Pool) {
					want := fib(n)
					seqBaseline(c, nil, func() { keep(fib(n)) })
					return func(p *blitz.Pool) {
						got := blitz.Do(p, func(w *blitz.Worker) int { return fibFn(w, n) })
						if got != want {
							fail(b, c, "result %d, want %d (the sequential answer)", got, want)
						}
					}
				}))
			}
		}

		// tree-sum: a join at every node.
		depth := s.TreeDepth
		for _, impl := range []string{"blitz-args", "blitz-closure"} {
			sumFn := treeArgs
			if impl == "blitz-closure" {
				sumFn = treeClosure
			}
			c := treeCase(depth, impl, w, KindBlitz)
			c.Parking = parking
			out = append(out, blitzRow(c, func(b *testing.B, c *Case) func(*blitz.Pool) {
				root := buildTree(depth)
				seqBaseline(c, nil, func() { keep(treeSum(root)) })
				want := treeWant(depth)
				return func(p *blitz.Pool) {
					if got := blitz.Do(p, func(w *blitz.Worker) int64 { return sumFn(w, root) }); got != want {
						fail(b, c, "result %d, want %d (the sequential answer)", got, want)
					}
				}
			}))
		}

		// quicksort: fork both parts above the cutoff; the copy is untimed.
		n, cutoff := s.SortN, s.SortCutoff
		for _, impl := range []string{"blitz-args", "blitz-closure"} {
			impl := impl
			c := quicksortCase(n, impl, w, KindBlitz)
			c.Parking = parking
			out = append(out, bind(c, func(b *testing.B, c *Case) {
				data, sorted := sortInput(n)
				buf := make([]int, n)
				seqBaseline(c, func() { copy(buf, data) }, func() { quicksortSeq(buf) })
				p := newPool(b, c)
				defer closePool(b, c, p)
				run := func() {
					p.Run(func(w *blitz.Worker) {
						if impl == "blitz-args" {
							quicksortArgs(w, sortArg{buf, cutoff})
						} else {
							quicksortClosure(w, buf, cutoff)
						}
					})
				}
				copy(buf, data)
				run()
				if !slices.Equal(buf, sorted) {
					fail(b, c, "output is not the sorted input")
				}
				b.ReportAllocs()
				ops := 0
				for b.Loop() {
					b.StopTimer()
					copy(buf, data)
					b.StartTimer()
					run()
					ops++
				}
				report(b, c, ops)
			}))
		}

		// sum: For with a shared total, and MapReduce.
		sumN, grain := s.SumN, s.SumGrain
		for _, impl := range []string{"blitz-for", "blitz-mapreduce"} {
			sumFn := sumFor
			if impl == "blitz-mapreduce" {
				sumFn = sumMapReduce
			}
			c := sumCase(sumN, impl, w, KindBlitz)
			c.Parking = parking
			out = append(out, blitzRow(c, func(b *testing.B, c *Case) func(*blitz.Pool) {
				xs := sumInput(sumN)
				want := sumSeq(xs)
				seqBaseline(c, nil, func() { keep(sumSeq(xs)) })
				return func(p *blitz.Pool) {
					if got := blitz.Do(p, func(w *blitz.Worker) float64 { return sumFn(w, xs, grain) }); got != want {
						fail(b, c, "result %v, want %v (the sequential answer)", got, want)
					}
				}
			}))
		}

		// submit: Go from one goroutine, the same task as the peers.
		c := submitCase(s.Tasks, "blitz", w, KindBlitz)
		c.Parking = parking
		out = append(out, submitRow(c, s.Tasks, w, func(_ int, task func()) (func(int) error, func() error, error) {
			kind, ok := parkings[parking]
			if !ok {
				return nil, nil, fmt.Errorf("unknown parking backend %q", parking)
			}
			p, err := blitz.New(blitz.WithWorkers(w), blitz.WithParking(kind))
			if err != nil {
				return nil, nil, err
			}
			wtask := func(*blitz.Worker) { task() }
			op := func(n int) error {
				for i := 0; i < n; i++ {
					if err := p.Go(wtask); err != nil {
						return err
					}
				}
				return nil
			}
			return op, p.Close, nil
		}))
	}
	return out
}
