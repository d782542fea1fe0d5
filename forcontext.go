package blitz

import "context"

// ForContext is For with a context and a Runner: it calls body(w, lo', hi')
// for disjoint sub-ranges [lo', hi') covering [lo, hi), potentially in
// parallel, until ctx ends. Once ctx is done no piece is split any further
// and no piece that has not started yet starts; the pieces already running
// finish (a long body should watch ctx itself). grain is For's: > 0 cuts
// pieces of at most grain indexes, <= 0 splits adaptively. Any range is
// cut so, even one wider than MaxInt indexes (hi-lo overflows int, as from
// math.MinInt to math.MaxInt), as For cuts it: no piece exceeds the grain,
// and ctx stops the loop between pieces.
//
// It returns ctx.Err() if ctx had ended when the loop returned, and then
// some indexes may not have been visited; nil means every index was. A ctx
// that has already ended runs nothing. Panics follow Join's rules (a
// *PanicError in the caller). A nil body or ctx panics.
func ForContext(ctx context.Context, r Runner, lo, hi, grain int, body func(w *Worker, lo, hi int)) error {
	if body == nil {
		panic("blitz: ForContext: nil body")
	}
	if ctx == nil {
		panic("blitz: ForContext: nil context")
	}
	checkLayerRunner("ForContext", r)
	if err := ctx.Err(); err != nil || hi <= lo {
		return err
	}
	enterLayer("ForContext", r, func(w *Worker) {
		runRange(w, lo, hi, &rangeCtx[struct{}]{
			leaf:   func(w *Worker, lo, hi int) struct{} { body(w, lo, hi); return struct{}{} },
			grain:  grain,
			minLen: callbackMinLen,
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
// already ended runs nothing. Panics follow Join's rules. Nil functions
// and a nil ctx panic.
func MapReduceContext[T any](ctx context.Context, r Runner, lo, hi, grain int, identity T, mapper func(w *Worker, lo, hi int) T, reduce func(a, b T) T) (T, error) {
	if mapper == nil || reduce == nil {
		panic("blitz: MapReduceContext: nil function")
	}
	if ctx == nil {
		panic("blitz: MapReduceContext: nil context")
	}
	checkLayerRunner("MapReduceContext", r)
	if err := ctx.Err(); err != nil {
		return identity, err
	}
	if hi <= lo {
		return identity, nil
	}
	res := doLayer("MapReduceContext", r, func(w *Worker) T {
		return runRange(w, lo, hi, &rangeCtx[T]{
			leaf:     mapper,
			combine:  reduce,
			identity: identity,
			grain:    grain,
			minLen:   callbackMinLen,
			done:     ctx.Done(),
		})
	})
	if err := ctx.Err(); err != nil {
		return identity, err
	}
	return res, nil
}
