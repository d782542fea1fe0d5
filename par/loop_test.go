package par

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestForCoversEachIndexOnce(t *testing.T) {
	eachConfig(t, func(t *testing.T, p *blitz.Pool) {
		for _, c := range []struct{ lo, hi, grain int }{
			{0, 10000, 0}, {0, 10000, 1}, {0, 10000, 64}, {-50, 77, 0}, {5, 6, 0},
			{0, 1000, 100000}, {3, 3, 0}, {10, 0, 0}, {0, 1000, -5},
		} {
			n := max(c.hi-c.lo, 0)
			hits := make([]atomic.Int32, n)
			var calls atomic.Int64
			doW(t, p, func(w *blitz.Worker) int {
				For(w, c.lo, c.hi, c.grain, func(w *blitz.Worker, lo, hi int) {
					calls.Add(1)
					if lo >= hi || lo < c.lo || hi > c.hi {
						t.Errorf("For(%d,%d,%d): bad piece [%d,%d)", c.lo, c.hi, c.grain, lo, hi)
						return
					}
					if c.grain > 0 && hi-lo > c.grain {
						t.Errorf("For(%d,%d,%d): piece [%d,%d) exceeds the grain", c.lo, c.hi, c.grain, lo, hi)
					}
					for i := lo; i < hi; i++ {
						hits[i-c.lo].Add(1)
					}
				})
				return 0
			})
			for i := range hits {
				if h := hits[i].Load(); h != 1 {
					t.Fatalf("For(%d,%d,%d): index %d visited %d times", c.lo, c.hi, c.grain, i+c.lo, h)
				}
			}
			if n == 0 && calls.Load() != 0 {
				t.Errorf("For on an empty range called the body %d times", calls.Load())
			}
		}
	})
}

func TestMapReduce(t *testing.T) {
	eachConfig(t, func(t *testing.T, p *blitz.Pool) {
		for _, grain := range []int{0, 1, 7, 1 << 20} {
			sum := doW(t, p, func(w *blitz.Worker) int {
				return MapReduce(w, 0, 100000, grain, 0, func(_ *blitz.Worker, lo, hi int) int {
					s := 0
					for i := lo; i < hi; i++ {
						s += i
					}
					return s
				}, func(a, b int) int { return a + b })
			})
			wantSum := 0 // summed like the pool does, so it wraps alike on 32-bit
			for i := 0; i < 100000; i++ {
				wantSum += i
			}
			if sum != wantSum {
				t.Errorf("grain=%d: sum = %d, want %d", grain, sum, wantSum)
			}
			// A non-commutative reduce sees the pieces in index order.
			s := doW(t, p, func(w *blitz.Worker) string {
				return MapReduce(w, 0, 300, grain, "", func(_ *blitz.Worker, lo, hi int) string {
					out := ""
					for i := lo; i < hi; i++ {
						out += strconv.Itoa(i) + ","
					}
					return out
				}, func(a, b string) string { return a + b })
			})
			want := ""
			for i := 0; i < 300; i++ {
				want += strconv.Itoa(i) + ","
			}
			if s != want {
				t.Errorf("grain=%d: ordered reduce out of order", grain)
			}
		}
		if got := doW(t, p, func(w *blitz.Worker) string {
			return MapReduce(w, 5, 5, 0, "identity", func(*blitz.Worker, int, int) string { return "x" }, func(a, b string) string { return a + b })
		}); got != "identity" {
			t.Errorf("empty MapReduce = %q, want the identity", got)
		}
	})
}

func TestParallelPanics(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(4)}, func(p *blitz.Pool) {
		for _, grain := range []int{0, 1} {
			v := catchPanic(func() {
				blitz.Do(p, func(w *blitz.Worker) int {
					For(w, 0, 1000, grain, func(_ *blitz.Worker, lo, hi int) {
						if lo <= 500 && 500 < hi {
							panic(fmt.Sprint("at ", 500))
						}
					})
					return 0
				})
			})
			if pe, ok := v.(*blitz.PanicError); !ok || pe.Value != "at 500" {
				t.Errorf("grain=%d: For panic = %v", grain, v)
			}
		}
		var visited atomic.Int64
		if !exitsGoroutine(t, func() {
			blitz.Do(p, func(w *blitz.Worker) int {
				For(w, 0, 1000, 10, func(_ *blitz.Worker, lo, hi int) {
					visited.Add(int64(hi - lo))
					if lo == 500 {
						runtime.Goexit()
					}
				})
				return 0
			})
		}) {
			t.Error("Goexit in a For body did not end the caller")
		}
		if visited.Load() != 1000 {
			t.Errorf("For with a Goexit visited %d indexes, want all 1000", visited.Load())
		}
		requireTaskPanics(t, p, "par: For: nil body", func(w *blitz.Worker) { For(w, 0, 1, 0, nil) })
		requireTaskPanics(t, p, "par: MapReduce: nil function", func(w *blitz.Worker) { MapReduce[int](w, 0, 1, 0, 0, nil, nil) })
	})
}

// extremeRanges are spans at the ends of int, several wider than MaxInt (hi-lo
// overflows int), with a grain that keeps the piece count small: the bodies
// record their pieces and never iterate them.
var extremeRanges = []struct{ lo, hi, grain int }{
	{math.MinInt, math.MaxInt, math.MaxInt/8 + 1},
	{math.MinInt, math.MaxInt, math.MaxInt},
	{math.MinInt, math.MaxInt, 0},
	{math.MinInt, math.MaxInt, -1},
	{math.MinInt, 0, math.MaxInt / 4},
	{-1, math.MaxInt, math.MaxInt / 3},
	{math.MinInt, 1, 0},
	{math.MaxInt - 10, math.MaxInt, 3},
	{math.MinInt, math.MinInt + 10, 3},
	{math.MinInt + 1, math.MaxInt, math.MaxInt/16 + 7},
}

// piece is one [lo, hi) a For body or MapReduce mapper was handed.
type piece struct{ lo, hi int }

// width is hi-lo without overflow.
func (pc piece) width() uint { return uint(pc.hi) - uint(pc.lo) }

// minPieces is the fewest pieces of at most grain indexes that cover
// [lo, hi); 2 for an adaptive grain (the splitter's first budget always
// halves a range of two or more indexes).
func minPieces(lo, hi, grain int) int {
	w := uint(hi) - uint(lo)
	if grain <= 0 {
		return min(2, int(min(w, 2)))
	}
	n := w / uint(grain)
	if w%uint(grain) != 0 {
		n++
	}
	return int(n)
}

// checkTiling checks that pieces, in any order, tile [lo, hi) and respect
// the grain.
func checkTiling(t *testing.T, what string, lo, hi, grain int, pieces []piece) {
	t.Helper()
	slices.SortFunc(pieces, func(a, b piece) int {
		if a.lo < b.lo {
			return -1
		}
		if a.lo > b.lo {
			return 1
		}
		return 0
	})
	require.NotEmpty(t, pieces, "%s: no piece", what)
	assert.GreaterOrEqual(t, len(pieces), minPieces(lo, hi, grain), "%s: too few pieces", what)
	assert.Equal(t, lo, pieces[0].lo, "%s: first piece", what)
	assert.Equal(t, hi, pieces[len(pieces)-1].hi, "%s: last piece", what)
	for i, pc := range pieces {
		assert.Less(t, pc.lo, pc.hi, "%s: empty or reversed piece %d", what, i)
		if grain > 0 {
			assert.LessOrEqual(t, pc.width(), uint(grain), "%s: piece %v exceeds the grain", what, pc)
		}
		if i > 0 {
			assert.Equal(t, pieces[i-1].hi, pc.lo, "%s: pieces %v and %v do not meet", what, pieces[i-1], pc)
		}
	}
}

// TestForExtremeRanges checks that For and MapReduce cut spans wider than
// MaxInt (and spans at either end of int) into pieces that tile the range
// and respect the grain: the splitter's width must not overflow.
func TestForExtremeRanges(t *testing.T) {
	eachConfig(t, func(t *testing.T, p *blitz.Pool) {
		for _, c := range extremeRanges {
			what := fmt.Sprintf("For(%d, %d, %d)", c.lo, c.hi, c.grain)
			var mu sync.Mutex
			var pieces []piece
			doW(t, p, func(w *blitz.Worker) int {
				For(w, c.lo, c.hi, c.grain, func(_ *blitz.Worker, lo, hi int) {
					mu.Lock()
					pieces = append(pieces, piece{lo, hi})
					mu.Unlock()
				})
				return 0
			})
			checkTiling(t, what, c.lo, c.hi, c.grain, pieces)

			// MapReduce: reduce sees the pieces in index order, so
			// neighbours must meet; the result spans the whole range.
			what = fmt.Sprintf("MapReduce(%d, %d, %d)", c.lo, c.hi, c.grain)
			pieces = pieces[:0]
			type span struct {
				lo, hi, n int
				ok        bool
			}
			got := doW(t, p, func(w *blitz.Worker) span {
				return MapReduce(w, c.lo, c.hi, c.grain, span{},
					func(_ *blitz.Worker, lo, hi int) span {
						mu.Lock()
						pieces = append(pieces, piece{lo, hi})
						mu.Unlock()
						return span{lo, hi, 1, true}
					},
					func(a, b span) span { return span{a.lo, b.hi, a.n + b.n, a.ok && b.ok && a.hi == b.lo} })
			})
			assert.True(t, got.ok, "%s: reduce saw neighbours that do not meet", what)
			assert.Equal(t, c.lo, got.lo, "%s: result's lo", what)
			assert.Equal(t, c.hi, got.hi, "%s: result's hi", what)
			assert.Len(t, pieces, got.n, "%s: mapper calls", what)
			checkTiling(t, what, c.lo, c.hi, c.grain, pieces)
		}
	})
}

// TestForAllocatesNothing checks that For on a *Worker, the loop of
// fork-join code, allocates nothing per call.
func TestForAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for _, workers := range []int{1, 2} {
		withPool(t, []blitz.Option{blitz.WithWorkers(workers)}, func(p *blitz.Pool) {
			allocs := doW(t, p, func(w *blitz.Worker) float64 {
				For(w, 0, 1000, 0, func(*blitz.Worker, int, int) {}) // warm up
				return testing.AllocsPerRun(50, func() { For(w, 0, 1000, 1, func(*blitz.Worker, int, int) {}) })
			})
			assert.Zero(t, allocs, "workers=%d: For allocates per call", workers)
		})
	}
}
