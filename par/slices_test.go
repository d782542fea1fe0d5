package par

import (
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

func TestForEachVisitsEachElementOnce(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, n := range layerSizes(lr) {
			s := make([]int, n)
			for i := range s {
				s[i] = i
			}
			hits := make([]atomic.Int32, n)
			layerCall(t, lr, func(r blitz.Runner) int {
				ForEach(r, s, func(x int) { hits[x].Add(1) })
				return 0
			})
			idx := make([]atomic.Int32, n)
			bad := layerCall(t, lr, func(r blitz.Runner) int {
				var bad atomic.Int64
				ForEachIndex(r, s, func(i, x int) {
					idx[i].Add(1)
					if x != s[i] {
						bad.Add(1)
					}
				})
				return int(bad.Load())
			})
			require.Zerof(t, bad, "n=%d: ForEachIndex passed a wrong element", n)
			require.Equalf(t, -1, firstNot(hits, 1), "n=%d: ForEach visited an element other than once", n)
			require.Equalf(t, -1, firstNot(idx, 1), "n=%d: ForEachIndex visited an index other than once", n)
		}
	})
}

func TestMapFillMatchSequential(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, n := range layerSizes(lr) {
			s := randInts(n, 1000, 1)
			f := func(x int) int { return 3*x + 1 }

			want := make([]int, n)
			for i, x := range s {
				want[i] = f(x)
			}
			got := layerCall(t, lr, func(r blitz.Runner) []int { return Map(r, s, f) })
			requireEqualSlices(t, want, got, fmt.Sprintf("n=%d: Map", n))

			wantStr := make([]string, n)
			for i, x := range s {
				wantStr[i] = strconv.Itoa(x)
			}
			gotStr := layerCall(t, lr, func(r blitz.Runner) []string {
				return Map(r, s, func(x int) string { return strconv.Itoa(x) })
			})
			requireEqualSlices(t, wantStr, gotStr, fmt.Sprintf("n=%d: Map to another type", n))

			in := slices.Clone(s)
			layerCall(t, lr, func(r blitz.Runner) int { MapInPlace(r, in, f); return 0 })
			requireEqualSlices(t, want, in, fmt.Sprintf("n=%d: MapInPlace", n))

			// Fill writes s[:len(s)] and nothing past it.
			buf := make([]int, n+3)
			layerCall(t, lr, func(r blitz.Runner) int { Fill(r, buf[:n], 7); return 0 })
			require.Equalf(t, -1, slices.IndexFunc(buf[:n], func(x int) bool { return x != 7 }), "n=%d: Fill left an element", n)
			require.Equalf(t, []int{0, 0, 0}, buf[n:], "n=%d: Fill wrote past the slice", n)
		}
	})
}

// firstNot returns the first index whose counter is not want, or -1.
func firstNot(c []atomic.Int32, want int32) int {
	for i := range c {
		if c[i].Load() != want {
			return i
		}
	}
	return -1
}

// seqFilter is the sequential counterpart of Filter.
func seqFilter[E any](s []E, keep func(E) bool) []E {
	var out []E
	for _, x := range s {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}

func TestFilterMatchesSequential(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, n := range layerSizes(lr) {
			s := randInts(n, 1000, 2)
			for _, keep := range []func(int) bool{
				func(x int) bool { return x%2 == 0 },
				func(x int) bool { return x < 10 },  // sparse
				func(x int) bool { return x >= 10 }, // dense
				func(int) bool { return false },
				func(int) bool { return true },
			} {
				var calls atomic.Int64
				got := layerCall(t, lr, func(r blitz.Runner) []int {
					return Filter(r, s, func(x int) bool { calls.Add(1); return keep(x) })
				})
				want := seqFilter(s, keep)
				requireEqualSlices(t, want, got, fmt.Sprintf("n=%d", n))
				require.EqualValuesf(t, n, calls.Load(), "n=%d: keep calls", n)
				if len(want) == 0 {
					require.Nilf(t, got, "n=%d: Filter kept nothing and returned a non-nil slice", n)
				}
			}
		}
	})
}

func TestChunksCoverTheSlice(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, n := range layerSizes(lr) {
			s := randInts(n, 1000, 3)
			for _, size := range []int{1, 3, 64, 1000, n + 1, math.MaxInt} {
				if size < 1 {
					continue
				}
				chunks := 0
				if n > 0 {
					chunks = (n-1)/size + 1
				}
				got := make([][]int, chunks)
				var bad atomic.Int64
				layerCall(t, lr, func(r blitz.Runner) int {
					Chunks(r, s, size, func(w *blitz.Worker, i int, c []int) {
						if w == nil || i < 0 || i >= chunks || got[i] != nil {
							bad.Add(1)
							return
						}
						got[i] = c
					})
					return 0
				})
				require.Zerof(t, bad.Load(), "n=%d size=%d: bad or repeated chunk index", n, size)
				for i, c := range got {
					lo := i * size
					hi := min(lo+size, n)
					if !slices.Equal(s[lo:hi], c) || len(c) != cap(c) || &c[0] != &s[lo] {
						require.Failf(t, "wrong chunk", "n=%d size=%d: chunk %d is %v (cap %d), want s[%d:%d:%d]",
							n, size, i, c, cap(c), lo, hi, hi)
					}
				}
			}
		}
	})
}

func TestChunksNestParallelWork(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(4)}, func(p *blitz.Pool) {
		s := randInts(10_000, 100, 4)
		even := func(x int) bool { return x%2 == 0 }
		got := make([][]int, 10)
		Chunks(p, s, 1000, func(w *blitz.Worker, i int, c []int) {
			got[i] = Filter(w, c, even) // nested: the chunk's worker runs a parallel filter
		})
		for i := range got {
			assert.Equalf(t, seqFilter(s[i*1000:(i+1)*1000], even), got[i], "chunk %d", i)
		}
	})
}

func TestSlicesPanicsPropagate(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, n := range []int{1, 100, 50_000} {
			at := n / 3
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
				"ForEach":      func(r blitz.Runner) { ForEach(r, s, boom) },
				"ForEachIndex": func(r blitz.Runner) { ForEachIndex(r, s, func(_, x int) { boom(x) }) },
				"MapInPlace":   func(r blitz.Runner) { MapInPlace(r, slices.Clone(s), func(x int) int { boom(x); return x }) },
				"Map":          func(r blitz.Runner) { Map(r, s, func(x int) int { boom(x); return x }) },
				"Filter":       func(r blitz.Runner) { Filter(r, s, func(x int) bool { boom(x); return true }) },
				"Chunks": func(r blitz.Runner) {
					Chunks(r, s, 7, func(_ *blitz.Worker, _ int, c []int) {
						for _, x := range c {
							boom(x)
						}
					})
				},
			} {
				v := layerPanic(t, lr, call)
				t.Run(name, func(t *testing.T) { requirePanicError(t, v, want) })
			}
		}
	})
}

func TestSlicesNilArguments(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(2)}, func(p *blitz.Pool) {
		s := []int{1, 2, 3}
		requirePanicMessage(t, "par: ForEach: nil function", func() { ForEach(p, s, nil) })
		requirePanicMessage(t, "par: ForEachIndex: nil function", func() { ForEachIndex(p, s, nil) })
		requirePanicMessage(t, "par: MapInPlace: nil function", func() { MapInPlace(p, s, nil) })
		requirePanicMessage(t, "par: Map: nil function", func() { Map[[]int, int, int](p, s, nil) })
		requirePanicMessage(t, "par: Filter: nil function", func() { Filter(p, s, nil) })
		requirePanicMessage(t, "par: Chunks: nil function", func() { Chunks(p, s, 1, nil) })
		requirePanicMessage(t, "par: Chunks: size must be at least 1", func() {
			Chunks(p, s, 0, func(*blitz.Worker, int, []int) {})
		})
		requirePanicMessage(t, "par: Fill: nil Runner", func() { Fill(nil, s, 0) })
		requirePanicMessage(t, "par: Filter: nil Runner", func() { Filter(nil, []int(nil), func(int) bool { return true }) })
	})
}

// fuzzPools creates the pools a fuzz target checks against (1, 2 and 8
// workers) and closes them when the target ends.
func fuzzPools(f *testing.F) []*blitz.Pool {
	var ps []*blitz.Pool
	for _, n := range testWorkerCounts {
		p, err := blitz.New(blitz.WithWorkers(n))
		require.NoError(f, err)
		ps = append(ps, p)
	}
	f.Cleanup(func() {
		for _, p := range ps {
			require.NoError(f, p.Close())
		}
	})
	return ps
}

// fuzzLayerInts turns fuzz bytes into ints: each byte one element, repeated rep
// times (rep scales a short input past the layer's split thresholds).
func fuzzLayerInts(data []byte, rep int) []int {
	s := make([]int, 0, len(data)*rep)
	for range rep {
		for _, b := range data {
			s = append(s, int(b))
		}
	}
	return s
}

func FuzzSlices(f *testing.F) {
	f.Add([]byte{}, uint8(0), uint8(1), uint8(3))
	f.Add([]byte{1, 2, 3, 4, 5}, uint8(1), uint8(7), uint8(2))
	f.Add([]byte("the quick brown fox jumps over the lazy dog"), uint8(2), uint8(200), uint8(64))
	f.Add(make([]byte, 300), uint8(5), uint8(1), uint8(1))
	ps := fuzzPools(f)
	f.Fuzz(func(t *testing.T, data []byte, pool, rep, mod uint8) {
		p := ps[int(pool)%len(ps)]
		s := fuzzLayerInts(data, int(rep)%64+1)
		m := int(mod)%16 + 1
		keep := func(x int) bool { return x%m == 0 }
		require.Equal(t, seqFilter(s, keep), Filter(p, s, keep))
		sq := func(x int) int { return x*x - m }
		want := make([]int, len(s))
		for i, x := range s {
			want[i] = sq(x)
		}
		require.Equal(t, want, Map(p, s, sq))
		in := slices.Clone(s)
		MapInPlace(p, in, sq)
		require.Equal(t, want, in)
		var sum atomic.Int64
		ForEach(p, s, func(x int) { sum.Add(int64(x)) })
		wantSum := 0
		for _, x := range s {
			wantSum += x
		}
		require.EqualValues(t, wantSum, sum.Load())
		var chunked atomic.Int64
		Chunks(p, s, m, func(_ *blitz.Worker, i int, c []int) {
			if len(c) > 0 && &c[0] == &s[i*m] {
				chunked.Add(int64(len(c)))
			}
		})
		require.EqualValues(t, len(s), chunked.Load())
	})
}
