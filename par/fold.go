package par

import (
	"sync/atomic"

	"github.com/blitz-go/blitz"
)

// Fold is rayon's fold (fold_with being fold with an init that returns a
// copy), with the per-piece accumulators combined, as rayon's fold is almost
// always followed by a reduce. The alternative, returning the accumulators
// as a slice, would hand the caller a number of pieces that depends on
// which workers stole what: a result that changes from run to run unless
// the caller combines it anyway. Combining in index order, as every
// reduction of this package does, keeps the answer deterministic for an
// associative combine.
//
// Accumulators follow the parallelism, not the pieces. Fold cuts s as every
// function of the package does (the adaptive budget, layer.go): on an idle
// pool about two pieces per worker, and more wherever thieves keep
// stealing. A fresh accumulator per piece would make that many maps or
// buffers, and merge them all, where a costly accumulator needs one per
// worker that takes part. So at each split the right half carries on the
// left half's accumulator whenever the left half has finished by the time
// the right half starts: always when the worker that split runs both, as
// it does unless another worker steals the right half. Only a right half
// that starts while its left half still runs, on a thief, makes its own
// accumulator (init), and only then are two combined.
//
// The handoff. Each split has a cell that its two halves share, in one of
// three states, left once by one CAS:
//
//	foldOpen    neither half has reached the cell
//	foldHanded  the left half finished first: it wrote its accumulator in
//	            the cell, then moved open → handed; the right half, seeing
//	            handed when it starts, takes the accumulator and folds on
//	foldSplit   the right half started first (open → split) and folds
//	            into an accumulator of its own; the left half, failing its
//	            CAS, keeps its result
//
// The CAS (sequentially consistent, sync/atomic) publishes the accumulator
// to the right half. After the join the splitting worker reads the state:
// handed, the right half's result already holds the left's and is the
// result; split, the two combine as combine(left, right). The accumulator
// a right half takes goes on to the first piece of its own range, through
// its left halves, so a chain of halves run in order by one worker folds
// into one accumulator, as a loop would.

// Fold folds s into an accumulator of another type, potentially in
// parallel: s is cut into pieces, each piece folds its elements from the
// left into an accumulator (acc = fold(acc, x)), and the accumulators are
// combined in index order as combine(left, right). So combine must be
// associative (not commutative), and init's value must be its identity;
// the result is then what one accumulator folded over all of s would give.
// An empty s gives init(). Nil functions panic.
//
// Accumulators follow the parallelism, not the pieces. A piece folds on
// into the accumulator of the elements before it when those are folded by
// the time it starts, as they always are when the worker that cut it runs
// it next; only a range that another worker stole, and started while the
// elements before it were still being folded, gets a new accumulator from
// init(). So init is called once, plus at most once per steal, and combine
// once per init but the first: on a pool of one worker, or when no range
// is stolen, one accumulator folds the whole of s and combine is not
// called; on more workers the count follows the steals, a few per worker
// that takes part. MinLen(r, n) bounds it from above too: pieces of at
// least n elements make at most max(1, len(s)/n) accumulators.
//
// It suits accumulators that are costly to merge per element but cheap
// enough to make and merge a few times per worker: a map of counts, a slice
// of histogram buckets, a strings.Builder. The accumulator is passed to fold
// and returned by value, so a large one is best a pointer, a slice or a map.
func Fold[S ~[]E, E, A any](r blitz.Runner, s S, init func() A, fold func(acc A, x E) A, combine func(a, b A) A) A {
	if init == nil || fold == nil || combine == nil {
		panic("par: Fold: nil function")
	}
	checkRunner("Fold", r)
	if len(s) == 0 {
		var acc A
		onCaller(func() { acc = init() })
		return acc
	}
	return doOn("Fold", r, func(w *blitz.Worker) A {
		c := &foldCtx[E, A]{s: s, init: init, fold: fold, combine: combine, minLen: pieceMin(r, callbackMinLen)}
		c.rec = foldStep[E, A]
		return foldStep(w, foldJob[E, A]{span: newSpan(w, 0, len(s)), c: c})
	})
}

// foldCtx is one Fold call.
type foldCtx[E, A any] struct {
	s       []E
	init    func() A
	fold    func(A, E) A
	combine func(A, A) A
	minLen  int
	// rec is foldStep[E, A] as a func value, taken once per call (see
	// rangeCtx.rec).
	rec func(*blitz.Worker, foldJob[E, A]) A
}

// Handoff cell states (foldCell.state).
const (
	foldOpen uint32 = iota
	foldHanded
	foldSplit
)

// foldCell is the handoff of one split (see the essay above).
type foldCell[A any] struct {
	// state is foldOpen, then foldHanded (by the left half, after writing
	// acc) or foldSplit (by the right half), by one CAS; the splitting
	// worker reads it after the join.
	state atomic.Uint32
	// acc is the left half's accumulator: written by the left half before
	// its CAS, read by the right half after it saw handed.
	acc A
}

// foldJob is a span of Fold's input. in, when has is set, is the
// accumulator of the elements before the span, to fold on. from, for a
// right half, is its split's cell, where that accumulator may wait; to, for
// a left half, is the cell where it leaves its result.
type foldJob[E, A any] struct {
	span
	c        *foldCtx[E, A]
	in       A
	has      bool
	from, to *foldCell[A]
}

// foldStep folds j's span and returns its accumulator, which holds the
// elements before the span too if j started with one (in, or from).
func foldStep[E, A any](w *blitz.Worker, j foldJob[E, A]) A {
	c := j.c
	var zero A
	if j.from != nil && !j.from.state.CompareAndSwap(foldOpen, foldSplit) {
		// handed: the left half finished before this one started.
		j.in, j.has = j.from.acc, true
		j.from.acc = zero
	}
	var acc A
	if j.trySplit(w, 0, c.minLen) {
		l, r := j.halves(w)
		cell := new(foldCell[A])
		a, b := blitz.JoinArgs(w,
			c.rec, foldJob[E, A]{span: l, c: c, in: j.in, has: j.has, to: cell},
			c.rec, foldJob[E, A]{span: r, c: c, from: cell})
		if cell.state.Load() == foldHanded {
			acc = b // b folded on a
		} else {
			acc = c.combine(a, b)
		}
	} else {
		if j.has {
			acc = j.in
		} else {
			acc = c.init()
		}
		fold := c.fold
		for _, x := range c.s[j.lo:j.hi] {
			acc = fold(acc, x)
		}
	}
	if j.to != nil {
		j.to.acc = acc
		if !j.to.state.CompareAndSwap(foldOpen, foldHanded) {
			j.to.acc = zero // the right half started first: acc is ours
		}
	}
	return acc
}
