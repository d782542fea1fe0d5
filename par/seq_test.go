package par

import (
	"fmt"
	"iter"
	"runtime"
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
			// The values in flight: the batches handed out, the one being
			// filled and the one the consumer may be running itself.
			bound := int64((seqBatchesPerWorker*lr.p.Workers() + 2) * seqMaxBatch)
			require.LessOrEqualf(t, maxAhead, bound, "n=%d: values pulled ahead of f", n)
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
		if lr.p.Workers() == 1 {
			// No thief: the consumer runs the batch holding the panic
			// itself once the handed-out batches reach the bound, and
			// stops there.
			bound := int64(at + (seqBatchesPerWorker+2)*seqMaxBatch)
			require.LessOrEqual(t, produced, bound, "values pulled after the panic")
		}
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
