package par

import (
	"sync/atomic"

	"github.com/blitz-go/blitz"
)

// What the families share: the split rule and the generic range driver
// (runRange), on which For, MapReduce, their context forms and every slice
// function run. Getting onto a worker is enter.go's.

// inlineOnCaller reports whether a call with no user callback (Sum, Min,
// Contains, ...) over n elements is cheaper on the calling goroutine than on
// the pool: r is a *Pool or a *Sub (entering it is a round trip through a
// queue, microseconds) and n is too small to be worth forking. Such a call runs no
// user code, so where it runs is invisible (a closed pool was refused
// before, by checkRunner). A *Worker is never bypassed: it
// is already on the pool, and the range driver runs a short range unsplit.
func inlineOnCaller(r blitz.Runner, n int) bool {
	_, worker := unwrap(r).(*blitz.Worker)
	return !worker && n < twice(pieceMin(r, cheapMinLen))
}

// The layer's split granularity.
const (
	// cheapMinLen is the smallest piece a family without a user callback
	// (Sum, Min, Max, Fill, Contains, Index) splits into: such a piece
	// costs well under a microsecond per thousand elements, so a shorter
	// one would not pay for its join. Families with a callback split down
	// to one element (callbackMinLen), since the callback may be costly:
	// the adaptive budget, not a length, keeps their join count low.
	cheapMinLen    = 2048
	callbackMinLen = 1
)

// span is a sub-range [lo, hi) of a call's input with rayon's adaptive
// split budget (thief splitting, on the public Worker.Index and
// Pool.Workers): a range starts with one split per worker, each split halves
// the budget, and a span that runs on another worker than the one that
// created it (it was stolen: some worker is idle) resets the budget to the
// worker count. So an idle pool cuts a loop into about 2×workers pieces, and
// pieces keep splitting only as long as thieves keep taking them.
//
// Widths are unsigned: For, MapReduce and their context forms take any int
// range, which may be wider than MaxInt
// (math.MinInt to math.MaxInt), where hi-lo overflows int. uint(hi)-uint(lo)
// is the exact width of any span with lo < hi, and lo plus half of it is in
// range.
type span struct {
	lo, hi int
	splits int // adaptive budget
	origin int // Index of the worker that created the span
}

func newSpan(w *blitz.Worker, lo, hi int) span {
	return span{lo: lo, hi: hi, splits: w.Pool().Workers(), origin: w.Index()}
}

// trySplit reports whether the span should be halved, updating its budget.
// grain > 0 cuts to pieces of at most grain elements whatever the budget
// (For's fixed grain); otherwise the budget decides. Either way no half is
// made shorter than minLen (>= 1), which wins over the grain.
func (s *span) trySplit(w *blitz.Worker, grain, minLen int) bool {
	n := s.width()
	if grain > 0 {
		return n > uint(grain) && n/2 >= uint(minLen)
	}
	if n/2 < uint(minLen) {
		return false
	}
	if i := w.Index(); i != s.origin {
		s.origin = i
		s.splits = max(w.Pool().Workers(), s.splits/2)
		return true
	}
	if s.splits > 0 {
		s.splits /= 2
		return true
	}
	return false
}

// width is the number of indexes in the span, hi-lo without overflow.
func (s *span) width() uint { return uint(s.hi) - uint(s.lo) }

// halves cuts the span at its middle; both halves are created by w.
func (s span) halves(w *blitz.Worker) (left, right span) {
	mid := int(uint(s.lo) + s.width()/2)
	left, right = s, s
	left.hi, right.lo = mid, mid
	left.origin, right.origin = w.Index(), w.Index()
	return left, right
}

// rangeCtx is one call of the generic range driver: leaf computes a piece,
// combine joins two adjacent results in index order (nil for result-less
// loops, whose T is struct{}). done, when not nil, is a context's Done
// channel: once it is closed no span splits or starts its leaf any more
// (skipped records that one was left out) and a skipped span yields identity.
// past, when not nil, skips a span in the same way once past(lo) reports
// that no index from the span's first one on can change the outcome (the
// error loops: a lower index failed).
type rangeCtx[T any] struct {
	leaf          func(w *blitz.Worker, lo, hi int) T
	combine       func(a, b T) T
	identity      T
	grain, minLen int
	done          <-chan struct{}
	past          func(lo int) bool
	skipped       atomic.Bool
	// rec is rangeStep[T] as a func value, taken once per call: taking a
	// generic function's value inside generic code allocates, so it is
	// not done per split.
	rec func(*blitz.Worker, rangeJob[T]) T
}

type rangeJob[T any] struct {
	span
	c *rangeCtx[T]
}

// runRange computes [lo, hi) with c, forking with JoinArgs: no allocation
// per split. lo < hi.
func runRange[T any](w *blitz.Worker, lo, hi int, c *rangeCtx[T]) T {
	c.rec = rangeStep[T]
	return rangeStep(w, rangeJob[T]{newSpan(w, lo, hi), c})
}

func rangeStep[T any](w *blitz.Worker, j rangeJob[T]) T {
	c := j.c
	if c.done != nil && closed(c.done) || c.past != nil && c.past(j.lo) {
		c.skipped.Store(true)
		return c.identity
	}
	if !j.trySplit(w, c.grain, c.minLen) {
		return c.leaf(w, j.lo, j.hi)
	}
	l, r := j.halves(w)
	a, b := blitz.JoinArgs(w, c.rec, rangeJob[T]{l, c}, c.rec, rangeJob[T]{r, c})
	if c.combine == nil {
		return a
	}
	return c.combine(a, b)
}

// closed reports whether done is closed, without blocking.
func closed(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// forEachRange runs leaf over pieces covering [0, n) on w, with the adaptive
// budget and pieces of at least minLen elements.
func forEachRange(w *blitz.Worker, n, minLen int, leaf func(w *blitz.Worker, lo, hi int)) {
	if n <= 0 {
		return
	}
	runRange(w, 0, n, &rangeCtx[struct{}]{
		leaf:   func(w *blitz.Worker, lo, hi int) struct{} { leaf(w, lo, hi); return struct{}{} },
		minLen: minLen,
	})
}

// reduceRange computes leaf over pieces covering [0, n) and combines the
// results in index order; identity is the result of an empty range.
func reduceRange[T any](w *blitz.Worker, n, minLen int, identity T, leaf func(lo, hi int) T, combine func(a, b T) T) T {
	if n <= 0 {
		return identity
	}
	return runRange(w, 0, n, &rangeCtx[T]{
		leaf:     func(_ *blitz.Worker, lo, hi int) T { return leaf(lo, hi) },
		combine:  combine,
		identity: identity,
		minLen:   minLen,
	})
}

// piecePlan cuts [0, n) into k pieces of equal length (a multiple of align,
// but for the last), for the two-pass families (Filter, Partition, the
// scans) whose second pass needs the first pass's pieces.
type piecePlan struct {
	n, size, k int
}

func newPiecePlan(n, k, align int) piecePlan {
	if n <= 0 {
		return piecePlan{}
	}
	k = max(1, min(k, n))
	size := (n + k - 1) / k
	size = (size + align - 1) / align * align
	return piecePlan{n: n, size: size, k: (n + size - 1) / size}
}

// bounds returns piece i's range.
func (p piecePlan) bounds(i int) (lo, hi int) {
	lo = i * p.size
	return lo, min(lo+p.size, p.n)
}

// eachPiece runs f(w, i) for every piece i of [from, to), each its own job.
func eachPiece(w *blitz.Worker, from, to int, f func(w *blitz.Worker, i int)) {
	if to <= from {
		return
	}
	runRange(w, from, to, &rangeCtx[struct{}]{
		leaf: func(w *blitz.Worker, lo, hi int) struct{} {
			for i := lo; i < hi; i++ {
				f(w, i)
			}
			return struct{}{}
		},
		grain: 1,
	})
}
