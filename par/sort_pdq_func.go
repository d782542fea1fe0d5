package par

import (
	"math/bits"
	"sync/atomic"
	"unsafe"

	"github.com/blitz-go/blitz"
)

// This file is the pattern-defeating quicksort of SortFunc and IsSortedFunc,
// and the template of sort_pdq_ordered.go (Sort, IsSorted), which
// TestSortOrderedGenerated derives from it: every top-level name ending in
// Func ends in Ordered there, `cmp(x, y) < 0` becomes `orderedLess(x, y)`,
// the cmp parameters, arguments, fields and assignments disappear and the
// type parameters are constrained by cmp.Ordered. So cmp appears here only
// in those shapes. After editing, run go generate.
//
// The algorithm is pdqsort (Orson Peters, "Pattern-defeating Quicksort"),
// as Go's slices.Sort runs it: insertion sort for short pieces, median of
// three or Tukey's ninther as pivot, a check for sorted pieces when the
// pivot samples were in order, equal-element partitioning when the pivot
// equals the piece's lower bound, pattern breaking after a lopsided
// partition and heapsort once a piece had too many of them, so no input is
// quadratic. The partition is Hoare's, scanned in blocks whose comparisons
// feed counters, not jumps, or for Sort Lomuto's, equally branch-free (see
// partitionLessFunc), after a scan from both ends that detects a piece
// that is already partitioned. The pivot samples sit where slices.Sort
// takes them and Hoare's partition leaves the elements where it does, so
// on one worker SortFunc mostly splits as it does, and mends the same
// patterns. Parallelism comes in two places: the
// two sides of a partition are sorted under JoinArgs when both are long,
// and a piece longer than the slice's share per worker is partitioned in
// parallel chunks (partitionParFunc).
//
// SortFunc's moves are all swaps, so a panicking cmp leaves the slice a
// permutation of its elements. Sort's comparison cannot panic, and its
// kernel differs from SortFunc's where that or the cheapness of comparing
// pays (the knobs in sort.go): short pieces are sorted by a sorting network
// on a prefix, insertion of the rest and, for the longer ones, a merge of
// two halves so sorted (see insertionSortFunc), all of which hold elements
// out of the slice; and the partition is Lomuto's.

// pdqCtxFunc is shared by every job of one parallel sort or order check; a
// sort that cannot fork (an inline one, or one on a pool of one worker) has
// none, and allocates nothing.
type pdqCtxFunc[E any] struct {
	// rec is pdqRunFunc[E], taken once: a generic function's value made
	// inside generic code is allocated each time it is made.
	rec func(*blitz.Worker, pdqJobFunc[E]) struct{}
	// workers is the pool's worker count, at least 2.
	workers int
	// parPart: pieces longer than this are partitioned, reversed and
	// checked for order in parallel. It is at least the slice's share per
	// worker, so only the pieces of the first few levels qualify, fewer
	// than the workers at any time, and the parallel steps (one
	// allocation each) happen O(workers·log n) times per call.
	parPart int
}

// newPdqCtxFunc returns the context of a sort of n elements on w, or nil
// when the sort cannot fork.
func newPdqCtxFunc[E any](w *blitz.Worker, n int) *pdqCtxFunc[E] {
	k := workersOf(w)
	if k == 1 || n <= sortInlineMax {
		return nil
	}
	return &pdqCtxFunc[E]{rec: pdqRunFunc[E], workers: k, parPart: max(sortParPartitionMin, n/k)}
}

// pdqRootFunc is the job that sorts all of data on w (nil: inline).
func pdqRootFunc[E any](w *blitz.Worker, data []E, cmp func(a, b E) int) pdqJobFunc[E] {
	n := len(data)
	return pdqJobFunc[E]{c: newPdqCtxFunc[E](w, n), data: data, cmp: cmp, a: 0, b: n,
		limit: bits.Len(uint(n)), balanced: true, partitioned: true}
}

// large reports whether a piece of n elements runs its steps in parallel.
func (c *pdqCtxFunc[E]) large(n int) bool {
	return c != nil && n > c.parPart
}

// pdqJobFunc is the one argument type that the jobs of a sort pass through
// JoinArgs: a piece to sort (kind sortJobPiece), or a range of a parallel
// step's loop. A single type keeps the join frames of every depth reusable,
// so forking allocates nothing.
type pdqJobFunc[E any] struct {
	c    *pdqCtxFunc[E] // nil: sequential
	data []E
	cmp  func(a, b E) int
	// a, b: the piece data[a:b], or the range of the step's loop.
	a, b int
	kind int
	step *pdqStepFunc[E] // the parallel step a loop job belongs to
	// limit is the number of lopsided partitions the piece may still go
	// through before it is heapsorted.
	limit int
	// balanced and partitioned describe the partition that made the
	// piece: whether its smaller side was at least an eighth of it, and
	// whether it found the piece already partitioned.
	balanced, partitioned bool
}

// pdqStepFunc is the state of one parallel step (a partition, a reversal or
// an order check) over v, shared by the jobs of its loop.
type pdqStepFunc[E any] struct {
	v []E
	p E // the pivot of a partition
	sortChunks
	unsorted atomic.Bool // an order check found a pair out of order
}

// pdqRunFunc runs one job of a parallel sort.
func pdqRunFunc[E any](w *blitz.Worker, j pdqJobFunc[E]) struct{} {
	if j.kind == sortJobPiece {
		return pdqsortFunc(w, j)
	}
	if j.b-j.a > sortJobGrain(j.kind) {
		l, r := j, j
		l.b = j.a + (j.b-j.a)/2
		r.a = l.b
		blitz.JoinArgs(w, j.c.rec, l, j.c.rec, r)
		return struct{}{}
	}
	st := j.step
	cmp := j.cmp
	switch j.kind {
	case sortJobPartition, sortJobPartitionEqual:
		for i := j.a; i < j.b; i++ {
			chunk := st.v[st.chunkStart(i):st.chunkStart(i+1)]
			if j.kind == sortJobPartitionEqual {
				st.lefts[i], st.done[i] = partitionNotGreaterFunc(chunk, st.p, cmp)
			} else {
				st.lefts[i], st.done[i] = partitionLessFunc(chunk, st.p, cmp)
			}
		}
	case sortJobSwap:
		swapMisplaced(&st.sortChunks, st.v, j.a, j.b)
	case sortJobReverse:
		reverseRange(st.v, j.a, j.b)
	case sortJobCheck:
		if !st.unsorted.Load() && !sortedRunFunc(st.v, j.a, j.b, cmp) {
			st.unsorted.Store(true)
		}
	}
	return struct{}{}
}

// stepLoop runs the loop of kind over [lo, hi) in parallel jobs.
func (j pdqJobFunc[E]) stepLoop(w *blitz.Worker, st *pdqStepFunc[E], kind, lo, hi int) {
	l := j
	l.kind, l.step, l.a, l.b = kind, st, lo, hi
	pdqRunFunc(w, l)
}

// pdqsortFunc sorts the piece j. Every element before j.a (if any) is
// already in its final place and is not greater than any element of the
// piece; pieces sorted concurrently are disjoint and only read that one
// element outside themselves.
func pdqsortFunc[E any](w *blitz.Worker, j pdqJobFunc[E]) struct{} {
	c := j.c
	data := j.data
	cmp := j.cmp
	a, b, limit := j.a, j.b, j.limit
	balanced, partitioned := j.balanced, j.partitioned
	for {
		n := b - a
		if n <= insertionMaxFunc {
			insertionSortFunc(data, a, b, cmp)
			return struct{}{}
		}
		if limit == 0 {
			heapSortFunc(data[a:b], cmp)
			return struct{}{}
		}
		if !balanced {
			breakPatterns(data[a:b])
			limit--
		}
		large := c.large(n)
		pivot, hint := choosePivotFunc(data, a, b, cmp)
		if hint == sortDecreasing {
			// The samples fell strictly: the piece may be descending.
			// Reversed, it may be ascending; the pivot moves with it.
			if large {
				j.stepLoop(w, &pdqStepFunc[E]{v: data[a:b]}, sortJobReverse, 0, n/2)
			} else {
				reverseRange(data[a:b], 0, n/2)
			}
			pivot = (b - 1) - (pivot - a)
			hint = sortIncreasing
		}
		if balanced && partitioned && hint == sortIncreasing {
			// The samples rose and the last partition moved nothing: the
			// piece may already be sorted, or nearly.
			if large && isSortedParFunc(w, j, data[a:b]) {
				return struct{}{}
			}
			if partialInsertionSortFunc(data, a, b, cmp) {
				return struct{}{}
			}
		}
		if a > 0 && !(cmp(data[a-1], data[pivot]) < 0) {
			// The pivot equals the piece's lower bound data[a-1], so no
			// element is less than it: split off the elements equal to it,
			// which are then in place, and go on with the greater ones.
			if large {
				a, _ = partitionParFunc(w, j, a, b, pivot, true)
			} else {
				a = partitionEqualFunc(data, a, b, pivot, cmp)
			}
			continue
		}
		var mid int
		if large {
			mid, partitioned = partitionParFunc(w, j, a, b, pivot, false)
		} else {
			mid, partitioned = partitionFunc(data, a, b, pivot, cmp)
		}
		left, right := mid-a, b-mid-1
		balanced = min(left, right) >= n/8
		// The smaller side starts afresh, as a new call of slices.Sort's
		// recursion would; the larger one inherits the flags, as its loop
		// would.
		ls, rs := j, j
		ls.a, ls.b, rs.a, rs.b = a, mid, mid+1, b
		ls.limit, rs.limit = limit, limit
		ls.balanced, ls.partitioned, rs.balanced, rs.partitioned = true, true, true, true
		if left < right {
			rs.balanced, rs.partitioned = balanced, partitioned
		} else {
			ls.balanced, ls.partitioned = balanced, partitioned
		}
		if c != nil && min(left, right) > sortJoinMin {
			blitz.JoinArgs(w, c.rec, ls, c.rec, rs)
			return struct{}{}
		}
		// Sequentially: recurse into the smaller side, loop on the larger,
		// so the stack stays O(log n) deep.
		if left < right {
			pdqsortFunc(w, ls)
			a = mid + 1
		} else {
			pdqsortFunc(w, rs)
			b = mid
		}
	}
}

// insertionSortFunc sorts data[a:b] by insertion: with holdOutFunc (see
// sort.go) each element is held out while the greater ones before it shift
// right, one store per step, else it is swapped down. With networkFunc a
// sorting network first sorts a prefix without a branch on the data, and a
// piece of sortMergeHalvesMin to insertionMaxFunc elements sorts its two
// halves so and merges them, which leaves each insertion a short way to go.
func insertionSortFunc[E any](data []E, a, b int, cmp func(a, b E) int) {
	v := data[a:b]
	if holdOutFunc {
		if networkFunc && len(v) >= sortMergeHalvesMin && len(v) <= insertionMaxFunc {
			h := len(v) / 2
			insertShiftFunc(v[:h], sortNetworkFunc(v[:h], cmp), cmp)
			insertShiftFunc(v[h:], sortNetworkFunc(v[h:], cmp), cmp)
			mergeHalvesFunc(v, h, cmp)
			return
		}
		from := 1
		if networkFunc {
			from = sortNetworkFunc(v, cmp)
		}
		insertShiftFunc(v, from, cmp)
		return
	}
	for i := 1; i < len(v); i++ {
		for k := i; k > 0 && cmp(v[k], v[k-1]) < 0; k-- {
			v[k], v[k-1] = v[k-1], v[k]
		}
	}
}

// insertShiftFunc sorts v, whose prefix v[:from] is sorted, by insertion:
// each element is held out while the greater ones before it shift right.
func insertShiftFunc[E any](v []E, from int, cmp func(a, b E) int) {
	for i := from; i < len(v); i++ {
		x := v[i]
		k := i
		for ; k > 0 && cmp(x, v[k-1]) < 0; k-- {
			v[k] = v[k-1]
		}
		v[k] = x
	}
}

// mergeHalvesFunc merges the sorted halves v[:h] and v[h:] (h = len(v)/2,
// len(v) <= insertionMaxFunc) through a buffer on the stack, from both
// ends at once: each step writes the smaller head to the front and the
// greater tail to the back, choosing without a branch. Neither end can
// overrun its runs: after i < len(v)/2 steps each end has taken i
// elements, and an element that one end took is, under a strict weak
// order, never chosen by the other.
func mergeHalvesFunc[E any](v []E, h int, cmp func(a, b E) int) {
	var buf [insertionMaxFunc]E
	n := len(v)
	out := buf[:n]
	l, r := 0, h
	lb, rb := h-1, n-1
	for i := 0; i < n/2; i++ {
		x, y := v[l], v[r]
		takeR := cmp(y, x) < 0
		if takeR {
			x = y
		}
		out[i] = x
		r += b2i(takeR)
		l += 1 - b2i(takeR)
		x, y = v[lb], v[rb]
		takeL := cmp(y, x) < 0
		if takeL {
			y = x
		}
		out[n-1-i] = y
		lb -= b2i(takeL)
		rb -= 1 - b2i(takeL)
	}
	if n%2 == 1 {
		x := v[r]
		if l <= lb {
			x = v[l]
		}
		out[n/2] = x
	}
	copy(v, out)
}

// sortNetworkFunc sorts a prefix of v by a sorting network and returns its
// length: the first 13 elements, or 9, or none (1) when v is shorter. The
// networks are the smallest known for their sizes (45 and 25 comparators,
// from Bert Dobbelaere's list); each comparator is a conditional swap that
// the compiler can make branch-free, so sorting a random prefix costs no
// mispredicted branch, where insertion sort mispredicts about once per
// element. The elements are held in locals, which the compiler keeps in
// registers, rather than swapped in place: a comparator would otherwise
// wait for the store of the one before it.
func sortNetworkFunc[E any](v []E, cmp func(a, b E) int) int {
	if len(v) >= 13 {
		w := v[:13]
		e0, e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, e11, e12 := w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8], w[9], w[10], w[11], w[12]
		e0, e12 = sortedPairFunc(e0, e12, cmp)
		e1, e10 = sortedPairFunc(e1, e10, cmp)
		e2, e9 = sortedPairFunc(e2, e9, cmp)
		e3, e7 = sortedPairFunc(e3, e7, cmp)
		e5, e11 = sortedPairFunc(e5, e11, cmp)
		e6, e8 = sortedPairFunc(e6, e8, cmp)
		e1, e6 = sortedPairFunc(e1, e6, cmp)
		e2, e3 = sortedPairFunc(e2, e3, cmp)
		e4, e11 = sortedPairFunc(e4, e11, cmp)
		e7, e9 = sortedPairFunc(e7, e9, cmp)
		e8, e10 = sortedPairFunc(e8, e10, cmp)
		e0, e4 = sortedPairFunc(e0, e4, cmp)
		e1, e2 = sortedPairFunc(e1, e2, cmp)
		e3, e6 = sortedPairFunc(e3, e6, cmp)
		e7, e8 = sortedPairFunc(e7, e8, cmp)
		e9, e10 = sortedPairFunc(e9, e10, cmp)
		e11, e12 = sortedPairFunc(e11, e12, cmp)
		e4, e6 = sortedPairFunc(e4, e6, cmp)
		e5, e9 = sortedPairFunc(e5, e9, cmp)
		e8, e11 = sortedPairFunc(e8, e11, cmp)
		e10, e12 = sortedPairFunc(e10, e12, cmp)
		e0, e5 = sortedPairFunc(e0, e5, cmp)
		e3, e8 = sortedPairFunc(e3, e8, cmp)
		e4, e7 = sortedPairFunc(e4, e7, cmp)
		e6, e11 = sortedPairFunc(e6, e11, cmp)
		e9, e10 = sortedPairFunc(e9, e10, cmp)
		e0, e1 = sortedPairFunc(e0, e1, cmp)
		e2, e5 = sortedPairFunc(e2, e5, cmp)
		e6, e9 = sortedPairFunc(e6, e9, cmp)
		e7, e8 = sortedPairFunc(e7, e8, cmp)
		e10, e11 = sortedPairFunc(e10, e11, cmp)
		e1, e3 = sortedPairFunc(e1, e3, cmp)
		e2, e4 = sortedPairFunc(e2, e4, cmp)
		e5, e6 = sortedPairFunc(e5, e6, cmp)
		e9, e10 = sortedPairFunc(e9, e10, cmp)
		e1, e2 = sortedPairFunc(e1, e2, cmp)
		e3, e4 = sortedPairFunc(e3, e4, cmp)
		e5, e7 = sortedPairFunc(e5, e7, cmp)
		e6, e8 = sortedPairFunc(e6, e8, cmp)
		e2, e3 = sortedPairFunc(e2, e3, cmp)
		e4, e5 = sortedPairFunc(e4, e5, cmp)
		e6, e7 = sortedPairFunc(e6, e7, cmp)
		e8, e9 = sortedPairFunc(e8, e9, cmp)
		e3, e4 = sortedPairFunc(e3, e4, cmp)
		e5, e6 = sortedPairFunc(e5, e6, cmp)
		w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8], w[9], w[10], w[11], w[12] = e0, e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, e11, e12
		return 13
	}
	if len(v) >= 9 {
		w := v[:9]
		e0, e1, e2, e3, e4, e5, e6, e7, e8 := w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8]
		e0, e3 = sortedPairFunc(e0, e3, cmp)
		e1, e7 = sortedPairFunc(e1, e7, cmp)
		e2, e5 = sortedPairFunc(e2, e5, cmp)
		e4, e8 = sortedPairFunc(e4, e8, cmp)
		e0, e7 = sortedPairFunc(e0, e7, cmp)
		e2, e4 = sortedPairFunc(e2, e4, cmp)
		e3, e8 = sortedPairFunc(e3, e8, cmp)
		e5, e6 = sortedPairFunc(e5, e6, cmp)
		e0, e2 = sortedPairFunc(e0, e2, cmp)
		e1, e3 = sortedPairFunc(e1, e3, cmp)
		e4, e5 = sortedPairFunc(e4, e5, cmp)
		e7, e8 = sortedPairFunc(e7, e8, cmp)
		e1, e4 = sortedPairFunc(e1, e4, cmp)
		e3, e6 = sortedPairFunc(e3, e6, cmp)
		e5, e7 = sortedPairFunc(e5, e7, cmp)
		e0, e1 = sortedPairFunc(e0, e1, cmp)
		e2, e4 = sortedPairFunc(e2, e4, cmp)
		e3, e5 = sortedPairFunc(e3, e5, cmp)
		e6, e8 = sortedPairFunc(e6, e8, cmp)
		e2, e3 = sortedPairFunc(e2, e3, cmp)
		e4, e5 = sortedPairFunc(e4, e5, cmp)
		e6, e7 = sortedPairFunc(e6, e7, cmp)
		e1, e2 = sortedPairFunc(e1, e2, cmp)
		e3, e4 = sortedPairFunc(e3, e4, cmp)
		e5, e6 = sortedPairFunc(e5, e6, cmp)
		w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8] = e0, e1, e2, e3, e4, e5, e6, e7, e8
		return 9
	}
	return 1
}

// sortedPairFunc returns x and y in order: y first if it is less.
func sortedPairFunc[E any](x, y E, cmp func(a, b E) int) (E, E) {
	if cmp(y, x) < 0 {
		x, y = y, x
	}
	return x, y
}

// heapSortFunc sorts v by heapsort, the fallback that keeps the worst case
// of the sort O(n log n).
func heapSortFunc[E any](v []E, cmp func(a, b E) int) {
	for i := len(v)/2 - 1; i >= 0; i-- {
		siftDownFunc(v, i, len(v), cmp)
	}
	for end := len(v) - 1; end > 0; end-- {
		v[0], v[end] = v[end], v[0]
		siftDownFunc(v, 0, end, cmp)
	}
}

// siftDownFunc moves v[i] down the max-heap v[:n] to its place. The child
// index is computed unsigned: 2i+1 overflows a 32-bit int when n > 2^30.
func siftDownFunc[E any](v []E, i, n int, cmp func(a, b E) int) {
	for {
		c := 2*uint(i) + 1
		if c >= uint(n) {
			return
		}
		child := int(c)
		if child+1 < n && cmp(v[child], v[child+1]) < 0 {
			child++
		}
		if !(cmp(v[i], v[child]) < 0) {
			return
		}
		v[i], v[child] = v[child], v[i]
		i = child
	}
}

// choosePivotFunc picks the index of a pivot for data[a:b] (b-a >= 8): the
// median of the elements at one, two and three quarters (rounded down) of the
// piece, each first replaced by the median of itself and its neighbours on
// long pieces (Tukey's ninther). The hint says whether every comparison of
// the samples found them ascending, or every one strictly descending.
func choosePivotFunc[E any](data []E, a, b int, cmp func(a, b E) int) (pivot, hint int) {
	n := b - a
	i, j, k := a+n/4, a+n/4*2, a+n/4*3
	falls, tests := 0, 3
	if n >= sortNintherMin {
		i = medianOf3Func(data, i-1, i, i+1, &falls, cmp)
		j = medianOf3Func(data, j-1, j, j+1, &falls, cmp)
		k = medianOf3Func(data, k-1, k, k+1, &falls, cmp)
		tests += 9
	}
	j = medianOf3Func(data, i, j, k, &falls, cmp)
	switch falls {
	case 0:
		return j, sortIncreasing
	case tests:
		return j, sortDecreasing
	}
	return j, sortUnknown
}

// medianOf3Func returns whichever of i, j and k indexes the median of their
// elements, adding to *falls the number of its three comparisons that found
// two samples in descending order.
func medianOf3Func[E any](data []E, i, j, k int, falls *int, cmp func(a, b E) int) int {
	// Each step selects indices by arithmetic on its comparison's
	// outcome: on random samples a branch would be a coin toss.
	f := b2i(cmp(data[j], data[i]) < 0)
	*falls += f
	d := (j - i) & -f // swap i and j if they fell
	i, j = i+d, j-d
	// data[i] <= data[j]: the larger of the two competes with k.
	f = b2i(cmp(data[k], data[j]) < 0)
	*falls += f
	j += (k - j) & -f // j is now the smaller of j and k; the larger is out
	// data[j] <= data[k]: the median is the larger of data[i], data[j].
	f = b2i(cmp(data[j], data[i]) < 0)
	*falls += f
	j -= (j - i) & -f
	return j
}

// partialInsertionSortFunc sorts data[a:b] when it needs at most a few
// insertion steps, and reports whether it did; otherwise it gives up early,
// leaving data[a:b] permuted.
func partialInsertionSortFunc[E any](data []E, a, b int, cmp func(a, b E) int) bool {
	const (
		maxFixes   = 5  // pairs out of order that are mended before giving up
		minMending = 50 // shorter pieces give up at their first such pair
	)
	v := data[:b]
	i := a + 1
	for fix := 0; ; fix++ {
		i = firstDescentFunc(v, i, cmp)
		if i == b {
			return true
		}
		if fix == maxFixes || b-a < minMending {
			return false
		}
		data[i], data[i-1] = data[i-1], data[i]
		// Sink the smaller one to the left, raise the larger one to the
		// right; the scan resumes at i, which the left pass sorted up to.
		for k := i - 1; k > a && cmp(data[k], data[k-1]) < 0; k-- {
			data[k], data[k-1] = data[k-1], data[k]
		}
		for k := i + 1; k < b && cmp(data[k], data[k-1]) < 0; k++ {
			data[k], data[k-1] = data[k-1], data[k]
		}
	}
}

// partitionFunc partitions data[a:b] around the element at pivot: it
// returns mid such that data[mid] is that element, data[a:mid] holds the
// elements less than it and data[mid+1:b] the others, and whether
// data[a:b] was already so arranged once the pivot was swapped to the
// front.
func partitionFunc[E any](data []E, a, b, pivot int, cmp func(a, b E) int) (mid int, already bool) {
	data[a], data[pivot] = data[pivot], data[a]
	lt, already := partitionLessFunc(data[a+1:b], data[a], cmp)
	mid = a + lt
	data[a], data[mid] = data[mid], data[a]
	return mid, already
}

// partitionEqualFunc partitions data[a:b], which holds no element less than
// the one at pivot, into the elements equal to it followed by the greater
// ones, and returns the index of the first greater one.
func partitionEqualFunc[E any](data []E, a, b, pivot int, cmp func(a, b E) int) int {
	data[a], data[pivot] = data[pivot], data[a]
	le, _ := partitionNotGreaterFunc(data[a+1:b], data[a], cmp)
	return a + 1 + le
}

// partitionLessFunc moves the elements of v less than p to its front and
// returns their count, and whether v was already so arranged.
//
// With partHoareFunc (see sort.go) it is Hoare's partition, else Lomuto's.
// Hoare's: the misplaced elements found from the front are swapped, in
// order, with those found from the back, so the back's elements reach the
// left side reversed. That is what turns an ascending run followed by a
// descending one (an up-down input) into sorted pieces, as in slices.Sort;
// a one-sided (Lomuto) partition keeps the left elements in their order and
// so hands the same pattern to every level. Its scans branch on each
// comparison: a block scheme that records offsets without branching
// (BlockQuicksort) left the same arrangement but took 17% longer on random
// ints with cmp.Compare, where the call, not the branch, is the cost.
func partitionLessFunc[E any](v []E, p E, cmp func(a, b E) int) (lt int, already bool) {
	// Skip the prefix already less and the suffix already not less.
	l, r := 0, len(v)
	for l < r && cmp(v[l], p) < 0 {
		l++
	}
	for l < r && !(cmp(v[r-1], p) < 0) {
		r--
	}
	if l == r {
		return l, true
	}
	if !partHoareFunc {
		return lomutoFunc(v, l, r, p, cmp), false
	}
	for {
		// v[l] is not less than p and v[r-1] is (the scans above, or
		// the last turn's, compared them): swap them, then scan on.
		r--
		v[l], v[r] = v[r], v[l]
		l++
		for l < r && cmp(v[l], p) < 0 {
			l++
		}
		for l < r && !(cmp(v[r-1], p) < 0) {
			r--
		}
		if l >= r {
			return l, false
		}
	}
}

// lomutoFunc partitions v[l:r] (l < r) by Lomuto's scheme and returns the
// index that ends its elements less than p: each step swaps v[x] to the
// boundary lt and advances lt only when v[x] was less, without a branch on
// the data. The element is compared after it is swapped, so a panicking cmp
// leaves a permutation.
//
// The loop runs on pointers: v[lt] would cost a bounds check at every step
// (lt <= x is beyond the compiler's proof), a compare and a branch in a
// loop of a few instructions. Every pointer made is that of an element of
// v[l:r], whose bounds are checked once on entry, so the loop stays within
// the slice, and the race detector's pointer checks (checkptr) accept it.
// Two steps per iteration halve the loop's own overhead.
func lomutoFunc[E any](v []E, l, r int, p E, cmp func(a, b E) int) int {
	v = v[:r]
	_ = v[l] // l < r = len(v): every index below is in [l, r)
	base := unsafe.Pointer(unsafe.SliceData(v))
	size := unsafe.Sizeof(p)
	at := func(i int) *E { return (*E)(unsafe.Add(base, uintptr(i)*size)) }
	lt, x := l, l
	for ; x+1 < r; x += 2 {
		px, pl := at(x), at(lt)
		e := *px
		*px = *pl
		*pl = e
		lt += b2i(cmp(e, p) < 0)
		px, pl = at(x+1), at(lt)
		e = *px
		*px = *pl
		*pl = e
		lt += b2i(cmp(e, p) < 0)
	}
	if x < r {
		px, pl := at(x), at(lt)
		e := *px
		*px = *pl
		*pl = e
		lt += b2i(cmp(e, p) < 0)
	}
	return lt
}

// partitionNotGreaterFunc is partitionLessFunc for the elements not greater
// than p, scanned the plain way: it runs only on pieces whose pivot equals
// their lower bound, which the loop leaves behind at once.
func partitionNotGreaterFunc[E any](v []E, p E, cmp func(a, b E) int) (le int, already bool) {
	l, r := 0, len(v)
	for l < r && !(cmp(p, v[l]) < 0) {
		l++
	}
	for l < r && cmp(p, v[r-1]) < 0 {
		r--
	}
	if l == r {
		return l, true
	}
	for {
		// v[l] is greater than p and v[r-1] is not: swap them, then
		// scan on (as partitionLessFunc, without comparing them again).
		r--
		v[l], v[r] = v[r], v[l]
		l++
		for l < r && !(cmp(p, v[l]) < 0) {
			l++
		}
		for l < r && cmp(p, v[r-1]) < 0 {
			r--
		}
		if l >= r {
			return l, false
		}
	}
}

// partitionParFunc is partitionFunc (eq false) or partitionEqualFunc (eq
// true) with the work split among the workers: the elements after the
// pivot are cut into chunks that are partitioned in parallel, then the
// misplaced elements are swapped into place, in parallel too (see
// sortChunks). It returns partitionFunc's mid and already, or
// partitionEqualFunc's index.
func partitionParFunc[E any](w *blitz.Worker, j pdqJobFunc[E], a, b, pivot int, eq bool) (mid int, already bool) {
	data := j.data
	data[a], data[pivot] = data[pivot], data[a]
	st := &pdqStepFunc[E]{v: data[a+1 : b], p: data[a]}
	st.cut(len(st.v), j.c.workers)
	kind := sortJobPartition
	if eq {
		kind = sortJobPartitionEqual
	}
	j.stepLoop(w, st, kind, 0, st.k)
	m, misplaced := st.findMisplaced()
	if misplaced > 0 {
		j.stepLoop(w, st, sortJobSwap, 0, misplaced)
	}
	already = misplaced == 0 && st.allDone()
	if eq {
		return a + 1 + m, already
	}
	mid = a + m
	data[a], data[mid] = data[mid], data[a]
	return mid, already
}

// isSortedFunc reports whether v is sorted. With a worker that can fork, a
// long v is checked in parallel pieces, which stop looking once one of
// them has found a pair out of order.
func isSortedFunc[E any](w *blitz.Worker, v []E, cmp func(a, b E) int) bool {
	n := len(v)
	if workersOf(w) == 1 || n <= sortCheckGrain {
		return sortedRunFunc(v, 1, n, cmp)
	}
	c := &pdqCtxFunc[E]{rec: pdqRunFunc[E], workers: workersOf(w)}
	return isSortedParFunc(w, pdqJobFunc[E]{c: c, cmp: cmp}, v)
}

// isSortedParFunc is the parallel check of isSortedFunc, by jobs like j.
func isSortedParFunc[E any](w *blitz.Worker, j pdqJobFunc[E], v []E) bool {
	st := &pdqStepFunc[E]{v: v}
	j.stepLoop(w, st, sortJobCheck, 1, len(v))
	return !st.unsorted.Load()
}

// sortedRunFunc reports whether v[i-1] <= v[i] for every i in [lo, hi)
// (0 < lo).
func sortedRunFunc[E any](v []E, lo, hi int, cmp func(a, b E) int) bool {
	v = v[lo-1 : hi]
	return firstDescentFunc(v, 1, cmp) == len(v)
}

// firstDescentFunc returns the first i >= from (from >= 1) at which v[i] <
// v[i-1], or len(v).
func firstDescentFunc[E any](v []E, from int, cmp func(a, b E) int) int {
	for i := from; i < len(v); i++ {
		if cmp(v[i], v[i-1]) < 0 {
			return i
		}
	}
	return len(v)
}
