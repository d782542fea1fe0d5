package par

import (
	"cmp"

	"github.com/blitz-go/blitz"
)

// This file holds the reductions: Reduce, Sum, Count, Min, Max, MinFunc,
// MaxFunc, MinByKey and MaxByKey. Each cuts s into pieces, reduces every
// piece from left to right, and combines the pieces' results in index order,
// always as (left, right): an operator need be associative, never
// commutative. Ties go to the leftmost element, as in the slices package.

// Number is the constraint of Sum: the integer, floating-point and complex
// types.
type Number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64 | ~complex64 | ~complex128
}

// Reduce folds s with op, potentially in parallel: each piece of s is folded
// from the left starting at identity (acc = op(acc, x)) and the pieces'
// results are combined in index order as op(left, right). So op must be
// associative and identity its identity element (op(identity, x) == x); the
// result is then op(...op(op(identity, s[0]), s[1])..., s[n-1]). An empty s
// gives identity. A nil op panics.
func Reduce[S ~[]E, E any](r blitz.Runner, s S, identity E, op func(a, b E) E) E {
	if op == nil {
		panic("par: Reduce: nil function")
	}
	checkRunner("Reduce", r)
	if len(s) == 0 {
		return identity
	}
	return doOn("Reduce", r, func(w *blitz.Worker) E {
		return reduceRange(w, len(s), pieceMin(r, callbackMinLen), identity, func(lo, hi int) E {
			acc := identity
			for _, x := range s[lo:hi] {
				acc = op(acc, x)
			}
			return acc
		}, op)
	})
}

// Sum returns the sum of the elements of s, computed potentially in
// parallel; 0 for an empty s. Integer sums wrap as a loop's do. A
// floating-point sum adds the same numbers in another grouping than a loop
// from the left, so it may differ from it in the last bits, and from one
// call to the next when the pool's worker count differs: s is cut into
// pieces whose sums are added in index order, and each piece is summed in
// four interleaved running sums (elements 0, 4, 8, ... of the piece in the
// first, 1, 5, 9, ... in the second, and so on) added together at the end
// of the piece, ((first + second) + (third + fourth)), then its last few
// elements from the left.
func Sum[S ~[]E, E Number](r blitz.Runner, s S) E {
	checkRunner("Sum", r)
	sum := func(lo, hi int) E { return sumKernel(s[lo:hi]) }
	if inlineOnCaller(r, len(s)) {
		return sum(0, len(s))
	}
	return doOn("Sum", r, func(w *blitz.Worker) E {
		return reduceRange(w, len(s), pieceMin(r, cheapMinLen), 0, sum, func(a, b E) E { return a + b })
	})
}

// Count returns the number of elements x of s for which pred(x) is true,
// calling pred once per element, potentially in parallel. A nil pred panics.
func Count[S ~[]E, E any](r blitz.Runner, s S, pred func(E) bool) int {
	if pred == nil {
		panic("par: Count: nil function")
	}
	checkRunner("Count", r)
	if len(s) == 0 {
		return 0
	}
	return doOn("Count", r, func(w *blitz.Worker) int {
		return reduceRange(w, len(s), pieceMin(r, callbackMinLen), 0, func(lo, hi int) int {
			n := 0
			for _, x := range s[lo:hi] {
				if pred(x) {
					n++
				}
			}
			return n
		}, func(a, b int) int { return a + b })
	})
}

// Min returns the minimal element of s and true, or the zero value and
// false for an empty s. As with slices.Min, a NaN among floating-point
// elements makes the result NaN.
func Min[S ~[]E, E cmp.Ordered](r blitz.Runner, s S) (E, bool) {
	return extreme("Min", r, s, false)
}

// Max returns the maximal element of s and true, or the zero value and
// false for an empty s. As with slices.Max, a NaN among floating-point
// elements makes the result NaN.
func Max[S ~[]E, E cmp.Ordered](r blitz.Runner, s S) (E, bool) {
	return extreme("Max", r, s, true)
}

// extreme is Min (isMax false) or Max with the built-in min and max, whose
// results do not depend on the grouping (NaN and signed zeros included), so
// the parallel result is exactly the sequential one.
func extreme[S ~[]E, E cmp.Ordered](name string, r blitz.Runner, s S, isMax bool) (E, bool) {
	checkRunner(name, r)
	if len(s) == 0 {
		var zero E
		return zero, false
	}
	leaf := func(lo, hi int) E {
		if isMax {
			return maxKernel(s[lo:hi])
		}
		return minKernel(s[lo:hi])
	}
	combine := func(a, b E) E {
		if isMax {
			return max(a, b)
		}
		return min(a, b)
	}
	if inlineOnCaller(r, len(s)) {
		return leaf(0, len(s)), true
	}
	return doOn(name, r, func(w *blitz.Worker) E {
		return reduceRange(w, len(s), pieceMin(r, cheapMinLen), s[0], leaf, combine)
	}), true
}

// MinFunc returns the first minimal element of s by cmp (a negative result
// means a < b), and true; the zero value and false for an empty s. It
// matches slices.MinFunc: among equal minimal elements the leftmost wins. A
// nil cmp panics.
func MinFunc[S ~[]E, E any](r blitz.Runner, s S, cmp func(a, b E) int) (E, bool) {
	if cmp == nil {
		panic("par: MinFunc: nil function")
	}
	return bestBy("MinFunc", r, s, cmp, false)
}

// MaxFunc returns the first maximal element of s by cmp, and true; the zero
// value and false for an empty s. It matches slices.MaxFunc: among equal
// maximal elements the leftmost wins. A nil cmp panics.
func MaxFunc[S ~[]E, E any](r blitz.Runner, s S, cmp func(a, b E) int) (E, bool) {
	if cmp == nil {
		panic("par: MaxFunc: nil function")
	}
	return bestBy("MaxFunc", r, s, cmp, true)
}

// bestBy is MinFunc (isMax false) or MaxFunc: an element replaces the best
// so far, found left of it, only if strictly smaller (larger), so ties keep
// the leftmost. Pieces combine by the same rule, left piece first, so the
// result is the element a loop from the left finds.
func bestBy[S ~[]E, E any](name string, r blitz.Runner, s S, cmp func(a, b E) int, isMax bool) (E, bool) {
	checkRunner(name, r)
	if len(s) == 0 {
		var zero E
		return zero, false
	}
	better := func(m, x E) bool {
		if isMax {
			return cmp(x, m) > 0
		}
		return cmp(x, m) < 0
	}
	return doOn(name, r, func(w *blitz.Worker) E {
		return reduceRange(w, len(s), pieceMin(r, callbackMinLen), s[0], func(lo, hi int) E {
			m := s[lo]
			if isMax {
				for _, x := range s[lo+1 : hi] {
					if cmp(x, m) > 0 {
						m = x
					}
				}
			} else {
				for _, x := range s[lo+1 : hi] {
					if cmp(x, m) < 0 {
						m = x
					}
				}
			}
			return m
		}, func(a, b E) E {
			if better(a, b) {
				return b
			}
			return a
		})
	}), true
}

// keyed is an element with its key, computed once.
type keyed[E any, K cmp.Ordered] struct {
	x E
	k K
}

// MinByKey returns the first element of s with the smallest key(x), and
// true; the zero value and false for an empty s. key is called once per
// element, potentially in parallel; keys are compared as cmp.Less does, so
// a NaN key is smaller than every other. A nil key panics.
func MinByKey[S ~[]E, E any, K cmp.Ordered](r blitz.Runner, s S, key func(E) K) (E, bool) {
	if key == nil {
		panic("par: MinByKey: nil function")
	}
	return bestByKey("MinByKey", r, s, key, false)
}

// MaxByKey returns the first element of s with the largest key(x), and
// true; the zero value and false for an empty s. key is called once per
// element, potentially in parallel; keys are compared as cmp.Less does. A
// nil key panics.
func MaxByKey[S ~[]E, E any, K cmp.Ordered](r blitz.Runner, s S, key func(E) K) (E, bool) {
	if key == nil {
		panic("par: MaxByKey: nil function")
	}
	return bestByKey("MaxByKey", r, s, key, true)
}

// bestByKey is bestBy on keys computed once per element.
func bestByKey[S ~[]E, E any, K cmp.Ordered](name string, r blitz.Runner, s S, key func(E) K, isMax bool) (E, bool) {
	checkRunner(name, r)
	if len(s) == 0 {
		var zero E
		return zero, false
	}
	best := doOn(name, r, func(w *blitz.Worker) keyed[E, K] {
		return reduceRange(w, len(s), pieceMin(r, callbackMinLen), keyed[E, K]{}, func(lo, hi int) keyed[E, K] {
			m := keyed[E, K]{s[lo], key(s[lo])}
			if isMax {
				for _, x := range s[lo+1 : hi] {
					if k := key(x); cmp.Less(m.k, k) {
						m = keyed[E, K]{x, k}
					}
				}
			} else {
				for _, x := range s[lo+1 : hi] {
					if k := key(x); cmp.Less(k, m.k) {
						m = keyed[E, K]{x, k}
					}
				}
			}
			return m
		}, func(a, b keyed[E, K]) keyed[E, K] {
			if (isMax && cmp.Less(a.k, b.k)) || (!isMax && cmp.Less(b.k, a.k)) {
				return b
			}
			return a
		})
	})
	return best.x, true
}
