package par

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestForContextCoversEachIndexOnce(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		skipMinLen(t, lr)
		for _, c := range []struct{ lo, hi, grain int }{
			{0, 10000, 0}, {0, 10000, 1}, {0, 10000, 64}, {-50, 77, 0}, {5, 6, 0}, {3, 3, 0}, {10, 0, 0},
		} {
			n := max(c.hi-c.lo, 0)
			hits := make([]atomic.Int32, n)
			var bad atomic.Int64
			err := layerCall(t, lr, func(r blitz.Runner) error {
				return ForContext(t.Context(), r, c.lo, c.hi, c.grain, func(_ *blitz.Worker, lo, hi int) {
					if lo >= hi || lo < c.lo || hi > c.hi || c.grain > 0 && hi-lo > c.grain {
						bad.Add(1)
						return
					}
					for i := lo; i < hi; i++ {
						hits[i-c.lo].Add(1)
					}
				})
			})
			require.NoError(t, err)
			require.Zerof(t, bad.Load(), "%+v: a bad piece", c)
			require.Equalf(t, -1, firstNot(hits, 1), "%+v: an index visited other than once", c)

			type result struct {
				v   int
				err error
			}
			got := layerCall(t, lr, func(r blitz.Runner) result {
				v, err := MapReduceContext(t.Context(), r, c.lo, c.hi, c.grain, 0, func(_ *blitz.Worker, lo, hi int) int {
					s := 0
					for i := lo; i < hi; i++ {
						s += i
					}
					return s
				}, func(a, b int) int { return a + b })
				return result{v, err}
			})
			require.NoError(t, got.err)
			want := 0
			for i := c.lo; i < c.hi; i++ {
				want += i
			}
			require.Equalf(t, want, got.v, "%+v: MapReduceContext", c)
		}
	})
}

// TestForContextSkipsPiecesAfterCancel cancels the context from inside one
// piece of a loop cut into 10,000 one-index pieces and counts the pieces
// whose body started after the cancel. A piece checks the context just
// before its body, so a worker can be caught between that check and the
// body at most once: at most one late piece per other worker, and none on
// one worker, whatever the scheduling.
func TestForContextSkipsPiecesAfterCancel(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		skipMinLen(t, lr)
		const n, cancelAt = 10_000, 100
		for _, mr := range []bool{false, true} {
			ctx, cancel := context.WithCancel(t.Context())
			var started, late atomic.Int64
			body := func(lo int) {
				started.Add(1)
				if ctx.Err() != nil {
					late.Add(1)
				}
				if lo == cancelAt {
					cancel()
				}
			}
			err := layerCall(t, lr, func(r blitz.Runner) error {
				if mr {
					v, err := MapReduceContext(ctx, r, 0, n, 1, -1, func(_ *blitz.Worker, lo, _ int) int { body(lo); return 1 },
						func(a, b int) int { return a + b })
					if err != nil && v != -1 {
						return fmt.Errorf("cancelled MapReduceContext returned %d, not the identity", v)
					}
					return err
				}
				return ForContext(ctx, r, 0, n, 1, func(_ *blitz.Worker, lo, _ int) { body(lo) })
			})
			cancel()
			require.ErrorIs(t, err, context.Canceled, "mapreduce=%v", mr)
			workers := lr.p.Workers()
			require.LessOrEqualf(t, late.Load(), int64(workers-1), "mapreduce=%v: pieces started after the cancel", mr)
			require.Lessf(t, started.Load(), int64(n), "mapreduce=%v: every piece ran", mr)
			if workers == 1 {
				// One worker runs the pieces in index order.
				require.EqualValues(t, cancelAt+1, started.Load(), "mapreduce=%v", mr)
			}
		}
	})
}

func TestForContextEndedBeforeStart(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(2)}, func(p *blitz.Pool) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		var ran atomic.Int64
		err := ForContext(ctx, p, 0, 100, 0, func(*blitz.Worker, int, int) { ran.Add(1) })
		require.ErrorIs(t, err, context.Canceled)
		v, err := MapReduceContext(ctx, p, 0, 100, 0, 7, func(*blitz.Worker, int, int) int { ran.Add(1); return 1 },
			func(a, b int) int { return a + b })
		require.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, 7, v)
		assert.Zero(t, ran.Load(), "a loop whose context had ended ran")
	})
}

func TestForContextPanicsAndBadArguments(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		v := layerPanic(t, lr, func(r blitz.Runner) {
			ForContext(t.Context(), r, 0, 1000, 0, func(_ *blitz.Worker, lo, hi int) {
				if lo <= 500 && 500 < hi {
					panic("at 500")
				}
			})
		})
		requirePanicError(t, v, "at 500")
		v = layerPanic(t, lr, func(r blitz.Runner) {
			MapReduceContext(t.Context(), r, 0, 1, 0, 0, func(*blitz.Worker, int, int) int { panic("one") },
				func(a, b int) int { return a })
		})
		requirePanicError(t, v, "one")
	})
	withPool(t, []blitz.Option{blitz.WithWorkers(1)}, func(p *blitz.Pool) {
		requirePanicMessage(t, "par: ForContext: nil body", func() { ForContext(t.Context(), p, 0, 1, 0, nil) })
		requirePanicMessage(t, "par: MapReduceContext: nil function", func() {
			MapReduceContext[int](t.Context(), p, 0, 1, 0, 0, nil, nil)
		})
		requirePanicMessage(t, "par: ForContext: nil Runner", func() {
			ForContext(t.Context(), nil, 0, 0, 0, func(*blitz.Worker, int, int) {})
		})
	})
}

func FuzzForContext(f *testing.F) {
	f.Add(uint16(0), uint8(0), uint16(0), int8(0))
	f.Add(uint16(1000), uint8(1), uint16(500), int8(1))
	f.Add(uint16(5000), uint8(2), uint16(65535), int8(-1))
	ps := fuzzPools(f)
	f.Fuzz(func(t *testing.T, n uint16, pool uint8, cancelAt uint16, grain int8) {
		p := ps[int(pool)%len(ps)]
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		hits := make([]atomic.Int32, n)
		err := ForContext(ctx, p, 0, int(n), int(grain), func(_ *blitz.Worker, lo, hi int) {
			for i := lo; i < hi; i++ {
				hits[i].Add(1)
				if i == int(cancelAt) {
					cancel()
				}
			}
		})
		for i := range hits {
			require.LessOrEqual(t, hits[i].Load(), int32(1))
		}
		if int(cancelAt) < int(n) {
			require.ErrorIs(t, err, context.Canceled)
		} else {
			require.NoError(t, err)
			require.Equal(t, -1, firstNot(hits, 1))
		}
	})
}

// TestForContextExtremeRanges checks that ForContext and MapReduceContext
// cut ranges wider than MaxInt (hi-lo overflows int) as For does: pieces
// that tile the range and respect the grain.
func TestForContextExtremeRanges(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		skipMinLen(t, lr)
		for _, c := range extremeRanges {
			what := fmt.Sprintf("ForContext(%d, %d, %d)", c.lo, c.hi, c.grain)
			var mu sync.Mutex
			var pieces []piece
			record := func(lo, hi int) {
				mu.Lock()
				pieces = append(pieces, piece{lo, hi})
				mu.Unlock()
			}
			err := layerCall(t, lr, func(r blitz.Runner) error {
				return ForContext(t.Context(), r, c.lo, c.hi, c.grain, func(_ *blitz.Worker, lo, hi int) { record(lo, hi) })
			})
			require.NoError(t, err, what)
			checkTiling(t, what, c.lo, c.hi, c.grain, pieces)

			what = fmt.Sprintf("MapReduceContext(%d, %d, %d)", c.lo, c.hi, c.grain)
			pieces = pieces[:0]
			type span struct {
				lo, hi, n int
				ok        bool
			}
			type result struct {
				s   span
				err error
			}
			got := layerCall(t, lr, func(r blitz.Runner) result {
				s, err := MapReduceContext(t.Context(), r, c.lo, c.hi, c.grain, span{},
					func(_ *blitz.Worker, lo, hi int) span { record(lo, hi); return span{lo, hi, 1, true} },
					func(a, b span) span { return span{a.lo, b.hi, a.n + b.n, a.ok && b.ok && a.hi == b.lo} })
				return result{s, err}
			})
			require.NoError(t, got.err, what)
			assert.True(t, got.s.ok, "%s: reduce saw neighbours that do not meet", what)
			assert.Equal(t, c.lo, got.s.lo, "%s: result's lo", what)
			assert.Equal(t, c.hi, got.s.hi, "%s: result's hi", what)
			assert.Len(t, pieces, got.s.n, "%s: mapper calls", what)
			checkTiling(t, what, c.lo, c.hi, c.grain, pieces)
		}
	})
}

// TestForContextStopsAWideRange runs a loop over a range wider than MaxInt
// with a grain of 1000, far too many pieces to finish, and cancels its
// context in the first piece: every piece respects the grain and the loop
// stops. A piece checks the context just before its body, so at most one
// piece per worker starts.
func TestForContextStopsAWideRange(t *testing.T) {
	const grain = 1000
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, mr := range []bool{false, true} {
			ctx, cancel := context.WithCancel(t.Context())
			var calls, wide atomic.Int64
			body := func(lo, hi int) {
				calls.Add(1)
				if uint(hi)-uint(lo) > grain {
					wide.Add(1)
				}
				cancel()
			}
			err := layerCall(t, lr, func(r blitz.Runner) error {
				if mr {
					_, err := MapReduceContext(ctx, r, -2, math.MaxInt, grain, 0,
						func(_ *blitz.Worker, lo, hi int) int { body(lo, hi); return 1 },
						func(a, b int) int { return a + b })
					return err
				}
				return ForContext(ctx, r, -2, math.MaxInt, grain, func(_ *blitz.Worker, lo, hi int) { body(lo, hi) })
			})
			cancel()
			require.ErrorIs(t, err, context.Canceled, "MapReduceContext=%v", mr)
			assert.Zero(t, wide.Load(), "MapReduceContext=%v: pieces wider than the grain", mr)
			assert.GreaterOrEqual(t, calls.Load(), int64(1), "MapReduceContext=%v", mr)
			assert.LessOrEqual(t, calls.Load(), int64(lr.p.Workers()), "MapReduceContext=%v: pieces after the cancel", mr)
		}
	})
}
