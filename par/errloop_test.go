package par

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blitz-go/blitz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// errAt is the error a test callback returns for index i.
type errAt int

func (e errAt) Error() string { return fmt.Sprintf("failed at %d", int(e)) }

// errGrain is the grain the range forms are checked at.
const errGrain = 64

// errSizes are the input lengths the error loops are checked at: empty,
// one, either side of errGrain, and large ones if lr runs them.
func errSizes(lr layerRunner) []int {
	sizes := []int{0, 1, 2, errGrain - 1, errGrain, errGrain + 1, 1000}
	if lr.large {
		sizes = append(sizes, layerLarge())
	}
	return sizes
}

// errPatterns returns the sets of failing indexes checked for n elements:
// none, the first, the last, the middle, and a scattered handful.
func errPatterns(n int) [][]bool {
	if n == 0 {
		return [][]bool{nil}
	}
	mk := func(idx ...int) []bool {
		b := make([]bool, n)
		for _, i := range idx {
			b[i] = true
		}
		return b
	}
	scattered := make([]bool, n)
	for i, x := range randInts(n, 97, 7) {
		scattered[i] = x == 0
	}
	return [][]bool{mk(), mk(0), mk(n - 1), mk(n / 2), mk(n/2, n/3, n-1), scattered}
}

// seqFirstErr is the sequential loop's answer: the error of the first bad
// index, or nil.
func seqFirstErr(bad []bool) error {
	for i, b := range bad {
		if b {
			return errAt(i)
		}
	}
	return nil
}

// TestErrLoopsMatchSequential checks every error loop against the
// sequential loop that stops at its first error, for callbacks that ignore
// their context and for callbacks that return ctx.Err() as soon as they see
// it canceled: the result must be the sequential one either way, every
// index visited at most once, and every index when none fails.
func TestErrLoopsMatchSequential(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, n := range errSizes(lr) {
			s := make([]int, n)
			for i := range s {
				s[i] = i
			}
			for pi, bad := range errPatterns(n) {
				want := seqFirstErr(bad)
				for _, ctxAware := range []bool{false, true} {
					what := fmt.Sprintf("n=%d pattern=%d ctxAware=%v", n, pi, ctxAware)
					hits := make([]atomic.Int32, n)
					visit := func(ctx context.Context, i int) error {
						if ctxAware && ctx.Err() != nil {
							return ctx.Err()
						}
						hits[i].Add(1)
						if bad[i] {
							return errAt(i)
						}
						return nil
					}
					checkHits := func(name string, err error) {
						t.Helper()
						require.Equalf(t, want, err, "%s %s", name, what)
						for i := range hits {
							if h := hits[i].Load(); h > 1 || want == nil && h != 1 {
								require.Failf(t, "bad visits", "%s %s: index %d visited %d times", name, what, i, h)
							}
							hits[i].Store(0)
						}
					}

					err := layerCall(t, lr, func(r blitz.Runner) error {
						return ForEachErr(t.Context(), r, s, func(ctx context.Context, x int) error { return visit(ctx, x) })
					})
					checkHits("ForEachErr", err)

					type mapRes struct {
						out []int
						err error
					}
					mr := layerCall(t, lr, func(r blitz.Runner) mapRes {
						out, err := MapErr(t.Context(), r, s, func(ctx context.Context, x int) (int, error) { return 2 * x, visit(ctx, x) })
						return mapRes{out, err}
					})
					checkHits("MapErr", mr.err)
					if want == nil {
						require.Len(t, mr.out, n)
						for i, v := range mr.out {
							require.Equal(t, 2*i, v, "MapErr %s", what)
						}
					} else {
						require.Nil(t, mr.out, "MapErr %s: a result with an error", what)
					}

					rangeBody := func(ctx context.Context, lo, hi int) error {
						// A MinLen Runner's minimum wins over the grain.
						if lo >= hi || hi-lo > max(errGrain, 2*lr.minLen) {
							return errors.New("bad piece")
						}
						for i := lo; i < hi; i++ {
							if err := visit(ctx, i); err != nil {
								return err
							}
						}
						return nil
					}
					err = layerCall(t, lr, func(r blitz.Runner) error {
						return ForErr(t.Context(), r, 0, n, errGrain, func(ctx context.Context, _ *blitz.Worker, lo, hi int) error {
							return rangeBody(ctx, lo, hi)
						})
					})
					checkHits("ForErr", err)

					type sumRes struct {
						v   int
						err error
					}
					sr := layerCall(t, lr, func(r blitz.Runner) sumRes {
						v, err := MapReduceErr(t.Context(), r, 0, n, 0, -1, func(ctx context.Context, _ *blitz.Worker, lo, hi int) (int, error) {
							sum := 0
							for i := lo; i < hi; i++ {
								if err := visit(ctx, i); err != nil {
									return 0, err
								}
								sum += i
							}
							return sum, nil
						}, func(a, b int) int { return a + b })
						return sumRes{v, err}
					})
					checkHits("MapReduceErr", sr.err)
					if want == nil && n > 0 {
						require.Equal(t, n*(n-1)/2, sr.v, "MapReduceErr %s", what)
					} else {
						require.Equal(t, -1, sr.v, "MapReduceErr %s: not the identity", what)
					}
				}
			}
		}
	})
}

// TestErrLoopsSkipAfterFailure fails one index of a loop cut into one
// element pieces and counts the calls past it that started after the
// failure was recorded. A call checks for a failure just before it starts,
// so a worker can be caught between that check and the call at most once:
// at most one late call per other worker; on one worker, which runs the
// pieces in index order, exactly the calls up to the failure run. Either
// way fewer calls than elements run: the skipping really happened.
func TestErrLoopsSkipAfterFailure(t *testing.T) {
	var recorded atomic.Bool
	errFailHook = func() { recorded.Store(true) }
	defer func() { errFailHook = nil }()
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		const n, failAt = 10_000, 100
		s := make([]int, n)
		for i := range s {
			s[i] = i
		}
		for _, form := range []string{"ForEachErr", "MapErr", "ForErr", "MapReduceErr"} {
			if lr.minLen > 0 && (form == "ForErr" || form == "MapReduceErr") {
				continue // their pieces of one index: a MinLen minimum wins over the grain
			}
			recorded.Store(false)
			var started, late atomic.Int64
			call := func(i int) error {
				started.Add(1)
				if i > failAt && recorded.Load() {
					late.Add(1)
				}
				if i == failAt {
					return errAt(i)
				}
				return nil
			}
			err := layerCall(t, lr, func(r blitz.Runner) error {
				ctx := t.Context()
				switch form {
				case "ForEachErr":
					return ForEachErr(ctx, r, s, func(_ context.Context, x int) error { return call(x) })
				case "MapErr":
					_, err := MapErr(ctx, r, s, func(_ context.Context, x int) (int, error) { return x, call(x) })
					return err
				case "ForErr":
					return ForErr(ctx, r, 0, n, 1, func(_ context.Context, _ *blitz.Worker, lo, _ int) error { return call(lo) })
				default:
					_, err := MapReduceErr(ctx, r, 0, n, 1, 0, func(_ context.Context, _ *blitz.Worker, lo, _ int) (int, error) { return 1, call(lo) },
						func(a, b int) int { return a + b })
					return err
				}
			})
			require.Equal(t, errAt(failAt), err, form)
			require.True(t, recorded.Load(), form)
			require.LessOrEqualf(t, late.Load(), int64(lr.p.Workers()-1), "%s: calls started after the failure", form)
			require.Lessf(t, started.Load(), int64(n), "%s: every call ran", form)
			if lr.p.Workers() == 1 {
				require.EqualValues(t, failAt+1, started.Load(), form)
			}
		}
	})
}

// TestErrLoopsTellRunningPieces runs a loop of two pieces on two workers:
// the right one waits on its context, the left one fails once the right
// one has started. The right piece must see its context canceled, with
// context.Canceled, and the result is the left piece's error. On one
// worker the left piece runs first, and the right one never starts.
func TestErrLoopsTellRunningPieces(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		if lr.minLen > 0 {
			return // it needs pieces of one index: a MinLen minimum wins over the grain
		}
		const n = 2
		rightStarted := make(chan struct{})
		var rightErr atomic.Pointer[error]
		var rightRan atomic.Bool
		err := layerCall(t, lr, func(r blitz.Runner) error {
			return ForErr(t.Context(), r, 0, n, 1, func(ctx context.Context, _ *blitz.Worker, lo, _ int) error {
				if lo == 1 {
					rightRan.Store(true)
					close(rightStarted)
					<-ctx.Done()
					err := ctx.Err()
					rightErr.Store(&err)
					return err
				}
				if lr.p.Workers() > 1 {
					<-rightStarted
				}
				assert.NoError(t, ctx.Err(), "the failing piece's context ended before it failed")
				return errAt(0)
			})
		})
		require.Equal(t, errAt(0), err)
		if lr.p.Workers() == 1 {
			require.False(t, rightRan.Load(), "a piece right of the failure started")
			return
		}
		require.NotNil(t, rightErr.Load())
		require.ErrorIs(t, *rightErr.Load(), context.Canceled)
	})
}

// TestPieceContext pins the piece contexts' rule: a piece's context ends
// when an index at or below its first one fails (not above it), when the
// caller's context ends (with its error), and when the call ends; Done and
// Err agree, values and deadline are the parent's.
func TestPieceContext(t *testing.T) {
	type key struct{}
	deadline := time.Now().Add(time.Hour)
	parent, cancel := context.WithDeadline(context.WithValue(t.Context(), key{}, "v"), deadline)
	defer cancel()
	l := newErrLoop(parent)
	left, mid, right := l.piece(5), l.piece(7), l.piece(10)
	rightDone := right.Done() // made before the failure
	require.NoError(t, right.Err())
	l.fail(7, errAt(7))
	assert.NoError(t, left.Err(), "a piece left of the failure was told")
	assert.ErrorIs(t, mid.Err(), context.Canceled, "the failing piece")
	select {
	case <-rightDone:
	default:
		t.Fatal("the Done channel of a piece right of the failure is open")
	}
	assert.ErrorIs(t, right.Err(), context.Canceled)
	select {
	case <-left.Done():
		t.Fatal("a piece left of the failure is done")
	default:
	}
	got, ok := left.Deadline()
	assert.True(t, ok)
	assert.Equal(t, deadline, got)
	assert.Equal(t, "v", left.Value(key{}))
	l.fail(9, errAt(9)) // above the lowest failure: changes nothing
	require.Equal(t, errAt(7), l.end())
	assert.ErrorIs(t, left.Err(), context.Canceled, "after the call ended")
	<-left.Done()

	// The caller's context ending reaches every piece, with its error.
	parent, cancel = context.WithCancel(t.Context())
	l = newErrLoop(parent)
	p := l.piece(math.MinInt)
	done := p.Done()
	cancel()
	<-done
	assert.ErrorIs(t, p.Err(), context.Canceled)
	assert.True(t, l.moot(math.MinInt))
	assert.ErrorIs(t, l.end(), context.Canceled)

	parent, cancel = context.WithDeadline(t.Context(), time.Now().Add(-time.Second))
	defer cancel()
	l = newErrLoop(parent)
	<-l.piece(0).Done()
	assert.ErrorIs(t, l.piece(0).Err(), context.DeadlineExceeded)
	assert.ErrorIs(t, l.end(), context.DeadlineExceeded)
}

// TestErrLoopsCallerContext checks the caller's context: one that has ended
// runs nothing; one that ends during the loop releases a callback waiting
// on its own context and makes the loop return ctx's error.
func TestErrLoopsCallerContext(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		var ran atomic.Int64
		s := []int{1, 2, 3}
		err := layerCall(t, lr, func(r blitz.Runner) error {
			return ForEachErr(ctx, r, s, func(context.Context, int) error { ran.Add(1); return nil })
		})
		require.ErrorIs(t, err, context.Canceled)
		_, err = MapErr(ctx, lr.p, s, func(context.Context, int) (int, error) { ran.Add(1); return 0, nil })
		require.ErrorIs(t, err, context.Canceled)
		require.ErrorIs(t, ForErr(ctx, lr.p, 0, 0, 0, func(context.Context, *blitz.Worker, int, int) error { ran.Add(1); return nil }), context.Canceled)
		v, err := MapReduceErr(ctx, lr.p, 0, 5, 0, 9, func(context.Context, *blitz.Worker, int, int) (int, error) { ran.Add(1); return 0, nil },
			func(a, b int) int { return a })
		require.ErrorIs(t, err, context.Canceled)
		require.Equal(t, 9, v)
		require.Zero(t, ran.Load(), "a loop whose context had ended ran")

		ctx, cancel = context.WithCancel(t.Context())
		defer cancel()
		err = layerCall(t, lr, func(r blitz.Runner) error {
			return ForEachErr(ctx, r, []int{0}, func(c context.Context, _ int) error {
				go cancel() // the loop itself must notice
				<-c.Done()
				return errors.New("from the callback")
			})
		})
		require.ErrorIs(t, err, context.Canceled, "the caller's context ended: its error wins")
	})
}

func TestErrLoopsPanicsAndBadArguments(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		const n, at = 1000, 10
		s := make([]int, n)
		for i := range s {
			s[i] = i
		}
		var ran atomic.Int64
		v := layerPanic(t, lr, func(r blitz.Runner) {
			ForEachErr(t.Context(), r, s, func(_ context.Context, x int) error {
				ran.Add(1)
				if x == at {
					panic("at 10")
				}
				return nil
			})
		})
		requirePanicError(t, v, "at 10")
		if lr.p.Workers() == 1 {
			require.EqualValues(t, at+1, ran.Load(), "calls after a panic on one worker")
		}
		v = layerPanic(t, lr, func(r blitz.Runner) {
			MapReduceErr(t.Context(), r, 0, n, 1, 0, func(_ context.Context, _ *blitz.Worker, lo, hi int) (int, error) {
				if lo <= at && at < hi {
					panic("mr")
				}
				return 0, nil
			}, func(a, b int) int { return a })
		})
		requirePanicError(t, v, "mr")
		// A panic wins over an error at a lower index.
		v = layerPanic(t, lr, func(r blitz.Runner) {
			MapErr(t.Context(), r, s, func(_ context.Context, x int) (int, error) {
				switch x {
				case 0:
					return 0, errAt(0)
				case n - 1:
					panic("last")
				}
				return 0, nil
			})
		})
		if v != nil { // the last element is skipped if the failure at 0 came first
			requirePanicError(t, v, "last")
		}
		exited := exitsGoroutine(t, func() {
			ForErr(t.Context(), lr.p, 0, n, 0, func(context.Context, *blitz.Worker, int, int) error {
				runtime.Goexit()
				return nil
			})
		})
		require.True(t, exited, "a Goexit in the body did not end the caller")
	})
	withPool(t, []blitz.Option{blitz.WithWorkers(1)}, func(p *blitz.Pool) {
		ctx := t.Context()
		requirePanicMessage(t, "par: ForErr: nil body", func() { ForErr(ctx, p, 0, 1, 0, nil) })
		requirePanicMessage(t, "par: MapReduceErr: nil function", func() { MapReduceErr[int](ctx, p, 0, 1, 0, 0, nil, nil) })
		requirePanicMessage(t, "par: ForEachErr: nil function", func() { ForEachErr[[]int](ctx, p, nil, nil) })
		requirePanicMessage(t, "par: MapErr: nil function", func() { MapErr[[]int, int, int](ctx, p, nil, nil) })
		requirePanicMessage(t, "par: ForEachErr: nil Runner", func() {
			ForEachErr(ctx, nil, []int{1}, func(context.Context, int) error { return nil })
		})
		var nilCtx context.Context
		for _, n := range []int{0, 10} {
			requirePanicMessage(t, "par: ForErr: nil context", func() {
				ForErr(nilCtx, p, 0, n, 0, func(context.Context, *blitz.Worker, int, int) error { return nil })
			})
			requirePanicMessage(t, "par: MapErr: nil context", func() {
				MapErr(nilCtx, p, make([]int, n), func(context.Context, int) (int, error) { return 0, nil })
			})
		}
	})
}

// TestForErrExtremeRanges runs ForErr over the ranges wider than MaxInt that
// For is checked at, failing in the first piece: the result is that piece's
// error and every piece respects the grain.
func TestForErrExtremeRanges(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, c := range extremeRanges {
			if c.grain <= 0 {
				continue // adaptive: a piece may be wider than MaxInt
			}
			var wide atomic.Int64
			err := layerCall(t, lr, func(r blitz.Runner) error {
				return ForErr(t.Context(), r, c.lo, c.hi, c.grain, func(_ context.Context, _ *blitz.Worker, lo, hi int) error {
					if uint(hi)-uint(lo) > uint(max(c.grain, 2*lr.minLen)) { // a MinLen minimum wins over the grain
						wide.Add(1)
					}
					if lo == c.lo {
						return errAt(-1)
					}
					return nil
				})
			})
			require.Equalf(t, errAt(-1), err, "ForErr(%d, %d, %d)", c.lo, c.hi, c.grain)
			require.Zerof(t, wide.Load(), "ForErr(%d, %d, %d): pieces wider than the grain", c.lo, c.hi, c.grain)
		}
	})
}

func FuzzErrLoops(f *testing.F) {
	f.Add(uint16(0), uint8(0), []byte{}, int8(0))
	f.Add(uint16(1000), uint8(1), []byte{1, 200, 3}, int8(1))
	f.Add(uint16(5000), uint8(2), []byte{255, 7}, int8(-1))
	f.Add(uint16(65), uint8(2), []byte{64}, int8(64))
	ps := fuzzPools(f)
	f.Fuzz(func(t *testing.T, n uint16, pool uint8, badAt []byte, grain int8) {
		p := ps[int(pool)%len(ps)]
		bad := make([]bool, n)
		for i, b := range badAt {
			if n > 0 {
				bad[(i*251+int(b)*int(b))%int(n)] = true
			}
		}
		want := seqFirstErr(bad)
		s := make([]int, n)
		for i := range s {
			s[i] = i
		}
		visit := func(ctx context.Context, i int) error {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if bad[i] {
				return errAt(i)
			}
			return nil
		}
		require.Equal(t, want, ForEachErr(t.Context(), p, s, visit))
		_, err := MapErr(t.Context(), p, s, func(ctx context.Context, x int) (int, error) { return x, visit(ctx, x) })
		require.Equal(t, want, err)
		err = ForErr(t.Context(), p, 0, int(n), int(grain), func(ctx context.Context, _ *blitz.Worker, lo, hi int) error {
			for i := lo; i < hi; i++ {
				if err := visit(ctx, i); err != nil {
					return err
				}
			}
			return nil
		})
		require.Equal(t, want, err)
		_, err = MapReduceErr(t.Context(), p, 0, int(n), int(grain), 0, func(ctx context.Context, _ *blitz.Worker, lo, hi int) (int, error) {
			for i := lo; i < hi; i++ {
				if err := visit(ctx, i); err != nil {
					return 0, err
				}
			}
			return hi - lo, nil
		}, func(a, b int) int { return a + b })
		require.Equal(t, want, err)
	})
}

// TestPieceContextAfterFunc checks the AfterFunc method the context package
// uses for contexts derived from a piece's: a derived context ends with the
// piece, a stopped registration never runs, and one made on a piece that
// is already done runs at once.
func TestPieceContextAfterFunc(t *testing.T) {
	l := newErrLoop(t.Context())
	right := l.piece(10)
	derived, cancel := context.WithCancel(right)
	defer cancel()
	ran := make(chan struct{})
	stopped := context.AfterFunc(right, func() { t.Error("a stopped AfterFunc ran") })
	context.AfterFunc(right, func() { close(ran) })
	require.True(t, stopped())
	require.False(t, stopped(), "stopped twice")
	require.NoError(t, derived.Err())
	l.fail(3, errAt(3))
	<-derived.Done()
	<-ran
	assert.ErrorIs(t, derived.Err(), context.Canceled)
	late := make(chan struct{})
	stop := context.AfterFunc(right, func() { close(late) })
	<-late
	assert.False(t, stop())
	require.Equal(t, errAt(3), l.end())
}
