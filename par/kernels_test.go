package par

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/blitz-go/blitz"
)

// documentedPieceSum is a piece's float sum in the order Sum's doc states:
// four interleaved running sums, ((first + second) + (third + fourth)),
// then the last len%4 elements from the left.
func documentedPieceSum(s []float64) float64 {
	var a [4]float64
	full := len(s) / 4 * 4
	for i, x := range s[:full] {
		a[i%4] += x
	}
	t := (a[0] + a[1]) + (a[2] + a[3])
	for _, x := range s[full:] {
		t += x
	}
	return t
}

func TestSumKernelGrouping(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for n := range 70 {
		fs := make([]float64, n)
		is := make([]int64, n)
		for i := range fs {
			// Magnitudes far apart: another grouping gives other bits.
			fs[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(12)))
			is[i] = int64(rng.Uint64())
		}
		assert.Equalf(t, math.Float64bits(documentedPieceSum(fs)), math.Float64bits(sumKernel(fs)), "n=%d", n)
		var want int64
		for _, x := range is {
			want += x
		}
		assert.Equalf(t, want, sumKernel(is), "n=%d: wrapping int sum", n)
	}
	// A slice short enough for one piece is summed in exactly that order
	// by Sum itself.
	withPool(t, []blitz.Option{blitz.WithWorkers(2)}, func(p *blitz.Pool) {
		fs := make([]float64, 1001)
		for i := range fs {
			fs[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(12)))
		}
		assert.Equal(t, math.Float64bits(documentedPieceSum(fs)), math.Float64bits(Sum(p, fs)))
	})
}

func TestMinMaxKernelsMatchSlices(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for n := 1; n < 40; n++ {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(rng.IntN(9) - 4)
		}
		assert.Equalf(t, slices.Min(xs), minKernel(xs), "n=%d: min", n)
		assert.Equalf(t, slices.Max(xs), maxKernel(xs), "n=%d: max", n)
		// A NaN at any position, in the unrolled body or the tail,
		// makes both NaN, as in slices.Min and slices.Max.
		for i := range xs {
			ys := slices.Clone(xs)
			ys[i] = math.NaN()
			require.Truef(t, math.IsNaN(minKernel(ys)), "n=%d, NaN at %d: min", n, i)
			require.Truef(t, math.IsNaN(maxKernel(ys)), "n=%d, NaN at %d: max", n, i)
		}
		// Signed zeros: min picks -0 and max +0 wherever they are.
		zs := make([]float64, n)
		zs[rng.IntN(n)] = math.Copysign(0, -1)
		assert.Truef(t, math.Signbit(minKernel(zs)), "n=%d: min of signed zeros", n)
		zs = make([]float64, n)
		for i := range zs {
			zs[i] = math.Copysign(0, -1)
		}
		zs[rng.IntN(n)] = 0
		assert.Falsef(t, math.Signbit(maxKernel(zs)), "n=%d: max of signed zeros", n)
	}
}
