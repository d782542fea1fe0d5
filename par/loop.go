package par

import (
	"context"

	"github.com/blitz-go/blitz"
)

// For calls body(w, lo', hi') for disjoint sub-ranges [lo', hi') that cover
// [lo, hi), potentially in parallel on r, and returns when all calls
// returned. grain > 0 cuts the range into pieces of at most grain indexes;
// grain <= 0 splits adaptively (see the package documentation on
// splitting). Any range is cut so, even one wider than MaxInt indexes
// (math.MinInt to math.MaxInt). A Runner of MinLen sets a shortest piece,
// which wins over the grain. An empty range (hi <= lo) calls nothing.
// Panics and Goexit follow blitz.Join's rules (a *blitz.PanicError in the
// caller). A nil body panics.
func For(r blitz.Runner, lo, hi, grain int, body func(w *blitz.Worker, lo, hi int)) {
	if body == nil {
		panic("par: For: nil body")
	}
	checkRunner("For", r)
	if hi <= lo {
		return
	}
	if w, ok := r.(*blitz.Worker); ok {
		// No closure, no context, no recover: a loop inside fork-join
		// code costs no allocation (TestForAllocatesNothing).
		forRange(w, forJob{span: newSpan(w, lo, hi), grain: grain, body: body})
		return
	}
	if minLen := pieceMin(r, callbackMinLen); minLen > callbackMinLen {
		// A MinLen Runner: the generic driver carries the minimum, so
		// that forJob, copied at every split, does not grow for it.
		enter("For", r, func(w *blitz.Worker) {
			runRange(w, lo, hi, &rangeCtx[struct{}]{
				leaf:   func(w *blitz.Worker, lo, hi int) struct{} { body(w, lo, hi); return struct{}{} },
				grain:  grain,
				minLen: minLen,
			})
		})
		return
	}
	enter("For", r, func(w *blitz.Worker) {
		forRange(w, forJob{span: newSpan(w, lo, hi), grain: grain, body: body})
	})
}

type forJob struct {
	span
	grain int
	body  func(*blitz.Worker, int, int)
}

// forRange is a plain function so that passing it to JoinArgs allocates
// nothing: a parallel loop costs no allocation per split.
func forRange(w *blitz.Worker, j forJob) struct{} {
	if !j.trySplit(w, j.grain, callbackMinLen) {
		j.body(w, j.lo, j.hi)
		return struct{}{}
	}
	l, r := j.halves(w)
	blitz.JoinArgs(w, forRange, forJob{l, j.grain, j.body}, forRange, forJob{r, j.grain, j.body})
	return struct{}{}
}

// MapReduce computes mapper over disjoint sub-ranges covering [lo, hi),
// potentially in parallel on r, and combines the results with reduce, always
// as reduce(left, right) in index order, so reduce must be associative but
// need not be commutative. identity is the result for an empty range
// (hi <= lo) and is not otherwise used. grain is For's. Panics and Goexit
// follow blitz.Join's rules. Nil functions panic.
func MapReduce[T any](r blitz.Runner, lo, hi, grain int, identity T, mapper func(w *blitz.Worker, lo, hi int) T, reduce func(a, b T) T) T {
	if mapper == nil || reduce == nil {
		panic("par: MapReduce: nil function")
	}
	checkRunner("MapReduce", r)
	return mapReduce("MapReduce", r, lo, hi, grain, identity, mapper, reduce, nil)
}

// mapReduce is MapReduce and MapReduceContext after their checks; done is
// the context's Done channel, nil for none.
func mapReduce[T any](name string, r blitz.Runner, lo, hi, grain int, identity T, mapper func(w *blitz.Worker, lo, hi int) T, reduce func(a, b T) T, done <-chan struct{}) T {
	if hi <= lo {
		return identity
	}
	return doOn(name, r, func(w *blitz.Worker) T {
		return runRange(w, lo, hi, &rangeCtx[T]{
			leaf:     mapper,
			combine:  reduce,
			identity: identity,
			grain:    grain,
			minLen:   pieceMin(r, callbackMinLen),
			done:     done,
		})
	})
}

// ForContext is For with a context and a Runner: it calls body(w, lo', hi')
// for disjoint sub-ranges [lo', hi') covering [lo, hi), potentially in
// parallel, until ctx ends. Once ctx is done no piece is split any further
// and no piece that has not started yet starts; the pieces already running
// finish (a long body should watch ctx itself). grain is For's: > 0 cuts
// pieces of at most grain indexes, <= 0 splits adaptively. Any range is
// cut so, even one wider than MaxInt indexes (hi-lo overflows int, as from
// math.MinInt to math.MaxInt), as For cuts it: no piece exceeds the grain
// (but where a MinLen minimum forbids the cut), and ctx stops the loop
// between pieces.
//
// It returns ctx.Err() if ctx had ended when the loop returned, and then
// some indexes may not have been visited; nil means every index was. A ctx
// that has already ended runs nothing. Panics follow blitz.Join's rules (a
// *blitz.PanicError in the caller). A nil body or ctx panics.
func ForContext(ctx context.Context, r blitz.Runner, lo, hi, grain int, body func(w *blitz.Worker, lo, hi int)) error {
	if body == nil {
		panic("par: ForContext: nil body")
	}
	if ctx == nil {
		panic("par: ForContext: nil context")
	}
	checkRunner("ForContext", r)
	if err := ctx.Err(); err != nil || hi <= lo {
		return err
	}
	enter("ForContext", r, func(w *blitz.Worker) {
		runRange(w, lo, hi, &rangeCtx[struct{}]{
			leaf:   func(w *blitz.Worker, lo, hi int) struct{} { body(w, lo, hi); return struct{}{} },
			grain:  grain,
			minLen: pieceMin(r, callbackMinLen),
			done:   ctx.Done(),
		})
	})
	return ctx.Err()
}

// MapReduceContext is MapReduce with a context and a Runner: it computes
// mapper over disjoint sub-ranges covering [lo, hi) and combines the results
// with reduce in index order, as MapReduce does, until ctx ends. The range
// is cut as ForContext cuts it, whatever its width. Once ctx is
// done no piece is split any further and no piece that has not started yet
// starts. It returns the result and nil if ctx had not ended when the work
// returned; otherwise identity and ctx.Err(), the pieces' results being
// incomplete. identity is also the result of an empty range. A ctx that has
// already ended runs nothing. Panics follow blitz.Join's rules. Nil functions
// and a nil ctx panic.
func MapReduceContext[T any](ctx context.Context, r blitz.Runner, lo, hi, grain int, identity T, mapper func(w *blitz.Worker, lo, hi int) T, reduce func(a, b T) T) (T, error) {
	if mapper == nil || reduce == nil {
		panic("par: MapReduceContext: nil function")
	}
	if ctx == nil {
		panic("par: MapReduceContext: nil context")
	}
	checkRunner("MapReduceContext", r)
	if err := ctx.Err(); err != nil {
		return identity, err
	}
	res := mapReduce("MapReduceContext", r, lo, hi, grain, identity, mapper, reduce, ctx.Done())
	if err := ctx.Err(); err != nil {
		return identity, err
	}
	return res, nil
}
