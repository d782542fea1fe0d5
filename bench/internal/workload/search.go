package workload

import (
	"fmt"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

// The search workload is Blitz's find, position, any and all rows over the
// 10M int64 0, 1, ..., n-1, with the predicates of its Rayon program: find
// (early exit) x == 100, position (early) x == 100, position (middle)
// x == n/2, any (early exit) x > 100, any (full scan) x > 99999999, all
// (pass) x < 99999999. seq is the loop (slices.IndexFunc's, the callback
// inlined), the plain-Go version goSearch, the pool's IndexAnyFunc (find
// indexes the slice with its result), ContainsFunc and All. Every result is an int64: the element, the index or 0/1.

// searchOp is one search row.
type searchOp struct {
	name string
	// pred builds the predicate for an input of n elements.
	pred func(n int) func(int64) bool
	// layer is the pool's call; seq its sequential meaning on idx, the
	// leftmost match's index (-1 if none).
	layer func(p *blitz.Pool, s []int64, pred func(int64) bool) int64
	seq   func(s []int64, idx int) int64
}

// searchNever is the bound of Blitz's full-scan predicates: above every
// element.
const searchNever = 99_999_999

var searchOps = []searchOp{
	{"find-early", func(int) func(int64) bool { return func(x int64) bool { return x == 100 } },
		func(p *blitz.Pool, s []int64, pred func(int64) bool) int64 {
			if i := par.IndexAnyFunc(p, s, pred); i >= 0 {
				return s[i]
			}
			return -1
		}, elementAt},
	{"position-early", func(int) func(int64) bool { return func(x int64) bool { return x == 100 } },
		func(p *blitz.Pool, s []int64, pred func(int64) bool) int64 {
			return int64(par.IndexAnyFunc(p, s, pred))
		},
		indexOf},
	{"position-middle", func(n int) func(int64) bool { m := int64(n / 2); return func(x int64) bool { return x == m } },
		func(p *blitz.Pool, s []int64, pred func(int64) bool) int64 {
			return int64(par.IndexAnyFunc(p, s, pred))
		},
		indexOf},
	{"any-early", func(int) func(int64) bool { return func(x int64) bool { return x > 100 } },
		func(p *blitz.Pool, s []int64, pred func(int64) bool) int64 { return b2i(par.ContainsFunc(p, s, pred)) },
		found},
	{"any-full", func(int) func(int64) bool { return func(x int64) bool { return x > searchNever } },
		func(p *blitz.Pool, s []int64, pred func(int64) bool) int64 { return b2i(par.ContainsFunc(p, s, pred)) },
		found},
	{"all-pass", func(int) func(int64) bool { return func(x int64) bool { return !(x < searchNever) } },
		func(p *blitz.Pool, s []int64, pred func(int64) bool) int64 {
			return b2i(par.All(p, s, func(x int64) bool { return x < searchNever }))
		},
		notFound},
}

// elementAt, indexOf, found and notFound turn the leftmost match's index
// into a search op's result.
func elementAt(s []int64, idx int) int64 {
	if idx < 0 {
		return -1
	}
	return s[idx]
}
func indexOf(_ []int64, idx int) int64 { return int64(idx) }
func found(_ []int64, idx int) int64   { return b2i(idx >= 0) }
func notFound(_ []int64, idx int) int64 {
	return b2i(idx < 0)
}

// searchCases are the search rows. For all-pass, pred is the negation of
// All's predicate: every impl looks for a counterexample.
func searchCases(cfg Config) []Case {
	n := cfg.Sizes.TableN
	var out []Case
	for _, op := range searchOps {
		spec := opSpec{
			workload: "search", params: fmt.Sprintf("op=%s/n=%s", op.name, sizeLabel(n)),
			unit: "ns/elem", perOp: float64(n), peer: "goroutine-chunks",
		}
		out = append(out, opCases(cfg, spec, func() opImpls[int64] {
			s := int64s(n)
			pred := op.pred(n)
			return opImpls[int64]{
				seq: func() int64 {
					for i, x := range s {
						if pred(x) {
							return op.seq(s, i)
						}
					}
					return op.seq(s, -1)
				},
				goPar: func() int64 { return op.seq(s, goSearch(len(s), func(i int) bool { return pred(s[i]) })) },
				pool:  func(p *blitz.Pool) int64 { return op.layer(p, s, pred) },
			}
		})...)
	}
	return out
}
