package par

import "github.com/blitz-go/blitz"

// This file holds the functions whose output length is known only once the
// callbacks ran: FlatMap, FilterMap and PartitionMap. Each takes two passes
// over pieces of s, as Filter does:
//
//  1. every piece calls the callback on its elements, in order, and appends
//     what they give to a buffer of its own (two for PartitionMap);
//  2. the buffers' lengths are summed into offsets on the calling worker
//     (a few per worker: a loop, not a parallel scan), the result is
//     allocated once, and every piece copies its buffer to its offset.
//
// So the callback is called exactly once per element and its results are
// copied once more; when a single buffer holds everything (one piece, or
// every other piece gave nothing), that buffer is the result and the
// second pass is skipped.

// gatherPieces is the plan of pieces the functions here cut n elements
// into on w.
func gatherPieces(r blitz.Runner, w *blitz.Worker, n int) piecePlan {
	return newPiecePlan(n, pieceCount(r, n, piecesPerWorker*w.Pool().Workers()), 1)
}

// concat returns the concatenation of bufs, nil if they hold nothing,
// copying them in parallel on w.
func concat[T any](w *blitz.Worker, bufs [][]T) []T {
	// offs[i] is bufs[i]'s offset in the result, offs[len(bufs)] its length.
	offs := make([]int, len(bufs)+1)
	only := -1 // the one non-empty buffer, if there is just one
	for i, b := range bufs {
		offs[i+1] = offs[i] + len(b)
		if len(b) > 0 {
			if only == -1 {
				only = i
			} else {
				only = -2
			}
		}
	}
	switch {
	case offs[len(bufs)] == 0:
		return nil
	case only >= 0:
		return bufs[only]
	}
	out := make([]T, offs[len(bufs)])
	eachPiece(w, 0, len(bufs), func(_ *blitz.Worker, i int) {
		copy(out[offs[i]:], bufs[i])
	})
	return out
}

// FlatMap returns the concatenation of f(x) for every element x of s, in
// the order of s, or nil if it holds nothing: rayon's flat_map. f is called
// exactly once per element, potentially in parallel; the slices it returns
// are copied before the call returns, so f may return a slice it reuses
// (one per goroutine) or one that aliases s. A nil f panics.
func FlatMap[S ~[]E, E, T any](r blitz.Runner, s S, f func(E) []T) []T {
	if f == nil {
		panic("par: FlatMap: nil function")
	}
	checkRunner("FlatMap", r)
	if len(s) == 0 {
		return nil
	}
	return gather("FlatMap", r, len(s), func(lo, hi int) []T {
		var buf []T
		for _, x := range s[lo:hi] {
			buf = append(buf, f(x)...)
		}
		return buf
	})
}

// FilterMap returns, in the order of s, the values v of the calls
// v, ok := f(x) for the elements x of s that gave ok true, or nil if none
// did: rayon's filter_map. f is called exactly once per element,
// potentially in parallel. A nil f panics.
func FilterMap[S ~[]E, E, T any](r blitz.Runner, s S, f func(E) (T, bool)) []T {
	if f == nil {
		panic("par: FilterMap: nil function")
	}
	checkRunner("FilterMap", r)
	if len(s) == 0 {
		return nil
	}
	return gather("FilterMap", r, len(s), func(lo, hi int) []T {
		var buf []T
		for _, x := range s[lo:hi] {
			if v, ok := f(x); ok {
				buf = append(buf, v)
			}
		}
		return buf
	})
}

// gather runs piece over the pieces of [0, n) on r, each filling a buffer
// of its own, and returns their concatenation in index order: the body of
// FlatMap and FilterMap. piece is called once per piece, not per element,
// so the element loop inside it keeps the caller's callback the only
// indirect call.
func gather[T any](name string, r blitz.Runner, n int, piece func(lo, hi int) []T) []T {
	return doOn(name, r, func(w *blitz.Worker) []T {
		plan := gatherPieces(r, w, n)
		bufs := make([][]T, plan.k)
		eachPiece(w, 0, plan.k, func(_ *blitz.Worker, i int) {
			bufs[i] = piece(plan.bounds(i))
		})
		return concat(w, bufs)
	})
}

// PartitionMap calls l, rv, left := f(x) for every element x of s and
// returns the values l of the calls that gave left true, and the values rv
// of the others, each in the order of s (nil where there are none): rayon's
// partition_map, with a bool for its Either. The value of the side not
// chosen is ignored. f is called exactly once per element, potentially in
// parallel. Partition is the in-place form, for a predicate. A nil f
// panics.
func PartitionMap[S ~[]E, E, L, R any](r blitz.Runner, s S, f func(E) (l L, rv R, left bool)) ([]L, []R) {
	if f == nil {
		panic("par: PartitionMap: nil function")
	}
	checkRunner("PartitionMap", r)
	if len(s) == 0 {
		return nil, nil
	}
	type out struct {
		l []L
		r []R
	}
	res := doOn("PartitionMap", r, func(w *blitz.Worker) out {
		plan := gatherPieces(r, w, len(s))
		ls, rs := make([][]L, plan.k), make([][]R, plan.k)
		eachPiece(w, 0, plan.k, func(_ *blitz.Worker, i int) {
			lo, hi := plan.bounds(i)
			var lb []L
			var rb []R
			for _, x := range s[lo:hi] {
				if l, rv, left := f(x); left {
					lb = append(lb, l)
				} else {
					rb = append(rb, rv)
				}
			}
			ls[i], rs[i] = lb, rb
		})
		var o out
		w.Join(func(w *blitz.Worker) { o.l = concat(w, ls) }, func(w *blitz.Worker) { o.r = concat(w, rs) })
		return o
	})
	return res.l, res.r
}
