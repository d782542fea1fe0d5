package par

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pair is an element whose key repeats: ties in MinFunc and friends are
// told apart by pos, the element's index.
type pair struct{ key, pos int }

func pairs(s []int) []pair {
	ps := make([]pair, len(s))
	for i, x := range s {
		ps[i] = pair{x, i}
	}
	return ps
}

func comparePairs(a, b pair) int { return cmp.Compare(a.key, b.key) }

// seqBestByKey is the sequential counterpart of MinByKey (isMax false) and
// MaxByKey: the first element with the extreme key.
func seqBestByKey[E any, K cmp.Ordered](s []E, key func(E) K, isMax bool) (E, bool) {
	var best E
	if len(s) == 0 {
		return best, false
	}
	best = s[0]
	bk := key(best)
	for _, x := range s[1:] {
		k := key(x)
		if (isMax && cmp.Less(bk, k)) || (!isMax && cmp.Less(k, bk)) {
			best, bk = x, k
		}
	}
	return best, true
}

func TestReductionsMatchSequential(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, n := range layerSizes(lr) {
			// Few distinct values: many ties for the Min/Max family.
			s := randInts(n, 50, 5)
			ps := pairs(s)

			wantSum := 0
			for _, x := range s {
				wantSum += x
			}
			assert.Equalf(t, wantSum, layerCall(t, lr, func(r blitz.Runner) int { return Sum(r, s) }), "n=%d: Sum", n)

			isOdd := func(x int) bool { return x%2 == 1 }
			wantCount := 0
			for _, x := range s {
				if isOdd(x) {
					wantCount++
				}
			}
			assert.Equalf(t, wantCount, layerCall(t, lr, func(r blitz.Runner) int { return Count(r, s, isOdd) }), "n=%d: Count", n)

			// A non-commutative but associative op: the pieces must
			// combine in index order.
			strs := make([]string, n)
			for i, x := range s {
				strs[i] = strconv.Itoa(x%10) + ","
			}
			concat := func(a, b string) string { return a + b }
			if n <= 2*cheapMinLen+1 { // concatenation is quadratic in its allocations
				assert.Equalf(t, concatAll(strs), layerCall(t, lr, func(r blitz.Runner) string {
					return Reduce(r, strs, "", concat)
				}), "n=%d: Reduce", n)
			}

			type result struct {
				v  pair
				ok bool
			}
			check := func(name string, want, got result) {
				t.Helper()
				assert.Equalf(t, want, got, "n=%d: %s", n, name)
			}
			wmin, okMin := pair{}, n > 0
			wmax := pair{}
			if n > 0 {
				wmin, wmax = slices.MinFunc(ps, comparePairs), slices.MaxFunc(ps, comparePairs)
			}
			check("MinFunc", result{wmin, okMin}, layerCall(t, lr, func(r blitz.Runner) result {
				v, ok := MinFunc(r, ps, comparePairs)
				return result{v, ok}
			}))
			check("MaxFunc", result{wmax, okMin}, layerCall(t, lr, func(r blitz.Runner) result {
				v, ok := MaxFunc(r, ps, comparePairs)
				return result{v, ok}
			}))
			key := func(p pair) int { return p.key }
			for _, isMax := range []bool{false, true} {
				want, ok := seqBestByKey(ps, key, isMax)
				got := layerCall(t, lr, func(r blitz.Runner) result {
					if isMax {
						v, ok := MaxByKey(r, ps, key)
						return result{v, ok}
					}
					v, ok := MinByKey(r, ps, key)
					return result{v, ok}
				})
				check(fmt.Sprintf("ByKey(max=%v)", isMax), result{want, ok}, got)
			}

			type ires struct {
				v  int
				ok bool
			}
			wantMin, wantMax := ires{}, ires{}
			if n > 0 {
				wantMin, wantMax = ires{slices.Min(s), true}, ires{slices.Max(s), true}
			}
			assert.Equalf(t, wantMin, layerCall(t, lr, func(r blitz.Runner) ires { v, ok := Min(r, s); return ires{v, ok} }), "n=%d: Min", n)
			assert.Equalf(t, wantMax, layerCall(t, lr, func(r blitz.Runner) ires { v, ok := Max(r, s); return ires{v, ok} }), "n=%d: Max", n)
		}
	})
}

func concatAll(s []string) string {
	out := ""
	for _, x := range s {
		out += x
	}
	return out
}

func TestReductionsFloat(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(4)}, func(p *blitz.Pool) {
		xs := make([]float64, 100_000)
		for i := range xs {
			xs[i] = float64(i%1000) / 7
		}
		want := 0.0
		for _, x := range xs {
			want += x
		}
		assert.InEpsilon(t, want, Sum(p, xs), 1e-12, "Sum of floats")

		// NaN propagates through Min and Max exactly as in slices.Min.
		xs[77_777] = math.NaN()
		m, ok := Min(p, xs)
		assert.True(t, ok && math.IsNaN(m), "Min with a NaN = %v", m)
		m, ok = Max(p, xs)
		assert.True(t, ok && math.IsNaN(m), "Max with a NaN = %v", m)
		// A NaN key is the smallest for MinByKey (cmp.Less's order).
		idx := make([]int, len(xs))
		for i := range idx {
			idx[i] = i
		}
		k, ok := MinByKey(p, idx, func(i int) float64 { return xs[i] })
		assert.True(t, ok)
		assert.Equal(t, 77_777, k)
		k, _ = MaxByKey(p, idx, func(i int) float64 { return xs[i] })
		assert.Equal(t, 999, k, "MaxByKey: the first of the largest keys")

		// Signed zeros: the grouping does not matter for the built-in min.
		zs := []float64{0, math.Copysign(0, -1), 0}
		z, _ := Min(p, zs)
		assert.True(t, math.Signbit(z), "Min of signed zeros")
	})
}

func TestReductionsEmptyAndNil(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(2)}, func(p *blitz.Pool) {
		var empty []int
		assert.Equal(t, 0, Sum(p, empty))
		assert.Equal(t, 0, Count(p, empty, func(int) bool { return true }))
		assert.Equal(t, 42, Reduce(p, empty, 42, func(a, b int) int { return a * b }))
		_, ok := Min(p, empty)
		assert.False(t, ok)
		_, ok = Max(p, empty)
		assert.False(t, ok)
		_, ok = MinFunc(p, empty, cmp.Compare[int])
		assert.False(t, ok)
		_, ok = MaxByKey(p, empty, func(x int) int { return x })
		assert.False(t, ok)

		requirePanicMessage(t, "par: Reduce: nil function", func() { Reduce(p, empty, 0, nil) })
		requirePanicMessage(t, "par: Count: nil function", func() { Count(p, empty, nil) })
		requirePanicMessage(t, "par: MinFunc: nil function", func() { MinFunc(p, empty, nil) })
		requirePanicMessage(t, "par: MaxFunc: nil function", func() { MaxFunc(p, empty, nil) })
		requirePanicMessage(t, "par: MinByKey: nil function", func() { MinByKey[[]int, int, int](p, empty, nil) })
		requirePanicMessage(t, "par: MaxByKey: nil function", func() { MaxByKey[[]int, int, int](p, empty, nil) })
		requirePanicMessage(t, "par: Sum: nil Runner", func() { Sum(nil, empty) })
		requirePanicMessage(t, "par: Min: nil Runner", func() { Min(nil, empty) })
		requirePanicMessage(t, "par: Reduce: nil Runner", func() { Reduce(nil, empty, 0, func(a, b int) int { return a }) })
	})
}

func TestReductionsPanicsPropagate(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, n := range []int{2, 100, 50_000} { // MinFunc compares nothing for one element
			at := n / 2
			s := make([]int, n)
			for i := range s {
				s[i] = i
			}
			boom := func(x int) {
				if x == at {
					panic(fmt.Sprint("boom at ", x))
				}
			}
			want := fmt.Sprint("boom at ", at)
			for name, call := range map[string]func(r blitz.Runner){
				"Reduce":   func(r blitz.Runner) { Reduce(r, s, 0, func(a, b int) int { boom(b); return a + b }) },
				"Count":    func(r blitz.Runner) { Count(r, s, func(x int) bool { boom(x); return true }) },
				"MinFunc":  func(r blitz.Runner) { MinFunc(r, s, func(a, b int) int { boom(a); boom(b); return a - b }) },
				"MaxByKey": func(r blitz.Runner) { MaxByKey(r, s, func(x int) int { boom(x); return x }) },
			} {
				v := layerPanic(t, lr, call)
				t.Run(name, func(t *testing.T) { requirePanicError(t, v, want) })
			}
		}
	})
}

func TestCountCallsPredOnce(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(8)}, func(p *blitz.Pool) {
		s := randInts(30_000, 10, 6)
		var calls atomic.Int64
		Count(p, s, func(int) bool { calls.Add(1); return false })
		require.EqualValues(t, len(s), calls.Load())
		calls.Store(0)
		MinByKey(p, s, func(x int) int { calls.Add(1); return x })
		require.EqualValues(t, len(s), calls.Load(), "MinByKey computes each key once")
	})
}

func FuzzReduce(f *testing.F) {
	f.Add([]byte{}, uint8(0), uint8(1))
	f.Add([]byte{3, 1, 3, 1}, uint8(1), uint8(5))
	f.Add([]byte("ties ties ties and more ties"), uint8(2), uint8(100))
	ps := fuzzPools(f)
	f.Fuzz(func(t *testing.T, data []byte, pool, rep uint8) {
		p := ps[int(pool)%len(ps)]
		s := fuzzLayerInts(data, int(rep)%64+1)
		want := 0
		for _, x := range s {
			want += x
		}
		require.Equal(t, want, Sum(p, s))
		require.Equal(t, want, Reduce(p, s, 0, func(a, b int) int { return a + b }))
		pp := pairs(s)
		byKey := func(q pair) int { return q.key }
		wmin, okMin := seqBestByKey(pp, byKey, false)
		gmin, ok := MinByKey(p, pp, byKey)
		require.Equal(t, okMin, ok)
		require.Equal(t, wmin, gmin)
		wmax, _ := seqBestByKey(pp, byKey, true)
		gmax, _ := MaxFunc(p, pp, comparePairs)
		require.Equal(t, wmax, gmax)
		if len(s) > 0 {
			m, _ := Min(p, s)
			require.Equal(t, slices.Min(s), m)
			f, _ := MinFunc(p, pp, comparePairs)
			require.Equal(t, slices.MinFunc(pp, comparePairs), f)
		}
	})
}
