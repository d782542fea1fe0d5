package blitzprom

import (
	"github.com/blitz-go/blitz"
)

// snapshot is what the Collector exports of one blitz.Stats, in the units
// Prometheus wants (seconds, cumulative buckets). snapshotOf is the only
// code that knows the shape of blitz.Stats.
type snapshot struct {
	workers, queued, running    int
	completed, rejected, panics uint64
	handlerPanics, callerRuns   uint64
	abandoned                   uint64
	active                      int
	blockedSeen, added, retired uint64
	queueWait, runTime          histogram
}

// histogram is a fixed-bucket histogram with per-bucket counts: counts[i]
// counts the samples in (bounds[i-1], bounds[i]], and counts[len(bounds)],
// when present, the samples above the last bound.
type histogram struct {
	bounds []float64 // upper bounds, seconds, ascending
	counts []uint64  // len(bounds) or len(bounds)+1
	count  uint64    // every sample, overflow included
	sum    float64   // seconds
}

// cumulative returns the bucket map of prometheus.NewConstHistogram: for
// each bound b, the samples <= b. The overflow count is left out: it is in
// count, which Prometheus reports as the "+Inf" bucket.
func (h histogram) cumulative() map[float64]uint64 {
	m := make(map[float64]uint64, len(h.bounds))
	var acc uint64
	for i, b := range h.bounds {
		acc += h.counts[i]
		m[b] = acc
	}
	return m
}

// snapshotOf converts a pool's Stats.
func snapshotOf(st blitz.Stats) snapshot {
	return snapshot{
		workers: st.Workers, queued: st.Queued, running: st.Running,
		completed: st.Completed, rejected: st.Rejected, panics: st.Panics, abandoned: st.Abandoned,
		handlerPanics: st.HandlerPanics, callerRuns: st.CallerRuns,
		active: st.Active, blockedSeen: st.BlockedSeen, added: st.WorkersAdded, retired: st.WorkersRetired,
		queueWait: histogramOf(&st.QueueWait), runTime: histogramOf(&st.RunTime),
	}
}

// boundsSeconds are blitz.HistogramBounds in seconds, the same for every
// histogram of every pool.
var boundsSeconds = func() []float64 {
	bs := blitz.HistogramBounds()
	s := make([]float64, len(bs))
	for i, b := range bs {
		s[i] = b.Seconds()
	}
	return s
}()

// histogramOf converts a blitz.Histogram. The total count is summed from the
// buckets rather than taken from h.Count, so that the "+Inf" bucket is never
// below a finite one even if a task finished between the reads of a
// snapshot (Prometheus requires cumulative counts to be monotonic).
func histogramOf(h *blitz.Histogram) histogram {
	var n uint64
	for _, c := range h.Counts {
		n += c
	}
	counts := make([]uint64, len(h.Counts))
	copy(counts, h.Counts[:])
	return histogram{bounds: boundsSeconds, counts: counts, count: n, sum: h.Sum.Seconds()}
}
