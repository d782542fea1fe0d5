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

// TestFoldAccumulators pins the number of accumulators Fold makes (calls
// of init) to its documented bound, on every pool shape and length: one
// plus the pieces a thief started early, which is at most one plus the
// steals the pool counted during the call (Stats.Steals); one exactly when
// nothing was stolen, as on a pool of one worker; under MinLen(n) at most
// max(1, len/n); and one combine per accumulator but the first. Before,
// every piece made one: two on a pool of one worker, about 13 over 64
// inputs on two.
func TestFoldAccumulators(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, n := range layerSizes(lr) {
			if n == 0 {
				continue
			}
			s := make([]int, n)
			want := 0
			for i := range s {
				s[i] = i
				want += i
			}
			var inits, combines atomic.Int64
			before := lr.p.Stats().Steals
			got := layerCall(t, lr, func(r blitz.Runner) int {
				return Fold(r, s, func() int { inits.Add(1); return 0 },
					func(acc, x int) int { return acc + x },
					func(a, b int) int { combines.Add(1); return a + b })
			})
			steals := int64(lr.p.Stats().Steals - before)
			require.Equalf(t, want, got, "n=%d", n)
			require.Equalf(t, inits.Load()-1, combines.Load(), "n=%d: one combine per accumulator but the first", n)
			require.LessOrEqualf(t, inits.Load(), 1+steals, "n=%d: accumulators beyond one per steal", n)
			if steals == 0 {
				require.EqualValuesf(t, 1, inits.Load(), "n=%d: accumulators with no steal", n)
			}
			if lr.minLen > 0 {
				require.LessOrEqualf(t, inits.Load(), int64(max(1, n/lr.minLen)), "n=%d: accumulators under MinLen(%d)", n, lr.minLen)
			}
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
