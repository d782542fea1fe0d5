package blitz

import (
	"fmt"
	"math"
	"math/bits"
	"time"

	"github.com/blitz-go/blitz/atomics"
)

// The latency histograms of a pool (Stats.QueueWait, Stats.RunTime) share one
// fixed bucket layout, chosen for the two durations a server cares about: how
// long a submitted task waited in the queue, and how long it ran. Both span
// from well under a microsecond (a trivial task on an idle pool) to seconds (a
// backlog under overload), so the layout is logarithmic, on the 1-2-5 series
// people read dashboards in, three buckets per decade from 1 µs to 10 s:
//
//	bucket   upper bound (inclusive)
//	 0       1 µs          (everything up to 1 µs, zero included)
//	 1..3    2 µs, 5 µs, 10 µs
//	 4..6    20 µs, 50 µs, 100 µs
//	 7..9    200 µs, 500 µs, 1 ms
//	10..12   2 ms, 5 ms, 10 ms
//	13..15   20 ms, 50 ms, 100 ms
//	16..18   200 ms, 500 ms, 1 s
//	19..21   2 s, 5 s, 10 s
//	22       +Inf          (everything over 10 s)
//
// Bucket i holds the durations d with bound[i-1] < d <= bound[i] (the
// Prometheus "le" convention, so the bounds map one to one onto a Prometheus
// histogram's buckets). A quantile read from the histogram is therefore known
// to within one bucket: a factor of 2 to 2.5.
//
// Finding the bucket costs no search: neighbouring bounds are at least a
// factor of 2 apart, so each power-of-two range [2^(k-1), 2^k) of
// nanoseconds holds at most one bound, and the bit length of d picks the
// candidate bucket from a table; d is in that bucket or the next, which one
// comparison with the candidate's bound settles, done as arithmetic rather
// than a branch (bucketOf).

// HistogramBuckets is the number of buckets of a Histogram: the 22 finite
// upper bounds of HistogramBounds, and one overflow bucket above them.
const HistogramBuckets = 23

// histogramBounds are the buckets' inclusive upper bounds; the last one is the
// overflow bucket's, larger than every duration (a sentinel for bucketOf).
var histogramBounds = [HistogramBuckets]time.Duration{
	1 * time.Microsecond, 2 * time.Microsecond, 5 * time.Microsecond,
	10 * time.Microsecond, 20 * time.Microsecond, 50 * time.Microsecond,
	100 * time.Microsecond, 200 * time.Microsecond, 500 * time.Microsecond,
	1 * time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond,
	10 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond,
	1 * time.Second, 2 * time.Second, 5 * time.Second,
	10 * time.Second,
	math.MaxInt64,
}

// overflowBucket is the index of the bucket above the last finite bound.
const overflowBucket = HistogramBuckets - 1

// bucketByLen maps the bit length k of a positive duration in nanoseconds
// (d in [2^(k-1), 2^k)) to the first bucket whose bound is at least 2^(k-1):
// d falls in that bucket or, if it exceeds that bucket's bound, in the next.
// Built once from histogramBounds, so the two cannot disagree.
var bucketByLen = func() (t [65]uint8) {
	for k := 1; k <= 64; k++ {
		lo := uint64(1) << (k - 1)
		i := 0
		for i < overflowBucket && uint64(histogramBounds[i]) < lo {
			i++
		}
		t[k] = uint8(i)
	}
	return t
}()

// bucketOf returns the bucket of duration d; negative durations count as 0.
// It has no branch that depends on d, so durations that vary from task to
// task cost no mispredictions: the clamp and the final step are arithmetic.
func bucketOf(d time.Duration) int {
	d = nonNegative(d)
	i := int(bucketByLen[bits.Len64(uint64(d))])
	// Step to the next bucket if d > bound: both are in [0, MaxInt64], so
	// bound-d is negative exactly then, and its sign bit is the step. Never
	// past overflowBucket: its bound is MaxInt64.
	return i + int(uint64(histogramBounds[i]-d)>>63)
}

// nonNegative returns max(d, 0) without a branch (the compiler emits one for
// max): d>>63 is all ones for a negative d and zero otherwise.
func nonNegative(d time.Duration) time.Duration { return d &^ (d >> 63) }

// HistogramBounds returns the inclusive upper bounds of the first
// HistogramBuckets-1 buckets of every Histogram, in increasing order
// (1 µs, 2 µs, 5 µs, ... 10 s); the last bucket, Counts[HistogramBuckets-1],
// has no upper bound (+Inf). The slice is a fresh copy.
func HistogramBounds() []time.Duration {
	b := make([]time.Duration, overflowBucket)
	copy(b, histogramBounds[:overflowBucket])
	return b
}

// A Histogram is a snapshot of a distribution of durations in fixed buckets
// (the layout is HistogramBounds). The pool keeps one per worker, written by
// that worker alone, and Pool.Stats sums them.
//
// A snapshot taken while tasks finish is not atomic: Sum and Max may already
// include a duration that Counts do not show yet, never the reverse (the
// worker publishes Sum and Max before the count), so Mean and Quantile never
// understate what Counts hold.
type Histogram struct {
	// Counts[i] counts the durations d with HistogramBounds()[i-1] < d <=
	// HistogramBounds()[i]; Counts[0] those up to 1 µs; the last bucket
	// those over 10 s.
	Counts [HistogramBuckets]uint64
	// Count is the number of durations recorded: the sum of Counts.
	Count uint64
	// Sum is the total of the durations recorded. It wraps after 292 years
	// of accumulated time.
	Sum time.Duration
	// Max is the longest duration recorded (0 when none was). Sub keeps the
	// newer snapshot's Max: it is a maximum over the histogram's lifetime,
	// not over the interval.
	Max time.Duration
}

// Mean returns Sum/Count, or 0 for an empty histogram.
func (h *Histogram) Mean() time.Duration {
	if h.Count == 0 {
		return 0
	}
	return h.Sum / time.Duration(h.Count)
}

// Quantile returns an upper bound of the q-quantile of the recorded
// durations: the upper bound of the bucket that holds the ceil(q*Count)-th
// shortest duration (at least the first), capped at Max when Max is smaller.
// The true quantile lies in that bucket, so it is at most the value returned
// and more than the bound of the bucket below. For the overflow bucket (over
// 10 s) the answer is Max, or math.MaxInt64 if Max is unknown (0). An empty
// histogram returns 0. Quantile(0.5) is the median, Quantile(0.99) the p99,
// Quantile(1) an upper bound of the maximum.
//
// q must be in [0, 1]; Quantile panics otherwise (NaN included), as it is
// a constant in every sensible call.
func (h *Histogram) Quantile(q float64) time.Duration {
	if !(q >= 0 && q <= 1) {
		panic(fmt.Sprintf("blitz: Histogram.Quantile(%v): q must be in [0, 1]", q))
	}
	var total uint64
	for _, c := range h.Counts {
		total += c
	}
	if total == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(total)))
	if rank < 1 {
		rank = 1
	}
	if rank > total { // float rounding on huge counts
		rank = total
	}
	i, seen := 0, uint64(0)
	for ; i < overflowBucket; i++ {
		seen += h.Counts[i]
		if seen >= rank {
			break
		}
	}
	bound := histogramBounds[i]
	if h.Max > 0 && h.Max < bound {
		return h.Max
	}
	return bound
}

// Sub returns the histogram of the durations recorded between the snapshot
// prev and h, which must come from the same source with prev taken first.
// Counts, Count and Sum are differences; Max stays h.Max (see Max).
func (h Histogram) Sub(prev Histogram) Histogram {
	for i := range h.Counts {
		h.Counts[i] -= prev.Counts[i]
	}
	h.Count -= prev.Count
	h.Sum -= prev.Sum
	return h
}

// record adds one duration; negative durations count as 0. Owner only.
func (h *histogramCounts) record(d time.Duration) {
	i := bucketOf(d)
	ns := uint64(nonNegative(d))
	atomics.StoreRelease64(&h.sum, h.sum+ns)
	if ns > h.max {
		atomics.StoreRelease64(&h.max, ns)
	}
	atomics.StoreRelease64(&h.counts[i], h.counts[i]+1)
}

// addTo adds the buckets to s: Counts, Count and Sum add up, Max is the
// larger one. Any goroutine.
func (h *histogramCounts) addTo(s *Histogram) {
	for i := range h.counts {
		c := atomics.LoadAcquire64(&h.counts[i])
		s.Counts[i] += c
		s.Count += c
	}
	s.Sum += time.Duration(atomics.LoadAcquire64(&h.sum))
	if m := time.Duration(atomics.LoadAcquire64(&h.max)); m > s.Max {
		s.Max = m
	}
}
