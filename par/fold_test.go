package par

import (
	"fmt"
	"maps"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz"
	"github.com/stretchr/testify/require"
)

// run is a Fold accumulator that checks the order of the fold: the run
// [lo, hi) of consecutive values it has seen, or broken.
type run struct {
	lo, hi int
	empty  bool
	broken bool
}

func foldRun(acc run, x int) run {
	switch {
	case acc.empty:
		return run{lo: x, hi: x + 1}
	case x != acc.hi:
		acc.broken = true
	}
	acc.hi = x + 1
	return acc
}

// combineRuns joins two runs, left then right: not commutative.
func combineRuns(a, b run) run {
	switch {
	case a.empty:
		return b
	case b.empty:
		return a
	}
	return run{lo: a.lo, hi: b.hi, broken: a.broken || b.broken || a.hi != b.lo}
}

func TestFoldMatchesSequential(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, n := range layerSizes(lr) {
			s := make([]int, n)
			for i := range s {
				s[i] = i
			}
			var inits, folds, combines atomic.Int64
			got := layerCall(t, lr, func(r blitz.Runner) run {
				return Fold(r, s,
					func() run { inits.Add(1); return run{empty: true} },
					func(acc run, x int) run { folds.Add(1); return foldRun(acc, x) },
					func(a, b run) run { combines.Add(1); return combineRuns(a, b) })
			})
			want := run{empty: true}
			for _, x := range s {
				want = foldRun(want, x)
			}
			require.Equalf(t, want, got, "n=%d: Fold out of order", n)
			require.EqualValuesf(t, n, folds.Load(), "n=%d: fold calls", n)
			require.Equalf(t, inits.Load()-1, combines.Load(), "n=%d: one combine per piece but the first", n)

			// A histogram in a map per piece, merged.
			v := randInts(n, 50, 9)
			wantH := map[int]int{}
			for _, x := range v {
				wantH[x]++
			}
			gotH := layerCall(t, lr, func(r blitz.Runner) map[int]int {
				return Fold(r, v, func() map[int]int { return map[int]int{} },
					func(h map[int]int, x int) map[int]int { h[x]++; return h },
					func(a, b map[int]int) map[int]int {
						for k, c := range b {
							a[k] += c
						}
						return a
					})
			})
			require.Truef(t, maps.Equal(wantH, gotH), "n=%d: histogram", n)
		}
	})
}

func TestFoldBadArguments(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(2)}, func(p *blitz.Pool) {
		init := func() int { return 0 }
		fold := func(a, x int) int { return a + x }
		requirePanicMessage(t, "par: Fold: nil function", func() { Fold(p, []int{1}, nil, fold, fold) })
		requirePanicMessage(t, "par: Fold: nil function", func() { Fold(p, []int{1}, init, nil, fold) })
		requirePanicMessage(t, "par: Fold: nil function", func() { Fold(p, []int{1}, init, fold, nil) })
		requirePanicMessage(t, "par: Fold: nil Runner", func() { Fold(nil, []int{1}, init, fold, fold) })
		require.Equal(t, 42, Fold(p, []int(nil), func() int { return 42 }, fold, fold))
		// init's panic on an empty s, run on the caller, is a *PanicError as
		// through the pool.
		v := catchPanic(func() { Fold(p, []int(nil), func() int { panic("init") }, fold, fold) })
		requirePanicError(t, v, "init")
	})
}

func FuzzFold(f *testing.F) {
	f.Add(uint16(0), uint8(0), uint8(0))
	f.Add(uint16(1), uint8(1), uint8(1))
	f.Add(uint16(5000), uint8(2), uint8(30))
	ps := fuzzPools(f)
	f.Fuzz(func(t *testing.T, n uint16, pool, minLen uint8) {
		r := fuzzRunner(ps, pool, minLen)
		s := make([]int, n)
		for i := range s {
			s[i] = i
		}
		got := Fold(r, s, func() run { return run{empty: true} }, foldRun, combineRuns)
		if n == 0 {
			require.True(t, got.empty)
			return
		}
		require.Equal(t, run{lo: 0, hi: int(n)}, got, fmt.Sprintf("n=%d", n))
	})
}
