package blitz

import "fmt"

// Join3 runs fa(w), fb(w) and fc(w), potentially in parallel, and returns
// their results. It is two nested joins: fa against the join of fb and fc.
// w must be the Worker handed to the calling function, as for Join; from
// outside a task, enter the pool first:
//
//	sum := blitz.Do(p, func(w *blitz.Worker) int {
//		a, b, c := blitz.Join3(w, fa, fb, fc)
//		return a + b + c
//	})
//
// All three always run; if any panics, Join3 panics in the caller with a
// *PanicError after all three finished, the leftmost panicking function's
// panic winning. A nil w or nil functions panic.
func Join3[A, B, C any](w *Worker, fa func(*Worker) A, fb func(*Worker) B, fc func(*Worker) C) (a A, b B, c C) {
	if w == nil || fa == nil || fb == nil || fc == nil {
		badJoin("Join3", w)
	}
	a, _ = Join(w, fa, func(w *Worker) struct{} {
		b, c = Join(w, fb, fc)
		return struct{}{}
	})
	return a, b, c
}

// JoinAll runs fn(w) for every function fn of fns, potentially in parallel,
// and returns when all returned. It forks a balanced tree of joins, so the
// functions need no more than log2(len(fns)) nested joins and no allocation
// per join. w must be the Worker handed to the calling function, as for
// Join; from outside a task, enter the pool first, with Pool.Run or Do (see
// Join3). All always run; if some panic, JoinAll panics in the caller with
// a *PanicError after all finished, the leftmost panicking function's panic
// winning. No functions is a no-op; a nil w or a nil function panics.
func JoinAll(w *Worker, fns ...func(*Worker)) {
	if w == nil {
		badJoin("JoinAll", w)
	}
	for i, f := range fns {
		if f == nil {
			panic(fmt.Sprintf("blitz: JoinAll: nil function at index %d", i))
		}
	}
	switch len(fns) {
	case 0:
	case 1:
		// No join to wrap a panic in a *PanicError: callInline does.
		callInline(w, func(w *Worker) struct{} { fns[0](w); return struct{}{} })
	default:
		joinAll(w, fns)
	}
}

// joinAll is a plain function, so JoinArgs takes it without allocating.
func joinAll(w *Worker, fns []func(*Worker)) struct{} {
	if len(fns) == 1 {
		fns[0](w)
		return struct{}{}
	}
	mid := len(fns) / 2
	JoinArgs(w, joinAll, fns[:mid], joinAll, fns[mid:])
	return struct{}{}
}
