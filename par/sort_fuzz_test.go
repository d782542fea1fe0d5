package par

import (
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"testing"

	"github.com/blitz-go/blitz"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// The fuzz targets build a slice from (data, n, step): n elements (at most
// fuzzSortMax; 0 means len(data)) cycling through data, each lap adding
// step, so that short inputs also grow into long periodic, sawtooth or
// staircase slices that reach the parallel paths. Their seeds run as
// ordinary tests.

func fuzzSortMax() int {
	if testing.Short() || raceEnabled {
		return 1 << 16
	}
	return 1 << 18
}

func fuzzInts(data []byte, n uint32, step int8) []int {
	size := int(n % uint32(fuzzSortMax()+1))
	if size == 0 {
		size = len(data)
	}
	v := make([]int, size)
	if len(data) == 0 {
		for i := range v {
			v[i] = i * int(step)
		}
		return v
	}
	for i := range v {
		v[i] = int(int8(data[i%len(data)])) + i/len(data)*int(step)
	}
	return v
}

// fuzzPool is a pool of four workers for one fuzz target, closed (and
// checked for leaks) when the target ends.
func fuzzPool(f *testing.F) *blitz.Pool {
	p, err := blitz.New(blitz.WithWorkers(4))
	require.NoError(f, err)
	f.Cleanup(func() {
		require.NoError(f, p.Close())
		goleak.VerifyNone(f)
	})
	return p
}

func addSortSeeds(f *testing.F) {
	f.Add([]byte{}, uint32(0), int8(0))
	f.Add([]byte{3}, uint32(1), int8(0))
	f.Add([]byte{5, 1, 4, 2, 3}, uint32(0), int8(0))
	f.Add([]byte("pattern-defeating"), uint32(100), int8(1))
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7}, uint32(sortInlineMax+1), int8(8))    // ascending
	f.Add([]byte{7, 6, 5, 4, 3, 2, 1, 0}, uint32(sortInlineMax+1), int8(-8))   // descending
	f.Add([]byte{1, 2, 3, 4, 3, 2, 1}, uint32(sortParPartitionMin+1), int8(0)) // periodic
	f.Add([]byte{9}, uint32(1<<16), int8(0))                                   // all equal
	f.Add([]byte{0, 200, 100, 50}, uint32(1<<16), int8(1))                     // staircase
	f.Add([]byte{}, uint32(1<<16), int8(-1))                                   // reverse
	f.Add([]byte{4, 4, 4, 1}, uint32(fuzzSortMax()), int8(3))
}

func FuzzSort(f *testing.F) {
	addSortSeeds(f)
	p := fuzzPool(f)
	f.Fuzz(func(t *testing.T, data []byte, n uint32, step int8) {
		src := fuzzInts(data, n, step)
		want := slices.Clone(src)
		slices.Sort(want)
		got := slices.Clone(src)
		Sort(p, got)
		require.Equal(t, want, got)
		require.True(t, IsSorted(p, got))
		require.Equal(t, slices.IsSorted(src), IsSorted(p, src))
	})
}

func FuzzSortFunc(f *testing.F) {
	addSortSeeds(f)
	p := fuzzPool(f)
	f.Fuzz(func(t *testing.T, data []byte, n uint32, step int8) {
		keys := fuzzInts(data, n, step)
		src := make([]sortRec, len(keys))
		for i, k := range keys {
			src[i] = sortRec{k, i}
		}
		want := slices.Clone(src)
		slices.SortStableFunc(want, cmpRecKey)
		got := slices.Clone(src)
		SortFunc(p, got, cmpRecKey)
		requireSameKeysAndRecords(t, want, got, "SortFunc")
		require.True(t, IsSortedFunc(p, got, cmpRecKey))
		require.Equal(t, slices.IsSortedFunc(src, cmpRecKey), IsSortedFunc(p, src, cmpRecKey))
		got = slices.Clone(src)
		SortByKey(p, got, func(e sortRec) int { return e.key })
		requireSameKeysAndRecords(t, want, got, "SortByKey")
	})
}

func FuzzSortStableFunc(f *testing.F) {
	addSortSeeds(f)
	p := fuzzPool(f)
	f.Fuzz(func(t *testing.T, data []byte, n uint32, step int8) {
		keys := fuzzInts(data, n, step)
		src := make([]sortRec, len(keys))
		for i, k := range keys {
			src[i] = sortRec{k % 64, i} // many ties
		}
		want := slices.Clone(src)
		slices.SortStableFunc(want, cmpRecKey)
		got := slices.Clone(src)
		SortStableFunc(p, got, cmpRecKey)
		require.Equal(t, want, got)
		got = slices.Clone(src)
		SortStableByKey(p, got, func(e sortRec) int { return e.key })
		require.Equal(t, want, got)
	})
}

// FuzzSortFloat reads float64s from the bytes themselves (so NaNs with
// any payload, infinities and signed zeros come up), repeated to n.
func FuzzSortFloat(f *testing.F) {
	nan := math.Float64bits(math.NaN())
	seed := func(fs ...float64) []byte {
		b := make([]byte, 8*len(fs))
		for i, x := range fs {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
		}
		return b
	}
	f.Add(seed(1, math.NaN(), -1, math.Inf(1), 0, math.Copysign(0, -1)), uint32(0))
	f.Add(seed(math.NaN(), math.Float64frombits(nan|1), 2, 1), uint32(sortParPartitionMin+3))
	f.Add(seed(3, 2, 1), uint32(sortInlineMax+2))
	p := fuzzPool(f)
	f.Fuzz(func(t *testing.T, data []byte, n uint32) {
		var vals []float64
		for i := 0; i+8 <= len(data); i += 8 {
			vals = append(vals, math.Float64frombits(binary.LittleEndian.Uint64(data[i:])))
		}
		size := int(n % uint32(fuzzSortMax()+1))
		if size == 0 || len(vals) == 0 {
			size = len(vals)
		}
		src := make([]float64, size)
		for i := range src {
			src[i] = vals[i%len(vals)]
		}
		want := slices.Clone(src)
		slices.Sort(want)
		got := slices.Clone(src)
		Sort(p, got)
		requireSameFloats(t, want, got, "Sort")
		got = slices.Clone(src)
		SortFunc(p, got, cmp.Compare[float64])
		requireSameFloats(t, want, got, "SortFunc")
		require.True(t, IsSorted(p, got))
	})
}
