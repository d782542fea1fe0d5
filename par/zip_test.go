package par

import (
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz"
	"github.com/stretchr/testify/require"
)

func TestZipWithMatchesSequential(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, n := range layerSizes(lr) {
			a, b := randInts(n, 1000, 1), randInts(n, 1000, 2)
			f := func(x, y int) int { return 3*x - y }
			want := make([]int, n)
			for i := range a {
				want[i] = f(a[i], b[i])
			}
			var calls atomic.Int64
			got := layerCall(t, lr, func(r blitz.Runner) []int {
				return ZipWith(r, a, b, func(x, y int) int { calls.Add(1); return f(x, y) })
			})
			requireEqualSlices(t, want, got, fmt.Sprintf("n=%d: ZipWith", n))
			require.EqualValuesf(t, n, calls.Load(), "n=%d: f calls", n)

			// Different element types in, a third out.
			names := make([]string, n)
			for i, x := range a {
				names[i] = strconv.Itoa(x)
			}
			wantStr := make([]string, n)
			for i := range names {
				wantStr[i] = names[i] + ":" + strconv.Itoa(b[i])
			}
			gotStr := layerCall(t, lr, func(r blitz.Runner) []string {
				return ZipWith(r, names, b, func(s string, y int) string { return s + ":" + strconv.Itoa(y) })
			})
			requireEqualSlices(t, wantStr, gotStr, fmt.Sprintf("n=%d: ZipWith to another type", n))
		}
	})
}

func TestUnzipMatchesSequential(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, n := range layerSizes(lr) {
			s := randInts(n, 1000, 3)
			wantQ, wantR := make([]int, n), make([]string, n)
			for i, x := range s {
				wantQ[i], wantR[i] = x/7, strconv.Itoa(x%7)
			}
			var calls atomic.Int64
			type out struct {
				q []int
				r []string
			}
			got := layerCall(t, lr, func(r blitz.Runner) out {
				q, rem := Unzip(r, s, func(x int) (int, string) { calls.Add(1); return x / 7, strconv.Itoa(x % 7) })
				return out{q, rem}
			})
			requireEqualSlices(t, wantQ, got.q, fmt.Sprintf("n=%d: Unzip's first", n))
			requireEqualSlices(t, wantR, got.r, fmt.Sprintf("n=%d: Unzip's second", n))
			require.EqualValuesf(t, n, calls.Load(), "n=%d: f calls", n)
		}
	})
}

func TestZipBadArguments(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(2)}, func(p *blitz.Pool) {
		add := func(x, y int) int { return x + y }
		requirePanicMessage(t, "par: ZipWith: nil function", func() { ZipWith[[]int, []int, int, int, int](p, nil, nil, nil) })
		requirePanicMessage(t, "par: ZipWith: nil Runner", func() { ZipWith(nil, []int{1}, []int{1}, add) })
		// A length mismatch panics before f runs, at every length.
		var ran atomic.Bool
		for _, ab := range [][2][]int{{{1, 2}, {1}}, {nil, {1}}, {make([]int, 5000), make([]int, 4999)}} {
			requirePanicMessage(t, fmt.Sprintf("par: ZipWith: len(a) = %d, len(b) = %d", len(ab[0]), len(ab[1])), func() {
				ZipWith(p, ab[0], ab[1], func(x, y int) int { ran.Store(true); return x + y })
			})
		}
		require.False(t, ran.Load(), "f ran on slices of different lengths")
		require.Empty(t, ZipWith(p, []int(nil), []int(nil), add))

		requirePanicMessage(t, "par: Unzip: nil function", func() { Unzip[[]int, int, int, int](p, []int{1}, nil) })
		requirePanicMessage(t, "par: Unzip: nil Runner", func() { Unzip(nil, []int{1}, func(x int) (int, int) { return x, x }) })
	})
}

func FuzzZipWith(f *testing.F) {
	f.Add([]byte{}, uint8(0), uint8(1), uint8(0))
	f.Add([]byte{1, 2, 3, 4, 5}, uint8(1), uint8(7), uint8(2))
	f.Add([]byte("the quick brown fox jumps over the lazy dog"), uint8(2), uint8(200), uint8(30))
	ps := fuzzPools(f)
	f.Fuzz(func(t *testing.T, data []byte, pool, rep, minLen uint8) {
		r := fuzzRunner(ps, pool, minLen)
		a := fuzzLayerInts(data, int(rep)%64+1)
		b := make([]int, len(a))
		for i := range b {
			b[i] = len(a) - i
		}
		want := make([]int, len(a))
		for i := range a {
			want[i] = a[i]*b[i] + i
		}
		got := ZipWith(r, a, b, func(x, y int) int { return x * y })
		for i := range got {
			got[i] += i
		}
		require.Equal(t, want, got)
	})
}

func FuzzUnzip(f *testing.F) {
	f.Add([]byte{}, uint8(0), uint8(1), uint8(0))
	f.Add([]byte{9, 8, 7}, uint8(1), uint8(100), uint8(3))
	f.Add([]byte("unzip splits each element in two"), uint8(2), uint8(40), uint8(200))
	ps := fuzzPools(f)
	f.Fuzz(func(t *testing.T, data []byte, pool, rep, minLen uint8) {
		r := fuzzRunner(ps, pool, minLen)
		s := fuzzLayerInts(data, int(rep)%64+1)
		hi, lo := Unzip(r, s, func(x int) (int, int) { return x >> 4, x & 15 })
		require.Len(t, hi, len(s))
		require.Len(t, lo, len(s))
		for i, x := range s {
			require.Equal(t, x, hi[i]<<4|lo[i])
		}
	})
}

// fuzzRunner picks one of the fuzz pools, wrapped in MinLen when minLen > 0.
func fuzzRunner(ps []*blitz.Pool, pool, minLen uint8) blitz.Runner {
	p := ps[int(pool)%len(ps)]
	if minLen == 0 {
		return p
	}
	return MinLen(p, int(minLen))
}
