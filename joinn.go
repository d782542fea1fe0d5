package blitz

import (
	"context"
	"fmt"
)

// Join3 runs fa, fb and fc, potentially in parallel, and returns their
// results. It is two nested joins: fa against the join of fb and fc. All
// three always run; if any panics, Join3 panics in the caller with a
// *PanicError after all three finished, the leftmost panicking function's
// panic winning. Nil functions panic.
func Join3[A, B, C any](r Runner, fa func(*Worker) A, fb func(*Worker) B, fc func(*Worker) C) (A, B, C) {
	if fa == nil || fb == nil || fc == nil {
		panic("blitz: Join3: nil function")
	}
	var a A
	var b B
	var c C
	doOn(r, func(w *Worker) struct{} {
		w.Join(func(w *Worker) { a = fa(w) }, func(w *Worker) { b, c = Join(w, fb, fc) })
		return struct{}{}
	}, "Join3")
	return a, b, c
}

// JoinAll runs every function of fns, potentially in parallel, and returns
// when all returned. It forks a balanced tree of joins, so the functions
// need no more than log2(len(fns)) nested joins and no allocation per join.
// All always run; if some panic, JoinAll panics in the caller with a
// *PanicError after all finished, the leftmost panicking function's panic
// winning. No functions is a no-op; a nil function panics.
func JoinAll(r Runner, fns ...func(*Worker)) {
	for i, f := range fns {
		if f == nil {
			panic(fmt.Sprintf("blitz: JoinAll: nil function at index %d", i))
		}
	}
	checkRunner(r, "JoinAll")
	if len(fns) == 0 {
		return
	}
	doOn(r, func(w *Worker) struct{} { return joinAll(w, fns) }, "JoinAll")
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

// doOn runs fn on r with Do's rules, for the function name.
func doOn[T any](r Runner, fn func(*Worker) T, name string) T {
	v, _ := call(context.Background(), destOf(r, name), fn, callPanics, name)
	return v
}

// checkRunner panics, naming the function name, if r is nil, or a *Pool or
// *Sub whose Close has begun, given by a goroutine that is not one of the
// pool's tasks.
func checkRunner(r Runner, name string) {
	d := destOf(r, name)
	if d.w == nil && d.p.closeStarted.Load() && !d.p.inTask() {
		panic(fmt.Errorf("blitz: %s: %w", name, ErrClosed))
	}
}
