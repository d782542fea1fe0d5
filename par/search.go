package par

import (
	"slices"
	"sync/atomic"

	"github.com/blitz-go/blitz"
)

// This file holds the searches: ContainsFunc, Contains, All, IndexFunc,
// LastIndexFunc, IndexAnyFunc and Index. They share one engine, which stops
// as soon as the answer is known:
//
//   - An unordered search (ContainsFunc, Contains, All, IndexAnyFunc) keeps
//     one shared result, -1 until a match is recorded. Every piece checks it
//     before each block of elements (not before each element) and stops once
//     it is set; pieces not yet started skip at once.
//   - A leftmost search (IndexFunc, Index) keeps the smallest match index
//     found so far (atomically lowered) and stops or skips every piece and
//     every block lying right of it, while the pieces left of it run to the
//     end, since they may still hold a smaller index. It forks the left half
//     first and runs the range in windows from the left, each searched in
//     parallel and each twice as long as the last, up to a sixteenth of the
//     slice, so that the workers search near the front: a window right of
//     the window of the answer is never started, which bounds the elements
//     examined by the answer's index plus one window (at most 1/16 of the
//     slice, or the first window's length).
//   - A rightmost search (LastIndexFunc) is the mirror image.
//
// Blocks start at searchFirstBlock elements and double up to searchMaxBlock
// within a piece: a costly predicate stops soon, a cheap one pays one
// atomic load per thousand elements.

type searchMode uint8

const (
	searchAnyMatch  searchMode = iota // any match
	searchLeftmost                    // the leftmost match
	searchRightmost                   // the rightmost match
)

const (
	searchFirstBlock = 32
	searchMaxBlock   = 1024
	// searchWindowBlocks is the first window's length in maximal blocks per
	// worker; windows double up to a sixteenth of the slice.
	searchWindowBlocks = 8
	searchWindowShift  = 4
)

// searchCtx is one search.
type searchCtx struct {
	mode   searchMode
	minLen int
	// scan returns a match in [lo, hi), -1 if there is none: the first one
	// for searchAnyMatch and searchLeftmost, the last one for searchRightmost.
	scan func(lo, hi int) int
	// best is the result so far. searchAnyMatch: -1 until the first match is
	// recorded (one CAS from -1), never changed after. searchLeftmost: the
	// length of the slice until a match, then the smallest match index,
	// only lowered (CAS loop). searchRightmost: -1, then the largest match
	// index, only raised. Written by the recording worker, read by every
	// worker before each block; sequentially consistent (sync/atomic).
	best atomic.Int64
}

type searchJob struct {
	span
	c *searchCtx
}

// searchRecordHook, when not nil, is called after each recorded match (test
// hook: it lets a test hold the other workers until the answer is visible).
var searchRecordHook func()

// search runs a search over [0, n) on w and returns the match index or -1.
func search(w *blitz.Worker, n int, mode searchMode, minLen int, scan func(lo, hi int) int) int {
	c := &searchCtx{mode: mode, minLen: minLen, scan: scan}
	switch mode {
	case searchAnyMatch:
		c.best.Store(-1)
		searchStep(w, searchJob{newSpan(w, 0, n), c})
		return int(c.best.Load())
	case searchLeftmost:
		c.best.Store(int64(n))
		size, limit := c.searchWindows(w, n)
		for lo := 0; lo < n && c.best.Load() == int64(n); {
			hi := lo + min(size, n-lo)
			searchStep(w, searchJob{newSpan(w, lo, hi), c})
			lo, size = hi, min(twice(size), limit)
		}
		if i := int(c.best.Load()); i < n {
			return i
		}
		return -1
	default: // searchRightmost
		c.best.Store(-1)
		size, limit := c.searchWindows(w, n)
		for hi := n; hi > 0 && c.best.Load() == -1; {
			lo := hi - min(size, hi)
			searchStep(w, searchJob{newSpan(w, lo, hi), c})
			hi, size = lo, min(twice(size), limit)
		}
		return int(c.best.Load())
	}
}

// searchWindows returns the first window's length and the largest one for
// an ordered search of n elements.
func (c *searchCtx) searchWindows(w *blitz.Worker, n int) (first, limit int) {
	first = max(searchWindowBlocks*searchMaxBlock*w.Pool().Workers(), c.minLen)
	return first, max(first, n>>searchWindowShift)
}

// covered reports whether no index in [lo, hi) can improve the result.
func (c *searchCtx) covered(lo, hi int) bool {
	b := c.best.Load()
	switch c.mode {
	case searchAnyMatch:
		return b >= 0
	case searchLeftmost:
		return int64(lo) >= b
	default:
		return int64(hi-1) <= b
	}
}

// record offers match i to the result.
func (c *searchCtx) record(i int) {
	v := int64(i)
	switch c.mode {
	case searchAnyMatch:
		c.best.CompareAndSwap(-1, v)
	case searchLeftmost:
		for old := c.best.Load(); v < old && !c.best.CompareAndSwap(old, v); old = c.best.Load() {
		}
	default:
		for old := c.best.Load(); v > old && !c.best.CompareAndSwap(old, v); old = c.best.Load() {
		}
	}
	if h := searchRecordHook; h != nil {
		h()
	}
}

// searchStep searches one span: skipped if covered, else split (the half
// nearer the answer's end runs first, the other is offered to thieves) or
// scanned.
func searchStep(w *blitz.Worker, j searchJob) struct{} {
	c := j.c
	if c.covered(j.lo, j.hi) {
		return struct{}{}
	}
	if j.trySplit(w, 0, c.minLen) {
		l, r := j.halves(w)
		if c.mode == searchRightmost {
			blitz.JoinArgs(w, searchStep, searchJob{r, c}, searchStep, searchJob{l, c})
		} else {
			blitz.JoinArgs(w, searchStep, searchJob{l, c}, searchStep, searchJob{r, c})
		}
		return struct{}{}
	}
	c.leaf(j.lo, j.hi)
	return struct{}{}
}

// leaf scans [lo, hi) block by block (backwards for searchRightmost), checking
// before each block whether the result already covers it.
func (c *searchCtx) leaf(lo, hi int) {
	block := searchFirstBlock
	if c.mode == searchRightmost {
		for hi > lo {
			b := hi - min(block, hi-lo)
			if c.covered(b, hi) {
				return
			}
			if i := c.scan(b, hi); i >= 0 {
				c.record(i)
				return
			}
			hi, block = b, min(2*block, searchMaxBlock)
		}
		return
	}
	for lo < hi {
		e := lo + min(block, hi-lo)
		if c.covered(lo, e) {
			return
		}
		if i := c.scan(lo, e); i >= 0 {
			c.record(i)
			return
		}
		lo, block = e, min(2*block, searchMaxBlock)
	}
}

// searchFunc runs a predicate search over s: a match is an element x with
// pred(x) != negate (All looks for an element that fails pred).
func searchFunc[S ~[]E, E any](name string, r blitz.Runner, s S, pred func(E) bool, mode searchMode, negate bool) int {
	if pred == nil {
		panic("par: " + name + ": nil function")
	}
	checkRunner(name, r)
	if len(s) == 0 {
		return -1
	}
	var scan func(lo, hi int) int
	switch {
	case mode == searchRightmost && negate:
		scan = func(lo, hi int) int {
			for i := hi - 1; i >= lo; i-- {
				if !pred(s[i]) {
					return i
				}
			}
			return -1
		}
	case mode == searchRightmost:
		scan = func(lo, hi int) int {
			for i := hi - 1; i >= lo; i-- {
				if pred(s[i]) {
					return i
				}
			}
			return -1
		}
	case negate:
		scan = func(lo, hi int) int {
			for i, x := range s[lo:hi] {
				if !pred(x) {
					return lo + i
				}
			}
			return -1
		}
	default:
		scan = func(lo, hi int) int {
			for i, x := range s[lo:hi] {
				if pred(x) {
					return lo + i
				}
			}
			return -1
		}
	}
	return doOn(name, r, func(w *blitz.Worker) int {
		return search(w, len(s), mode, pieceMin(r, callbackMinLen), scan)
	})
}

// searchEqual runs a search for v over s, inline on the caller for a short
// s and a *Pool.
func searchEqual[S ~[]E, E comparable](name string, r blitz.Runner, s S, v E, mode searchMode) int {
	checkRunner(name, r)
	if len(s) == 0 {
		return -1
	}
	if inlineOnCaller(r, len(s)) {
		return slices.Index(s, v)
	}
	return doOn(name, r, func(w *blitz.Worker) int {
		return search(w, len(s), mode, pieceMin(r, cheapMinLen), func(lo, hi int) int {
			if i := slices.Index(s[lo:hi], v); i >= 0 {
				return lo + i
			}
			return -1
		})
	})
}

// All reports whether pred(x) is true for every element x of s. It stops
// every worker as soon as one found an element that fails pred. An empty s
// gives true. A nil pred panics.
func All[S ~[]E, E any](r blitz.Runner, s S, pred func(E) bool) bool {
	return searchFunc("All", r, s, pred, searchAnyMatch, true) < 0
}

// ContainsFunc reports whether some element x of s satisfies pred(x), as
// slices.ContainsFunc does. It stops every worker as soon as one found a
// match (see Searches in the package documentation), so pred is called on
// an unspecified subset of s, potentially in parallel. An empty s gives
// false. A nil pred panics.
func ContainsFunc[S ~[]E, E any](r blitz.Runner, s S, pred func(E) bool) bool {
	return searchFunc("ContainsFunc", r, s, pred, searchAnyMatch, false) >= 0
}

// Contains reports whether v is present in s, stopping every worker once
// one found it.
func Contains[S ~[]E, E comparable](r blitz.Runner, s S, v E) bool {
	return searchEqual("Contains", r, s, v, searchAnyMatch) >= 0
}

// Index returns the index of the first occurrence of v in s, or -1 if it is
// not present, as slices.Index does. Workers stop once the occurrences they
// could still find lie right of the best one found.
func Index[S ~[]E, E comparable](r blitz.Runner, s S, v E) int {
	return searchEqual("Index", r, s, v, searchLeftmost)
}

// IndexFunc returns the first (leftmost) index i with pred(s[i]) true, or -1
// if there is none, as slices.IndexFunc does. pred is called potentially in
// parallel, on every element left of the answer and on some right of it:
// at most one window's worth (a sixteenth of s, or a few thousand elements
// per worker when s is short), which is never started once a window left of
// it holds the answer. A nil pred panics.
func IndexFunc[S ~[]E, E any](r blitz.Runner, s S, pred func(E) bool) int {
	return searchFunc("IndexFunc", r, s, pred, searchLeftmost, false)
}

// LastIndexFunc returns the last (rightmost) index i with pred(s[i]) true,
// or -1 if there is none; it is IndexFunc searching from the right. A nil
// pred panics.
func LastIndexFunc[S ~[]E, E any](r blitz.Runner, s S, pred func(E) bool) int {
	return searchFunc("LastIndexFunc", r, s, pred, searchRightmost, false)
}

// IndexAnyFunc returns the index of some element x of s with pred(x) true,
// or -1 if there is none: the first match any worker finds, which need not
// be the leftmost. It is the fastest search: every worker stops as soon as
// one found a match. For the element itself, index s with the result. A nil
// pred panics.
func IndexAnyFunc[S ~[]E, E any](r blitz.Runner, s S, pred func(E) bool) int {
	return searchFunc("IndexAnyFunc", r, s, pred, searchAnyMatch, false)
}
