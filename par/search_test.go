package par

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// searchCase is an input with its matches planted: s holds values in
// [0, 1000), and the value 1000 at each index of at.
func searchCase(n int, at []int, seed uint64) []int {
	s := randInts(n, 1000, seed)
	for _, i := range at {
		s[i] = 1000
	}
	return s
}

func TestSearchesMatchSequential(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, n := range layerSizes(lr) {
			rng := rand.New(rand.NewPCG(7, uint64(n)))
			plants := [][]int{nil}
			if n > 0 {
				plants = append(plants, []int{0}, []int{n - 1}, []int{n / 2},
					[]int{rng.IntN(n), rng.IntN(n), rng.IntN(n)})
			}
			for _, at := range plants {
				s := searchCase(n, at, 8)
				is := func(x int) bool { return x == 1000 }
				isNot := func(x int) bool { return x != 1000 }
				name := fmt.Sprintf("n=%d planted=%v", n, at)

				type res struct {
					all, allNot, contains, containsFunc bool
					first, last, index, anyIdx          int
				}
				got := layerCall(t, lr, func(r blitz.Runner) res {
					var g res
					g.all = All(r, s, is)
					g.allNot = All(r, s, isNot)
					g.contains = Contains(r, s, 1000)
					g.containsFunc = ContainsFunc(r, s, is)
					g.first = IndexFunc(r, s, is)
					g.last = LastIndexFunc(r, s, is)
					g.index = Index(r, s, 1000)
					g.anyIdx = IndexAnyFunc(r, s, is)
					return g
				})
				want := slices.IndexFunc(s, is)
				assert.Equal(t, want >= 0, got.containsFunc, name+": ContainsFunc")
				assert.Equal(t, slices.Contains(s, 1000), got.contains, name+": Contains")
				assert.Equal(t, !slices.ContainsFunc(s, isNot), got.all, name+": All")
				assert.Equal(t, !slices.ContainsFunc(s, is), got.allNot, name+": All(not)")
				assert.Equal(t, want, got.first, name+": IndexFunc")
				assert.Equal(t, slices.Index(s, 1000), got.index, name+": Index")
				last := -1
				for i := n - 1; i >= 0; i-- {
					if is(s[i]) {
						last = i
						break
					}
				}
				assert.Equal(t, last, got.last, name+": LastIndexFunc")
				if want < 0 {
					assert.Equal(t, -1, got.anyIdx, name+": IndexAnyFunc")
				} else {
					assert.True(t, got.anyIdx >= 0 && is(s[got.anyIdx]), name+": IndexAnyFunc = %d", got.anyIdx)
				}
			}
		}
	})
}

func TestSearchEmpty(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(2)}, func(p *blitz.Pool) {
		var s []int
		pred := func(int) bool { return true }
		assert.False(t, ContainsFunc(p, s, pred))
		assert.True(t, All(p, s, pred), "All of nothing holds")
		assert.Equal(t, -1, IndexFunc(p, s, pred))
		assert.Equal(t, -1, LastIndexFunc(p, s, pred))
		assert.Equal(t, -1, IndexAnyFunc(p, s, pred))
		assert.Equal(t, -1, Index(p, s, 0))
		assert.False(t, Contains(p, s, 0))
	})
}

// setSearchHook installs h as searchRecordHook for the rest of the test.
func setSearchHook(t *testing.T, h func()) {
	searchRecordHook = h
	t.Cleanup(func() { searchRecordHook = nil })
}

// TestUnorderedSearchStopsEveryWorker counts the elements Any, All and
// IndexAnyFunc examine when the only match is at index 0 of a large slice.
// The worker that enters the search forks right halves away and scans the
// leftmost piece itself, so it examines index 0 first. Every other
// element's predicate blocks until the match is recorded (the record hook
// opens the gate), so a thief can have begun at most one block before the
// answer was visible; it must stop before its next block. The count is
// then at most one element plus one block per other worker, whatever the
// scheduling, against the millions a search without early exit examines.
func TestUnorderedSearchStopsEveryWorker(t *testing.T) {
	n := 4 * layerLarge()
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, fn := range []string{"ContainsFunc", "All", "IndexAnyFunc"} {
			var examined atomic.Int64
			gate := make(chan struct{})
			var once sync.Once
			setSearchHook(t, func() { once.Do(func() { close(gate) }) })
			match := func(x int) bool {
				examined.Add(1)
				if x == 0 {
					return true
				}
				<-gate
				return false
			}
			got := layerCall(t, lr, func(r blitz.Runner) bool {
				switch fn {
				case "ContainsFunc":
					return ContainsFunc(r, s, match)
				case "All":
					return !All(r, s, func(x int) bool { return !match(x) })
				default:
					return IndexAnyFunc(r, s, match) == 0
				}
			})
			require.True(t, got, fn)
			workers := lr.p.Workers()
			bound := 1 + (workers-1)*searchMaxBlock
			require.LessOrEqualf(t, examined.Load(), int64(bound),
				"%s examined %d of %d elements with the match at index 0", fn, examined.Load(), n)
			if workers == 1 {
				require.EqualValuesf(t, 1, examined.Load(), "%s on one worker", fn)
			}
		}
	})
}

// TestOrderedSearchStopsRightOfTheAnswer counts, element by element, what
// IndexFunc and LastIndexFunc examine with the match in the middle. Every
// element on the near side of the match must be examined exactly once (any
// of them could be a better answer); on the far side only the window that
// holds the match may have been searched, and no window after it starts,
// so the count is bounded by the match's index plus one window, whatever
// the scheduling: below 60% of the slice for the middle.
func TestOrderedSearchStopsRightOfTheAnswer(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		if lr.p.Workers() > 2 && !lr.large {
			t.Skip("8 workers need 1M elements: checked on one backend only")
		}
		n := 16 * searchWindowBlocks * searchMaxBlock * lr.p.Workers() // the windows reach n/16
		s := make([]int, n)
		for i := range s {
			s[i] = i
		}
		m := n / 2
		limit := max(searchWindowBlocks*searchMaxBlock*lr.p.Workers(), n>>searchWindowShift)
		for _, last := range []bool{false, true} {
			hits := make([]atomic.Int32, n)
			got := layerCall(t, lr, func(r blitz.Runner) int {
				pred := func(x int) bool { hits[x].Add(1); return x == m }
				if last {
					return LastIndexFunc(r, s, pred)
				}
				return IndexFunc(r, s, pred)
			})
			require.Equal(t, m, got)
			examined := 0
			for i := range hits {
				h := int(hits[i].Load())
				near := i <= m
				if last {
					near = i >= m
				}
				if h > 1 || near && h != 1 {
					require.Failf(t, "wrong examination", "last=%v: element %d examined %d times (match at %d)", last, i, h, m)
				}
				examined += h
			}
			dist := m + 1
			if last {
				dist = n - m
			}
			require.LessOrEqualf(t, examined, dist+limit, "last=%v: examined %d of %d, match at %d", last, examined, n, m)
			require.LessOrEqualf(t, float64(examined), 0.6*float64(n), "last=%v: examined %d of %d", last, examined, n)
		}
	})
}

func TestSearchPanicsPropagate(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, n := range []int{1, 100, 50_000} {
			at := n / 2
			s := make([]int, n)
			for i := range s {
				s[i] = i
			}
			boom := func(x int) bool {
				if x == at {
					panic(fmt.Sprint("boom at ", x))
				}
				return false
			}
			want := fmt.Sprint("boom at ", at)
			for name, call := range map[string]func(r blitz.Runner){
				"ContainsFunc":  func(r blitz.Runner) { ContainsFunc(r, s, boom) },
				"All":           func(r blitz.Runner) { All(r, s, func(x int) bool { return !boom(x) }) },
				"IndexFunc":     func(r blitz.Runner) { IndexFunc(r, s, boom) },
				"LastIndexFunc": func(r blitz.Runner) { LastIndexFunc(r, s, boom) },
				"IndexAnyFunc":  func(r blitz.Runner) { IndexAnyFunc(r, s, boom) },
			} {
				v := layerPanic(t, lr, call)
				t.Run(name, func(t *testing.T) { requirePanicError(t, v, want) })
			}
		}
	})
}

func TestSearchNilArguments(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(2)}, func(p *blitz.Pool) {
		s := []int{1}
		for name, call := range map[string]func(){
			"All":           func() { All(p, s, nil) },
			"IndexFunc":     func() { IndexFunc(p, s, nil) },
			"LastIndexFunc": func() { LastIndexFunc(p, s, nil) },
			"IndexAnyFunc":  func() { IndexAnyFunc(p, s, nil) },
			"ContainsFunc":  func() { ContainsFunc(p, s, nil) },
		} {
			requirePanicMessage(t, "par: "+name+": nil function", call)
		}
		requirePanicMessage(t, "par: Contains: nil Runner", func() { Contains(nil, s, 1) })
		requirePanicMessage(t, "par: Index: nil Runner", func() { Index(nil, []int(nil), 1) })
		requirePanicMessage(t, "par: ContainsFunc: nil Runner", func() { ContainsFunc(nil, []int(nil), func(int) bool { return true }) })
	})
}

func FuzzSearch(f *testing.F) {
	f.Add([]byte{}, uint8(0), uint8(1), uint8(7))
	f.Add([]byte{7, 1, 7}, uint8(1), uint8(3), uint8(7))
	f.Add([]byte("needle in a haystack"), uint8(2), uint8(200), uint8('n'))
	ps := fuzzPools(f)
	f.Fuzz(func(t *testing.T, data []byte, pool, rep, target uint8) {
		p := ps[int(pool)%len(ps)]
		s := fuzzLayerInts(data, int(rep)%64+1)
		v := int(target)
		is := func(x int) bool { return x == v }
		require.Equal(t, slices.IndexFunc(s, is), IndexFunc(p, s, is))
		require.Equal(t, slices.Index(s, v), Index(p, s, v))
		last := -1
		for i := len(s) - 1; i >= 0; i-- {
			if s[i] == v {
				last = i
				break
			}
		}
		require.Equal(t, last, LastIndexFunc(p, s, is))
		require.Equal(t, slices.Contains(s, v), ContainsFunc(p, s, is))
		require.Equal(t, slices.Contains(s, v), Contains(p, s, v))
		require.Equal(t, !slices.ContainsFunc(s, func(x int) bool { return x != v }), All(p, s, is))
		if i := IndexAnyFunc(p, s, is); i >= 0 {
			require.Equal(t, v, s[i])
		} else {
			require.False(t, slices.Contains(s, v))
		}
	})
}
