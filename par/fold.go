package par

import "github.com/blitz-go/blitz"

// Fold is rayon's fold (fold_with being fold with an init that returns a
// copy), with the per-piece accumulators combined, as rayon's fold is almost
// always followed by a reduce. The alternative, returning the accumulators
// as a slice, would hand the caller a number of pieces that depends on
// which workers stole what: a result that changes from run to run unless
// the caller combines it anyway. Combining in index order, as every
// reduction of this package does, keeps the answer deterministic for an
// associative combine.

// Fold folds s into an accumulator of another type, potentially in
// parallel: s is cut into pieces, each piece gets its own accumulator from
// init() and folds its elements into it from the left (acc = fold(acc, x)),
// and the pieces' accumulators are combined in index order as
// combine(left, right). So combine must be associative (not commutative),
// and init's value must be its identity; the result is then what one
// accumulator folded over all of s would give. The number of pieces, and
// so of calls to init and combine, depends on the pool's workers and on
// the run; MinLen sets their shortest length. An empty s gives init(). Nil
// functions panic.
//
// It suits accumulators that are costly to merge per element but cheap per
// piece: a map of counts, a slice of histogram buckets, a strings.Builder.
// The accumulator is passed to fold and returned by value, so a large one
// is best a pointer, a slice or a map.
func Fold[S ~[]E, E, A any](r blitz.Runner, s S, init func() A, fold func(acc A, x E) A, combine func(a, b A) A) A {
	if init == nil || fold == nil || combine == nil {
		panic("par: Fold: nil function")
	}
	checkRunner("Fold", r)
	if len(s) == 0 {
		var acc A
		onCaller(func() { acc = init() })
		return acc
	}
	return doOn("Fold", r, func(w *blitz.Worker) A {
		var none A
		return reduceRange(w, len(s), pieceMin(r, callbackMinLen), none, func(lo, hi int) A {
			acc := init()
			for _, x := range s[lo:hi] {
				acc = fold(acc, x)
			}
			return acc
		}, combine)
	})
}
