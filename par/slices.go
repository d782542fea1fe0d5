package par

import (
	"math/bits"

	"github.com/blitz-go/blitz"
)

// This file holds the element-wise loops over a slice: ForEach, ForEachIndex,
// MapInPlace, Map, Fill, Filter and Chunks. Each runs on a Runner (see
// Runner), calls its callback once per element (or chunk), potentially in
// parallel and in no particular order, and returns when every call returned.
// A callback that writes shared state must synchronise it. A panic in a
// callback reaches the caller as a *PanicError after the other pieces
// finished (Join's rule); which elements were visited by then is unspecified.

// ForEach calls f(x) for every element x of s, potentially in parallel.
// A nil f panics.
func ForEach[S ~[]E, E any](r blitz.Runner, s S, f func(E)) {
	if f == nil {
		panic("par: ForEach: nil function")
	}
	enter("ForEach", r, func(w *blitz.Worker) {
		forEachRange(w, len(s), pieceMin(r, callbackMinLen), func(_ *blitz.Worker, lo, hi int) {
			for _, x := range s[lo:hi] {
				f(x)
			}
		})
	})
}

// ForEachIndex calls f(i, s[i]) for every index i of s, potentially in
// parallel. A nil f panics.
func ForEachIndex[S ~[]E, E any](r blitz.Runner, s S, f func(int, E)) {
	if f == nil {
		panic("par: ForEachIndex: nil function")
	}
	enter("ForEachIndex", r, func(w *blitz.Worker) {
		forEachRange(w, len(s), pieceMin(r, callbackMinLen), func(_ *blitz.Worker, lo, hi int) {
			for i := lo; i < hi; i++ {
				f(i, s[i])
			}
		})
	})
}

// MapInPlace replaces every element x of s with f(x), potentially in
// parallel. A nil f panics.
func MapInPlace[S ~[]E, E any](r blitz.Runner, s S, f func(E) E) {
	if f == nil {
		panic("par: MapInPlace: nil function")
	}
	enter("MapInPlace", r, func(w *blitz.Worker) {
		forEachRange(w, len(s), pieceMin(r, callbackMinLen), func(_ *blitz.Worker, lo, hi int) {
			p := s[lo:hi]
			for i, x := range p {
				p[i] = f(x)
			}
		})
	})
}

// Map returns a new slice of len(s) elements holding f(s[i]) at index i,
// computed potentially in parallel. A nil f panics.
func Map[S ~[]E, E, T any](r blitz.Runner, s S, f func(E) T) []T {
	if f == nil {
		panic("par: Map: nil function")
	}
	out := make([]T, len(s))
	enter("Map", r, func(w *blitz.Worker) {
		forEachRange(w, len(s), pieceMin(r, callbackMinLen), func(_ *blitz.Worker, lo, hi int) {
			o := out[lo:hi]
			for i, x := range s[lo:hi] {
				o[i] = f(x)
			}
		})
	})
	return out
}

// Fill sets every element of s to v, potentially in parallel.
func Fill[S ~[]E, E any](r blitz.Runner, s S, v E) {
	checkRunner("Fill", r)
	fill := func(lo, hi int) {
		p := s[lo:hi]
		for i := range p {
			p[i] = v
		}
	}
	if inlineOnCaller(r, len(s)) {
		fill(0, len(s))
		return
	}
	enter("Fill", r, func(w *blitz.Worker) {
		forEachRange(w, len(s), pieceMin(r, cheapMinLen), func(_ *blitz.Worker, lo, hi int) { fill(lo, hi) })
	})
}

// Filter returns a new slice holding the elements x of s for which keep(x)
// is true, in their order in s, or nil if there are none. keep is called
// exactly once per element, potentially in parallel. The work takes two
// passes over pieces of s: the first calls keep and records the outcome in
// a bitmap (one bit per element) with a count per piece, the second copies
// the kept elements to their offsets; the only allocations are the bitmap,
// the counts and the result. A nil keep panics.
func Filter[S ~[]E, E any](r blitz.Runner, s S, keep func(E) bool) S {
	if keep == nil {
		panic("par: Filter: nil function")
	}
	checkRunner("Filter", r)
	if len(s) == 0 {
		return nil
	}
	return doOn("Filter", r, func(w *blitz.Worker) S {
		// Pieces are whole bitmap words, so no two pieces write one word.
		plan := newPiecePlan(len(s), pieceCount(r, len(s), piecesPerWorker*w.Pool().Workers()), 64)
		bitmap := make([]uint64, (len(s)+63)/64)
		counts := make([]int, plan.k+1)
		eachPiece(w, 0, plan.k, func(_ *blitz.Worker, i int) {
			lo, hi := plan.bounds(i)
			c := 0
			for j := lo; j < hi; j += 64 {
				var word uint64
				for b, x := range s[j:min(j+64, hi)] {
					if keep(x) {
						word |= 1 << b
					}
				}
				bitmap[j/64] = word
				c += bits.OnesCount64(word)
			}
			counts[i+1] = c
		})
		for i := 1; i <= plan.k; i++ {
			counts[i] += counts[i-1] // counts[i] is now piece i's offset
		}
		if counts[plan.k] == 0 {
			return nil
		}
		out := make(S, counts[plan.k])
		eachPiece(w, 0, plan.k, func(_ *blitz.Worker, i int) {
			lo, hi := plan.bounds(i)
			o := out[counts[i]:counts[i+1]]
			n := 0
			for j := lo; j < hi; j += 64 {
				for word := bitmap[j/64]; word != 0; word &= word - 1 {
					o[n] = s[j+bits.TrailingZeros64(word)]
					n++
				}
			}
		})
		return out
	})
}

// piecesPerWorker is how many pieces per worker the two-pass families cut
// their input into: a few, so that a worker slowed down by another tenant
// of the machine holds up only a small part of a pass.
const piecesPerWorker = 4

// Chunks calls f(w, i, chunk) for every chunk of s, potentially in parallel:
// chunk i is s[i*size : min((i+1)*size, len(s))], capped at its length so an
// append to it cannot write into the next chunk, and w is the worker running
// the call, for nested parallel work. size < 1 or a nil f panics.
func Chunks[S ~[]E, E any](r blitz.Runner, s S, size int, f func(w *blitz.Worker, i int, chunk S)) {
	if size < 1 {
		panic("par: Chunks: size must be at least 1")
	}
	if f == nil {
		panic("par: Chunks: nil function")
	}
	n := len(s)
	chunks := n / size
	if n%size != 0 {
		chunks++
	}
	enter("Chunks", r, func(w *blitz.Worker) {
		forEachRange(w, chunks, pieceMin(r, callbackMinLen), func(w *blitz.Worker, lo, hi int) {
			for i := lo; i < hi; i++ {
				a := i * size
				b := a + min(size, n-a)
				f(w, i, s[a:b:b])
			}
		})
	})
}
