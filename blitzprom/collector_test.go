package blitzprom

import (
	"context"
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"go.uber.org/goleak"

	"github.com/blitz-go/blitz"
)

const watchdog = 30 * time.Second

func dumpFail(t *testing.T, what string) {
	t.Helper()
	buf := make([]byte, 1<<20)
	n := runtime.Stack(buf, true)
	t.Fatalf("timed out waiting for %s; goroutines:\n%s", what, buf[:n])
}

func TestCumulativeSumsBucketsUpToEachBound(t *testing.T) {
	h := histogram{bounds: []float64{0.001, 0.01, 0.1}, counts: []uint64{2, 0, 5, 7}, count: 14, sum: 3}
	got := h.cumulative()
	want := map[float64]uint64{0.001: 2, 0.01: 2, 0.1: 7}
	if len(got) != len(want) {
		t.Fatalf("cumulative() = %v, want %v", got, want)
	}
	for b, n := range want {
		if got[b] != n {
			t.Errorf("bucket le=%v: %d, want %d (all: %v)", b, got[b], n, got)
		}
	}
}

func TestHistogramOfUsesSecondsAndTheBucketTotal(t *testing.T) {
	var h blitz.Histogram
	h.Counts[0] = 1                        // <= 1 µs
	h.Counts[9] = 2                        // (500 µs, 1 ms]
	h.Counts[blitz.HistogramBuckets-1] = 3 // over the last bound
	h.Count = 5                            // one behind the buckets, as a racing snapshot may be
	h.Sum = 1500 * time.Millisecond
	got := histogramOf(&h)
	if got.count != 6 {
		t.Errorf("count = %d, want 6 (the sum of the buckets)", got.count)
	}
	if got.sum != 1.5 {
		t.Errorf("sum = %v s, want 1.5", got.sum)
	}
	if n := len(got.bounds); n != blitz.HistogramBuckets-1 {
		t.Fatalf("%d bounds, want %d", n, blitz.HistogramBuckets-1)
	}
	if got.bounds[0] != 1e-6 || got.bounds[9] != 1e-3 || got.bounds[len(got.bounds)-1] != 10 {
		t.Errorf("bounds %v: want 1e-06 first, 0.001 tenth, 10 last", got.bounds)
	}
	cum := got.cumulative()
	if cum[1e-6] != 1 || cum[1e-3] != 3 || cum[10] != 3 {
		t.Errorf("cumulative %v: want le=1e-06 1, le=0.001 3, le=10 3", cum)
	}
}

func TestNewCollectorPanicsOnNilSource(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewCollector(nil, ...) did not panic")
		}
	}()
	NewCollector(nil, "x")
}

// TestCollectorExportsPoolStats drives a real pool into a known state (one
// task running, one queued, one refused, one panicked) and checks every
// series the collector exports, then the histograms after the pool drains.
func TestCollectorExportsPoolStats(t *testing.T) {
	defer goleak.VerifyNone(t)
	// WithMaxWorkers(1): the blocked worker must not be replaced, so that
	// the queued task stays queued.
	p, err := blitz.New(blitz.WithWorkers(1), blitz.WithMaxWorkers(1), blitz.WithCapacity(1), blitz.WithLatencySampling(1),
		blitz.WithParking(blitz.ParkingPortable))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c := NewCollector(p, "test")
	if n := testutil.CollectAndCount(c); n != 15 {
		t.Errorf("CollectAndCount = %d series, want 15", n)
	}
	if problems, err := testutil.CollectAndLint(c); err != nil || len(problems) > 0 {
		t.Errorf("CollectAndLint: %v, %v", problems, err)
	}

	// A panicking task, finished before anything else runs.
	_, err = blitz.TryDo(context.Background(), p, func(*blitz.Worker) int { panic("boom") })
	if !errors.Is(err, blitz.ErrPanic) {
		t.Fatalf("TryDo of a panicking task: %v, want ErrPanic", err)
	}
	// One task blocks the only worker, one waits in the queue of one, the
	// next is refused.
	started, release := make(chan struct{}), make(chan struct{})
	if err := p.TryGo(func(*blitz.Worker) { close(started); <-release }); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(watchdog):
		dumpFail(t, "the blocking task to start")
	}
	if err := p.TryGo(func(*blitz.Worker) {}); err != nil {
		t.Fatalf("TryGo into the empty queue: %v", err)
	}
	if err := p.TryGo(func(*blitz.Worker) {}); !errors.Is(err, blitz.ErrQueueFull) {
		t.Fatalf("TryGo into the full queue: %v, want ErrQueueFull", err)
	}
	want := `
# HELP blitz_caller_runs_total Run and Do calls that ran on their calling goroutine as a sleeping worker, never queued (Stats.CallerRuns).
# TYPE blitz_caller_runs_total counter
blitz_caller_runs_total{pool="test"} 0
# HELP blitz_handler_panics_total Panics of the panic handler itself, recovered by the pool (Stats.HandlerPanics).
# TYPE blitz_handler_panics_total counter
blitz_handler_panics_total{pool="test"} 0
# HELP blitz_tasks_abandoned_total Submissions that gave up waiting for room in the full queue when their context ended.
# TYPE blitz_tasks_abandoned_total counter
blitz_tasks_abandoned_total{pool="test"} 0
# HELP blitz_task_panics_total Submitted tasks that panicked.
# TYPE blitz_task_panics_total counter
blitz_task_panics_total{pool="test"} 1
# HELP blitz_tasks_queued Submitted tasks accepted and not started yet.
# TYPE blitz_tasks_queued gauge
blitz_tasks_queued{pool="test"} 1
# HELP blitz_tasks_rejected_total Submissions refused because the queue was full (ErrQueueFull).
# TYPE blitz_tasks_rejected_total counter
blitz_tasks_rejected_total{pool="test"} 1
# HELP blitz_tasks_running Submitted tasks running now.
# TYPE blitz_tasks_running gauge
blitz_tasks_running{pool="test"} 1
# HELP blitz_workers Number of workers of the pool.
# TYPE blitz_workers gauge
blitz_workers{pool="test"} 1
# HELP blitz_workers_active Workers serving now: the pool's size plus those added while workers were blocked (Stats.Active).
# TYPE blitz_workers_active gauge
blitz_workers_active{pool="test"} 1
# HELP blitz_workers_added_total Workers added for blocked ones (Stats.WorkersAdded).
# TYPE blitz_workers_added_total counter
blitz_workers_added_total{pool="test"} 0
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want),
		"blitz_caller_runs_total", "blitz_handler_panics_total", "blitz_task_panics_total", "blitz_tasks_abandoned_total", "blitz_tasks_queued", "blitz_tasks_rejected_total", "blitz_tasks_running", "blitz_workers", "blitz_workers_active", "blitz_workers_added_total"); err != nil {
		t.Error(err)
	}

	close(release)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	want = `
# HELP blitz_tasks_completed_total Submitted tasks finished, panicked ones included.
# TYPE blitz_tasks_completed_total counter
blitz_tasks_completed_total{pool="test"} 3
# HELP blitz_tasks_queued Submitted tasks accepted and not started yet.
# TYPE blitz_tasks_queued gauge
blitz_tasks_queued{pool="test"} 0
# HELP blitz_tasks_running Submitted tasks running now.
# TYPE blitz_tasks_running gauge
blitz_tasks_running{pool="test"} 0
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want),
		"blitz_tasks_completed_total", "blitz_tasks_queued", "blitz_tasks_running"); err != nil {
		t.Error(err)
	}

	// Every task was timed (sampling 1): both histograms hold 3 samples.
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, mf := range mfs {
		if mf.GetType() != dto.MetricType_HISTOGRAM {
			continue
		}
		seen++
		checkHistogram(t, mf.GetName(), mf.GetMetric()[0].GetHistogram(), 3)
	}
	if seen != 2 {
		t.Errorf("%d histograms gathered, want 2", seen)
	}
}

// checkHistogram checks a gathered histogram: n samples, one bucket per
// finite bound of blitz.HistogramBounds in seconds, cumulative counts that
// never decrease and never exceed n.
func checkHistogram(t *testing.T, name string, h *dto.Histogram, n uint64) {
	t.Helper()
	if h.GetSampleCount() != n {
		t.Errorf("%s: count %d, want %d", name, h.GetSampleCount(), n)
	}
	if s := h.GetSampleSum(); s <= 0 || math.IsNaN(s) {
		t.Errorf("%s: sum %v s, want > 0", name, s)
	}
	bounds := blitz.HistogramBounds()
	if len(h.GetBucket()) != len(bounds) {
		t.Fatalf("%s: %d buckets, want %d", name, len(h.GetBucket()), len(bounds))
	}
	prev := uint64(0)
	for i, b := range h.GetBucket() {
		if b.GetUpperBound() != bounds[i].Seconds() {
			t.Errorf("%s: bucket %d le=%v, want %v", name, i, b.GetUpperBound(), bounds[i].Seconds())
		}
		if c := b.GetCumulativeCount(); c < prev || c > n {
			t.Errorf("%s: bucket le=%v count %d after %d, total %d", name, b.GetUpperBound(), c, prev, n)
		}
		prev = b.GetCumulativeCount()
	}
}
