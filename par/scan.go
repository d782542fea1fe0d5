package par

import (
	"fmt"
	"unsafe"

	"github.com/blitz-go/blitz"
)

// This file holds the prefix scans, InclusiveScan and ExclusiveScan. Both
// take two passes over pieces of src (a parallel scan cannot avoid touching
// each element twice):
//
//  1. piece 0 is scanned into dst at once (its running value starts at the
//     identity), and every other piece but the last is reduced to its total;
//  2. the piece totals are scanned on the calling worker, which gives every
//     piece its starting value, and pieces 1 to k-1 are scanned into dst
//     from it. The last piece's scan ends on the total of src.
//
// With k pieces of equal length each pass has k-1 pieces to run, so k is the
// worker count plus one: each worker scans or reduces about n/k elements
// per pass, and the call makes about 2n(k-1)/k calls of op in all (a loop
// does n). A pool of one worker, or a short src, scans sequentially.

// scanMinPiece is the shortest piece a parallel scan cuts: shorter inputs
// are scanned sequentially.
const scanMinPiece = 256

// InclusiveScan sets dst[i] to the fold of src[0..i]:
// op(...op(op(identity, src[0]), src[1])..., src[i]), computed potentially in
// parallel, and returns the fold of all of src (identity for an empty src).
// op must be associative and identity its identity element; op is called
// about twice per element, in no particular order. dst and src must have the
// same length and be the same slice (an in-place scan: dst starts at src's
// first element) or not overlap. A nil op, a length mismatch, or a dst that
// overlaps src without starting at the same element (a window of the same
// array shifted by some elements, whose result would be wrong) panics before
// anything is written.
func InclusiveScan[S ~[]E, E any](r blitz.Runner, dst, src S, identity E, op func(a, b E) E) E {
	return scan("InclusiveScan", r, dst, src, identity, op, true)
}

// ExclusiveScan sets dst[i] to the fold of src[0..i-1] (dst[0] = identity),
// computed potentially in parallel, and returns the fold of all of src: the
// value dst[len(src)] would have. It is the offsets of pieces from their
// lengths. The rules on op, dst and src are InclusiveScan's.
func ExclusiveScan[S ~[]E, E any](r blitz.Runner, dst, src S, identity E, op func(a, b E) E) E {
	return scan("ExclusiveScan", r, dst, src, identity, op, false)
}

func scan[S ~[]E, E any](name string, r blitz.Runner, dst, src S, identity E, op func(a, b E) E, inclusive bool) E {
	if op == nil {
		panic("par: " + name + ": nil function")
	}
	checkRunner(name, r)
	if len(dst) != len(src) {
		panic(fmt.Sprintf("par: %s: len(dst) = %d, len(src) = %d", name, len(dst), len(src)))
	}
	if overlapsPartly(dst, src) {
		panic("par: " + name + ": dst and src overlap but do not start at the same element")
	}
	n := len(src)
	if n == 0 {
		return identity
	}
	return doOn(name, r, func(w *blitz.Worker) E {
		plan := newPiecePlan(n, pieceCount(r, n, min(w.Pool().Workers()+1, n/scanMinPiece)), 1)
		if plan.k < 3 {
			return scanPiece(dst, src, identity, op, inclusive)
		}
		k := plan.k
		// prefix[i] is the fold of pieces 0..i: pass 1 stores each piece's
		// own total, the sequential step folds them.
		prefix := make([]E, k)
		eachPiece(w, 0, k-1, func(_ *blitz.Worker, i int) {
			lo, hi := plan.bounds(i)
			if i == 0 {
				prefix[0] = scanPiece(dst[lo:hi], src[lo:hi], identity, op, inclusive)
				return
			}
			acc := identity
			for _, x := range src[lo:hi] {
				acc = op(acc, x)
			}
			prefix[i] = acc
		})
		for i := 1; i < k-1; i++ {
			prefix[i] = op(prefix[i-1], prefix[i])
		}
		eachPiece(w, 1, k, func(_ *blitz.Worker, i int) {
			lo, hi := plan.bounds(i)
			t := scanPiece(dst[lo:hi], src[lo:hi], prefix[i-1], op, inclusive)
			if i == k-1 {
				prefix[i] = t
			}
		})
		return prefix[k-1]
	})
}

// overlapsPartly reports whether a and b share memory without starting at
// the same address: a scan of src into such a dst would read elements it
// had already overwritten, and pieces would race on elements that are
// one's dst and another's src. The address ranges are compared as integers,
// as the standard library's slices package does for its insertions: the
// collector never moves heap memory, and either slice keeps its array
// alive for the call. Zero-size elements never overlap.
func overlapsPartly[E any](a, b []E) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	size := unsafe.Sizeof(a[0])
	if size == 0 {
		return false
	}
	pa, pb := uintptr(unsafe.Pointer(unsafe.SliceData(a))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if pa == pb {
		return false
	}
	return pa < pb+uintptr(len(b))*size && pb < pa+uintptr(len(a))*size
}

// scanPiece scans src into dst starting from acc and returns the fold of
// acc and all of src. Each src[i] is read before dst[i] is written, so dst
// may be src.
func scanPiece[S ~[]E, E any](dst, src S, acc E, op func(a, b E) E, inclusive bool) E {
	dst = dst[:len(src)]
	if inclusive {
		for i, x := range src {
			acc = op(acc, x)
			dst[i] = acc
		}
		return acc
	}
	for i, x := range src {
		dst[i] = acc
		acc = op(acc, x)
	}
	return acc
}
