package par

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"math"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pulledSeq is 0, 1, ..., n-1, counting the values handed over in pulled.
func pulledSeq(n int, pulled *atomic.Int64) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := range n {
			pulled.Add(1)
			if !yield(i) {
				return
			}
		}
	}
}

// streamProbe wraps f and records how many calls run at once (running,
// maxRunning) and in all (calls).
type streamProbe struct {
	running, maxRunning, calls atomic.Int64
}

func (p *streamProbe) enter() {
	p.calls.Add(1)
	n := p.running.Add(1)
	for m := p.maxRunning.Load(); n > m && !p.maxRunning.CompareAndSwap(m, n); m = p.maxRunning.Load() {
	}
}

func (p *streamProbe) leave() { p.running.Add(-1) }

// streamWindows are the windows the streams are checked at.
var streamWindows = []int{1, 3, 16}

// TestMapSeqMatchesSequential ranges over MapSeq, MapSeq2 and MapSeqErr at
// sizes around each window and large, from the test goroutine and from a
// task of the pool (whose loop body also calls the pool), and compares the
// output with the sequential map: same values, same order. It also checks
// the window: never more values held between pull and yield, nor more calls
// of f at once, than the window; and that no call of f runs once the loop
// is over.
func TestMapSeqMatchesSequential(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, window := range streamWindows {
			sizes := []int{0, 1, window - 1, window, window + 1, 100}
			if lr.large {
				sizes = append(sizes, layerLarge()/16)
			}
			for _, n := range sizes {
				what := fmt.Sprintf("window=%d n=%d", window, n)
				var pulled atomic.Int64
				var probe streamProbe
				var overheld atomic.Int64
				type out struct {
					got     []int
					nested  bool
					yielded int64
				}
				res := layerCall(t, lr, func(r blitz.Runner) out {
					var o out
					o.nested = true
					for v := range MapSeq(r, pulledSeq(n, &pulled), window, func(x int) int {
						probe.enter()
						defer probe.leave()
						return 3*x + 1
					}) {
						o.yielded++
						if pulled.Load()-o.yielded >= int64(window) {
							overheld.Add(1) // more than window-1 held besides the one yielded
						}
						if len(o.got)%37 == 0 && Sum(r, []int{v, 1}) != v+1 { // the loop body uses the pool too
							o.nested = false
						}
						o.got = append(o.got, v)
					}
					return o
				})
				require.Len(t, res.got, n, what)
				for i, v := range res.got {
					require.Equalf(t, 3*i+1, v, "%s: position %d", what, i)
				}
				assert.True(t, res.nested, what)
				assert.Zero(t, overheld.Load(), "%s: more values held than the window", what)
				assert.LessOrEqual(t, probe.maxRunning.Load(), int64(window), "%s: calls at once", what)
				assert.Zero(t, probe.running.Load(), "%s: a call of f runs after the loop", what)
				assert.EqualValues(t, n, probe.calls.Load(), what)

				// MapSeq2 keeps the keys; MapSeqErr stops at the first error.
				m := map[int]string{}
				for i := range n {
					m[i] = fmt.Sprint(i)
				}
				type kvOut struct {
					keys []int
					vals []string
				}
				kvs := layerCall(t, lr, func(r blitz.Runner) kvOut {
					var o kvOut
					for k, v := range MapSeq2(r, slices.All(slices.Sorted(maps.Keys(m))), window, func(i, k int) string { return m[k] + "!" }) {
						o.keys = append(o.keys, k)
						o.vals = append(o.vals, v)
					}
					return o
				})
				for i := range kvs.keys {
					require.Equal(t, i, kvs.keys[i], what)
					require.Equal(t, fmt.Sprint(i)+"!", kvs.vals[i], what)
				}
				require.Len(t, kvs.keys, n, what)

				failAt := n / 2
				type errOut struct {
					got []int
					err error
					n   int
				}
				eo := layerCall(t, lr, func(r blitz.Runner) errOut {
					var o errOut
					for v, err := range MapSeqErr(r, pulledSeq(n, new(atomic.Int64)), window, func(x int) (int, error) {
						if x >= failAt {
							return 0, errAt(x)
						}
						return x, nil
					}) {
						o.n++
						if err != nil {
							o.err = err
							continue
						}
						o.got = append(o.got, v)
					}
					return o
				})
				if n == 0 {
					require.Zero(t, eo.n, what)
					continue
				}
				require.Equal(t, errAt(failAt), eo.err, "%s: MapSeqErr", what)
				require.Equal(t, failAt+1, eo.n, "%s: MapSeqErr went on after the error", what)
				for i, v := range eo.got {
					require.Equal(t, i, v, what)
				}
			}
		}
	})
}

// TestMapSeqBreakAtEveryPosition breaks out of the loop after every
// possible number of values: the results before are right, the input was
// pulled no further than the window allows past the break, no call of f
// runs once the loop statement is over, and nothing leaks (withPool).
func TestMapSeqBreakAtEveryPosition(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		const n, window = 40, 4
		for stopAt := range n + 1 {
			var pulled atomic.Int64
			var probe streamProbe
			got := layerCall(t, lr, func(r blitz.Runner) []int {
				var got []int
				for v := range MapSeq(r, pulledSeq(n, &pulled), window, func(x int) int {
					probe.enter()
					defer probe.leave()
					return x
				}) {
					if len(got) == stopAt {
						break
					}
					got = append(got, v)
				}
				return got
			})
			require.Len(t, got, min(stopAt, n))
			for i, v := range got {
				require.Equal(t, i, v)
			}
			require.LessOrEqualf(t, pulled.Load(), int64(stopAt+window), "break after %d: pulled too far", stopAt)
			require.Zerof(t, probe.running.Load(), "break after %d: a call of f runs after the loop", stopAt)
			require.LessOrEqual(t, probe.calls.Load(), pulled.Load())
		}
	})
}

// TestMapSeqSlowConsumer makes the consumer slower than any call of f: at
// every value it waits until every call of the values pulled so far has
// returned. The window is then always full when the consumer asks for more,
// and the stream must hold no more than the window, not buffer the input.
func TestMapSeqSlowConsumer(t *testing.T) {
	eachConfig(t, func(t *testing.T, p *blitz.Pool) {
		const n, window = 300, 8
		var pulled, yielded, overheld atomic.Int64
		var probe streamProbe
		within(t, "stream", func() {
			for range MapSeq(p, pulledSeq(n, &pulled), window, func(x int) int {
				probe.enter()
				defer probe.leave()
				return x
			}) {
				yielded.Add(1)
				// The calls of the values pulled run on the workers (this
				// goroutine is not one of them): wait for all of them.
				for probe.calls.Load() < pulled.Load() || probe.running.Load() > 0 {
					runtime.Gosched()
				}
				if pulled.Load()-yielded.Load() >= window {
					overheld.Add(1)
				}
			}
		})
		require.EqualValues(t, n, pulled.Load())
		require.Zero(t, overheld.Load(), "more values held than the window")
	})
}

// TestMapSeqPanics checks where panics land: a panic in f reaches the
// consumer as a *PanicError after the results before it; so does a panic
// in the input, after the results of every value it handed over; a panic
// in the loop body goes on untouched; Goexit in f or in the input ends the
// consumer's goroutine. In every case no call of f runs afterwards.
func TestMapSeqPanics(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		const n, at = 50, 17
		for _, window := range streamWindows {
			var probe streamProbe
			f := func(x int) int {
				probe.enter()
				defer probe.leave()
				if x == at {
					panic("f at 17")
				}
				return x
			}
			var got []int
			v := layerPanic(t, lr, func(r blitz.Runner) {
				for v := range MapSeq(r, pulledSeq(n, new(atomic.Int64)), window, f) {
					got = append(got, v)
				}
			})
			requirePanicError(t, v, "f at 17")
			require.Len(t, got, at, "window=%d: results before the panic", window)
			require.Zero(t, probe.running.Load())

			// A panic of the input after `at` values.
			panicky := func(yield func(int) bool) {
				for i := range at {
					if !yield(i) {
						return
					}
				}
				panic("seq at 17")
			}
			got = got[:0]
			v = layerPanic(t, lr, func(r blitz.Runner) {
				for v := range MapSeq(r, panicky, window, func(x int) int { return x }) {
					got = append(got, v)
				}
			})
			requirePanicError(t, v, "seq at 17")
			require.Len(t, got, at, "window=%d: results before the input's panic", window)

			// The loop body's panic is not wrapped.
			type bodyPanic struct{}
			v = layerPanic(t, lr, func(r blitz.Runner) {
				for v := range MapSeq(r, pulledSeq(n, new(atomic.Int64)), window, func(x int) int { return x }) {
					if v == at {
						panic(bodyPanic{})
					}
				}
			})
			if lr.onWorker {
				requirePanicError(t, v, bodyPanic{}) // the task's panic, through Run
			} else {
				require.Equal(t, bodyPanic{}, v)
			}
		}
		for _, inSeq := range []bool{false, true} {
			var probe streamProbe
			var yielded atomic.Int64
			seq := pulledSeq(n, new(atomic.Int64))
			if inSeq {
				seq = func(yield func(int) bool) {
					for i := range at {
						if !yield(i) {
							return
						}
					}
					runtime.Goexit()
				}
			}
			exited := exitsGoroutine(t, func() {
				for range MapSeq(lr.p, seq, 4, func(x int) int {
					probe.enter()
					defer probe.leave()
					if !inSeq && x == at {
						runtime.Goexit()
					}
					return x
				}) {
					yielded.Add(1)
				}
			})
			require.True(t, exited, "inSeq=%v: Goexit did not end the consumer", inSeq)
			require.Zero(t, probe.running.Load())
			if !inSeq {
				require.EqualValues(t, at, yielded.Load(), "results before f's Goexit")
			}
		}
	})
}

// TestMapSeqPull abandons a stream through iter.Pull after a few values:
// stop must end it, leaving no goroutine (withPool) and no call running.
func TestMapSeqPull(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(2)}, func(p *blitz.Pool) {
		var probe streamProbe
		next, stop := iter.Pull(MapSeq(p, pulledSeq(1000, new(atomic.Int64)), 8, func(x int) int {
			probe.enter()
			defer probe.leave()
			return x
		}))
		for i := range 5 {
			v, ok := next()
			require.True(t, ok)
			require.Equal(t, i, v)
		}
		stop()
		require.Zero(t, probe.running.Load())
	})
}

// TestMapSeqPoolCloses closes the pool from the loop body: the stream must
// still yield every result, in order, the consumer running the rest.
func TestMapSeqPoolCloses(t *testing.T) {
	defer verifyNone(t)
	p, err := blitz.New(blitz.WithWorkers(2))
	require.NoError(t, err)
	const n = 200
	var got []int
	within(t, "stream", func() {
		for v := range MapSeq(p, pulledSeq(n, new(atomic.Int64)), 8, func(x int) int { return -x }) {
			if v == -10 {
				assert.NoError(t, p.Close())
			}
			got = append(got, v)
		}
	})
	require.Len(t, got, n)
	for i, v := range got {
		require.Equal(t, -i, v)
	}
	v := catchPanic(func() {
		for range MapSeq(p, pulledSeq(n, new(atomic.Int64)), 8, func(x int) int { return x }) {
		}
	})
	err, ok := v.(error)
	require.True(t, ok, "ranging on a closed pool: %v", v)
	require.ErrorIs(t, err, blitz.ErrClosed)
}

func TestMapSeqBadArguments(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(1)}, func(p *blitz.Pool) {
		id := func(x int) int { return x }
		seq := slices.Values([]int{1})
		requirePanicMessage(t, "par: MapSeq: nil sequence", func() { MapSeq(p, nil, 1, id) })
		requirePanicMessage(t, "par: MapSeq: nil function", func() { MapSeq[int, int](p, seq, 1, nil) })
		requirePanicMessage(t, "par: MapSeq: window must be at least 1", func() { MapSeq(p, seq, 0, id) })
		requirePanicMessage(t, "par: MapSeq: nil Runner", func() { MapSeq(nil, seq, 1, id) })
		var nilPool *blitz.Pool
		requirePanicMessage(t, "par: MapSeq2: nil Runner", func() {
			MapSeq2(nilPool, slices.All([]int{1}), 1, func(int, int) int { return 0 })
		})
		requirePanicMessage(t, "par: MapSeqErr: window must be at least 1", func() {
			MapSeqErr(p, seq, -1, func(int) (int, error) { return 0, errors.New("x") })
		})
	})
}

// TestForEachSeq2 checks that ForEachSeq2 calls f once per pair.
func TestForEachSeq2(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, n := range []int{0, 1, 1000} {
			s := randInts(n, 1000, 3)
			hits := make([]atomic.Int32, n)
			var bad atomic.Int64
			layerCall(t, lr, func(r blitz.Runner) int {
				ForEachSeq2(r, slices.All(s), func(i, v int) {
					if s[i] != v {
						bad.Add(1)
					}
					hits[i].Add(1)
				})
				return 0
			})
			require.Zero(t, bad.Load())
			require.Equal(t, -1, firstNot(hits, 1), "n=%d", n)
		}
	})
	withPool(t, []blitz.Option{blitz.WithWorkers(1)}, func(p *blitz.Pool) {
		requirePanicMessage(t, "par: ForEachSeq2: nil sequence", func() { ForEachSeq2[int, int](p, nil, func(int, int) {}) })
		requirePanicMessage(t, "par: ForEachSeq2: nil function", func() { ForEachSeq2[int, int](p, slices.All([]int{1}), nil) })
	})
}

// TestErrLoopsAndStreamsStorm runs error loops and streams from many
// goroutines at once on one pool, half of them from tasks of the pool, with
// failures, panics and breaks at random positions, and checks every answer
// against its sequential counterpart. It counts the rare paths it targets:
// loops that skipped calls after a failure, breaks that stopped the input
// early, panics delivered at their position; each must have happened.
func TestErrLoopsAndStreamsStorm(t *testing.T) {
	goroutines, rounds := 8, 60
	if testing.Short() {
		goroutines, rounds = 4, 15
	}
	for _, k := range testParkings() {
		t.Run(fmt.Sprintf("parking=%v", k), func(t *testing.T) {
			withPool(t, []blitz.Option{blitz.WithParking(k), blitz.WithWorkers(4)}, func(p *blitz.Pool) {
				var skipped, stopped, panics atomic.Int64
				const n, window = 2000, 8
				s := make([]int, n)
				for i := range s {
					s[i] = i
				}
				start := make(chan struct{})
				errs := make(chan error, goroutines)
				for g := range goroutines {
					go func() {
						<-start
						errs <- stormRounds(p, g, rounds, s, window, &skipped, &stopped, &panics)
					}()
				}
				close(start)
				within(t, "storm", func() {
					for range goroutines {
						assert.NoError(t, <-errs)
					}
				})
				assert.Positive(t, skipped.Load(), "no loop skipped a call after a failure")
				assert.Positive(t, stopped.Load(), "no break stopped the input early")
				assert.Positive(t, panics.Load(), "no panic was delivered")
			})
		})
	}
}

// stormRounds is one goroutine of the storm: it returns the first wrong
// answer as an error.
func stormRounds(p *blitz.Pool, g, rounds int, s []int, window int, skipped, stopped, panics *atomic.Int64) error {
	n := len(s)
	rs := randInts(3*rounds, n, uint64(g))
	for i := range rounds {
		at, op := rs[3*i], rs[3*i+1]%3
		onWorker := rs[3*i+2]%2 == 0
		var err error
		call := func(r blitz.Runner) {
			switch op {
			case 0: // a failure at `at`: the sequential answer, and calls skipped
				var started atomic.Int64
				got := ForEachErr(context.Background(), r, s, func(_ context.Context, x int) error {
					started.Add(1)
					if x >= at {
						return errAt(x)
					}
					return nil
				})
				if got != errAt(at) {
					err = fmt.Errorf("ForEachErr failing from %d returned %v", at, got)
				} else if started.Load() < int64(n) {
					skipped.Add(1)
				}
			case 1: // a break after `at` values
				var pulled atomic.Int64
				var probe streamProbe
				got := 0
				for v := range MapSeq(r, pulledSeq(n, &pulled), window, func(x int) int {
					probe.enter()
					defer probe.leave()
					return x
				}) {
					if got == at {
						break
					}
					if v != got {
						err = fmt.Errorf("MapSeq: %d at position %d", v, got)
					}
					got++
				}
				switch {
				case probe.running.Load() != 0:
					err = errors.New("MapSeq: a call of f runs after the loop")
				case pulled.Load() > int64(at+window):
					err = fmt.Errorf("MapSeq: broke after %d, pulled %d", at, pulled.Load())
				case pulled.Load() < int64(n):
					stopped.Add(1)
				}
			default: // a panic at `at`, in f
				got := 0
				v := catchPanic(func() {
					for range MapSeq(r, pulledSeq(n, new(atomic.Int64)), window, func(x int) int {
						if x == at {
							panic(at)
						}
						return x
					}) {
						got++
					}
				})
				if pe, ok := v.(*blitz.PanicError); !ok || pe.Value != at || got != at {
					err = fmt.Errorf("MapSeq panicking at %d: %d results, then %v", at, got, v)
				} else {
					panics.Add(1)
				}
			}
		}
		if onWorker {
			p.Run(func(w *blitz.Worker) { call(w) })
		} else {
			call(p)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// TestMapSeqBusyBoundedPool runs a stream on a pool whose only worker is
// held by another task and whose queue (WithCapacity(1)) is full: the
// stream must not wait for room or for the worker, but run every call on
// the consumer, in order.
func TestMapSeqBusyBoundedPool(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(1), blitz.WithCapacity(1)}, func(p *blitz.Pool) {
		release, held := make(chan struct{}), make(chan struct{})
		require.NoError(t, p.Go(func(*blitz.Worker) { close(held); <-release }))
		<-held
		var got []int
		within(t, "stream", func() {
			for v := range MapSeq(p, pulledSeq(100, new(atomic.Int64)), 4, func(x int) int { return x + 1 }) {
				got = append(got, v)
			}
		})
		close(release)
		require.Len(t, got, 100)
		for i, v := range got {
			require.Equal(t, i+1, v)
		}
	})
}

// TestMapSeqInputPanicsAfterBreak checks the input's panic relative to a
// break: a panic seq raises on its way out after being told to stop
// reaches the consumer, as in a plain range loop; a panic past the break
// position, which seq reached only because the stream pulled ahead, does
// not.
func TestMapSeqInputPanicsAfterBreak(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(2)}, func(p *blitz.Pool) {
		onExit := func(yield func(int) bool) {
			for i := range 10 {
				if !yield(i) {
					panic("on exit")
				}
			}
		}
		v := catchPanic(func() {
			for v := range MapSeq(p, onExit, 4, func(x int) int { return x }) {
				if v == 2 {
					break
				}
			}
		})
		requirePanicError(t, v, "on exit")
		ahead := func(yield func(int) bool) {
			for i := range 3 {
				if !yield(i) {
					return
				}
			}
			panic("ahead")
		}
		v = catchPanic(func() {
			for v := range MapSeq(p, ahead, 8, func(x int) int { return x }) {
				if v == 1 {
					break
				}
			}
		})
		require.Nil(t, v, "a panic past the break reached the consumer")
	})
}

// allocatedBy returns the bytes the program allocated while f ran.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestMapSeqHugeWindow maps three values with windows that a request or a
// configuration might hold (1<<24, 1<<40, math.MaxInt): the stream must
// allocate for the values it holds, not for the window; before, the first
// allocated 640 MiB, the second killed the process and the third panicked
// in makeslice.
func TestMapSeqHugeWindow(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(2)}, func(p *blitz.Pool) {
		for _, window := range []int{1 << 24, hugeSize, math.MaxInt} {
			var got []int
			bytes := allocatedBy(func() {
				for v := range MapSeq(p, slices.Values([]int{1, 2, 3}), window, func(x int) int { return 10 * x }) {
					got = append(got, v)
				}
			})
			require.Equalf(t, []int{10, 20, 30}, got, "window=%d", window)
			require.Lessf(t, bytes, uint64(1<<20), "window=%d: bytes allocated for 3 values", window)
		}
	})
}

// TestMapSeqRingGrows has the stream hold every value of a sequence at
// once, so that its ring doubles from its first length to past n while
// items are queued and running: f(0) waits until seq has handed over its
// last value, and the window (MaxInt) is larger than n, so the consumer
// never waits for the head before the input ends. The results must come out whole and
// in order, on every pool size, from outside and from a task.
func TestMapSeqRingGrows(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 300
	}
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		got := layerCall(t, lr, func(r blitz.Runner) []int {
			release := make(chan struct{})
			seq := func(yield func(int) bool) {
				defer close(release)
				for i := range n {
					if !yield(i) {
						return
					}
				}
			}
			var out []int
			for v := range MapSeq(r, seq, math.MaxInt, func(x int) int {
				if x == 0 {
					<-release
				}
				return x + 1
			}) {
				out = append(out, v)
			}
			return out
		})
		require.Len(t, got, n)
		for i, v := range got {
			require.Equalf(t, i+1, v, "result %d", i)
		}
	})
}

// TestMapSeqPullsBoundedAhead pins MapSeq's bound on pulling, as
// TestForEachSeqPullsBoundedAhead pins ForEachSeq's: when f(x) is called,
// seq has handed over at most window values from x on, at every call, on
// every pool shape; over an endless sequence, a break after k results
// leaves at most k+window values pulled, and f panicking at value 0 at
// most window.
func TestMapSeqPullsBoundedAhead(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, window := range streamWindows {
			n := 50 * window
			var pulled, maxAhead atomic.Int64
			layerCall(t, lr, func(r blitz.Runner) int {
				for range MapSeq(r, pulledSeq(n, &pulled), window, func(x int) int {
					ahead := pulled.Load() - int64(x)
					for m := maxAhead.Load(); ahead > m && !maxAhead.CompareAndSwap(m, ahead); m = maxAhead.Load() {
					}
					return x
				}) {
				}
				return 0
			})
			require.LessOrEqualf(t, maxAhead.Load(), int64(window), "window=%d: values pulled from x on when f(x) was called", window)

			const k = 100
			pulled.Store(0)
			got := layerCall(t, lr, func(r blitz.Runner) int {
				got := 0
				for range MapSeq(r, pulledSeq(math.MaxInt, &pulled), window, func(x int) int { return x }) {
					if got++; got == k {
						break
					}
				}
				return got
			})
			require.Equal(t, k, got)
			require.LessOrEqualf(t, pulled.Load(), int64(k+window), "window=%d: pulled from an endless sequence", window)

			pulled.Store(0)
			v := layerPanic(t, lr, func(r blitz.Runner) {
				for range MapSeq(r, pulledSeq(math.MaxInt, &pulled), window, func(x int) int {
					if x == 0 {
						panic("boom at 0")
					}
					return x
				}) {
				}
			})
			requirePanicError(t, v, "boom at 0")
			require.LessOrEqualf(t, pulled.Load(), int64(window), "window=%d: pulled when f(0) panicked", window)
		}
	})
}
