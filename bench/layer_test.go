package main

import (
	"cmp"
	"flag"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/bench/internal/workload"
	"github.com/blitz-go/blitz/par"
)

// The data-parallel layer beside its sequential counterpart, on 10M
// elements, with a pool of -layer-workers workers (2 by default):
//
//	go test -run '^$' -bench Layer -count 10 | tee raw.txt
//	benchstat -col /impl raw.txt
//
// Each op is one benchmark family (op=...), whose rows differ only in impl:
//
//	seq           the sequential counterpart as a user writes it: the stdlib
//	              function (slices.*) where there is one, else the plain
//	              loop; the compiler inlines the callback into it
//	seq-call      the same loop with the callback called out of line, as
//	              the layer must call it (through a func value): the same
//	              work per element as the layer, so blitz/seq-call is the
//	              parallel speedup alone
//	slices        for min-by-key, slices.MinFunc comparing keys (two key
//	              calls per comparison), beside the seq loop (one per element)
//	blitz         the layer function called with the pool from the benchmark
//	              goroutine (runner=pool): what a user outside the pool pays,
//	              entry into the pool included
//	blitz-worker  the same called with the *Worker of a task the benchmark
//	              runs the loop in (runner=worker): the layer alone
//
// index-func reports examined-%, the share of the elements the predicate
// saw, averaged over instrumented calls made before the timed loop.

var (
	layerWorkers = flag.Int("layer-workers", 2, "workers of the pool the Layer benchmarks use")
	layerParking = flag.String("layer-parking", "portable", "parking backend of the Layer benchmarks' pool (portable: Default's)")
)

const layerN = 10_000_000

// layerInts returns 0, 1, ..., n-1: each element is its index, so a
// predicate can record what it examined.
func layerInts(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// layerFloats returns n float64 whose sum is exact in any order: small
// integers (i mod 1000), so every association of the additions gives the
// same float64 and the layer's Sum is checked with ==.
func layerFloats(n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i % 1000)
	}
	return xs
}

// sumSeq is the sequential sum, the layer's Sum's counterpart.
func sumSeq(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}

// layerPool makes the benchmarks' pool.
func layerPool(b *testing.B) *blitz.Pool {
	p, err := workload.OpenPool(*layerWorkers, *layerParking)
	if err != nil {
		b.Fatalf("-layer-parking %q, -layer-workers %d: %v", *layerParking, *layerWorkers, err)
	}
	b.Cleanup(func() { p.Close() })
	return p
}

// layerRows runs seq as impl=seq, seqCall (if not nil) as impl=seq-call,
// and par as impl=blitz (from outside) and impl=blitz-worker (inside one
// task), checking each result with check.
func layerRows[T any](b *testing.B, p *blitz.Pool, seq, seqCall func() T, par func(r blitz.Runner) T, check func(T) bool) {
	seqs := []struct {
		name string
		f    func() T
	}{{"seq", seq}, {"seq-call", seqCall}}
	for _, sq := range seqs {
		if sq.f == nil {
			continue
		}
		b.Run("impl="+sq.name, func(b *testing.B) {
			b.ReportAllocs()
			var r T
			for b.Loop() {
				r = sq.f()
			}
			if !check(r) {
				b.Fatalf("%s: wrong result %v", sq.name, r)
			}
		})
	}
	b.Run("impl=blitz", func(b *testing.B) {
		b.ReportAllocs()
		var r T
		for b.Loop() {
			r = par(p)
		}
		if !check(r) {
			b.Fatalf("blitz: wrong result %v", r)
		}
	})
	b.Run("impl=blitz-worker", func(b *testing.B) {
		b.ReportAllocs()
		var r T
		p.Run(func(w *blitz.Worker) {
			for b.Loop() {
				r = par(w)
			}
		})
		if !check(r) {
			b.Fatalf("blitz-worker: wrong result %v", r)
		}
	})
}

func BenchmarkLayer(b *testing.B) {
	n := layerN
	if testing.Short() {
		n = 100_000
	}
	p := layerPool(b)
	ints := layerInts(n)
	floats := layerFloats(n)
	want := sumSeq(floats)

	b.Run("op=sum", func(b *testing.B) {
		layerRows(b, p, func() float64 { return sumSeq(floats) }, nil,
			func(r blitz.Runner) float64 { return par.Sum(r, floats) },
			func(s float64) bool { return s == want })
	})

	key := func(x float64) float64 { return math.Abs(x - 499.5) }
	wantKey := 499.0 // the first element with the smallest key (|499-499.5| = 0.5)
	b.Run("op=min-by-key", func(b *testing.B) {
		b.Run("impl=slices", func(b *testing.B) {
			b.ReportAllocs()
			var m float64
			for b.Loop() {
				m = slices.MinFunc(floats, func(a, b float64) int { return cmp.Compare(key(a), key(b)) })
			}
			if m != wantKey {
				b.Fatalf("slices.MinFunc = %v", m)
			}
		})
		layerRows(b, p, func() float64 { return seqMinByKey(floats, key) },
			func() float64 { return seqMinByKeyCall(floats, key) },
			func(r blitz.Runner) float64 { m, _ := par.MinByKey(r, floats, key); return m },
			func(m float64) bool { return m == wantKey })
	})

	never := func(x int) bool { return x < 0 }
	always := func(x int) bool { return x >= 0 }
	b.Run("op=any", func(b *testing.B) { // full scan: no element matches
		layerRows(b, p, func() bool { return slices.ContainsFunc(ints, never) },
			func() bool { return indexFuncCall(ints, never) >= 0 },
			func(r blitz.Runner) bool { return par.ContainsFunc(r, ints, never) },
			func(v bool) bool { return !v })
	})
	b.Run("op=all", func(b *testing.B) { // full scan: every element holds
		layerRows(b, p, func() bool { return !slices.ContainsFunc(ints, func(x int) bool { return !always(x) }) },
			func() bool { return allCall(ints, always) },
			func(r blitz.Runner) bool { return par.All(r, ints, always) },
			func(v bool) bool { return v })
	})

	isZero := func(x int) bool { return x == 0 }
	b.Run("op=any-at-0", func(b *testing.B) { // the only match is the first element
		layerRows(b, p, func() bool { return slices.ContainsFunc(ints, isZero) }, nil,
			func(r blitz.Runner) bool { return par.ContainsFunc(r, ints, isZero) },
			func(v bool) bool { return v })
	})

	for _, op := range sliceOps(ints) {
		op.bench(b, p)
	}

	mid := n / 2
	isMid := func(x int) bool { return x == mid }
	b.Run("op=index-func-middle", func(b *testing.B) { // the only match is in the middle
		seen := make([]uint8, n)
		examined := func(r blitz.Runner) float64 {
			const calls = 8
			total := 0
			for range calls {
				clear(seen)
				if i := par.IndexFunc(r, ints, func(x int) bool { seen[x] = 1; return x == mid }); i != mid {
					b.Fatalf("IndexFunc = %d, want %d", i, mid)
				}
				for _, s := range seen {
					total += int(s)
				}
			}
			return 100 * float64(total) / float64(calls*n)
		}
		b.Run("impl=seq", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if slices.IndexFunc(ints, isMid) != mid {
					b.Fatal("wrong index")
				}
			}
			b.ReportMetric(100*float64(mid+1)/float64(n), "examined-%")
		})
		b.Run("impl=seq-call", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if indexFuncCall(ints, isMid) != mid {
					b.Fatal("wrong index")
				}
			}
			b.ReportMetric(100*float64(mid+1)/float64(n), "examined-%")
		})
		b.Run("impl=blitz", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if par.IndexFunc(p, ints, isMid) != mid {
					b.Fatal("wrong index")
				}
			}
			b.ReportMetric(examined(p), "examined-%")
		})
		b.Run("impl=blitz-worker", func(b *testing.B) {
			b.ReportAllocs()
			var frac float64
			p.Run(func(w *blitz.Worker) {
				for b.Loop() {
					if par.IndexFunc(w, ints, isMid) != mid {
						panic("wrong index")
					}
				}
				frac = examined(w)
			})
			b.ReportMetric(frac, "examined-%")
		})
	})
}

// seqMinByKey is the loop MinByKey replaces: the first element with the
// smallest key, each key computed once.
func seqMinByKey(s []float64, key func(float64) float64) float64 {
	m, mk := s[0], key(s[0])
	for _, x := range s[1:] {
		if k := key(x); k < mk {
			m, mk = x, k
		}
	}
	return m
}

// seqMinByKeyCall is seqMinByKey with key called out of line.
//
//go:noinline
func seqMinByKeyCall(s []float64, key func(float64) float64) float64 {
	m, mk := s[0], key(s[0])
	for _, x := range s[1:] {
		if k := key(x); k < mk {
			m, mk = x, k
		}
	}
	return m
}

// indexFuncCall is slices.IndexFunc with pred called out of line.
//
//go:noinline
func indexFuncCall(s []int, pred func(int) bool) int {
	for i, x := range s {
		if pred(x) {
			return i
		}
	}
	return -1
}

// allCall reports whether pred holds for every element, pred called out
// of line.
//
//go:noinline
func allCall(s []int, pred func(int) bool) bool {
	for _, x := range s {
		if !pred(x) {
			return false
		}
	}
	return true
}

// TestLayerBenchmarksCheck runs the layer functions the benchmarks use at a
// small size, so a broken benchmark fails `go test` rather than a long run.
func TestLayerBenchmarksCheck(t *testing.T) {
	p, err := blitz.New(blitz.WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	floats := layerFloats(5000)
	if got, want := par.Sum(p, floats), sumSeq(floats); got != want {
		t.Errorf("Sum = %v, want %v", got, want)
	}
	key := func(x float64) float64 { return math.Abs(x - 499.5) }
	if m, _ := par.MinByKey(p, floats, key); m != seqMinByKey(floats, key) {
		t.Errorf("MinByKey = %v, want %v", m, seqMinByKey(floats, key))
	}
	ints := layerInts(5000)
	if i := par.IndexFunc(p, ints, func(x int) bool { return x == 2500 }); i != 2500 {
		t.Errorf("IndexFunc = %d", i)
	}
	if fmt.Sprint(par.ContainsFunc(p, ints, func(x int) bool { return x < 0 })) != "false" {
		t.Error("ContainsFunc found a negative")
	}
}
