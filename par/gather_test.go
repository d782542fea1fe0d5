package par

import (
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz"
	"github.com/stretchr/testify/require"
)

// seqFlatMap, seqFilterMap and seqPartitionMap are the loops FlatMap,
// FilterMap and PartitionMap must match.
func seqFlatMap[E, T any](s []E, f func(E) []T) []T {
	var out []T
	for _, x := range s {
		out = append(out, f(x)...)
	}
	return out
}

func seqFilterMap[E, T any](s []E, f func(E) (T, bool)) []T {
	var out []T
	for _, x := range s {
		if v, ok := f(x); ok {
			out = append(out, v)
		}
	}
	return out
}

func seqPartitionMap[E, L, R any](s []E, f func(E) (L, R, bool)) ([]L, []R) {
	var ls []L
	var rs []R
	for _, x := range s {
		if l, r, left := f(x); left {
			ls = append(ls, l)
		} else {
			rs = append(rs, r)
		}
	}
	return ls, rs
}

func TestFlatMapMatchesSequential(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, n := range layerSizes(lr) {
			s := randInts(n, 1000, 5)
			for _, f := range []func(int) []int{
				func(x int) []int { return []int{x, -x}[:x%3] }, // 0, 1 or 2 each
				func(x int) []int { return []int{x} },
				func(x int) []int { // sparse: most give nothing
					if x < 5 {
						return []int{x, x, x}
					}
					return nil
				},
				func(int) []int { return nil },
			} {
				var calls atomic.Int64
				got := layerCall(t, lr, func(r blitz.Runner) []int {
					return FlatMap(r, s, func(x int) []int { calls.Add(1); return f(x) })
				})
				want := seqFlatMap(s, f)
				requireEqualSlices(t, want, got, fmt.Sprintf("n=%d", n))
				require.EqualValuesf(t, n, calls.Load(), "n=%d: f calls", n)
				if len(want) == 0 {
					require.Nilf(t, got, "n=%d: an empty result is nil", n)
				}
			}
		}
	})
}

func TestFilterMapMatchesSequential(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, n := range layerSizes(lr) {
			s := randInts(n, 1000, 6)
			for _, keep := range []func(int) bool{
				func(x int) bool { return x%2 == 0 },
				func(x int) bool { return x < 10 },
				func(int) bool { return false },
				func(int) bool { return true },
			} {
				f := func(x int) (string, bool) { return strconv.Itoa(x), keep(x) }
				var calls atomic.Int64
				got := layerCall(t, lr, func(r blitz.Runner) []string {
					return FilterMap(r, s, func(x int) (string, bool) { calls.Add(1); return f(x) })
				})
				want := seqFilterMap(s, f)
				requireEqualSlices(t, want, got, fmt.Sprintf("n=%d", n))
				require.EqualValuesf(t, n, calls.Load(), "n=%d: f calls", n)
				if len(want) == 0 {
					require.Nilf(t, got, "n=%d: an empty result is nil", n)
				}
			}
		}
	})
}

func TestPartitionMapMatchesSequential(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, n := range layerSizes(lr) {
			s := randInts(n, 1000, 7)
			for _, left := range []func(int) bool{
				func(x int) bool { return x%3 == 0 },
				func(int) bool { return false },
				func(int) bool { return true },
			} {
				f := func(x int) (int, string, bool) { return x * 2, strconv.Itoa(x), left(x) }
				var calls atomic.Int64
				type out struct {
					l []int
					r []string
				}
				got := layerCall(t, lr, func(r blitz.Runner) out {
					l, rs := PartitionMap(r, s, func(x int) (int, string, bool) { calls.Add(1); return f(x) })
					return out{l, rs}
				})
				wantL, wantR := seqPartitionMap(s, f)
				requireEqualSlices(t, wantL, got.l, fmt.Sprintf("n=%d: left", n))
				requireEqualSlices(t, wantR, got.r, fmt.Sprintf("n=%d: right", n))
				require.EqualValuesf(t, n, calls.Load(), "n=%d: f calls", n)
				if len(wantL) == 0 {
					require.Nilf(t, got.l, "n=%d: an empty left is nil", n)
				}
				if len(wantR) == 0 {
					require.Nilf(t, got.r, "n=%d: an empty right is nil", n)
				}
			}
		}
	})
}

// TestFlatMapCopiesWhatFReturns checks that the result holds copies of
// what f returned, not the slices themselves: here views of the input,
// which is then overwritten.
func TestFlatMapCopiesWhatFReturns(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(4)}, func(p *blitz.Pool) {
		for _, n := range []int{1, 2, 10_000} {
			s := randInts(n+1, 100, 8)
			idx := make([]int, n)
			for i := range idx {
				idx[i] = i
			}
			want := seqFlatMap(idx, func(i int) []int { return []int{s[i], s[i+1]} })
			got := FlatMap(p, idx, func(i int) []int { return s[i : i+2] })
			clear(s)
			require.Equalf(t, want, got, "n=%d: the result aliases what f returned", n)
		}
	})
}

func TestGatherBadArguments(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(2)}, func(p *blitz.Pool) {
		s := []int{1, 2, 3}
		requirePanicMessage(t, "par: FlatMap: nil function", func() { FlatMap[[]int, int, int](p, s, nil) })
		requirePanicMessage(t, "par: FlatMap: nil Runner", func() { FlatMap(nil, []int(nil), func(int) []int { return nil }) })
		requirePanicMessage(t, "par: FilterMap: nil function", func() { FilterMap[[]int, int, int](p, s, nil) })
		requirePanicMessage(t, "par: FilterMap: nil Runner", func() {
			FilterMap(nil, []int(nil), func(x int) (int, bool) { return x, true })
		})
		requirePanicMessage(t, "par: PartitionMap: nil function", func() { PartitionMap[[]int, int, int, int](p, s, nil) })
		requirePanicMessage(t, "par: PartitionMap: nil Runner", func() {
			PartitionMap(nil, []int(nil), func(x int) (int, int, bool) { return x, x, true })
		})
		require.Nil(t, FlatMap(p, []int(nil), func(int) []int { return []int{1} }))
		require.Nil(t, FilterMap(p, []int(nil), func(x int) (int, bool) { return x, true }))
		l, r := PartitionMap(p, []int(nil), func(x int) (int, int, bool) { return x, x, true })
		require.Nil(t, l)
		require.Nil(t, r)
	})
}

func FuzzFlatMap(f *testing.F) {
	f.Add([]byte{}, uint8(0), uint8(1), uint8(0))
	f.Add([]byte{0, 1, 2, 3, 4}, uint8(1), uint8(9), uint8(2))
	f.Add([]byte("each element gives x%4 copies"), uint8(2), uint8(90), uint8(50))
	ps := fuzzPools(f)
	f.Fuzz(func(t *testing.T, data []byte, pool, rep, minLen uint8) {
		r := fuzzRunner(ps, pool, minLen)
		s := fuzzLayerInts(data, int(rep)%64+1)
		fn := func(x int) []int {
			out := make([]int, x%4)
			for i := range out {
				out[i] = x + i
			}
			return out
		}
		require.Equal(t, seqFlatMap(s, fn), FlatMap(r, s, fn))
	})
}

func FuzzFilterMap(f *testing.F) {
	f.Add([]byte{}, uint8(0), uint8(1), uint8(0), uint8(1))
	f.Add([]byte{5, 4, 3, 2, 1}, uint8(1), uint8(9), uint8(2), uint8(2))
	f.Add([]byte("keep some, map them"), uint8(2), uint8(150), uint8(7), uint8(3))
	ps := fuzzPools(f)
	f.Fuzz(func(t *testing.T, data []byte, pool, rep, minLen, mod uint8) {
		r := fuzzRunner(ps, pool, minLen)
		s := fuzzLayerInts(data, int(rep)%64+1)
		m := int(mod)%7 + 1
		fn := func(x int) (int, bool) { return x * m, x%m == 0 }
		require.Equal(t, seqFilterMap(s, fn), FilterMap(r, s, fn))
	})
}

func FuzzPartitionMap(f *testing.F) {
	f.Add([]byte{}, uint8(0), uint8(1), uint8(0), uint8(1))
	f.Add([]byte{5, 4, 3, 2, 1}, uint8(1), uint8(9), uint8(2), uint8(2))
	f.Add([]byte("left or right, in order"), uint8(2), uint8(150), uint8(7), uint8(3))
	ps := fuzzPools(f)
	f.Fuzz(func(t *testing.T, data []byte, pool, rep, minLen, mod uint8) {
		r := fuzzRunner(ps, pool, minLen)
		s := fuzzLayerInts(data, int(rep)%64+1)
		m := int(mod)%7 + 1
		fn := func(x int) (int, uint8, bool) { return -x, uint8(x), x%m == 0 }
		wantL, wantR := seqPartitionMap(s, fn)
		gotL, gotR := PartitionMap(r, s, fn)
		require.Equal(t, wantL, gotL)
		require.Equal(t, wantR, gotR)
	})
}
