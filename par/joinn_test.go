package par

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJoin3(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		type res struct {
			a int
			b string
			c []int
		}
		got := layerCall(t, lr, func(r blitz.Runner) res {
			a, b, c := blitz.Join3(r,
				func(w *blitz.Worker) int { return fibArgs(w, 15) },
				func(*blitz.Worker) string { return "b" },
				func(w *blitz.Worker) []int { return Map(w, []int{1, 2, 3}, func(x int) int { return -x }) })
			return res{a, b, c}
		})
		assert.Equal(t, res{seqFib(15), "b", []int{-1, -2, -3}}, got)
	})
}

func TestJoinAllRunsEveryFunction(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, n := range []int{0, 1, 2, 3, 7, 64, 1000} {
			hits := make([]atomic.Int32, n)
			fns := make([]func(*blitz.Worker), n)
			for i := range fns {
				fns[i] = func(w *blitz.Worker) {
					hits[i].Add(1)
					if w == nil {
						panic("nil worker")
					}
				}
			}
			layerCall(t, lr, func(r blitz.Runner) int { blitz.JoinAll(r, fns...); return 0 })
			require.Equalf(t, -1, firstNot(hits, 1), "n=%d: a function ran other than once", n)
		}
	})
}

func TestJoinNPanicsLeftmostWins(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		var ran atomic.Int64
		ok := func(*blitz.Worker) int { ran.Add(1); return 0 }
		bad := func(v string) func(*blitz.Worker) int {
			return func(*blitz.Worker) int { ran.Add(1); panic(v) }
		}
		v := layerPanic(t, lr, func(r blitz.Runner) { blitz.Join3(r, ok, bad("b"), bad("c")) })
		requirePanicError(t, v, "b")
		assert.EqualValues(t, 3, ran.Load(), "Join3 ran every function despite the panics")

		ran.Store(0)
		fns := make([]func(*blitz.Worker), 50)
		for i := range fns {
			fns[i] = func(*blitz.Worker) {
				ran.Add(1)
				if i%7 == 3 {
					panic(fmt.Sprint("fn ", i))
				}
			}
		}
		v = layerPanic(t, lr, func(r blitz.Runner) { blitz.JoinAll(r, fns...) })
		requirePanicError(t, v, "fn 3")
		assert.EqualValues(t, 50, ran.Load(), "JoinAll ran every function despite the panics")
	})
}

func TestJoinNBadArguments(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(2)}, func(p *blitz.Pool) {
		f := func(*blitz.Worker) int { return 0 }
		requirePanicMessage(t, "blitz: Join3: nil function", func() { blitz.Join3[int, int, int](p, f, nil, f) })
		requirePanicMessage(t, "blitz: JoinAll: nil function at index 1", func() {
			blitz.JoinAll(p, func(*blitz.Worker) {}, nil)
		})
		requirePanicMessage(t, "blitz: JoinAll: nil Runner", func() { blitz.JoinAll(nil) })
		requirePanicMessage(t, "blitz: Join3: nil Runner", func() { blitz.Join3(nil, f, f, f) })
		blitz.JoinAll(p) // no functions: nothing to run
	})
}

func FuzzJoinAll(f *testing.F) {
	f.Add(uint16(0), uint8(0), uint16(0))
	f.Add(uint16(5), uint8(1), uint16(3))
	f.Add(uint16(300), uint8(2), uint16(299))
	ps := fuzzPools(f)
	f.Fuzz(func(t *testing.T, n uint16, pool uint8, panicAt uint16) {
		p := ps[int(pool)%len(ps)]
		n %= 2000
		out := make([]int, n)
		fns := make([]func(*blitz.Worker), n)
		for i := range fns {
			fns[i] = func(w *blitz.Worker) {
				out[i] = i * i
				if i == int(panicAt) {
					panic(i)
				}
			}
		}
		v := catchPanic(func() { blitz.JoinAll(p, fns...) })
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
