package workload

import (
	"fmt"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

// The by-key workload is Blitz's "minByKey (10M)" and "maxByKey (10M)" over
// the int64 0, 1, ..., n-1: min by |x - n/2| (the answer is the middle
// element) and max by x (the last). seq is the loop computing each key
// once, the plain-Go version goChunks over the same loop, the pool's
// MinByKey and MaxByKey.

// byKeyOp is one by-key row: the key and whether the smallest or the
// largest key wins (the first of equal keys, as slices.MinFunc keeps).
type byKeyOp struct {
	name string
	key  func(n int) func(int64) int64
	min  bool
}

var byKeyOps = []byKeyOp{
	{"min-by-key", func(n int) func(int64) int64 {
		mid := int64(n / 2)
		return func(x int64) int64 {
			if d := x - mid; d >= 0 {
				return d
			} else {
				return -d
			}
		}
	}, true},
	{"max-by-key", func(int) func(int64) int64 { return func(x int64) int64 { return x } }, false},
}

// byKeyLoop returns the element of s whose key wins (the first of equal
// keys) and its key; s is not empty.
func byKeyLoop(s []int64, key func(int64) int64, wantMin bool) (best, bestKey int64) {
	best, bestKey = s[0], key(s[0])
	for _, x := range s[1:] {
		if k := key(x); (wantMin && k < bestKey) || (!wantMin && k > bestKey) {
			best, bestKey = x, k
		}
	}
	return best, bestKey
}

// byKeyCases are the by-key rows.
func byKeyCases(cfg Config) []Case {
	n := cfg.Sizes.TableN
	var out []Case
	for _, op := range byKeyOps {
		spec := opSpec{
			workload: "by-key", params: fmt.Sprintf("op=%s/n=%s", op.name, sizeLabel(n)),
			unit: "ns/elem", perOp: float64(n), peer: "goroutine-chunks",
		}
		out = append(out, opCases(cfg, spec, func() opImpls[int64] {
			s := int64s(n)
			key := op.key(n)
			type pair struct{ x, k int64 }
			return opImpls[int64]{
				seq: func() int64 { x, _ := byKeyLoop(s, key, op.min); return x },
				goPar: func() int64 {
					return goChunks(len(s), func(lo, hi int) pair {
						x, k := byKeyLoop(s[lo:hi], key, op.min)
						return pair{x, k}
					}, func(a, b pair) pair {
						if (op.min && b.k < a.k) || (!op.min && b.k > a.k) {
							return b
						}
						return a
					}).x
				},
				pool: func(p *blitz.Pool) int64 {
					if op.min {
						x, _ := par.MinByKey(p, s, key)
						return x
					}
					x, _ := par.MaxByKey(p, s, key)
					return x
				},
			}
		})...)
	}
	return out
}
