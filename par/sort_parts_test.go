package par

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/blitz-go/blitz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tests of the pieces of the sorts, each on inputs chosen to reach its
// branches, checked against a definition rather than against the sort.

// isPartitioned reports whether v is left-class elements, then right-class
// ones.
func isPartitioned(v []int, left func(x int) bool) bool {
	i := 0
	for i < len(v) && left(v[i]) {
		i++
	}
	for ; i < len(v); i++ {
		if left(v[i]) {
			return false
		}
	}
	return true
}

func TestSortPartitionKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	for _, n := range []int{0, 1, 2, 3, 10, 100, 1000} {
		for round := 0; round < 50; round++ {
			v := make([]int, n)
			for i := range v {
				v[i] = rng.IntN(10)
			}
			if round%5 == 0 {
				slices.Sort(v) // already partitioned for any pivot
			}
			p := rng.IntN(12) - 1
			for _, eq := range []bool{false, true} {
				left := func(x int) bool { return x < p }
				if eq {
					left = func(x int) bool { return x <= p }
				}
				want := 0
				for _, x := range v {
					want += b2i(left(x))
				}
				wasPartitioned := isPartitioned(v, left)
				w := slices.Clone(v)
				var got int
				var already bool
				if eq {
					got, already = partitionNotGreaterOrdered(w, p)
				} else {
					got, already = partitionLessOrdered(w, p)
				}
				require.Equal(t, want, got, "n=%d p=%d eq=%v", n, p, eq)
				require.True(t, isPartitioned(w, left), "n=%d p=%d eq=%v", n, p, eq)
				require.Equal(t, wasPartitioned, already, "n=%d p=%d eq=%v", n, p, eq)
				if already {
					require.Equal(t, v, w, "an already partitioned slice is left alone")
				}
				requireSameElements(t, v, w, "n=%d", n)
			}
		}
	}
}

// TestSortPartitionHoare pins SortFunc's partition to Hoare's scans as
// slices.Sort runs them: the same count, the same "already" answer and the
// very same arrangement (the one that keeps an up-down input's comparisons
// low), at short and long lengths and with pivots that leave few, half or
// most elements on the left.
func TestSortPartitionHoare(t *testing.T) {
	require.True(t, partHoareFunc, "SortFunc partitions by Hoare's scheme")
	require.False(t, holdOutFunc, "SortFunc moves by swaps, so a panicking cmp leaves a permutation")
	hoare := func(v []int, p int) (int, bool) {
		l, r := 0, len(v)
		already := true
		for {
			for l < r && v[l] < p {
				l++
			}
			for l < r && v[r-1] >= p {
				r--
			}
			if l >= r {
				return l, already
			}
			already = false
			r--
			v[l], v[r] = v[r], v[l]
			l++
		}
	}
	rng := rand.New(rand.NewPCG(11, 11))
	sizes := []int{0, 1, 2, 63, 64, 65, 127, 128, 129, 130, 191, 255, 256, 257, 300, 1000, 4099}
	for _, n := range sizes {
		for round := 0; round < 60; round++ {
			v := make([]int, n)
			for i := range v {
				v[i] = rng.IntN(100)
			}
			switch round % 6 {
			case 0:
				slices.Sort(v)
			case 1:
				slices.Sort(v)
				slices.Reverse(v)
			}
			p := []int{1, 10, 50, 90, 99, rng.IntN(101)}[round%6]
			want := slices.Clone(v)
			wantLt, wantAlready := hoare(want, p)
			got := slices.Clone(v)
			lt, already := partitionLessFunc(got, p, cmp.Compare[int])
			require.Equal(t, wantLt, lt, "n=%d p=%d", n, p)
			require.Equal(t, wantAlready, already, "n=%d p=%d", n, p)
			require.Equal(t, want, got, "n=%d p=%d: not Hoare's arrangement", n, p)
		}
	}
}

func TestSortParallelPartition(t *testing.T) {
	withSortPools(t, func(t *testing.T, p *blitz.Pool) {
		if p.Workers() == 1 {
			return // nothing forks: partitionParFunc is never called
		}
		rng := rand.New(rand.NewPCG(11, uint64(p.Workers())))
		n := 2*sortParPartitionMin + 7
		for _, pat := range sortPatternsFor(n) {
			for _, eq := range []bool{false, true} {
				src := pat.make(rng, n)
				pivot := rng.IntN(n)
				if eq {
					// partitionEqual's precondition: no element below the pivot.
					pivot = slices.Index(src, slices.Min(src))
				}
				pv := src[pivot]
				v := slices.Clone(src)
				var mid int
				var already, parallel bool
				within(t, "partitionPar", func() {
					p.Run(func(w *blitz.Worker) {
						j := pdqRootFunc(w, v, cmp.Compare[int])
						parallel = j.c.large(n)
						mid, already = partitionParFunc(w, j, 0, n, pivot, eq)
					})
				})
				require.True(t, parallel, "a sort of this size would not partition in parallel")
				requireSameElements(t, src, v, "%s eq=%v", pat.name, eq)
				if eq {
					for i, x := range v {
						require.Equal(t, x <= pv, i < mid, "%s eq: v[%d]=%d, pivot %d, mid %d", pat.name, i, x, pv, mid)
					}
				} else {
					require.Equal(t, pv, v[mid])
					for i, x := range v {
						if i < mid {
							require.Less(t, x, pv, "%s: v[%d]", pat.name, i)
						} else {
							require.GreaterOrEqual(t, x, pv, "%s: v[%d]", pat.name, i)
						}
					}
				}
				// already holds exactly when nothing moved but the pivot.
				var moved bool
				if !eq {
					// The pivot went to the front and back: compare the
					// rest of the order after the same two swaps.
					s := slices.Clone(src)
					s[0], s[pivot] = s[pivot], s[0]
					s[0], s[mid] = s[mid], s[0]
					moved = !slices.Equal(s, v)
				} else {
					s := slices.Clone(src)
					s[0], s[pivot] = s[pivot], s[0]
					moved = !slices.Equal(s, v)
				}
				assert.Equal(t, !moved, already, "%s eq=%v", pat.name, eq)
			}
		}
	})
}

// TestSortChunks checks the bookkeeping of a parallel partition on every
// split of a few chunk layouts: after swapMisplaced over the whole range,
// in pieces of any size, the left class comes first.
func TestSortChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	for round := 0; round < 200; round++ {
		n := 2 + rng.IntN(300)
		var c sortChunks
		c.n = n
		c.k = 2 + rng.IntN(min(n-1, sortPartitionChunks-1))
		// Each chunk: lefts[i] ones (left class) then zeros.
		v := make([]int, n)
		for i := 0; i < c.k; i++ {
			lo, hi := c.chunkStart(i), c.chunkStart(i+1)
			c.lefts[i] = rng.IntN(hi - lo + 1)
			for x := lo; x < lo+c.lefts[i]; x++ {
				v[x] = 1
			}
		}
		m, misplaced := c.findMisplaced()
		ones := 0
		for _, x := range v {
			ones += x
		}
		require.Equal(t, ones, m)
		zerosLeft := 0
		for _, x := range v[:m] {
			zerosLeft += 1 - x
		}
		require.Equal(t, zerosLeft, misplaced)
		// Swap in random pieces.
		for t0 := 0; t0 < misplaced; {
			t1 := min(misplaced, t0+1+rng.IntN(misplaced))
			swapMisplaced(&c, v, t0, t1)
			t0 = t1
		}
		for i, x := range v {
			require.Equal(t, i < m, x == 1, "round %d: v[%d] = %d, m = %d", round, i, x, m)
		}
	}
}

func TestSortChunkCut(t *testing.T) {
	for _, n := range []int{sortParPartitionMin + 1, 1 << 20, 1 << 26} {
		for _, workers := range []int{2, 8, 64} {
			var c sortChunks
			c.cut(n, workers)
			assert.GreaterOrEqual(t, c.k, 2)
			assert.LessOrEqual(t, c.k, sortPartitionChunks)
			assert.GreaterOrEqual(t, n/c.k, sortPartitionGrain/2, "n=%d workers=%d", n, workers)
			assert.Equal(t, 0, c.chunkStart(0))
			assert.Equal(t, n, c.chunkStart(c.k))
		}
	}
}

func TestSortChoosePivotHints(t *testing.T) {
	for _, n := range []int{13, 49, 50, 1000} {
		up, down, flat := make([]int, n), make([]int, n), make([]int, n)
		for i := range up {
			up[i], down[i] = i, n-i
		}
		_, hint := choosePivotOrdered(up, 0, n)
		assert.Equal(t, sortIncreasing, hint, "ascending n=%d", n)
		_, hint = choosePivotOrdered(down, 0, n)
		assert.Equal(t, sortDecreasing, hint, "descending n=%d", n)
		_, hint = choosePivotOrdered(flat, 0, n)
		assert.Equal(t, sortIncreasing, hint, "equal n=%d", n)
		// The pivot is the median of its samples: for a permutation of
		// 0..n-1 shuffled, it is never an extreme.
		rng := rand.New(rand.NewPCG(13, uint64(n)))
		v := rng.Perm(n)
		pivot, _ := choosePivotOrdered(v, 0, n)
		assert.NotEqual(t, 0, v[pivot])
		assert.NotEqual(t, n-1, v[pivot])
	}
}

func TestSortMedianOf3(t *testing.T) {
	for _, v := range [][]int{{1, 2, 3}, {1, 3, 2}, {2, 1, 3}, {2, 3, 1}, {3, 1, 2}, {3, 2, 1}, {1, 1, 2}, {2, 1, 1}, {1, 1, 1}} {
		falls := 0
		m := medianOf3Ordered(v, 0, 1, 2, &falls)
		s := slices.Clone(v)
		slices.Sort(s)
		assert.Equal(t, s[1], v[m], "%v", v)
		switch {
		case slices.IsSorted(v):
			assert.Zero(t, falls, "%v", v)
		case v[1] < v[0] && v[2] < v[1]:
			assert.Equal(t, 3, falls, "%v", v)
		default:
			assert.NotZero(t, falls, "%v", v)
			assert.Less(t, falls, 3, "%v", v)
		}
	}
}

func TestSortPartialInsertion(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 14))
	for _, n := range []int{20, 60, 500} {
		v := make([]int, n)
		for i := range v {
			v[i] = i
		}
		require.True(t, partialInsertionSortOrdered(slices.Clone(v), 0, n))
		// A few adjacent-ish swaps: mended when the piece is long enough.
		for swaps := 1; swaps <= 7; swaps++ {
			w := slices.Clone(v)
			for k := 0; k < swaps; k++ {
				i := 1 + rng.IntN(n-1)
				w[i], w[i-1] = w[i-1], w[i]
			}
			src := slices.Clone(w)
			ok := partialInsertionSortOrdered(w, 0, n)
			requireSameElements(t, src, w, "n=%d", n)
			if ok {
				require.True(t, slices.IsSorted(w), "n=%d swaps=%d", n, swaps)
			}
			if n >= 50 && swaps <= 5 {
				require.True(t, ok, "n=%d swaps=%d", n, swaps)
			}
		}
		// Reversed: hopeless, given up.
		w := slices.Clone(v)
		slices.Reverse(w)
		require.False(t, partialInsertionSortOrdered(w, 0, n))
	}
}

func TestSortHeapAndInsertion(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 15))
	for _, n := range []int{0, 1, 2, 3, 17, 256, 1001} {
		v := make([]int, n)
		for i := range v {
			v[i] = rng.IntN(n/2 + 1)
		}
		want := slices.Clone(v)
		slices.Sort(want)
		h := slices.Clone(v)
		heapSortOrdered(h)
		require.Equal(t, want, h, "heapsort n=%d", n)
		// Within a larger slice, insertion sort touches only its range;
		// both variants, whose small sorts differ.
		big := append(append([]int{-1}, v...), -2)
		insertionSortOrdered(big, 1, n+1)
		require.Equal(t, append(append([]int{-1}, want...), -2), big, "insertion n=%d", n)
		big = append(append([]int{-1}, v...), -2)
		insertionSortFunc(big, 1, n+1, cmp.Compare[int])
		require.Equal(t, append(append([]int{-1}, want...), -2), big, "insertion (func) n=%d", n)
	}
	// Every length Sort's small sort runs at, each path of it: plain
	// insertion, a network then insertion, halves merged.
	for n := 0; n <= insertionMaxOrdered; n++ {
		for round := 0; round < 100; round++ {
			v := make([]int, n)
			for i := range v {
				v[i] = rng.IntN(n/2 + 1)
			}
			want := slices.Clone(v)
			slices.Sort(want)
			insertionSortOrdered(v, 0, n)
			require.Equal(t, want, v, "n=%d", n)
		}
	}
}

// TestSortLomuto checks Sort's Lomuto loop on every range [l, r) of short
// slices, odd and even lengths, against the definition: the count, the
// partition, the same elements, and nothing outside the range touched
// (the loop runs on pointers).
func TestSortLomuto(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 16))
	for n := 1; n <= 12; n++ {
		for l := 0; l < n; l++ {
			for r := l + 1; r <= n; r++ {
				for round := 0; round < 20; round++ {
					v := make([]int, n)
					for i := range v {
						v[i] = rng.IntN(8)
					}
					p := rng.IntN(9)
					w := slices.Clone(v)
					lt := lomutoOrdered(w, l, r, p)
					want := l
					for _, x := range v[l:r] {
						want += b2i(x < p)
					}
					require.Equal(t, want, lt, "n=%d [%d,%d) p=%d", n, l, r, p)
					require.True(t, isPartitioned(w[l:r], func(x int) bool { return x < p }), "n=%d [%d,%d)", n, l, r)
					requireSameElements(t, v[l:r], w[l:r], "n=%d [%d,%d)", n, l, r)
					require.Equal(t, v[:l], w[:l], "before the range")
					require.Equal(t, v[r:], w[r:], "after the range")
				}
			}
		}
	}
}

// TestSortNetworks checks the sorting networks by the 0-1 principle: a
// comparator network sorts every input if it sorts every input of zeros
// and ones, so all 2^13 and 2^9 of those are tried; and the prefix each
// length gets.
func TestSortNetworks(t *testing.T) {
	for _, size := range []int{9, 13} {
		for m := 0; m < 1<<size; m++ {
			v := make([]int, size)
			for i := range v {
				v[i] = m >> i & 1
			}
			require.Equal(t, size, sortNetworkOrdered(v))
			require.True(t, slices.IsSorted(v), "size %d, input %b: %v", size, m, v)
		}
	}
	for n := 1; n <= 20; n++ {
		v := make([]int, n)
		for i := range v {
			v[i] = n - i
		}
		want := 1
		switch {
		case n >= 13:
			want = 13
		case n >= 9:
			want = 9
		}
		src := slices.Clone(v)
		require.Equal(t, want, sortNetworkOrdered(v), "n=%d", n)
		if want > 1 {
			require.True(t, slices.IsSorted(v[:want]), "n=%d", n)
		}
		require.Equal(t, src[want:], v[want:], "n=%d: only the prefix is touched", n)
	}
}

// TestSortMergeHalves checks the two-ended merge of Sort's small sort on
// every length it runs at, with distinct, repeated and NaN-holding
// elements (NaNs order first, and equal to each other).
func TestSortMergeHalves(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 17))
	for n := 2; n <= insertionMaxOrdered; n++ {
		h := n / 2
		for round := 0; round < 200; round++ {
			v := make([]float64, n)
			for i := range v {
				switch round % 3 {
				case 0:
					v[i] = rng.Float64()
				case 1:
					v[i] = float64(rng.IntN(3))
				default:
					v[i] = float64(rng.IntN(4))
					if v[i] == 3 {
						v[i] = math.NaN()
					}
				}
			}
			slices.Sort(v[:h])
			slices.Sort(v[h:])
			want := slices.Clone(v)
			slices.Sort(want)
			mergeHalvesOrdered(v, h)
			require.Equal(t, fmt.Sprint(want), fmt.Sprint(v), "n=%d", n)
		}
	}
}

func TestSortBreakPatternsAndReverse(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 100, 1 << 12} {
		v := make([]int, n)
		for i := range v {
			v[i] = i
		}
		w := slices.Clone(v)
		breakPatterns(w)
		requireSameElements(t, v, w, "n=%d", n)
		if n >= 8 {
			require.NotEqual(t, v, w, "n=%d: nothing moved", n)
		}
		// reverseRange over [0, n/2) in two pieces reverses.
		w = slices.Clone(v)
		reverseRange(w, 0, n/4)
		reverseRange(w, n/4, n/2)
		r := slices.Clone(v)
		slices.Reverse(r)
		require.Equal(t, r, w, "n=%d", n)
	}
}

func TestSortStableMerges(t *testing.T) {
	withSortPools(t, func(t *testing.T, p *blitz.Pool) {
		rng := rand.New(rand.NewPCG(16, 16))
		for _, sizes := range [][2]int{{0, 0}, {0, 5}, {5, 0}, {1, 1}, {3, 40000}, {40000, 3}, {30000, 30000}, {stableMergeGrain, stableMergeGrain + 1}} {
			for _, distinct := range []int{1, 3, 1000} {
				a, b := make([]sortRec, sizes[0]), make([]sortRec, sizes[1])
				for i := range a {
					a[i] = sortRec{rng.IntN(distinct), i}
				}
				for i := range b {
					b[i] = sortRec{rng.IntN(distinct), len(a) + i}
				}
				slices.SortStableFunc(a, cmpRecKey)
				slices.SortStableFunc(b, cmpRecKey)
				want := append(append([]sortRec{}, a...), b...)
				slices.SortStableFunc(want, cmpRecKey)
				d := make([]sortRec, len(a)+len(b))
				within(t, "merge", func() {
					p.Run(func(w *blitz.Worker) {
						c := &stableCtx[sortRec]{cmp: cmpRecKey, workers: p.Workers(), rec: stableRun[sortRec]}
						src := append(slices.Clone(a), b...)
						mergePar(w, stableJob[sortRec]{c: c, merge: true, s: src, ia: 0, ea: len(a), jb: len(a), eb: len(src), d: d})
					})
				})
				require.Equal(t, want, d, "sizes=%v distinct=%d", sizes, distinct)
			}
		}
	})
}

func TestSortSearchFirst(t *testing.T) {
	for n := 0; n < 20; n++ {
		for k := 0; k <= n; k++ {
			got := searchFirst(n, func(i int) bool { return i >= k })
			require.Equal(t, k, got, fmt.Sprintf("n=%d k=%d", n, k))
		}
	}
}

// TestSortGallopFirst pins gallopFirst's answer and its cost: about
// 2·log2(k) probes for an answer k, one for k = 0, whatever n.
func TestSortGallopFirst(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 7, 8, 9, 100, 1 << 20} {
		for _, k := range []int{0, 1, 2, 3, 5, 8, 64, 99, 100, n - 1, n} {
			if k < 0 || k > n {
				continue
			}
			probes := 0
			got := gallopFirst(n, func(i int) bool { probes++; return i >= k })
			require.Equal(t, k, got, "n=%d k=%d", n, k)
			assert.LessOrEqualf(t, probes, 2*bits.Len(uint(k))+1, "n=%d k=%d: probes", n, k)
		}
	}
}

// TestSortStableMergeGallops shows the merge's gallop: two runs in place
// but for one element cost a few comparisons each, not one per element.
func TestSortStableMergeGallops(t *testing.T) {
	const n = 1 << 12
	a, b := make([]sortRec, n), make([]sortRec, n)
	for i := range a {
		a[i] = sortRec{i, i}
		b[i] = sortRec{n + i, n + i}
	}
	b[0] = sortRec{n / 2, -1} // one element of b belongs inside a
	a[n-1] = sortRec{n + n/2, -2}
	slices.SortStableFunc(a, cmpRecKey)
	slices.SortStableFunc(b, cmpRecKey)
	want := append(append([]sortRec{}, a...), b...)
	slices.SortStableFunc(want, cmpRecKey)
	calls := 0
	d := make([]sortRec, 2*n)
	mergeSeq(append(slices.Clone(a), b...), 0, n, n, 2*n, d, func(x, y sortRec) int { calls++; return cmpRecKey(x, y) })
	require.Equal(t, want, d)
	// The gallops find both ends in about 2·log2(n) comparisons each; the
	// middle left to merge holds the elements between n/2 and n + n/2.
	assert.Less(t, calls, n+n/4, "comparisons")

	// b wholly before a, as in a reversed input, but for b's last
	// element: a gallop, not a comparison per element of b.
	for i := range a {
		a[i] = sortRec{n + i, i}
		b[i] = sortRec{i, n + i}
	}
	b[n-1] = sortRec{2 * n, -2}
	slices.SortStableFunc(a, cmpRecKey)
	slices.SortStableFunc(b, cmpRecKey)
	want = append(append(want[:0], a...), b...)
	slices.SortStableFunc(want, cmpRecKey)
	calls = 0
	mergeSeq(append(slices.Clone(a), b...), 0, n, n, 2*n, d, func(x, y sortRec) int { calls++; return cmpRecKey(x, y) })
	require.Equal(t, want, d)
	assert.Less(t, calls, n/4, "comparisons, b before a")
}
