package par

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// layerRunner is one way of calling the data-parallel layer: with the pool
// itself from the test goroutine, or with the *Worker of a task of it.
type layerRunner struct {
	p        *blitz.Pool
	onWorker bool
	// large says whether this configuration also runs the large inputs:
	// one backend (portable, the default pool's) at every worker count,
	// so that the whole matrix stays within the race detector's budget.
	large bool
	// minLen > 0 wraps the pool in MinLen(p, minLen): every function is
	// then checked with a minimum piece length too (on the backend that
	// runs the large inputs, but without them).
	minLen int
}

func (lr layerRunner) String() string {
	switch {
	case lr.onWorker:
		return "runner=worker"
	case lr.minLen > 0:
		return fmt.Sprintf("runner=pool/minlen=%d", lr.minLen)
	}
	return "runner=pool"
}

// runner is lr's Runner for a call from the test goroutine.
func (lr layerRunner) runner() blitz.Runner {
	if lr.minLen > 0 {
		return MinLen(lr.p, lr.minLen)
	}
	return lr.p
}

// layerCall runs f with lr's Runner and returns its result, under the
// watchdog. f must not call t.FailNow (it may run on a worker).
func layerCall[T any](t testing.TB, lr layerRunner, f func(r blitz.Runner) T) T {
	t.Helper()
	if lr.onWorker {
		return doW(t, lr.p, func(w *blitz.Worker) T { return f(w) })
	}
	var res T
	within(t, "layer call", func() { res = f(lr.runner()) })
	return res
}

// layerPanic runs f with lr's Runner and returns what the call panicked
// with (nil if it returned).
func layerPanic(t testing.TB, lr layerRunner, f func(r blitz.Runner)) any {
	t.Helper()
	var v any
	within(t, "layer call", func() {
		v = catchPanic(func() {
			if lr.onWorker {
				lr.p.Run(f2w(f))
			} else {
				f(lr.runner())
			}
		})
	})
	return v
}

func f2w(f func(r blitz.Runner)) func(w *blitz.Worker) { return func(w *blitz.Worker) { f(w) } }

// eachLayerConfig runs f for every parking backend, worker count (1, 2, 8)
// and Runner shape, each as a subtest with its own pool, checked for leaked
// goroutines.
func eachLayerConfig(t *testing.T, f func(t *testing.T, lr layerRunner)) {
	eachConfig(t, func(t *testing.T, p *blitz.Pool) {
		large := p.Parking() == blitz.ParkingPortable
		lrs := []layerRunner{{p: p, large: large}, {p: p, onWorker: true, large: large}}
		if large {
			// Without the large inputs: the sizes about the floors are
			// where a minimum changes the pieces.
			lrs = append(lrs, layerRunner{p: p, minLen: layerMinLen})
		}
		for _, lr := range lrs {
			t.Run(lr.String(), func(t *testing.T) { f(t, lr) })
		}
	})
}

// layerMinLen is the minimum piece length of the MinLen configuration:
// above the floor of the functions with a callback, below the lengths the
// tests split, so that it changes the pieces of most calls.
const layerMinLen = 100

// skipMinLen skips the MinLen configuration in the tests that pin the
// pieces a grain cuts, since the minimum wins over the grain
// (TestMinLenPiecesAreNoShorter pins how they combine).
func skipMinLen(t *testing.T, lr layerRunner) {
	t.Helper()
	if lr.minLen > 0 {
		t.Skip("the minimum piece length wins over the grain")
	}
}

// layerSizes are the input lengths every family is checked at with lr:
// empty, one, either side of each block length and split threshold of the
// layer, and, if lr runs them, large ones.
func layerSizes(lr layerRunner) []int {
	sizes := []int{0, 1, 2, 3, 7}
	for _, g := range []int{searchFirstBlock, 64, searchMaxBlock, cheapMinLen, 2 * cheapMinLen} {
		sizes = append(sizes, g-1, g, g+1)
	}
	if lr.large {
		sizes = append(sizes, layerLarge()/3, layerLarge())
	}
	slices.Sort(sizes)
	return slices.Compact(sizes)
}

// layerLarge is the large input length: smaller under -short and -race.
func layerLarge() int {
	switch {
	case testing.Short():
		return 1 << 14
	case raceEnabled:
		return 1 << 16
	}
	return 1 << 18
}

// randInts returns n random ints in [0, limit), seeded by n and seed so that
// a failure reproduces.
func randInts(n, limit int, seed uint64) []int {
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	s := make([]int, n)
	for i := range s {
		s[i] = rng.IntN(limit)
	}
	return s
}

// requireEqualSlices asserts that got equals want element by element: the
// comparison the large inputs need (reflection over a million elements is
// slow under the race detector), reporting the first difference.
func requireEqualSlices[E comparable](t *testing.T, want, got []E, msg string) {
	t.Helper()
	if slices.Equal(want, got) {
		return
	}
	i := 0
	for i < min(len(want), len(got)) && want[i] == got[i] {
		i++
	}
	require.Failf(t, "slices differ", "%s: len %d, want %d; first difference at index %d", msg, len(got), len(want), i)
}

// requirePanicError asserts that v is a *PanicError carrying want.
func requirePanicError(t *testing.T, v any, want any) {
	t.Helper()
	pe, ok := v.(*blitz.PanicError)
	require.Truef(t, ok, "panic value %T (%v), want a *PanicError", v, v)
	assert.Equal(t, want, pe.Value)
	assert.NotEmpty(t, pe.Stack)
}

func TestSpanSplitsAdaptively(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(4)}, func(p *blitz.Pool) {
		blitz.Do(p, func(w *blitz.Worker) int {
			s := newSpan(w, 0, 1000)
			// Budget 4 on the creating worker: three splits, then no more.
			n := 0
			for s.trySplit(w, 0, 1) {
				n++
				s, _ = s.halves(w)
			}
			assert.Equal(t, 3, n, "splits of an unstolen span")
			// Too short for two halves of minLen: no split whatever the budget.
			s = newSpan(w, 0, 19)
			assert.False(t, s.trySplit(w, 0, 10))
			s = newSpan(w, 0, 20)
			assert.True(t, s.trySplit(w, 0, 10))
			// A span run by another worker than its creator was stolen:
			// the budget resets to the worker count.
			s = span{lo: 0, hi: 1000, splits: 0, origin: w.Index() + 1}
			assert.True(t, s.trySplit(w, 0, 1))
			assert.Equal(t, 4, s.splits)
			assert.Equal(t, w.Index(), s.origin)
			// A fixed grain halves while longer than the grain.
			s = span{lo: 0, hi: 9}
			assert.True(t, s.trySplit(w, 8, 1))
			s = span{lo: 0, hi: 8}
			assert.False(t, s.trySplit(w, 8, 1))
			return 0
		})
	})
}

func TestPiecePlanCoversOnce(t *testing.T) {
	for _, n := range []int{0, 1, 5, 63, 64, 65, 1000, 4097} {
		for _, k := range []int{1, 3, 8, 100} {
			for _, align := range []int{1, 64} {
				plan := newPiecePlan(n, k, align)
				next := 0
				for i := 0; i < plan.k; i++ {
					lo, hi := plan.bounds(i)
					require.Equalf(t, next, lo, "n=%d k=%d align=%d piece %d", n, k, align, i)
					require.Lessf(t, lo, hi, "n=%d k=%d align=%d: empty piece %d", n, k, align, i)
					if hi < n {
						require.Zerof(t, (hi-lo)%align, "n=%d k=%d align=%d: piece %d unaligned", n, k, align, i)
					}
					next = hi
				}
				require.Equal(t, n, next, fmt.Sprintf("n=%d k=%d align=%d: pieces end short", n, k, align))
				require.LessOrEqual(t, plan.k, max(k, 1))
			}
		}
	}
}

func TestLayerNilRunner(t *testing.T) {
	var nilPool *blitz.Pool
	var nilWorker *blitz.Worker
	for _, r := range []blitz.Runner{nil, nilPool, nilWorker} {
		requirePanicMessage(t, "par: ForEach: nil Runner", func() { ForEach(r, []int{1}, func(int) {}) })
		requirePanicMessage(t, "par: Filter: nil Runner", func() { Filter(r, []int(nil), func(int) bool { return true }) })
	}
}

// layerCalls are the layer functions that take a Runner (but NewGroup,
// whose Group reports a closed pool from Go), each called on r with an
// input of n elements; body counts the user callbacks that ran.
func layerCalls(body func()) []struct {
	name string
	call func(r blitz.Runner, n int)
} {
	ints := func(n int) []int { return make([]int, n) }
	pred := func(int) bool { body(); return false }
	cmpf := func(a, b int) int { body(); return cmp.Compare(a, b) }
	key := func(x int) int { body(); return x }
	add := func(a, b int) int { body(); return a + b }
	return []struct {
		name string
		call func(r blitz.Runner, n int)
	}{
		{"ForContext", func(r blitz.Runner, n int) {
			ForContext(context.Background(), r, 0, n, 0, func(*blitz.Worker, int, int) { body() })
		}},
		{"MapReduceContext", func(r blitz.Runner, n int) {
			MapReduceContext(context.Background(), r, 0, n, 0, 0, func(*blitz.Worker, int, int) int { body(); return 0 }, add)
		}},
		{"Partition", func(r blitz.Runner, n int) { Partition(r, ints(n), pred) }},
		{"Reduce", func(r blitz.Runner, n int) { Reduce(r, ints(n), 0, add) }},
		{"Sum", func(r blitz.Runner, n int) { Sum(r, ints(n)) }},
		{"Count", func(r blitz.Runner, n int) { Count(r, ints(n), pred) }},
		{"Min", func(r blitz.Runner, n int) { Min(r, ints(n)) }},
		{"Max", func(r blitz.Runner, n int) { Max(r, ints(n)) }},
		{"MinFunc", func(r blitz.Runner, n int) { MinFunc(r, ints(n), cmpf) }},
		{"MaxFunc", func(r blitz.Runner, n int) { MaxFunc(r, ints(n), cmpf) }},
		{"MinByKey", func(r blitz.Runner, n int) { MinByKey(r, ints(n), key) }},
		{"MaxByKey", func(r blitz.Runner, n int) { MaxByKey(r, ints(n), key) }},
		{"InclusiveScan", func(r blitz.Runner, n int) { InclusiveScan(r, ints(n), ints(n), 0, add) }},
		{"ExclusiveScan", func(r blitz.Runner, n int) { ExclusiveScan(r, ints(n), ints(n), 0, add) }},
		{"All", func(r blitz.Runner, n int) { All(r, ints(n), pred) }},
		{"ContainsFunc", func(r blitz.Runner, n int) { ContainsFunc(r, ints(n), pred) }},
		{"Contains", func(r blitz.Runner, n int) { Contains(r, ints(n), 1) }},
		{"Index", func(r blitz.Runner, n int) { Index(r, ints(n), 1) }},
		{"IndexFunc", func(r blitz.Runner, n int) { IndexFunc(r, ints(n), pred) }},
		{"LastIndexFunc", func(r blitz.Runner, n int) { LastIndexFunc(r, ints(n), pred) }},
		{"IndexAnyFunc", func(r blitz.Runner, n int) { IndexAnyFunc(r, ints(n), pred) }},
		{"ForEachSeq", func(r blitz.Runner, n int) { ForEachSeq(r, slices.Values(ints(n)), func(int) { body() }) }},
		{"ForEachSeq2", func(r blitz.Runner, n int) { ForEachSeq2(r, slices.All(ints(n)), func(int, int) { body() }) }},
		{"MapSeq", func(r blitz.Runner, n int) {
			for range MapSeq(r, slices.Values(ints(n)), 4, func(x int) int { body(); return x }) {
			}
		}},
		{"ForErr", func(r blitz.Runner, n int) {
			ForErr(context.Background(), r, 0, n, 0, func(context.Context, *blitz.Worker, int, int) error { body(); return nil })
		}},
		{"MapReduceErr", func(r blitz.Runner, n int) {
			MapReduceErr(context.Background(), r, 0, n, 0, 0, func(context.Context, *blitz.Worker, int, int) (int, error) { body(); return 0, nil }, add)
		}},
		{"ForEachErr", func(r blitz.Runner, n int) {
			ForEachErr(context.Background(), r, ints(n), func(context.Context, int) error { body(); return nil })
		}},
		{"MapErr", func(r blitz.Runner, n int) {
			MapErr(context.Background(), r, ints(n), func(_ context.Context, x int) (int, error) { body(); return x, nil })
		}},
		{"ForEach", func(r blitz.Runner, n int) { ForEach(r, ints(n), func(int) { body() }) }},
		{"ForEachIndex", func(r blitz.Runner, n int) { ForEachIndex(r, ints(n), func(int, int) { body() }) }},
		{"MapInPlace", func(r blitz.Runner, n int) { MapInPlace(r, ints(n), func(x int) int { body(); return x }) }},
		{"Map", func(r blitz.Runner, n int) { Map(r, ints(n), func(x int) int { body(); return x }) }},
		{"Fill", func(r blitz.Runner, n int) { Fill(r, ints(n), 1) }},
		{"Filter", func(r blitz.Runner, n int) { Filter(r, ints(n), pred) }},
		{"Chunks", func(r blitz.Runner, n int) { Chunks(r, ints(n), 3, func(*blitz.Worker, int, []int) { body() }) }},
		{"ZipWith", func(r blitz.Runner, n int) { ZipWith(r, ints(n), ints(n), add) }},
		{"Unzip", func(r blitz.Runner, n int) { Unzip(r, ints(n), func(x int) (int, int) { body(); return x, x }) }},
		{"Windows", func(r blitz.Runner, n int) { Windows(r, ints(n), 2, func(int, []int) { body() }) }},
		{"MapWindows", func(r blitz.Runner, n int) { MapWindows(r, ints(n), 2, func([]int) int { body(); return 0 }) }},
		{"FlatMap", func(r blitz.Runner, n int) { FlatMap(r, ints(n), func(x int) []int { body(); return nil }) }},
		{"FilterMap", func(r blitz.Runner, n int) { FilterMap(r, ints(n), func(x int) (int, bool) { body(); return x, true }) }},
		{"PartitionMap", func(r blitz.Runner, n int) {
			PartitionMap(r, ints(n), func(x int) (int, int, bool) { body(); return x, x, true })
		}},
		{"Fold", func(r blitz.Runner, n int) { Fold(r, ints(n), func() int { body(); return 0 }, add, add) }},
		{"Sort", func(r blitz.Runner, n int) { Sort(r, ints(n)) }},
		{"SortFunc", func(r blitz.Runner, n int) { SortFunc(r, ints(n), cmpf) }},
		{"SortByKey", func(r blitz.Runner, n int) { SortByKey(r, ints(n), key) }},
		{"SortStableFunc", func(r blitz.Runner, n int) { SortStableFunc(r, ints(n), cmpf) }},
		{"SortStableByKey", func(r blitz.Runner, n int) { SortStableByKey(r, ints(n), key) }},
		{"IsSorted", func(r blitz.Runner, n int) { IsSorted(r, ints(n)) }},
		{"IsSortedFunc", func(r blitz.Runner, n int) { IsSortedFunc(r, ints(n), cmpf) }},
	}
}

// TestLayerClosedPool checks that every layer function given a closed
// *Pool panics with an error wrapping ErrClosed that names it, at every
// input size: empty, short enough to run on the caller, and long enough to
// enter the pool; and that no user callback runs.
func TestLayerClosedPool(t *testing.T) {
	defer verifyNone(t)
	p, err := blitz.New(blitz.WithWorkers(2))
	require.NoError(t, err)
	require.NoError(t, p.Close())
	var ran atomic.Int64
	calls := layerCalls(func() { ran.Add(1) })
	for _, c := range calls {
		for _, n := range []int{0, 1, 2, 100, 2*cheapMinLen + 1, sortInlineMax + 1, sortCheckGrain + 1} {
			v := catchPanic(func() { c.call(p, n) })
			err, ok := v.(error)
			require.Truef(t, ok, "%s(n=%d) on a closed pool: panic %v (%T), want an error", c.name, n, v, v)
			require.ErrorIsf(t, err, blitz.ErrClosed, "%s(n=%d)", c.name, n)
			require.Truef(t, strings.HasPrefix(err.Error(), "par: "+c.name+": "), "%s(n=%d): %q does not name it", c.name, n, err)
		}
	}
	require.Zero(t, ran.Load(), "callbacks run on a closed pool")
}

// TestLayerNilContext checks that the layer functions that take a context
// panic with their own message for a nil one, whatever the other arguments.
func TestLayerNilContext(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(2)}, func(p *blitz.Pool) {
		var nilCtx context.Context
		body := func(*blitz.Worker, int, int) {}
		for _, n := range []int{0, 10} {
			requirePanicMessage(t, "par: ForContext: nil context", func() { ForContext(nilCtx, p, 0, n, 0, body) })
			requirePanicMessage(t, "par: MapReduceContext: nil context", func() {
				MapReduceContext(nilCtx, p, 0, n, 0, 0, func(*blitz.Worker, int, int) int { return 1 }, func(a, b int) int { return a + b })
			})
		}
		requirePanicMessage(t, "blitz: NewGroup: nil context", func() { blitz.NewGroup(nilCtx, p) })
		requireTaskPanics(t, p, "par: ForContext: nil context", func(w *blitz.Worker) { ForContext(nilCtx, w, 0, 10, 0, body) })
		requireTaskPanics(t, p, "blitz: NewGroup: nil context", func(w *blitz.Worker) { blitz.NewGroup(nilCtx, w) })
	})
}
