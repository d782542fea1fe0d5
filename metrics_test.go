package blitz

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/blitz-go/blitz/atomics"
)

func metricsStats(m *taskMetrics) Stats {
	var st Stats
	m.addTo(&st)
	return st
}

func TestTaskMetricsDone(t *testing.T) {
	var m taskMetrics

	// Untimed: only the panic count may change; wait and run are ignored.
	m.done(time.Second, time.Second, false, false)
	m.done(time.Second, time.Second, false, true)
	st := metricsStats(&m)
	if st.Panics != 1 {
		t.Errorf("Panics = %d after one untimed panicking task, want 1", st.Panics)
	}
	if st.QueueWait.Count != 0 || st.RunTime.Count != 0 || st.QueueWait.Sum != 0 || st.RunTime.Max != 0 {
		t.Errorf("untimed tasks reached the histograms: QueueWait %+v, RunTime %+v", st.QueueWait, st.RunTime)
	}

	// Timed: wait goes to QueueWait, run to RunTime.
	m.done(3*time.Microsecond, 30*time.Millisecond, true, false)
	m.done(7*time.Microsecond, 2*time.Second, true, true)
	st = metricsStats(&m)
	if st.Panics != 2 {
		t.Errorf("Panics = %d, want 2", st.Panics)
	}
	qw, rt := st.QueueWait, st.RunTime
	if qw.Count != 2 || qw.Counts[2] != 1 || qw.Counts[3] != 1 || qw.Sum != 10*time.Microsecond || qw.Max != 7*time.Microsecond {
		t.Errorf("QueueWait = %+v, want 3µs and 7µs", qw)
	}
	if rt.Count != 2 || rt.Counts[14] != 1 || rt.Counts[19] != 1 || rt.Sum != 2*time.Second+30*time.Millisecond || rt.Max != 2*time.Second {
		t.Errorf("RunTime = %+v, want 30ms and 2s", rt)
	}
}

// TestTaskMetricsLayout checks what the cheap writes rely on: 64-bit fields
// aligned for the 64-bit atomics of 32-bit builds, and padding that keeps the
// counters off the cache lines of whatever sits around taskMetrics.
func TestTaskMetricsLayout(t *testing.T) {
	var m taskMetrics
	if a := unsafe.Alignof(m); a < 8 {
		t.Errorf("taskMetrics is %d-byte aligned, want 8 (64-bit atomics on 32-bit platforms)", a)
	}
	var w Worker
	if off := unsafe.Offsetof(w.metrics); off%8 != 0 {
		t.Errorf("Worker.metrics at offset %d, not 8-byte aligned", off)
	}
	first := unsafe.Offsetof(m.panics)
	last := unsafe.Offsetof(m.runTime) + unsafe.Sizeof(m.runTime)
	if first < atomics.CacheLineSize {
		t.Errorf("counters start %d bytes into taskMetrics, want at least a cache line (%d)", first, atomics.CacheLineSize)
	}
	if tail := unsafe.Sizeof(m) - last; tail < atomics.CacheLineSize {
		t.Errorf("counters end %d bytes before the end of taskMetrics, want at least a cache line (%d)", tail, atomics.CacheLineSize)
	}
	for _, off := range []uintptr{first, unsafe.Offsetof(m.queueWait), unsafe.Offsetof(m.runTime)} {
		if off%8 != 0 {
			t.Errorf("field at offset %d not 8-byte aligned", off)
		}
	}
}

// TestTaskMetricsConcurrentReaders runs one writer (the worker's role) against
// readers summing snapshots (Pool.Stats' role). Under -race it checks that the
// owner-only stores and the readers' loads are race-free; in every build it
// checks what the store order promises readers: a snapshot never shows a
// count without the Sum and Max that came with it, and counts never go back.
func TestTaskMetricsConcurrentReaders(t *testing.T) {
	const wait, run = 3 * time.Microsecond, 150 * time.Microsecond
	n, readers := 200_000, 2
	if testing.Short() {
		n = 20_000
	}
	var m taskMetrics
	start := make(chan struct{})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var midway atomic.Int64 // snapshots taken while the writer was half done: the race this test is about
	var bad atomic.Int64
	for r := 0; r < readers; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			var prev Stats
			for {
				select {
				case <-stop:
					return
				default:
				}
				st := metricsStats(&m)
				for _, h := range []struct {
					name string
					h, p *Histogram
					d    time.Duration
				}{{"QueueWait", &st.QueueWait, &prev.QueueWait, wait}, {"RunTime", &st.RunTime, &prev.RunTime, run}} {
					if h.h.Sum < time.Duration(h.h.Count)*h.d {
						t.Errorf("%s: Sum %v for Count %d of %v: a count was visible before its sum", h.name, h.h.Sum, h.h.Count, h.d)
						bad.Add(1)
					}
					if h.h.Count > 0 && h.h.Max != h.d {
						t.Errorf("%s: Max %v with Count %d, want %v", h.name, h.h.Max, h.h.Count, h.d)
						bad.Add(1)
					}
					if h.h.Count < h.p.Count {
						t.Errorf("%s: Count went back from %d to %d", h.name, h.p.Count, h.h.Count)
						bad.Add(1)
					}
				}
				if st.Panics < prev.Panics {
					t.Errorf("Panics went back from %d to %d", prev.Panics, st.Panics)
					bad.Add(1)
				}
				if c := st.RunTime.Count; c > 0 && c < uint64(n) {
					midway.Add(1)
				}
				if bad.Load() > 10 {
					return
				}
				prev = st
				runtime.Gosched() // hand the P back to the writer with -cpu 1
			}
		}()
	}
	close(start)
	for i := 0; i < n; i++ {
		m.done(wait, run, true, i%7 == 0)
		if i%1024 == 0 {
			runtime.Gosched() // let the readers in with -cpu 1
		}
	}
	close(stop)
	within(t, "readers", wg.Wait)

	st := metricsStats(&m)
	wantPanics := uint64((n + 6) / 7)
	if st.Panics != wantPanics || st.QueueWait.Count != uint64(n) || st.RunTime.Count != uint64(n) {
		t.Errorf("final: Panics %d, QueueWait.Count %d, RunTime.Count %d; want %d, %d, %d",
			st.Panics, st.QueueWait.Count, st.RunTime.Count, wantPanics, n, n)
	}
	if st.RunTime.Sum != time.Duration(n)*run || st.RunTime.Counts[bucketOf(run)] != uint64(n) {
		t.Errorf("final RunTime = %+v, want %d durations of %v", st.RunTime, n, run)
	}
	if testing.Short() {
		t.Logf("%d snapshots taken mid-stream", midway.Load())
	} else if midway.Load() == 0 {
		t.Errorf("no reader took a snapshot while the writer was running: the concurrent path was not exercised")
	}
}

// atomicAddMetrics is taskMetrics written the obvious way, with sync/atomic
// read-modify-writes (LOCK XADD on amd64), for BenchmarkTaskMetricsDone to
// compare with the owner-only release stores.
type atomicAddMetrics struct {
	panics             atomic.Uint64
	qwCounts, rtCounts [HistogramBuckets]atomic.Uint64
	qwSum, rtSum       atomic.Uint64
}

func (m *atomicAddMetrics) done(wait, run time.Duration, timed, panicked bool) {
	if panicked {
		m.panics.Add(1)
	}
	if !timed {
		return
	}
	m.qwCounts[bucketOf(wait)].Add(1)
	m.qwSum.Add(uint64(wait))
	m.rtCounts[bucketOf(run)].Add(1)
	m.rtSum.Add(uint64(run))
}

// benchDurations are log-uniform durations over the histogram's range, so the
// bucket lookup sees varied input rather than one predicted branch.
var benchDurations = func() (ds [256]time.Duration) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range ds {
		ds[i] = time.Duration(math.Exp(r.Float64() * math.Log(2e10))) // 1 ns .. 20 s
	}
	return
}()

// BenchmarkTaskMetricsDone measures what a worker pays per finished task for
// the server metrics: an untimed task (the common case with sampling) and a
// timed one, with the owner-only release stores taskMetrics uses
// (impl=release) and with atomic adds (impl=atomicadd) for comparison.
func BenchmarkTaskMetricsDone(b *testing.B) {
	for _, timed := range []bool{false, true} {
		b.Run(fmt.Sprintf("timed=%v/impl=release", timed), func(b *testing.B) {
			b.ReportAllocs()
			var m taskMetrics
			i := 0
			for b.Loop() {
				m.done(benchDurations[i&255], benchDurations[(i+1)&255], timed, false)
				i++
			}
		})
		b.Run(fmt.Sprintf("timed=%v/impl=atomicadd", timed), func(b *testing.B) {
			b.ReportAllocs()
			var m atomicAddMetrics
			i := 0
			for b.Loop() {
				m.done(benchDurations[i&255], benchDurations[(i+1)&255], timed, false)
				i++
			}
		})
	}
}

// BenchmarkPoolStats measures a Stats snapshot (what an expvar or Prometheus
// scrape costs), per worker count.
func BenchmarkPoolStats(b *testing.B) {
	for _, n := range []int{1, 2, 8} {
		b.Run(fmt.Sprintf("workers=%d", n), func(b *testing.B) {
			p, err := New(WithWorkers(n))
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			b.ReportAllocs()
			for b.Loop() {
				_ = p.Stats()
			}
		})
	}
}
