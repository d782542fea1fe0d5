package blitz

// splitter decides how finely For and MapReduce cut a range.
//
// With a grain > 0 the cut is fixed: halve while the piece is longer than
// grain. With grain <= 0 it is adaptive, rayon's thief splitting: a range
// starts with a budget of one split per worker, each split halves the
// budget, and a piece that runs on another worker than the one that created
// it (it was stolen: some worker is idle) resets the budget to the worker
// count. So an idle pool cuts a loop into about 2×workers pieces, and pieces
// keep splitting only as long as thieves keep taking them: few jobs when the
// work is balanced, fine pieces when it is not. It needs no tuning, but a
// loop whose cost per index is tiny should pass a grain (a few thousand
// indexes) so that no piece is too small to pay for its join.
//
// Widths are unsigned: a range may be wider than MaxInt (math.MinInt to
// math.MaxInt), where hi-lo overflows int. uint(hi)-uint(lo) is the exact
// width of any range with lo < hi, and lo plus half of it is in range.
type splitter struct {
	lo, hi int
	grain  int // > 0: fixed piece size; <= 0: adaptive
	splits int // adaptive budget
	origin int // index of the worker that created the piece
}

// trySplit reports whether the piece should be cut, updating the budget.
func (s *splitter) trySplit(w *Worker) bool {
	n := s.width()
	if s.grain > 0 {
		return n > uint(s.grain)
	}
	if n < 2 {
		return false
	}
	if w.index != s.origin {
		s.origin = w.index
		s.splits = max(len(w.pool.workers), s.splits/2)
		return true
	}
	if s.splits > 0 {
		s.splits /= 2
		return true
	}
	return false
}

// width is the number of indexes in the piece, hi-lo without overflow.
func (s *splitter) width() uint { return uint(s.hi) - uint(s.lo) }

// halves cuts the piece in two; both halves are created by w.
func (s splitter) halves(w *Worker) (left, right splitter) {
	mid := int(uint(s.lo) + s.width()/2)
	left, right = s, s
	left.hi, right.lo = mid, mid
	left.origin, right.origin = w.index, w.index
	return left, right
}

func newSplitter(w *Worker, lo, hi, grain int) splitter {
	return splitter{lo: lo, hi: hi, grain: grain, splits: len(w.pool.workers), origin: w.index}
}

// For calls body(w, lo', hi') for disjoint sub-ranges [lo', hi') that cover
// [lo, hi), potentially in parallel, and returns when all calls returned.
// grain > 0 cuts the range into pieces of at most grain indexes; grain <= 0
// splits adaptively (see the package documentation on splitting). An empty
// range (hi <= lo) calls nothing. Panics and Goexit follow Join's rules. A nil
// body panics.
func For(w *Worker, lo, hi, grain int, body func(w *Worker, lo, hi int)) {
	if body == nil {
		panic("blitz: For: nil body")
	}
	if hi <= lo {
		return
	}
	forRange(w, forJob{splitter: newSplitter(w, lo, hi, grain), body: body})
}

type forJob struct {
	splitter
	body func(*Worker, int, int)
}

// forRange is a plain function so that passing it to JoinArgs allocates
// nothing: a parallel loop costs no allocation per split.
func forRange(w *Worker, j forJob) struct{} {
	if !j.trySplit(w) {
		j.body(w, j.lo, j.hi)
		return struct{}{}
	}
	l, r := j.halves(w)
	JoinArgs(w, forRange, forJob{l, j.body}, forRange, forJob{r, j.body})
	return struct{}{}
}

// MapReduce computes mapper over disjoint sub-ranges covering [lo, hi),
// potentially in parallel, and combines the results with reduce, always as
// reduce(left, right) in index order, so reduce must be associative but
// need not be commutative. identity is the result for an empty range
// (hi <= lo) and is not otherwise used. grain is For's. Panics and Goexit
// follow Join's rules. Nil functions panic.
func MapReduce[T any](w *Worker, lo, hi, grain int, identity T, mapper func(w *Worker, lo, hi int) T, reduce func(a, b T) T) T {
	if mapper == nil || reduce == nil {
		panic("blitz: MapReduce: nil function")
	}
	if hi <= lo {
		return identity
	}
	c := &mrCtx[T]{mapper: mapper, reduce: reduce}
	// One func value for the whole call: taking mrRange[T] inside generic
	// code allocates, so it is done once here, not per split.
	c.rec = mrRange[T]
	return mrRange(w, mrJob[T]{splitter: newSplitter(w, lo, hi, grain), c: c})
}

type mrCtx[T any] struct {
	mapper func(*Worker, int, int) T
	reduce func(T, T) T
	rec    func(*Worker, mrJob[T]) T
}

type mrJob[T any] struct {
	splitter
	c *mrCtx[T]
}

func mrRange[T any](w *Worker, j mrJob[T]) T {
	if !j.trySplit(w) {
		return j.c.mapper(w, j.lo, j.hi)
	}
	l, r := j.halves(w)
	a, b := JoinArgs(w, j.c.rec, mrJob[T]{l, j.c}, j.c.rec, mrJob[T]{r, j.c})
	return j.c.reduce(a, b)
}
