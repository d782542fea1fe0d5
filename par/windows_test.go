package par

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz"
	"github.com/stretchr/testify/require"
)

func TestWindowsMatchesSequential(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, n := range layerSizes(lr) {
			s := randInts(n, 1000, 4)
			for _, size := range []int{1, 2, 7, 64} {
				nw := max(n-size+1, 0)
				// Windows: each start once, with the right, capped window.
				hits := make([]atomic.Int32, nw)
				var bad atomic.Int64
				layerCall(t, lr, func(r blitz.Runner) int {
					Windows(r, s, size, func(i int, win []int) {
						hits[i].Add(1)
						if len(win) != size || cap(win) != size || &win[0] != &s[i] {
							bad.Add(1)
						}
					})
					return 0
				})
				require.Zerof(t, bad.Load(), "n=%d size=%d: a window is not s[i:i+size:i+size]", n, size)
				require.Equalf(t, -1, firstNot(hits, 1), "n=%d size=%d: a window visited other than once", n, size)

				// MapWindows: a moving sum, against a loop.
				want := make([]int, nw)
				for i := range want {
					for _, x := range s[i : i+size] {
						want[i] += x
					}
				}
				got := layerCall(t, lr, func(r blitz.Runner) []int {
					return MapWindows(r, s, size, func(win []int) int {
						t := 0
						for _, x := range win {
							t += x
						}
						return t
					})
				})
				requireEqualSlices(t, want, got, fmt.Sprintf("n=%d size=%d: MapWindows", n, size))
			}
		}
	})
}

func TestWindowsBadArguments(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(2)}, func(p *blitz.Pool) {
		s := []int{1, 2, 3}
		requirePanicMessage(t, "par: Windows: nil function", func() { Windows(p, s, 2, nil) })
		requirePanicMessage(t, "par: Windows: size must be at least 1", func() { Windows(p, s, 0, func(int, []int) {}) })
		requirePanicMessage(t, "par: Windows: nil Runner", func() { Windows(nil, s, 2, func(int, []int) {}) })
		requirePanicMessage(t, "par: MapWindows: nil function", func() { MapWindows[[]int, int, int](p, s, 2, nil) })
		requirePanicMessage(t, "par: MapWindows: size must be at least 1", func() {
			MapWindows(p, s, -1, func([]int) int { return 0 })
		})
		requirePanicMessage(t, "par: MapWindows: nil Runner", func() { MapWindows(nil, s, 2, func([]int) int { return 0 }) })
		// A window longer than s: none, and f never runs.
		require.Empty(t, MapWindows(p, s, 4, func([]int) int { panic("called") }))
		Windows(p, s, 4, func(int, []int) { panic("called") })
	})
}

func FuzzWindows(f *testing.F) {
	f.Add([]byte{}, uint8(0), uint8(1), uint8(1), uint8(0))
	f.Add([]byte{1, 2, 3, 4, 5}, uint8(1), uint8(7), uint8(3), uint8(2))
	f.Add([]byte("overlapping windows of the input"), uint8(2), uint8(60), uint8(40), uint8(9))
	ps := fuzzPools(f)
	f.Fuzz(func(t *testing.T, data []byte, pool, rep, size, minLen uint8) {
		r := fuzzRunner(ps, pool, minLen)
		s := fuzzLayerInts(data, int(rep)%64+1)
		k := int(size)%100 + 1
		want := []int{}
		for i := 0; i+k <= len(s); i++ {
			want = append(want, slicesMax(s[i:i+k]))
		}
		require.Equal(t, want, MapWindows(r, s, k, slicesMax))
		var visits atomic.Int64
		Windows(r, s, k, func(i int, win []int) {
			if slicesMax(win) == want[i] {
				visits.Add(1)
			}
		})
		require.EqualValues(t, len(want), visits.Load())
	})
}

func slicesMax(s []int) int {
	m := s[0]
	for _, x := range s {
		m = max(m, x)
	}
	return m
}
