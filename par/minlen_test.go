package par

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkPieces asserts that pieces, in any order, cover [0, n) once, that
// none is shorter than minLen unless it is the only one (n < 2*minLen), and
// that with a grain none is longer than the grain, unless halving it would
// have cut a piece shorter than minLen.
func checkPieces(t assert.TestingT, pieces []piece, n, minLen, grain int, what string) bool {
	next, ok := checkTiles(t, pieces, n, minLen, grain, what)
	if !ok {
		return false
	}
	if n >= 2*minLen && (grain <= 0 || n > grain) {
		// The split budget is at least one: such an input is always cut.
		return assert.Equalf(t, n, next, "%s: pieces end short", what) &&
			assert.Greaterf(t, len(pieces), 1, "%s: an input of twice the minimum was not cut", what)
	}
	if n < 2*minLen {
		return assert.Equalf(t, n, next, "%s: pieces end short", what) &&
			assert.LessOrEqualf(t, len(pieces), 1, "%s: an input under twice the minimum was cut", what)
	}
	return assert.Equalf(t, n, next, "%s: pieces end short", what)
}

// checkTiles sorts pieces and asserts that they tile [0, next) from 0,
// none shorter than minLen unless it is the only one and, with a grain,
// none longer than the grain unless halving it would have cut a piece
// shorter than minLen.
func checkTiles(t assert.TestingT, pieces []piece, n, minLen, grain int, what string) (next int, ok bool) {
	slices.SortFunc(pieces, func(a, b piece) int { return a.lo - b.lo })
	for _, p := range pieces {
		if !assert.Equalf(t, next, p.lo, "%s: pieces do not tile [0, %d): %v", what, n, pieces) {
			return next, false
		}
		next = p.hi
		if len(pieces) > 1 && !assert.GreaterOrEqualf(t, p.hi-p.lo, minLen, "%s: piece %v shorter than the minimum", what, p) {
			return next, false
		}
		if grain > 0 && !assert.LessOrEqualf(t, p.hi-p.lo, max(grain, 2*minLen-1), "%s: piece %v past the grain", what, p) {
			return next, false
		}
	}
	return next, true
}

// checkFoldRuns asserts that Fold's accumulators, each seen as the run of
// elements it folded, tile [0, n), none shorter than minLen unless it is
// the only one, and that there are at most max(1, n/minLen) of them. An
// accumulator folds one piece or several adjacent ones (the pieces that
// no thief started early), so an input of twice the minimum may fold into
// one.
func checkFoldRuns(t assert.TestingT, runs []piece, n, minLen int, what string) bool {
	next, ok := checkTiles(t, runs, n, minLen, 0, what)
	return ok && assert.Equalf(t, n, next, "%s: accumulators end short", what) &&
		assert.LessOrEqualf(t, len(runs), max(1, n/minLen), "%s: accumulators", what)
}

// minLenPieces runs For, MapReduce and Fold over n indexes on r and returns
// the pieces For and MapReduce cut and the runs of Fold's accumulators.
func minLenPieces(r blitz.Runner, n, grain int) (forP, mapP, foldP []piece) {
	var mu sync.Mutex
	For(r, 0, n, grain, func(_ *blitz.Worker, lo, hi int) {
		mu.Lock()
		forP = append(forP, piece{lo, hi})
		mu.Unlock()
	})
	if n > 0 {
		// MapReduce combines in index order: its pieces come back sorted.
		mapP = MapReduce(r, 0, n, grain, nil, func(_ *blitz.Worker, lo, hi int) []piece {
			return []piece{{lo, hi}}
		}, func(a, b []piece) []piece { return append(a, b...) })
	}
	// Fold's accumulators, each recording the run of elements it folded.
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	foldP = Fold(r, s, func() []piece { return []piece{{-1, -1}} },
		func(acc []piece, x int) []piece {
			p := &acc[len(acc)-1]
			if p.lo < 0 {
				p.lo = x
			}
			p.hi = x + 1
			return acc
		}, func(a, b []piece) []piece { return append(a, b...) })
	if n == 0 {
		foldP = nil
	}
	return forP, mapP, foldP
}

// TestMinLenPiecesAreNoShorter pins MinLen's rule on the range driver and
// on For's own splitter, seen from the pieces they cut: none shorter than
// the minimum but an only piece, and with a grain none longer than the
// grain unless the minimum forbade the cut; and on Fold, seen from its
// accumulators, which fold runs of whole pieces. Four goroutines run
// the calls at once on each pool, from outside it and from its tasks, so
// that pieces are stolen while others split.
func TestMinLenPiecesAreNoShorter(t *testing.T) {
	grains, long := []int{0, 1, 10, 500}, 10_000
	if testing.Short() {
		grains, long = []int{0, 10}, 999
	}
	eachConfig(t, func(t *testing.T, p *blitz.Pool) {
		var cut atomic.Int64 // calls whose input was cut in several pieces
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, m := range []int{1, 3, 64, 1000} {
					for _, n := range []int{0, 1, m - 1, m, m + 1, 2*m - 1, 2 * m, 2*m + 1, 999, long} {
						for _, grain := range grains {
							what := fmt.Sprintf("g=%d minLen=%d n=%d grain=%d", g, m, n, grain)
							var forP, mapP, foldP []piece
							if g%2 == 0 {
								forP, mapP, foldP = minLenPieces(MinLen(p, m), n, grain)
							} else {
								p.Run(func(w *blitz.Worker) { forP, mapP, foldP = minLenPieces(MinLen(w, m), n, grain) })
							}
							checkPieces(t, forP, n, m, grain, what+": For")
							if n > 0 {
								checkPieces(t, mapP, n, m, grain, what+": MapReduce")
							}
							checkFoldRuns(t, foldP, n, m, what+": Fold")
							if len(forP) > 1 {
								cut.Add(1)
							}
						}
					}
				}
			}()
		}
		within(t, "storm", wg.Wait)
		require.Positive(t, cut.Load(), "no call was cut")
	})
}

// TestMinLenTwoPassPieces checks the pieces of the two-pass families
// (Filter, Partition, the scans, FlatMap, FilterMap, PartitionMap): none
// shorter than the minimum but the last.
func TestMinLenTwoPassPieces(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(8)}, func(p *blitz.Pool) {
		for _, m := range []int{1, 5, 100, 5000} {
			for _, n := range []int{1, 4, m - 1, m, m + 1, 2*m + 1, 1000, 100_000} {
				if n < 1 {
					continue
				}
				for _, align := range []int{1, 64} {
					plan := newPiecePlan(n, pieceCount(MinLen(p, m), n, 32), align)
					for i := 0; i < plan.k-1; i++ {
						lo, hi := plan.bounds(i)
						require.GreaterOrEqualf(t, hi-lo, m, "minLen=%d n=%d align=%d: piece %d", m, n, align, i)
					}
					if n < 2*m {
						require.Equalf(t, 1, plan.k, "minLen=%d n=%d: an input under twice the minimum was cut", m, n)
					}
				}
			}
		}
		require.Equal(t, 32, pieceCount(p, 100_000, 32), "a plain pool keeps the count")
	})
}

func TestMinLenWrapping(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(2)}, func(p *blitz.Pool) {
		require.Equal(t, callbackMinLen, pieceMin(p, callbackMinLen))
		require.Equal(t, cheapMinLen, pieceMin(p, cheapMinLen))
		require.Equal(t, 7, pieceMin(MinLen(p, 7), callbackMinLen))
		require.Equal(t, cheapMinLen, pieceMin(MinLen(p, 7), cheapMinLen), "the minimum only raises a floor")
		require.Equal(t, 3*cheapMinLen, pieceMin(MinLen(p, 3*cheapMinLen), cheapMinLen))
		require.Equal(t, 9, pieceMin(MinLen(MinLen(p, 7), 9), 1), "wrapping again replaces the minimum")
		require.Equal(t, 1, pieceMin(MinLen(MinLen(p, 7), 0), 1), "n < 1: no minimum")
		require.Equal(t, blitz.Runner(p), unwrap(MinLen(MinLen(p, 7), 9)))
		require.True(t, inlineOnCaller(MinLen(p, 3*cheapMinLen), 5*cheapMinLen), "a short input under a long minimum runs on the caller")
		require.False(t, inlineOnCaller(MinLen(p, 3*cheapMinLen), 6*cheapMinLen))
		require.True(t, seqUnderMin(MinLen(p, 100), 199))
		require.False(t, seqUnderMin(MinLen(p, 100), 200))
		require.False(t, seqUnderMin(p, 1))

		requirePanicMessage(t, "par: MinLen: nil Runner", func() { MinLen(nil, 3) })
		var nilPool *blitz.Pool
		requirePanicMessage(t, "par: ForEach: nil Runner", func() { ForEach(MinLen(nilPool, 3), []int{1}, func(int) {}) })
		requirePanicMessage(t, "par: Sum: nil Runner", func() { Sum(MinLen(nilPool, 3), []int{1}) })
	})
}

// TestMinLenEveryFunction runs every layer function on a MinLen Runner, at
// sizes about the minimum and the floors, from outside the pool and from a
// task, under a minimum of 100 and one of math.MaxInt (a size read from a
// configuration must neither crash nor allocate by the minimum); and
// checks the closed-pool rule through the wrapper.
func TestMinLenEveryFunction(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(4)}, func(p *blitz.Pool) {
		var ran atomic.Int64
		for _, c := range layerCalls(func() { ran.Add(1) }) {
			for _, m := range []int{100, math.MaxInt} {
				for _, n := range []int{0, 1, 99, 100, 201, 2*cheapMinLen + 1, sortInlineMax + 1} {
					within(t, c.name, func() {
						c.call(MinLen(p, m), n)
						p.Run(func(w *blitz.Worker) { c.call(MinLen(w, m), n) })
					})
				}
			}
		}
		require.Positive(t, ran.Load())
	})

	p, err := blitz.New(blitz.WithWorkers(2))
	require.NoError(t, err)
	require.NoError(t, p.Close())
	var ran atomic.Int64
	for _, c := range layerCalls(func() { ran.Add(1) }) {
		for _, n := range []int{0, 1, 100, 2*cheapMinLen + 1} {
			v := catchPanic(func() { c.call(MinLen(p, 10), n) })
			err, ok := v.(error)
			require.Truef(t, ok, "%s(n=%d) on a closed pool: panic %v (%T), want an error", c.name, n, v, v)
			require.ErrorIsf(t, err, blitz.ErrClosed, "%s(n=%d)", c.name, n)
			require.Truef(t, strings.Contains(err.Error(), c.name+": "), "%s(n=%d): %q does not name it", c.name, n, err)
		}
	}
	require.Zero(t, ran.Load(), "callbacks run on a closed pool")
}

// TestMinLenRootFunctions checks that the root package's functions that take
// a Runner accept MinLen's, running on its pool.
func TestMinLenRootFunctions(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(2)}, func(p *blitz.Pool) {
		r := MinLen(p, 10)
		on := blitz.Do(r, func(w *blitz.Worker) *blitz.Pool { return w.Pool() })
		require.Same(t, p, on)
		var n atomic.Int64
		g, _ := blitz.NewGroup(context.Background(), r)
		g.Go(func(w *blitz.Worker) error { n.Add(1); return nil })
		require.NoError(t, g.Wait())
		require.EqualValues(t, 1, n.Load())
		// From a task, with the task's worker wrapped: runs on that worker.
		p.Run(func(w *blitz.Worker) {
			got := blitz.Do(MinLen(w, 10), func(v *blitz.Worker) *blitz.Worker { return v })
			assert.Same(t, w, got)
		})
	})
}

// TestMinLenSorts checks the sorts and order checks through MinLen, with a
// minimum that keeps the slice in one piece and one that does not.
func TestMinLenSorts(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(4)}, func(p *blitz.Pool) {
		n := 2*sortCheckGrain + 1 // long enough for every sort and check to split
		for _, m := range []int{100, n} {
			r := MinLen(p, m)
			require.Equalf(t, m == n, seqUnderMin(r, n), "minLen=%d", m)
			s := randInts(n, 1000, 10)
			want := slices.Clone(s)
			slices.Sort(want)
			for name, sort := range map[string]func([]int){
				"Sort":            func(x []int) { Sort(r, x) },
				"SortFunc":        func(x []int) { SortFunc(r, x, func(a, b int) int { return a - b }) },
				"SortStableFunc":  func(x []int) { SortStableFunc(r, x, func(a, b int) int { return a - b }) },
				"SortByKey":       func(x []int) { SortByKey(r, x, func(a int) int { return a }) },
				"SortStableByKey": func(x []int) { SortStableByKey(r, x, func(a int) int { return a }) },
			} {
				got := slices.Clone(s)
				within(t, name, func() { sort(got) })
				requireEqualSlices(t, want, got, fmt.Sprintf("minLen=%d: %s", m, name))
			}
			require.True(t, IsSorted(r, want))
			require.True(t, IsSortedFunc(r, want, func(a, b int) int { return a - b }))
			want[n-1] = -1
			require.False(t, IsSorted(r, want))
			require.False(t, IsSortedFunc(r, want, func(a, b int) int { return a - b }))
		}
	})
}

// TestMinLenNearMaxInt checks a minimum near math.MaxInt, as one read from
// a request or a configuration may be: twice it saturates at MaxInt rather
// than wrapping negative, so a short input stays whole on the calling
// goroutine, as under any minimum longer than half of it. Sum then enters
// no pool (Stats.Injected does not move) and SortFunc compares on the
// caller, never on a worker.
func TestMinLenNearMaxInt(t *testing.T) {
	require.Equal(t, 0, twice(0))
	require.Equal(t, 10, twice(5))
	require.Equal(t, math.MaxInt-1, twice(math.MaxInt/2))
	require.Equal(t, math.MaxInt, twice(math.MaxInt/2+1))
	require.Equal(t, math.MaxInt, twice(math.MaxInt))
	withPool(t, []blitz.Option{blitz.WithWorkers(2)}, func(p *blitz.Pool) {
		for _, m := range []int{math.MaxInt/2 + 1, math.MaxInt - 1, math.MaxInt} {
			r := MinLen(p, m)
			require.Truef(t, inlineOnCaller(r, 5*cheapMinLen), "minLen=%d", m)
			require.Truef(t, seqUnderMin(r, 1<<20), "minLen=%d", m)

			s := randInts(3*cheapMinLen, 1000, 11)
			want := 0
			for _, x := range s {
				want += x
			}
			before := p.Stats().Injected
			require.Equalf(t, want, Sum(r, s), "minLen=%d", m)
			require.Equalf(t, before, p.Stats().Injected, "minLen=%d: Sum of a short input entered the pool", m)

			x := randInts(2*sortInlineMax+1, 1000, 12)
			var onWorker atomic.Bool
			SortFunc(r, x, func(a, b int) int {
				if p.Current() != nil {
					onWorker.Store(true)
				}
				return cmp.Compare(a, b)
			})
			require.Truef(t, slices.IsSorted(x), "minLen=%d", m)
			require.Falsef(t, onWorker.Load(), "minLen=%d: a short SortFunc ran on the pool", m)
		}
	})
}
