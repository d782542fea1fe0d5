package par

import (
	"fmt"

	"github.com/blitz-go/blitz"
)

// This file holds ZipWith and Unzip, rayon's zip and unzip: two slices
// walked index by index, and one slice split into two. Go has no tuple
// type, so both take a function where rayon takes pairs: ZipWith's combines
// the two elements, Unzip's splits one.
//
// ZipWith panics on slices of different lengths where rayon's zip stops at
// the shorter: in Go two slices meant to be walked together that differ in
// length are a bug more often than not (the scans of this package refuse
// such a dst and src alike), and a silent truncation would hide it, while
// the caller who wants rayon's behaviour writes a[:n] and b[:n].

// ZipWith returns a new slice holding f(a[i], b[i]) at index i, computed
// potentially in parallel: rayon's zip followed by a map. a and b must have
// the same length; slices of different lengths, or a nil f, panic before f
// is called.
func ZipWith[SA ~[]A, SB ~[]B, A, B, T any](r blitz.Runner, a SA, b SB, f func(A, B) T) []T {
	if f == nil {
		panic("par: ZipWith: nil function")
	}
	checkRunner("ZipWith", r)
	if len(a) != len(b) {
		panic(fmt.Sprintf("par: ZipWith: len(a) = %d, len(b) = %d", len(a), len(b)))
	}
	out := make([]T, len(a))
	enter("ZipWith", r, func(w *blitz.Worker) {
		forEachRange(w, len(a), pieceMin(r, callbackMinLen), func(_ *blitz.Worker, lo, hi int) {
			o, y := out[lo:hi], b[lo:hi]
			for i, x := range a[lo:hi] {
				o[i] = f(x, y[i])
			}
		})
	})
	return out
}

// Unzip returns two new slices of len(s) elements holding, at index i, the
// two results of f(s[i]), computed potentially in parallel: rayon's unzip
// (of a map). A nil f panics.
func Unzip[S ~[]E, E, A, B any](r blitz.Runner, s S, f func(E) (A, B)) ([]A, []B) {
	if f == nil {
		panic("par: Unzip: nil function")
	}
	checkRunner("Unzip", r)
	as, bs := make([]A, len(s)), make([]B, len(s))
	enter("Unzip", r, func(w *blitz.Worker) {
		forEachRange(w, len(s), pieceMin(r, callbackMinLen), func(_ *blitz.Worker, lo, hi int) {
			oa, ob := as[lo:hi], bs[lo:hi]
			for i, x := range s[lo:hi] {
				oa[i], ob[i] = f(x)
			}
		})
	})
	return as, bs
}
