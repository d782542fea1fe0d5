package par

import "github.com/blitz-go/blitz"

// This file holds Windows and MapWindows, rayon's windows: the overlapping
// sub-slices of a given length, one starting at every index that leaves
// room for a whole one. The splitter cuts the range of start indexes, so a
// piece of windows reads size-1 elements past its last start: pieces
// overlap in what they read, never in what the functions write.

// windowCount is the number of windows of size in n elements.
func windowCount(n, size int) int {
	return max(n-size+1, 0)
}

// Windows calls f(i, s[i:i+size]) for every i from 0 to len(s)-size,
// potentially in parallel: the overlapping windows of size elements, none
// if s is shorter than size. Each window is capped at its length, so an
// append to it cannot write into s. size < 1 or a nil f panics.
func Windows[S ~[]E, E any](r blitz.Runner, s S, size int, f func(i int, window S)) {
	if size < 1 {
		panic("par: Windows: size must be at least 1")
	}
	if f == nil {
		panic("par: Windows: nil function")
	}
	n := windowCount(len(s), size)
	enter("Windows", r, func(w *blitz.Worker) {
		forEachRange(w, n, pieceMin(r, callbackMinLen), func(_ *blitz.Worker, lo, hi int) {
			for i := lo; i < hi; i++ {
				f(i, s[i:i+size:i+size])
			}
		})
	})
}

// MapWindows returns a new slice holding f(s[i:i+size]) at index i for
// every window of s (see Windows): len(s)-size+1 results, none if s is
// shorter than size. size < 1 or a nil f panics.
func MapWindows[S ~[]E, E, T any](r blitz.Runner, s S, size int, f func(window S) T) []T {
	if size < 1 {
		panic("par: MapWindows: size must be at least 1")
	}
	if f == nil {
		panic("par: MapWindows: nil function")
	}
	out := make([]T, windowCount(len(s), size))
	enter("MapWindows", r, func(w *blitz.Worker) {
		forEachRange(w, len(out), pieceMin(r, callbackMinLen), func(_ *blitz.Worker, lo, hi int) {
			for i := lo; i < hi; i++ {
				out[i] = f(s[i : i+size : i+size])
			}
		})
	})
	return out
}
