package par

import (
	"cmp"
	"math/bits"

	"github.com/blitz-go/blitz"
)

//go:generate go test -run ^TestSortOrderedGenerated$ -update-sort

// Sort sorts s in ascending order, potentially in parallel on r. It is
// slices.Sort run on a pool: the same pattern-defeating quicksort, with the
// two sides of each partition sorted in parallel and the partition of a
// large piece itself split among the workers. Floating-point NaNs are
// ordered before other values, as slices.Sort orders them. The sort is not
// stable.
//
// A slice too short to gain from parallelism is sorted by the calling
// goroutine without entering the pool. Sort allocates nothing per element:
// a few small objects per call, more with more workers.
func Sort[S ~[]E, E cmp.Ordered](r blitz.Runner, s S) {
	checkRunner("Sort", r)
	if len(s) <= sortInlineMax || seqUnderMin(r, len(s)) {
		pdqsortOrdered(nil, pdqRootOrdered(nil, s))
		return
	}
	enter("Sort", r, func(w *blitz.Worker) { pdqsortOrdered(w, pdqRootOrdered(w, s)) })
}

// SortFunc sorts s in ascending order as determined by cmp, potentially in
// parallel on r: slices.SortFunc's algorithm, parallelised as Sort is. cmp
// must be a strict weak ordering, returning a negative number when a < b, a
// positive number when a > b and zero otherwise (cmp.Compare is one); it may
// be called from several workers at once. The sort is not stable: see
// SortStableFunc.
//
// As with Sort, a short slice is sorted by the calling goroutine. If cmp
// panics, SortFunc panics in the caller with a *PanicError, as Join does,
// once every piece in progress has stopped; s then holds its original
// elements in an unspecified order. That holds at every length, for a sort
// run by the caller too, and for panic(nil) (with GODEBUG=panicnil=1 as
// well: its Value is then a *runtime.PanicNilError). A nil cmp panics.
func SortFunc[S ~[]E, E any](r blitz.Runner, s S, cmp func(a, b E) int) {
	checkRunner("SortFunc", r)
	if cmp == nil {
		panic("par: SortFunc: nil comparison function")
	}
	sortFunc("SortFunc", r, s, cmp)
}

// sortFunc is SortFunc after the checks, shared with SortByKey; name is
// the function the user called.
func sortFunc[E any](name string, r blitz.Runner, s []E, cmp func(a, b E) int) {
	if len(s) <= sortInlineMax || seqUnderMin(r, len(s)) {
		onCaller(func() { pdqsortFunc(nil, pdqRootFunc(nil, s, cmp)) })
		return
	}
	enter(name, r, func(w *blitz.Worker) { pdqsortFunc(w, pdqRootFunc(w, s, cmp)) })
}

// SortByKey sorts s in ascending order of key(e), potentially in parallel on
// r, as SortFunc with a comparison of the keys (cmp.Compare, so NaN keys come
// first). key is called twice per comparison, from several workers at once;
// when it is costly, sort a slice of precomputed keys instead. The sort is
// not stable: see SortStableByKey. A nil key panics.
func SortByKey[S ~[]E, E any, K cmp.Ordered](r blitz.Runner, s S, key func(E) K) {
	checkRunner("SortByKey", r)
	if key == nil {
		panic("par: SortByKey: nil key function")
	}
	sortFunc("SortByKey", r, s, func(a, b E) int { return cmp.Compare(key(a), key(b)) })
}

// IsSorted reports whether s is sorted in ascending order, with NaNs first,
// as slices.IsSorted does. Long slices are checked in parallel on r, and the
// check stops early once a worker finds a pair out of order.
func IsSorted[S ~[]E, E cmp.Ordered](r blitz.Runner, s S) bool {
	checkRunner("IsSorted", r)
	if len(s) <= sortCheckGrain || seqUnderMin(r, len(s)) {
		return isSortedOrdered(nil, s)
	}
	var sorted bool
	enter("IsSorted", r, func(w *blitz.Worker) { sorted = isSortedOrdered(w, s) })
	return sorted
}

// IsSortedFunc reports whether s is sorted in ascending order as determined
// by cmp (see SortFunc), as slices.IsSortedFunc does, in parallel and with
// an early exit like IsSorted. A panic in cmp reaches the caller as
// SortFunc's does. A nil cmp panics.
func IsSortedFunc[S ~[]E, E any](r blitz.Runner, s S, cmp func(a, b E) int) bool {
	checkRunner("IsSortedFunc", r)
	if cmp == nil {
		panic("par: IsSortedFunc: nil comparison function")
	}
	if len(s) <= sortCheckGrain || seqUnderMin(r, len(s)) {
		var sorted bool
		onCaller(func() { sorted = isSortedFunc(nil, s, cmp) })
		return sorted
	}
	var sorted bool
	enter("IsSortedFunc", r, func(w *blitz.Worker) { sorted = isSortedFunc(w, s, cmp) })
	return sorted
}

// Sizes of the sorts. The sequential pieces are those of slices.Sort; the
// parallel ones keep each job long enough (tens of microseconds for ints)
// that forking it costs little beside its work.
const (
	// sortInsertionMax: SortFunc's pieces this short are finished by
	// insertion sort, as slices.SortFunc's are (see insertionMaxFunc).
	sortInsertionMax = 12
	// sortNintherMin: pieces this long take the median of three medians of
	// three as pivot, shorter ones the median of three.
	sortNintherMin = 50
	// sortJoinMin: a partition whose two sides are both longer than this
	// sorts them in parallel (JoinArgs); otherwise the smaller side is
	// sorted first, sequentially, as slices.Sort does.
	sortJoinMin = 1 << 11
	// sortInlineMax: no partition of a slice this short can fork, so the
	// calling goroutine sorts it without entering the pool.
	sortInlineMax = 2*sortJoinMin + 1
	// sortParPartitionMin: the shortest piece whose partition is split
	// among the workers (see pdqCtxFunc.parPart).
	sortParPartitionMin = 1 << 15
	// sortPartitionGrain: the shortest chunk of a parallel partition.
	sortPartitionGrain = 1 << 13
	// sortPartitionChunks: the most chunks of a parallel partition.
	sortPartitionChunks = 64
	// sortMoveGrain: elements per job when swapping or reversing in
	// parallel.
	sortMoveGrain = 1 << 14
	// sortCheckGrain: elements per job of a parallel order check, and the
	// stride between two looks at its early-exit flag.
	sortCheckGrain = 1 << 14
	// partHoareFunc and partHoareOrdered: whether SortFunc's and Sort's
	// partitions use Hoare's scheme or Lomuto's. Hoare's keeps
	// slices.Sort's patterns, which saves comparisons, the cost that counts
	// when each is a call; Lomuto's loop is the cheaper one when comparing
	// is a machine instruction.
	partHoareFunc    = true
	partHoareOrdered = false
	// holdOutFunc and holdOutOrdered: whether the kernel may hold an
	// element outside the slice while it moves others, which saves a
	// store per move but would lose the element if cmp panicked; Sort's
	// comparison cannot.
	holdOutFunc    = false
	holdOutOrdered = true
	// insertionMaxFunc and insertionMaxOrdered: SortFunc's and Sort's
	// pieces this short are finished by insertion sort (a small sort, for
	// Sort: see networkOrdered). Sort's longer pieces save quicksort
	// levels, which its small sort makes cheaper than they are.
	insertionMaxFunc    = sortInsertionMax
	insertionMaxOrdered = 32
	// networkFunc and networkOrdered: whether insertion sort starts with
	// a sorting network on a prefix of its piece, and merges sorted halves
	// of the longer ones. A network does more comparisons than insertion
	// sort does, but none of its branches depends on the data, where
	// insertion sort's mispredict about once per element; a merge needs a
	// buffer, so it holds elements out (holdOutFunc).
	networkFunc    = false
	networkOrdered = true
	// sortMergeHalvesMin: with a network, pieces this long sort their
	// halves apart (a network of 9 or 13 each) and merge them.
	sortMergeHalvesMin = 18
)

// Hints from the pivot choice (see choosePivotFunc).
const (
	sortUnknown    = iota // the samples were in no particular order
	sortIncreasing        // every sample was in ascending order
	sortDecreasing        // every sample was in strictly descending order
)

// workersOf is the worker count of w's pool, or 1 for the nil Worker of an
// inline sort.
func workersOf(w *blitz.Worker) int {
	if w == nil {
		return 1
	}
	return w.Pool().Workers()
}

// orderedLess is the order of Sort: x < y, with NaNs before every other
// value. For integer and string types the NaN tests are constant false.
func orderedLess[E cmp.Ordered](x, y E) bool {
	return (x != x && y == y) || x < y
}

// b2i is 1 for true and 0 for false; the compiler turns it into a flag
// move, so the partition loops that count with it do not branch on data.
func b2i(b bool) int {
	var i int
	if b {
		i = 1
	}
	return i
}

// breakPatterns swaps three elements near the middle of v with
// pseudo-random others, so that a pattern that made the last partition
// lopsided does not do it again. The generator is seeded with len(v): the
// sort stays deterministic.
func breakPatterns[E any](v []E) {
	n := len(v)
	if n < 8 {
		return
	}
	x := uint64(n)
	mask := uint64(1)<<bits.Len(uint(n)) - 1 // n <= mask < 2n
	for i := n/2 - 1; i <= n/2+1; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		j := int(x & mask)
		if j >= n {
			j -= n
		}
		v[i], v[j] = v[j], v[i]
	}
}

// Kinds of the jobs of a parallel sort (pdqJobFunc.kind).
const (
	sortJobPiece          = iota // sort a piece
	sortJobPartition             // partition chunks around the pivot
	sortJobPartitionEqual        // the same, equal elements to the left
	sortJobSwap                  // swap misplaced elements after a partition
	sortJobReverse               // reverse a piece
	sortJobCheck                 // check that a piece is sorted
)

// sortJobGrain is the longest range of a loop job of the kind that runs
// without being split in two.
func sortJobGrain(kind int) int {
	switch kind {
	case sortJobPartition, sortJobPartitionEqual:
		return 1 // one chunk
	case sortJobCheck:
		return sortCheckGrain
	}
	return sortMoveGrain
}

// reverseRange swaps v[i] and v[len(v)-1-i] for i in [lo, hi): the whole
// reversal is the range [0, len(v)/2).
func reverseRange[E any](v []E, lo, hi int) {
	x, y := v[lo:hi], v[len(v)-hi:len(v)-lo]
	for i, k := 0, len(y)-1; i < len(x) && k >= 0; i, k = i+1, k-1 {
		x[i], y[k] = y[k], x[i]
	}
}

// sortSpan is a range [lo, hi) of a slice.
type sortSpan struct{ lo, hi int }

// sortChunks is the bookkeeping of a parallel partition of a slice v of n
// elements into a left and a right class. v is cut into k nearly equal
// chunks, chunk i being v[chunkStart(i):chunkStart(i+1)], and each chunk is
// partitioned on its own, in parallel: it then starts with lefts[i]
// elements of the left class, and done[i] says that it was already so
// arranged. With m the sum of lefts, the right-class elements that lie in
// v[:m] and the left-class ones that lie in v[m:] are equally many; they
// are listed as runs and swapped pairwise, in parallel too, which leaves
// v[:m] the left class and v[m:] the right one.
type sortChunks struct {
	n, k  int
	lefts [sortPartitionChunks]int
	done  [sortPartitionChunks]bool
	// wrong[:nw] are the runs of right-class elements in v[:m],
	// wrong[nw:nr] those of left-class elements in v[m:], in order.
	wrong  [2 * sortPartitionChunks]sortSpan
	nw, nr int
}

// cut chooses the chunks for n elements and the given worker count: a few
// per worker, so that uneven workers even out, none shorter than
// sortPartitionGrain and no more than sortPartitionChunks.
func (s *sortChunks) cut(n, workers int) {
	s.n = n
	s.k = min(sortPartitionChunks, max(2, n/max(sortPartitionGrain, n/(4*workers))))
}

// chunkStart is i*n/k, computed in 64 bits: i*n overflows a 32-bit int for
// slices longer than 2^31/sortPartitionChunks.
func (s *sortChunks) chunkStart(i int) int { return int(uint64(i) * uint64(s.n) / uint64(s.k)) }

// findMisplaced lists the misplaced runs once every chunk is partitioned,
// and returns m and the number of elements on each side to swap.
func (s *sortChunks) findMisplaced() (m, misplaced int) {
	for _, l := range s.lefts[:s.k] {
		m += l
	}
	s.nw = 0
	for i := 0; i < s.k; i++ {
		split := s.chunkStart(i) + s.lefts[i]
		if end := min(s.chunkStart(i+1), m); split < end {
			s.wrong[s.nw] = sortSpan{split, end}
			s.nw++
			misplaced += end - split
		}
	}
	s.nr = s.nw
	for i := 0; i < s.k; i++ {
		split := s.chunkStart(i) + s.lefts[i]
		if start := max(s.chunkStart(i), m); start < split {
			s.wrong[s.nr] = sortSpan{start, split}
			s.nr++
		}
	}
	return m, misplaced
}

// allDone reports whether every chunk was already partitioned.
func (s *sortChunks) allDone() bool {
	for _, d := range s.done[:s.k] {
		if !d {
			return false
		}
	}
	return true
}

// swapMisplaced swaps the t-th misplaced element of v[:m] with the t-th
// misplaced element of v[m:] counted from its end, for t in [lo, hi) (see
// sortChunks). Pairing the front's misplaced elements with the back's in
// reverse is what Hoare's partition does: a descending run at the back
// reaches the left side ascending.
func swapMisplaced[E any](s *sortChunks, v []E, lo, hi int) {
	a, b := s.wrong[:s.nw], s.wrong[s.nw:s.nr]
	ia, oa := seekSpan(a, lo)
	ib, ob := seekSpanBack(b, lo)
	for t := lo; t < hi; {
		sa, sb := a[ia], b[ib]
		// Swap the longest stretch that stays within both runs: x from
		// its front, y from its back.
		c := min(sa.hi-(sa.lo+oa), sb.hi-ob-sb.lo, hi-t)
		x, y := v[sa.lo+oa:sa.lo+oa+c], v[sb.hi-ob-c:sb.hi-ob]
		for i := range x {
			k := c - 1 - i
			x[i], y[k] = y[k], x[i]
		}
		t += c
		if oa += c; sa.lo+oa == sa.hi {
			ia, oa = ia+1, 0
		}
		if ob += c; sb.hi-ob == sb.lo {
			ib, ob = ib-1, 0
		}
	}
}

// seekSpan finds the run of spans that holds element t (counted end to end)
// and t's offset in it.
func seekSpan(spans []sortSpan, t int) (i, off int) {
	for i = 0; t >= spans[i].hi-spans[i].lo; i++ {
		t -= spans[i].hi - spans[i].lo
	}
	return i, t
}

// seekSpanBack is seekSpan counting from the end: element t is the one at
// spans[i].hi-1-off.
func seekSpanBack(spans []sortSpan, t int) (i, off int) {
	for i = len(spans) - 1; t >= spans[i].hi-spans[i].lo; i-- {
		t -= spans[i].hi - spans[i].lo
	}
	return i, t
}
