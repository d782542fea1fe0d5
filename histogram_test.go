package blitz

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestHistogramLayout pins the bucket layout: exporters (Prometheus "le"
// labels, dashboards) and the JSON of Expvar depend on the exact bounds.
func TestHistogramLayout(t *testing.T) {
	us, ms, s := time.Microsecond, time.Millisecond, time.Second
	want := []time.Duration{
		1 * us, 2 * us, 5 * us, 10 * us, 20 * us, 50 * us, 100 * us, 200 * us, 500 * us,
		1 * ms, 2 * ms, 5 * ms, 10 * ms, 20 * ms, 50 * ms, 100 * ms, 200 * ms, 500 * ms,
		1 * s, 2 * s, 5 * s, 10 * s,
	}
	got := HistogramBounds()
	if len(got) != HistogramBuckets-1 {
		t.Fatalf("len(HistogramBounds()) = %d, want HistogramBuckets-1 = %d", len(got), HistogramBuckets-1)
	}
	if len(want) != len(got) {
		t.Fatalf("HistogramBounds() has %d bounds, the pinned layout %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("bound %d = %v, want %v", i, got[i], want[i])
		}
	}
	if histogramBounds[overflowBucket] != math.MaxInt64 {
		t.Errorf("overflow bucket bound = %v, want math.MaxInt64", histogramBounds[overflowBucket])
	}
	// bucketOf relies on neighbouring bounds being at least a factor of 2
	// apart (at most one bound per power-of-two range).
	for i := 1; i < overflowBucket; i++ {
		if histogramBounds[i] < 2*histogramBounds[i-1] {
			t.Errorf("bounds %v and %v are less than a factor of 2 apart", histogramBounds[i-1], histogramBounds[i])
		}
	}
	// The slice is a copy.
	got[0] = time.Hour
	if HistogramBounds()[0] != time.Microsecond {
		t.Errorf("changing the slice HistogramBounds returned changed the layout")
	}
}

// bucketOfLinear is the definition bucketOf implements: the first bucket whose
// inclusive upper bound is at least d.
func bucketOfLinear(d time.Duration) int {
	for i, b := range histogramBounds {
		if d <= b {
			return i
		}
	}
	panic("unreachable: the last bound is MaxInt64")
}

func TestBucketOf(t *testing.T) {
	check := func(d time.Duration) {
		t.Helper()
		if got, want := bucketOf(d), bucketOfLinear(d); got != want {
			t.Fatalf("bucketOf(%v = %d ns) = %d, want %d", d, int64(d), got, want)
		}
	}
	// Every bound and its neighbours.
	for _, b := range histogramBounds {
		check(b - 1)
		check(b)
		if b < math.MaxInt64 {
			check(b + 1)
		}
	}
	// Every power of two and its neighbours: the edges of bucketByLen.
	for k := 0; k < 63; k++ {
		p := time.Duration(1) << k
		check(p - 1)
		check(p)
		check(p + 1)
	}
	for _, d := range []time.Duration{0, -1, math.MinInt64, math.MaxInt64, math.MaxInt64 - 1} {
		check(d)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		// Log-uniform over the whole range, so every bucket is hit.
		check(time.Duration(r.Uint64() >> r.UintN(64)))
	}
	// Spot checks of the convention: bounds are inclusive.
	for d, want := range map[time.Duration]int{
		0: 0, time.Microsecond: 0, time.Microsecond + 1: 1,
		2 * time.Microsecond: 1, 3 * time.Microsecond: 2,
		time.Millisecond: 9, 10 * time.Second: 21, 10*time.Second + 1: overflowBucket,
		-time.Second: 0,
	} {
		if got := bucketOf(d); got != want {
			t.Errorf("bucketOf(%v) = %d, want %d", d, got, want)
		}
	}
}

// histOf builds a Histogram from durations through the worker-side recorder.
func histOf(ds ...time.Duration) Histogram {
	var c histogramCounts
	for _, d := range ds {
		c.record(d)
	}
	var h Histogram
	c.addTo(&h)
	return h
}

func TestHistogramRecord(t *testing.T) {
	h := histOf(0, -5*time.Second, 3*time.Microsecond, 3*time.Microsecond, time.Millisecond, time.Minute)
	want := map[int]uint64{0: 2, 2: 2, 9: 1, overflowBucket: 1}
	for i, c := range h.Counts {
		if c != want[i] {
			t.Errorf("Counts[%d] = %d, want %d", i, c, want[i])
		}
	}
	if h.Count != 6 {
		t.Errorf("Count = %d, want 6", h.Count)
	}
	if wantSum := 6*time.Microsecond + time.Millisecond + time.Minute; h.Sum != wantSum {
		t.Errorf("Sum = %v, want %v (a negative duration counts as 0)", h.Sum, wantSum)
	}
	if h.Max != time.Minute {
		t.Errorf("Max = %v, want 1m", h.Max)
	}

	// addTo adds up several workers' histograms; Max is the largest.
	var a, b histogramCounts
	a.record(time.Millisecond)
	b.record(time.Second)
	b.record(time.Second)
	var s Histogram
	a.addTo(&s)
	b.addTo(&s)
	if s.Count != 3 || s.Sum != time.Millisecond+2*time.Second || s.Max != time.Second || s.Counts[9] != 1 || s.Counts[18] != 2 {
		t.Errorf("sum of two histograms = %+v", s)
	}
}

func TestHistogramQuantile(t *testing.T) {
	us := time.Microsecond
	// 100 durations: 90 of 3 µs (bucket 5 µs), 9 of 150 µs (bucket
	// 200 µs), 1 of 30 ms (bucket 50 ms).
	var ds []time.Duration
	for range 90 {
		ds = append(ds, 3*us)
	}
	for range 9 {
		ds = append(ds, 150*us)
	}
	ds = append(ds, 30*time.Millisecond)
	h := histOf(ds...)
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{
		{0, 5 * us},
		{0.5, 5 * us},
		{0.9, 5 * us},     // the 90th is the last 3 µs one
		{0.901, 200 * us}, // the 91st
		{0.99, 200 * us},
		{0.991, 30 * time.Millisecond}, // bucket 50 ms, capped at Max
		{1, 30 * time.Millisecond},
	} {
		if got := h.Quantile(c.q); got != c.want {
			t.Errorf("Quantile(%v) = %v, want %v", c.q, got, c.want)
		}
	}

	// Max caps the bucket bound: all durations 3 µs, bucket bound 5 µs.
	one := histOf(3*us, 3*us)
	if got := one.Quantile(0.5); got != 3*us {
		t.Errorf("Quantile(0.5) of {3µs, 3µs} = %v, want 3µs (Max)", got)
	}
	// Without Max (0: unknown) the bound itself.
	one.Max = 0
	if got := one.Quantile(0.5); got != 5*us {
		t.Errorf("Quantile(0.5) without Max = %v, want the bucket bound 5µs", got)
	}
	// The overflow bucket answers Max, or MaxInt64 when Max is unknown.
	over := histOf(time.Minute)
	if got := over.Quantile(0.5); got != time.Minute {
		t.Errorf("Quantile of {1m} = %v, want 1m (Max)", got)
	}
	over.Max = 0
	if got := over.Quantile(0.5); got != math.MaxInt64 {
		t.Errorf("Quantile of the overflow bucket without Max = %v, want MaxInt64", got)
	}
	// Empty.
	var empty Histogram
	if got := empty.Quantile(0.99); got != 0 {
		t.Errorf("Quantile of an empty histogram = %v, want 0", got)
	}
}

func TestHistogramQuantileBadQ(t *testing.T) {
	h := histOf(time.Millisecond)
	for _, q := range []float64{-0.01, 1.01, math.NaN(), math.Inf(1), math.Inf(-1)} {
		func() {
			defer func() {
				v := recover()
				s, _ := v.(string)
				if !strings.Contains(s, "q must be in [0, 1]") {
					t.Errorf("Quantile(%v) panicked with %v, want a message about q's range", q, v)
				}
			}()
			h.Quantile(q)
			t.Errorf("Quantile(%v) returned, want a panic", q)
		}()
	}
}

func TestHistogramMean(t *testing.T) {
	var empty Histogram
	if got := empty.Mean(); got != 0 {
		t.Errorf("Mean of an empty histogram = %v, want 0", got)
	}
	h := histOf(time.Microsecond, 2*time.Microsecond, 6*time.Microsecond)
	if got := h.Mean(); got != 3*time.Microsecond {
		t.Errorf("Mean = %v, want 3µs", got)
	}
}

func TestHistogramSub(t *testing.T) {
	var c histogramCounts
	c.record(time.Millisecond)
	c.record(time.Second)
	var before Histogram
	c.addTo(&before)
	c.record(3 * time.Microsecond)
	c.record(3 * time.Microsecond)
	var after Histogram
	c.addTo(&after)
	d := after.Sub(before)
	if d.Count != 2 || d.Sum != 6*time.Microsecond || d.Counts[2] != 2 || d.Counts[9] != 0 || d.Counts[18] != 0 {
		t.Errorf("Sub = %+v, want the two 3 µs durations only", d)
	}
	if d.Max != time.Second {
		t.Errorf("Sub kept Max %v, want the newer snapshot's (1s)", d.Max)
	}
	// The interval's quantiles come from the interval's buckets; Max is a
	// lifetime maximum, so it no longer caps to the exact value.
	if got := d.Quantile(0.5); got != 5*time.Microsecond {
		t.Errorf("interval median = %v, want 5µs", got)
	}
	if after.Count != 4 {
		t.Errorf("Sub changed its receiver: Count = %d", after.Count)
	}
}
