package workload

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

// The sort workload is Blitz's "Sort 1M (random, sorted, reverse, equal)":
// sorting a fresh copy of 1M float64 of each shape (the copy untimed). seq is
// slices.Sort; the plain-Go version is a parallel quicksort that forks a
// goroutine per partition above sortGoCutoff and finishes parts with
// slices.Sort; the pool's is par.Sort.

// sortGoCutoff is the part length at or below which sortGo calls
// slices.Sort.
const sortGoCutoff = 1 << 14

// sortShapes are the inputs of Blitz's table, in its order.
var sortShapes = []string{"random", "sorted", "reverse", "equal"}

// sortShape returns n float64 of the named shape; random is uniform in
// [0, 1) from a fixed seed.
func sortShape(shape string, n int) []float64 {
	v := make([]float64, n)
	switch shape {
	case "random":
		r := rand.New(rand.NewPCG(12345, 1))
		for i := range v {
			v[i] = r.Float64()
		}
	case "sorted":
		for i := range v {
			v[i] = float64(i)
		}
	case "reverse":
		for i := range v {
			v[i] = float64(n - i)
		}
	case "equal":
		for i := range v {
			v[i] = 42
		}
	default:
		panic("sortShape: unknown shape " + shape)
	}
	return v
}

// sortGo is the plain-Go parallel sort: partition, fork a goroutine for the
// left part, recurse on the right; slices.Sort at or below the cutoff.
func sortGo[E cmp.Ordered](a []E) {
	if len(a) <= sortGoCutoff || len(a) <= insertionLimit {
		slices.Sort(a)
		return
	}
	j := partition(a)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		sortGo(a[:j+1])
		wg.Done()
	}()
	sortGo(a[j+1:])
	wg.Wait()
}

// sortCases are the sort rows, one table per shape.
func sortCases(cfg Config) []Case {
	n := cfg.Sizes.TableSortN
	var out []Case
	for _, shape := range sortShapes {
		spec := opSpec{
			workload: "sort-f64", params: fmt.Sprintf("input=%s/n=%s", shape, sizeLabel(n)),
			unit: "ns/elem", perOp: float64(n), peer: "goroutine-wg-cutoff",
		}
		out = append(out, opCases(cfg, spec, func() opImpls[struct{}] {
			src := sortShape(shape, n)
			sorted := slices.Sorted(slices.Values(src))
			buf := make([]float64, n)
			return opImpls[struct{}]{
				prepare: func() { copy(buf, src) },
				seq:     func() struct{} { slices.Sort(buf); return struct{}{} },
				goPar:   func() struct{} { sortGo(buf); return struct{}{} },
				pool:    func(p *blitz.Pool) struct{} { par.Sort(p, buf); return struct{}{} },
				verify: func() error {
					if !slices.Equal(buf, sorted) {
						return errors.New("output is not the sorted input")
					}
					return nil
				},
			}
		})...)
	}
	return out
}
