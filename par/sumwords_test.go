package par

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/blitz-go/blitz"
)

// TestSumWordsMatchesLoop checks both word loops (the assembly one where
// it is built, and the Go one) against a plain loop, at every length up to
// a few blocks past the unrolled width and from every start offset within
// a cache line (the assembly loads without alignment), on values that
// wrap.
func TestSumWordsMatchesLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	backing := make([]uint64, 300)
	for i := range backing {
		backing[i] = rng.Uint64()
	}
	for off := range 8 {
		for n := 0; off+n <= len(backing); n++ {
			s := backing[off : off+n]
			var want uint64
			for _, x := range s {
				want += x
			}
			require.Equalf(t, want, sumWords(s), "off=%d n=%d", off, n)
			require.Equalf(t, want, sumWordsGo(s), "off=%d n=%d", off, n)
		}
	}
}

type namedWord int64

// TestSumWordsKernelTypes pins which element types take the word path
// (the 64-bit integer types) and checks every type's Sum against a loop,
// whichever path it takes.
func TestSumWordsKernelTypes(t *testing.T) {
	const wide = ^uint(0)>>63 == 1
	check := func(name string, words bool, got, want any, ok bool) {
		t.Helper()
		assert.Equalf(t, words, ok, "%s: word path", name)
		assert.Equalf(t, want, got, "%s: sum", name)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	raw := make([]uint64, 1003)
	for i := range raw {
		raw[i] = rng.Uint64()
	}
	{
		s := convert[int64](raw)
		got, ok := sumWordsKernel(s)
		check("int64", true, got, loopSum(s), ok)
	}
	{
		s := convert[uint64](raw)
		got, ok := sumWordsKernel(s)
		check("uint64", true, got, loopSum(s), ok)
	}
	{
		s := convert[int](raw)
		got, ok := sumWordsKernel(s)
		if ok {
			check("int", wide, got, loopSum(s), ok)
		} else {
			check("int", wide, sumKernel(s), loopSum(s), ok)
		}
	}
	{
		s := convert[uint](raw)
		got, ok := sumWordsKernel(s)
		if ok {
			check("uint", wide, got, loopSum(s), ok)
		} else {
			check("uint", wide, sumKernel(s), loopSum(s), ok)
		}
	}
	{
		s := convert[namedWord](raw)
		_, ok := sumWordsKernel(s)
		check("namedWord", false, sumKernel(s), loopSum(s), ok)
	}
	{
		s := convert[int32](raw)
		_, ok := sumWordsKernel(s)
		check("int32", false, sumKernel(s), loopSum(s), ok)
	}
	{
		s := []float64{1, 2, 3}
		_, ok := sumWordsKernel(s)
		check("float64", false, sumKernel(s), 6.0, ok)
	}
	got, ok := sumWordsKernel([]int64(nil))
	check("empty", true, got, int64(0), ok)
}

// TestSumWordsKernelAllocs checks that choosing the path allocates
// nothing.
func TestSumWordsKernelAllocs(t *testing.T) {
	s := make([]int64, 100)
	f := make([]float64, 100)
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = sumKernel(s) }))
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = sumKernel(f) }))
}

// TestSumWordsParallel checks Sum over 64-bit integers on pools of 1, 2
// and 8 workers against a loop, at lengths around the piece sizes.
func TestSumWordsParallel(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, workers := range []int{1, 2, 8} {
		withPool(t, []blitz.Option{blitz.WithWorkers(workers)}, func(p *blitz.Pool) {
			for _, n := range []int{0, 1, 7, 8, 9, cheapMinLen - 1, cheapMinLen, cheapMinLen + 1, 100_003} {
				s := make([]int64, n)
				for i := range s {
					s[i] = int64(rng.Uint64())
				}
				assert.Equalf(t, loopSum(s), Sum(p, s), "workers=%d n=%d", workers, n)
			}
		})
	}
}

// sumTestInt is the element types the tests above convert raw words to.
type sumTestInt interface {
	~int | ~int32 | ~int64 | ~uint | ~uint64
}

func convert[E sumTestInt](raw []uint64) []E {
	s := make([]E, len(raw))
	for i, x := range raw {
		s[i] = E(x)
	}
	return s
}

func loopSum[E Number](s []E) E {
	var t E
	for _, x := range s {
		t += x
	}
	return t
}

var sumWordsSink uint64

// BenchmarkSumWords compares the loops that can sum a piece of int64s:
// sumKernel's four-accumulator loop (impl=loop4), the eight-accumulator Go
// word loop (impl=words-go) and sumWords, which is the assembly loop on
// amd64 without the race detector (impl=words), on a slice in cache
// (10,000 elements) and one streamed from memory (10M).
//
//	go test -run '^$' -bench SumWords -count 10 ./par | tee sum.txt
//	benchstat -col /impl sum.txt
func BenchmarkSumWords(b *testing.B) {
	for _, n := range []int{10_000, 10_000_000} {
		s := make([]uint64, n)
		for i := range s {
			s[i] = uint64(i)
		}
		for _, im := range []struct {
			name string
			f    func([]uint64) uint64
		}{{"loop4", sumLoop[uint64]}, {"words-go", sumWordsGo}, {"words", sumWords}} {
			b.Run(fmt.Sprintf("n=%d/impl=%s", n, im.name), func(b *testing.B) {
				b.SetBytes(int64(8 * n))
				for b.Loop() {
					sumWordsSink = im.f(s)
				}
			})
		}
	}
}
