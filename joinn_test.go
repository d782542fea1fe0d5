package blitz

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// doPanic runs f on a worker of p, under the watchdog, and returns what
// it panicked with in the caller, nil for nothing.
func doPanic(t *testing.T, p *Pool, f func(w *Worker)) any {
	t.Helper()
	var v any
	within(t, "Run", func() { v = catchPanic(func() { p.Run(f) }) })
	return v
}

// requirePanicError asserts that v is a *PanicError carrying want.
func requirePanicError(t *testing.T, v any, want any) {
	t.Helper()
	pe, ok := v.(*PanicError)
	require.Truef(t, ok, "panic value %T (%v), want a *PanicError", v, v)
	assert.Equal(t, want, pe.Value)
	assert.NotEmpty(t, pe.Stack)
}

func TestJoin3(t *testing.T) {
	eachConfig(t, func(t *testing.T, p *Pool) {
		type res struct {
			a int
			b string
			c []int
		}
		got := doW(t, p, func(w *Worker) res {
			a, b, c := Join3(w,
				func(w *Worker) int { return fibArgs(w, 15) },
				func(*Worker) string { return "b" },
				func(w *Worker) []int {
					c := make([]int, 3)
					JoinAll(w, func(*Worker) { c[0] = -1 }, func(*Worker) { c[1] = -2 }, func(*Worker) { c[2] = -3 })
					return c
				})
			return res{a, b, c}
		})
		assert.Equal(t, res{seqFib(15), "b", []int{-1, -2, -3}}, got)
	})
}

func TestJoinAllRunsEveryFunction(t *testing.T) {
	eachConfig(t, func(t *testing.T, p *Pool) {
		for _, n := range []int{0, 1, 2, 3, 7, 64, 1000} {
			hits := make([]atomic.Int32, n)
			fns := make([]func(*Worker), n)
			for i := range fns {
				fns[i] = func(w *Worker) {
					hits[i].Add(1)
					assert.Same(t, p, w.Pool(), "function %d ran off the pool", i)
				}
			}
			doW(t, p, func(w *Worker) int { JoinAll(w, fns...); return 0 })
			for i := range hits {
				require.EqualValuesf(t, 1, hits[i].Load(), "n=%d: function %d ran other than once", n, i)
			}
		}
	})
}

func TestJoinNPanicsLeftmostWins(t *testing.T) {
	eachConfig(t, func(t *testing.T, p *Pool) {
		var ran atomic.Int64
		ok := func(*Worker) int { ran.Add(1); return 0 }
		bad := func(v string) func(*Worker) int {
			return func(*Worker) int { ran.Add(1); panic(v) }
		}
		v := doPanic(t, p, func(w *Worker) { Join3(w, ok, bad("b"), bad("c")) })
		requirePanicError(t, v, "b")
		assert.EqualValues(t, 3, ran.Load(), "Join3 ran every function despite the panics")

		ran.Store(0)
		fns := make([]func(*Worker), 50)
		for i := range fns {
			fns[i] = func(*Worker) {
				ran.Add(1)
				if i%7 == 3 {
					panic(fmt.Sprint("fn ", i))
				}
			}
		}
		v = doPanic(t, p, func(w *Worker) { JoinAll(w, fns...) })
		requirePanicError(t, v, "fn 3")
		assert.EqualValues(t, 50, ran.Load(), "JoinAll ran every function despite the panics")

		// One function is no join, and still panics as a *PanicError in
		// the caller (caught inside the task, before Do wraps anything).
		v = doW(t, p, func(w *Worker) any { return catchPanic(func() { JoinAll(w, fns[3]) }) })
		requirePanicError(t, v, "fn 3")
	})
}

func TestJoinNBadArguments(t *testing.T) {
	withPool(t, []Option{WithWorkers(2)}, func(p *Pool) {
		f := func(*Worker) int { return 0 }
		requirePanicMessage(t, "blitz: Join3: nil *Worker", func() { Join3(nil, f, f, f) })
		requirePanicMessage(t, "blitz: JoinAll: nil *Worker", func() { JoinAll(nil) })
		requirePanicMessage(t, "blitz: JoinAll: nil *Worker", func() { JoinAll(nil, func(*Worker) {}) })
		requireTaskPanics(t, p, "blitz: Join3: nil function", func(w *Worker) { Join3[int, int, int](w, f, nil, f) })
		requireTaskPanics(t, p, "blitz: JoinAll: nil function at index 1", func(w *Worker) {
			JoinAll(w, func(*Worker) {}, nil)
		})
		doW(t, p, func(w *Worker) int { JoinAll(w); return 0 }) // no functions: nothing to run
		assert.Equal(t, 55, doW(t, p, func(w *Worker) int { return fibArgs(w, 10) }), "fib after the refused joins")
	})
}

func FuzzJoinAll(f *testing.F) {
	f.Add(uint16(0), uint8(0), uint16(0))
	f.Add(uint16(5), uint8(1), uint16(3))
	f.Add(uint16(300), uint8(2), uint16(299))
	var ps []*Pool
	for _, n := range testWorkerCounts {
		p, err := New(WithWorkers(n))
		require.NoError(f, err)
		ps = append(ps, p)
	}
	f.Cleanup(func() {
		for _, p := range ps {
			require.NoError(f, p.Close())
		}
	})
	f.Fuzz(func(t *testing.T, n uint16, pool uint8, panicAt uint16) {
		p := ps[int(pool)%len(ps)]
		n %= 2000
		out := make([]int, n)
		fns := make([]func(*Worker), n)
		for i := range fns {
			fns[i] = func(w *Worker) {
				out[i] = i * i
				if i == int(panicAt) {
					panic(i)
				}
			}
		}
		v := catchPanic(func() { Do(p, func(w *Worker) int { JoinAll(w, fns...); return 0 }) })
		for i, x := range out {
			require.Equal(t, i*i, x)
		}
		if int(panicAt) < int(n) {
			requirePanicError(t, v, int(panicAt))
		} else {
			require.Nil(t, v)
		}
	})
}
