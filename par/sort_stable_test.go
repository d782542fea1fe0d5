package par

import (
	"cmp"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/blitz-go/blitz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stablePatterns are sortPatterns and a few nearly sorted shapes more, on
// which a sort that finds runs costs not much more than n comparisons.
func stablePatterns() []sortPattern {
	nearly := func(every int) func(rng *rand.Rand, n int) []int {
		return func(rng *rand.Rand, n int) []int {
			v := make([]int, n)
			for i := range v {
				v[i] = i
				if i%every == every/2 {
					v[i] = rng.IntN(n) // out of place
				}
			}
			return v
		}
	}
	return append(sortPatterns(),
		sortPattern{"every-256th-out", nearly(256)},
		sortPattern{"every-4096th-out", nearly(4096)},
		sortPattern{"sorted-runs-of-1000", func(rng *rand.Rand, n int) []int {
			v := make([]int, n)
			for i := range v {
				v[i] = rng.Int()
			}
			for i := 0; i < n; i += 1000 {
				slices.Sort(v[i:min(i+1000, n)])
			}
			return v
		}},
		sortPattern{"sorted-then-random-prefix", func(rng *rand.Rand, n int) []int {
			v := make([]int, n)
			for i := range v {
				v[i] = i
				if i < n/64 {
					v[i] = rng.IntN(n)
				}
			}
			return v
		}},
	)
}

// TestSortStableComparisons pins the stable sort's adaptivity by counting
// comparisons against slices.SortStableFunc's on the same input (whose
// insertion sort and SymMerge also adapt to sorted stretches): on every
// shape at most stableCmpRatio times as many, at every pool size; on a
// sorted or constant input on one worker exactly n-1, one scan; on several
// workers, whose pieces each cost their length less one and each merge one
// comparison more (and binary searches for the parallel merges), at most
// n + n/64. The comparison sees half of each value, so that values tie in
// pairs and the result, slices.SortStableFunc's, shows the order kept
// among equal elements. (A reversed input is then descending but not
// strictly, and its runs are pairs: see TestSortStableReversed.)
func TestSortStableComparisons(t *testing.T) {
	n := 1 << 16
	if raceEnabled {
		n = 1 << 14
	}
	const stableCmpRatio = 1.25
	withSortPools(t, func(t *testing.T, p *blitz.Pool) {
		for _, pat := range stablePatterns() {
			src := pat.make(rand.New(rand.NewPCG(25, 25)), n)
			want := slices.Clone(src)
			var base int
			slices.SortStableFunc(want, func(a, b int) int { base++; return cmp.Compare(a/2, b/2) })
			got := slices.Clone(src)
			var calls atomic.Int64
			onRunner(t, p, false, func(r blitz.Runner) {
				SortStableFunc(r, got, func(a, b int) int { calls.Add(1); return cmp.Compare(a/2, b/2) })
			})
			require.Equal(t, want, got, pat.name)
			count := int(calls.Load())
			t.Logf("%-26s %8d comparisons, %.2f per element, %.2fx slices.SortStableFunc's", pat.name, count,
				float64(count)/float64(n), float64(count)/float64(base))
			assert.LessOrEqual(t, float64(count), stableCmpRatio*float64(base), pat.name)
			switch pat.name {
			case "sorted", "equal":
				if p.Workers() == 1 {
					assert.Equal(t, n-1, count, pat.name)
				} else {
					assert.LessOrEqual(t, count, n+n/64, pat.name)
				}
			case "every-256th-out", "every-4096th-out", "push-front":
				assert.LessOrEqual(t, count, n+n/2, pat.name)
			}
		}
	})
}

// TestSortStableReversed: a strictly descending input is one run, reversed
// in place, so it costs what a sorted one does (on several workers, the
// whole slice is checked and reversed before it is split); a descending
// one with equal elements is not reversed whole, which would reverse
// their order.
func TestSortStableReversed(t *testing.T) {
	n := 1 << 15
	withSortPools(t, func(t *testing.T, p *blitz.Pool) {
		s := make([]sortRec, n)
		for i := range s {
			s[i] = sortRec{n - i, i}
		}
		var calls atomic.Int64
		onRunner(t, p, false, func(r blitz.Runner) {
			SortStableFunc(r, s, func(a, b sortRec) int { calls.Add(1); return cmpRecKey(a, b) })
		})
		require.True(t, slices.IsSortedFunc(s, cmpRecKey))
		if p.Workers() == 1 {
			assert.Equal(t, int64(n-1), calls.Load())
		} else {
			// One more: the check of the ends that starts the scan.
			assert.Equal(t, int64(n), calls.Load())
		}
		for i := range s {
			s[i] = sortRec{(n - i) / 3, i} // descending, in threes of equal keys
		}
		want := slices.Clone(s)
		slices.SortStableFunc(want, cmpRecKey)
		onRunner(t, p, false, func(r blitz.Runner) { SortStableFunc(r, s, cmpRecKey) })
		require.Equal(t, want, s)
	})
}

// TestSortStableRandomComparisons checks that finding runs costs a random
// input little: about log2(n!) comparisons, the least any comparison sort
// needs on average, and fewer than slices.SortStableFunc's.
func TestSortStableRandomComparisons(t *testing.T) {
	n := 1 << 16
	s := make([]int, n)
	rng := rand.New(rand.NewPCG(3, 25))
	for i := range s {
		s[i] = rng.Int()
	}
	want := slices.Clone(s)
	var base int
	slices.SortStableFunc(want, func(a, b int) int { base++; return cmp.Compare(a, b) })
	p, err := blitz.New(blitz.WithWorkers(1))
	require.NoError(t, err)
	defer p.Close()
	calls := 0
	SortStableFunc(p, s, func(a, b int) int { calls++; return cmp.Compare(a, b) })
	require.Equal(t, want, s)
	lg := float64(bits.Len(uint(n)) - 1)
	t.Logf("%.2f comparisons per element, slices.SortStableFunc %.2f", float64(calls)/float64(n), float64(base)/float64(n))
	assert.Less(t, calls, base)
	assert.LessOrEqual(t, float64(calls), 1.1*lg*float64(n))
}

// TestSortStableSeqPanics panics at every comparison of stableSortSeq in
// turn, on inputs whose runs lie in both slices when it panics (runs of
// several lengths, merged into the scratch slice and back, or joined where
// they lie), into either slice: the piece's elements are always back in
// v, none lost or repeated.
func TestSortStableSeqPanics(t *testing.T) {
	n := 600
	if raceEnabled {
		// One goroutine, no concurrency to check: under the race detector
		// (slow, and the work grows as the square of n), a shorter slice.
		n = 240
	}
	rng := rand.New(rand.NewPCG(4, 25))
	shapes := map[string][]int{}
	for _, name := range []string{"random", "runs", "nearly", "joins"} {
		v := make([]int, n)
		for i := range v {
			switch name {
			case "joins":
				// Blocks of 40 whose first three are reversed: short runs
				// in order with the run after them, joined unmoved.
				v[i] = i
				if b := i - i%40; i-b < 3 {
					v[i] = b + 2 - (i - b)
				}
			case "random":
				v[i] = rng.IntN(n / 4)
			case "runs":
				v[i] = rng.IntN(n)
			case "nearly":
				v[i] = i
				if i%37 == 0 {
					v[i] = rng.IntN(n)
				}
			}
		}
		if name == "runs" {
			for i, l := 0, 5; i < n; i, l = i+l, l*3%71+2 {
				slices.Sort(v[i:min(i+l, n)])
				if l%2 == 0 {
					slices.Reverse(v[i:min(i+l, n)])
				}
			}
		}
		shapes[name] = v
	}
	for name, src := range shapes {
		for _, toBuf := range []bool{false, true} {
			total := 0
			c := &stableCtx[int]{v: slices.Clone(src), buf: make([]int, n), cmp: func(a, b int) int { total++; return cmp.Compare(a, b) }}
			out := c.v
			if stableSortSeq(c, 0, n, toBuf) {
				out = c.buf
			}
			require.True(t, slices.IsSorted(out), "%s toBuf=%v", name, toBuf)
			for at := 1; at <= total; at++ {
				calls := 0
				c := &stableCtx[int]{v: slices.Clone(src), buf: make([]int, n), cmp: func(a, b int) int {
					if calls++; calls == at {
						panic("boom")
					}
					return cmp.Compare(a, b)
				}}
				require.Equal(t, "boom", catchPanic(func() { stableSortSeq(c, 0, n, toBuf) }))
				requireSameElements(t, src, c.v, "%s toBuf=%v at=%d", name, toBuf, at)
			}
		}
	}
}

// TestSortStableMergeKernel checks mergeKernel against a stable sort of its
// two inputs, and its cost where it gallops: an input of a few elements
// costs a few comparisons per element, however long the other; inputs that
// take turns in long stretches a few per stretch.
func TestSortStableMergeKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 25))
	for _, sizes := range [][2]int{{1, 1}, {1, 5000}, {5000, 1}, {3, 5000}, {5000, 3}, {7, 7}, {100, 100}, {2000, 3000}} {
		for _, distinct := range []int{1, 3, 1 << 30} {
			s := make([]sortRec, sizes[0]+sizes[1])
			for i := range s {
				s[i] = sortRec{rng.IntN(distinct), i}
			}
			a, b := s[:sizes[0]], s[sizes[0]:]
			slices.SortStableFunc(a, cmpRecKey)
			slices.SortStableFunc(b, cmpRecKey)
			want := slices.Clone(s)
			slices.SortStableFunc(want, cmpRecKey)
			d := make([]sortRec, len(s))
			calls := 0
			mergeKernel(s, 0, len(a), len(a), len(s), d, func(x, y sortRec) int { calls++; return cmpRecKey(x, y) })
			require.Equal(t, want, d, "sizes=%v distinct=%d", sizes, distinct)
			if short := min(sizes[0], sizes[1]); short <= 7 {
				lg := bits.Len(uint(max(sizes[0], sizes[1])))
				assert.LessOrEqual(t, calls, mergeBlockFirst+short*(mergeBlock+2*lg+2), "sizes=%v distinct=%d", sizes, distinct)
			}
		}
	}
	// Stretches of 500 from a and b in turn.
	const stretch, turns = 500, 20
	s := make([]int, 0, 2*stretch*turns)
	for _, off := range []int{0, stretch} {
		for k := range turns {
			for i := range stretch {
				s = append(s, 2*k*stretch+off+i)
			}
		}
	}
	d := make([]int, len(s))
	calls := 0
	mergeKernel(s, 0, len(s)/2, len(s)/2, len(s), d, func(x, y int) int { calls++; return cmp.Compare(x, y) })
	require.True(t, slices.IsSorted(d))
	t.Logf("%d stretches: %d comparisons", 2*turns, calls)
	assert.LessOrEqual(t, calls, mergeBlockFirst+2*turns*(mergeBlock+2*bits.Len(stretch)+2))
}

// TestSortStablePanicsInPieces panics deep into a parallel stable sort at
// several points, on a random input, a nearly sorted one (whose pieces hold
// runs of many lengths) and one whose pieces alternate between sorted ones
// (which stay in s) and random ones (which end in the scratch slice or in
// s by their depth), so that halves lie apart when they merge: s is a
// permutation of its elements after each, and the result when no panic
// comes is slices.SortStableFunc's.
func TestSortStablePanicsInPieces(t *testing.T) {
	// Pieces of stableJoinMin elements, three levels down: sorted into the
	// scratch slice unless they are one run.
	n := 8 * stableJoinMin
	rng := rand.New(rand.NewPCG(6, 25))
	withSortPools(t, func(t *testing.T, p *blitz.Pool) {
		for _, shape := range []string{"random", "nearly", "alternate"} {
			src := make([]int, n)
			for i := range src {
				src[i] = rng.IntN(n)
				switch {
				case shape == "nearly" && i%100 != 0, shape == "alternate" && i/stableJoinMin%2 == 0:
					src[i] = i
				}
			}
			want := slices.Clone(src)
			slices.Sort(want)
			if shape == "alternate" {
				// The pieces three levels down sort into buf, but for the
				// sorted ones, one run each, which stay in v: at the level
				// above, the halves lie apart.
				c := &stableCtx[int]{v: slices.Clone(src), buf: make([]int, n), cmp: cmp.Compare[int]}
				require.False(t, stableSortSeq(c, 0, stableJoinMin, true))
				require.True(t, stableSortSeq(c, stableJoinMin, 2*stableJoinMin, true))
			}
			for _, at := range []int64{int64(n) / 2, int64(n), 3 * int64(n), 6 * int64(n), 1 << 40} {
				var calls atomic.Int64
				s := slices.Clone(src)
				v := catchPanic(func() {
					SortStableFunc(p, s, func(a, b int) int {
						if calls.Add(1) == at {
							panic(fmt.Sprint("boom ", at))
						}
						return cmp.Compare(a, b)
					})
				})
				if calls.Load() < at {
					require.Nil(t, v)
					require.Equal(t, want, s, "%s", shape)
					continue
				}
				pe, ok := v.(*blitz.PanicError)
				require.True(t, ok, "at=%d: %T %v", at, v, v)
				require.Equal(t, fmt.Sprint("boom ", at), pe.Value)
				requireSameElements(t, src, s, "%s at=%d", shape, at)
			}
		}
	})
}

// TestSortStableInconsistentCmp: a comparison that is no ordering at all
// (each answer drawn at random) may leave any order, but the sort ends
// and s keeps its elements, at every size and pool size: every merge
// copies each of its inputs' elements once, whatever the comparisons say.
func TestSortStableInconsistentCmp(t *testing.T) {
	withSortPools(t, func(t *testing.T, p *blitz.Pool) {
		for _, n := range []int{stableInsertionMax + 1, stableRunMin*3 + 1, stableJoinMin + 1, sortLarge()} {
			src := make([]int, n)
			for i := range src {
				src[i] = i % 1000
			}
			var seq atomic.Uint64
			c := func(a, b int) int {
				z := seq.Add(0x9e3779b97f4a7c15)
				z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
				z = (z ^ z>>27) * 0x94d049bb133111eb
				return int((z^z>>31)%3) - 1
			}
			s := slices.Clone(src)
			onRunner(t, p, false, func(r blitz.Runner) { SortStableFunc(r, s, c) })
			requireSameElements(t, src, s, "n=%d", n)
		}
	})
}

// TestSortStableScratch checks when the stable sort makes its scratch
// slice: for a random input, one of len(s) elements; none for a sorted
// input on one worker or a strictly decreasing one on any pool.
func TestSortStableScratch(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	const n = 1 << 16
	bytes := func(p *blitz.Pool, src []int) uint64 {
		s := make([]int, n)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 4 {
			copy(s, src)
			SortStableFunc(p, s, cmp.Compare[int])
		}
		runtime.ReadMemStats(&after)
		require.True(t, slices.IsSorted(s))
		return (after.TotalAlloc - before.TotalAlloc) / 4
	}
	sorted, reversed, random := make([]int, n), make([]int, n), make([]int, n)
	rng := rand.New(rand.NewPCG(7, 25))
	for i := range sorted {
		sorted[i], reversed[i], random[i] = i, n-i, rng.Int()
	}
	withSortPools(t, func(t *testing.T, p *blitz.Pool) {
		assert.GreaterOrEqual(t, bytes(p, random), uint64(unsafe.Sizeof(int(0))*n), "random")
		assert.Less(t, bytes(p, reversed), uint64(n), "reversed")
		if p.Workers() == 1 {
			assert.Less(t, bytes(p, sorted), uint64(n), "sorted")
		}
	})
}
