package par

import (
	"fmt"
	"iter"
	"math"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz"
	"github.com/stretchr/testify/require"
)

// countingSeq yields 0..n-1 and records the most values that were yielded
// and not yet consumed (consumed is bumped by the test's f).
func countingSeq(n int, consumed *atomic.Int64, maxAhead *int64, produced *int64) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := range n {
			*produced = int64(i + 1)
			if ahead := int64(i) - consumed.Load(); ahead > *maxAhead {
				*maxAhead = ahead
			}
			if !yield(i) {
				return
			}
		}
	}
}

func TestForEachSeqVisitsEachValueOnce(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, n := range layerSizes(lr) {
			hits := make([]atomic.Int32, n)
			var consumed atomic.Int64
			var maxAhead, produced int64
			layerCall(t, lr, func(r blitz.Runner) int {
				ForEachSeq(r, countingSeq(n, &consumed, &maxAhead, &produced), func(x int) {
					hits[x].Add(1)
					consumed.Add(1)
				})
				return 0
			})
			require.Equalf(t, -1, firstNot(hits, 1), "n=%d: a value was visited other than once", n)
			require.LessOrEqualf(t, maxAhead, seqAheadBound(lr), "n=%d: values pulled ahead of f", n)
		}
	})
}

func TestForEachSeqStopsPullingAfterAPanic(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		const n, at = 1 << 20, 1000
		var consumed atomic.Int64
		var maxAhead, produced int64
		v := layerPanic(t, lr, func(r blitz.Runner) {
			ForEachSeq(r, countingSeq(n, &consumed, &maxAhead, &produced), func(x int) {
				consumed.Add(1)
				if x == at {
					panic(fmt.Sprint("boom at ", x))
				}
			})
		})
		requirePanicError(t, v, fmt.Sprint("boom at ", at))
		// The batch holding the panic was not finished while seq was
		// pulled; once it is, one more value is pulled at most, and dropped.
		require.LessOrEqual(t, produced, at+seqAheadBound(lr)+1, "values pulled after the panic")
	})
}

// seqAheadBound is the bound ForEachSeq documents on lr's Runner: while
// f(x) runs, seq has handed over at most K × B values from x on, K = 2 ×
// the pool's workers batches of at most B values, 512 or MinLen's minimum
// if longer.
func seqAheadBound(lr layerRunner) int64 {
	return int64(2 * lr.p.Workers() * max(512, lr.minLen))
}

// TestForEachSeqPullsBoundedAhead checks ForEachSeq's bound on pulling at
// every call of f: when f(x) is called, seq has handed over at most
// seqAheadBound values from x on (x is the value's index). Before, the
// producer ran the newest batch itself once the batches handed out reached
// the bound while the older ones waited for the scope's end: on a pool of
// one worker, or from a task's *Worker, f(0) ran only after the whole
// sequence was pulled.
func TestForEachSeqPullsBoundedAhead(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		bound := seqAheadBound(lr)
		n := 4*int(bound) + 1000
		if testing.Short() {
			n = 2*int(bound) + 100
		}
		var pulled atomic.Int64
		hits := make([]atomic.Int32, n)
		var maxAhead atomic.Int64
		layerCall(t, lr, func(r blitz.Runner) int {
			ForEachSeq(r, pulledSeq(n, &pulled), func(x int) {
				ahead := pulled.Load() - int64(x)
				for m := maxAhead.Load(); ahead > m && !maxAhead.CompareAndSwap(m, ahead); m = maxAhead.Load() {
				}
				hits[x].Add(1)
			})
			return 0
		})
		require.Equal(t, -1, firstNot(hits, 1), "a value was visited other than once")
		require.LessOrEqualf(t, maxAhead.Load(), bound, "values pulled from x on when f(x) was called, n=%d", n)
	})
}

// TestForEachSeqEndless runs ForEachSeq over an endless sequence that
// stops in two ways: the sequence ends once f(0) has been called, or f
// panics at value 0. Either way no more than the documented bound (and the
// one value a stop check may drop) is pulled. Before, on a pool of one
// worker or from a task's *Worker, f(0) was never called, and the first
// form pulled forever.
func TestForEachSeqEndless(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		bound := seqAheadBound(lr)

		var pulled atomic.Int64
		var called atomic.Bool
		endless := func(yield func(int) bool) {
			for i := 0; !called.Load(); i++ {
				pulled.Add(1)
				if !yield(i) {
					return
				}
			}
		}
		layerCall(t, lr, func(r blitz.Runner) int {
			ForEachSeq(r, endless, func(x int) {
				if x == 0 {
					called.Store(true)
				}
			})
			return 0
		})
		require.True(t, called.Load())
		require.LessOrEqual(t, pulled.Load(), bound+1, "values pulled until f(0) was called")

		pulled.Store(0)
		v := layerPanic(t, lr, func(r blitz.Runner) {
			ForEachSeq(r, pulledSeq(math.MaxInt, &pulled), func(x int) {
				if x == 0 {
					panic("boom at 0")
				}
			})
		})
		requirePanicError(t, v, "boom at 0")
		require.LessOrEqual(t, pulled.Load(), bound+1, "values pulled when f(0) panicked")
	})
}

// TestForEachSeqHugeMinLen runs ForEachSeq and ForEachSeq2 under minimums
// that a request or a configuration might hold (1<<24, 1<<40,
// math.MaxInt): the batch buffer must grow with the values pulled, not be
// allocated at the minimum. Before, the first allocated 128 MiB for three
// values, the second killed the process and the third panicked in
// makeslice. A longer sequence under 1<<40 (one batch, grown by append)
// must visit every value once.
func TestForEachSeqHugeMinLen(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(2)}, func(p *blitz.Pool) {
		for _, m := range []int{1 << 24, hugeSize, math.MaxInt} {
			var sum atomic.Int64
			bytes := allocatedBy(func() {
				ForEachSeq(MinLen(p, m), slices.Values([]int{1, 2, 3}), func(x int) { sum.Add(int64(x)) })
				ForEachSeq2(MinLen(p, m), slices.All([]int{4, 5, 6}), func(_, x int) { sum.Add(int64(x)) })
			})
			require.EqualValuesf(t, 21, sum.Load(), "minLen=%d", m)
			require.Lessf(t, bytes, uint64(1<<20), "minLen=%d: bytes allocated for 6 values", m)
		}
		n := 5000
		hits := make([]atomic.Int32, n)
		ForEachSeq(MinLen(p, hugeSize), pulledSeq(n, new(atomic.Int64)), func(x int) { hits[x].Add(1) })
		require.Equal(t, -1, firstNot(hits, 1), "a value was visited other than once")
	})
}

// TestForEachSeqIteratorPanics checks that when seq panics (or calls
// runtime.Goexit) after handing over some values, every value whose yield
// returned true is still processed, once, before the panic reaches the
// caller as a *PanicError (or the Goexit ends the caller's goroutine): the
// batch seq was filling is not dropped.
func TestForEachSeqIteratorPanics(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, n := range []int{0, 1, 2, 3, 1000, 5000} {
			for _, goexit := range []bool{false, true} {
				what := fmt.Sprintf("n=%d goexit=%v", n, goexit)
				hits := make([]atomic.Int32, n)
				var accepted atomic.Int64
				seq := func(yield func(int) bool) {
					for i := range n {
						if !yield(i) {
							return
						}
						accepted.Add(1)
					}
					if goexit {
						runtime.Goexit()
					}
					panic("iterator")
				}
				call := func(r blitz.Runner) { ForEachSeq(r, seq, func(x int) { hits[x].Add(1) }) }
				if goexit {
					require.True(t, exitsGoroutine(t, func() {
						if lr.onWorker {
							lr.p.Run(f2w(call))
						} else {
							call(lr.p)
						}
					}), "%s: the caller's goroutine did not exit", what)
				} else {
					requirePanicError(t, layerPanic(t, lr, call), "iterator")
				}
				require.EqualValues(t, n, accepted.Load(), what)
				require.Equalf(t, -1, firstNot(hits, 1), "%s: a handed-over value was processed other than once", what)
			}
		}
	})
}

func TestForEachSeqBadArguments(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(1)}, func(p *blitz.Pool) {
		seq := func(yield func(int) bool) {}
		requirePanicMessage(t, "par: ForEachSeq: nil sequence", func() { ForEachSeq[int](p, nil, func(int) {}) })
		requirePanicMessage(t, "par: ForEachSeq: nil function", func() { ForEachSeq(p, seq, nil) })
		requirePanicMessage(t, "par: ForEachSeq: nil Runner", func() { ForEachSeq(nil, seq, func(int) {}) })
	})
}

func FuzzForEachSeq(f *testing.F) {
	f.Add([]byte{}, uint8(0), uint8(1))
	f.Add([]byte{1, 2, 3}, uint8(1), uint8(50))
	f.Add([]byte("a sequence bridged to the pool"), uint8(2), uint8(255))
	ps := fuzzPools(f)
	f.Fuzz(func(t *testing.T, data []byte, pool, rep uint8) {
		p := ps[int(pool)%len(ps)]
		s := fuzzLayerInts(data, int(rep)%64+1)
		var sum, count atomic.Int64
		ForEachSeq(p, func(yield func(int) bool) {
			for _, x := range s {
				if !yield(x) {
					return
				}
			}
		}, func(x int) {
			sum.Add(int64(x))
			count.Add(1)
		})
		want := 0
		for _, x := range s {
			want += x
		}
		require.EqualValues(t, want, sum.Load())
		require.EqualValues(t, len(s), count.Load())
	})
}
