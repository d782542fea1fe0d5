package blitz

import (
	"sync/atomic"
	"time"

	"github.com/blitz-go/blitz/atomics"
)

// taskMetrics are one worker's server counters: the panics among the
// submitted tasks it ran, and histograms of queue wait and run time for the
// sampled ones (WithLatencySampling). Pool.Stats sums them over the workers
// into Stats.Panics, Stats.QueueWait and Stats.RunTime.
//
// Writers and readers. Every field is written by the goroutine that runs the
// worker, alone, after each submitted task (done), with a release store of
// the incremented value: no read-modify-write and no lock, because nobody
// else writes, so a record costs a few plain stores on amd64 (STLR on
// arm64). Pool.Stats reads the fields from any goroutine with acquire loads
// (addTo); see histogramCounts for the order that keeps Sum and Max
// consistent with the counts. The values only grow.
//
// Layout. The fields are written on every timed task and read rarely, so
// they sit between two pads: no other worker's writes and no thief polling
// the Worker's shared fields land on their cache lines, whatever the fields
// around taskMetrics in Worker are. The leading zero-length array of
// atomic.Uint64 gives the struct 8-byte alignment on 32-bit platforms, where
// the 64-bit atomics of the race and generic builds need it.
type taskMetrics struct {
	_ [0]atomic.Uint64 // 64-bit alignment on 386 and arm
	_ atomics.Pad

	panics    uint64          // submitted tasks that panicked
	queueWait histogramCounts // from acceptance to start, sampled tasks
	runTime   histogramCounts // from start to end, sampled tasks

	_ atomics.Pad
}

// done records one finished submitted task. timed says whether wait (from
// acceptance to start) and run (from start to end) were measured, that is,
// whether the task was sampled; when it is false, wait and run are ignored
// and only the panic count can change. panicked says whether the task
// panicked. Called by the worker goroutine that ran the task, and by no one
// else.
//
// done is small enough to be inlined into the worker, so that an untimed task
// that returned (the common case: 15 in 16 with the default sampling) costs
// one test and no call. A timed task costs about 11 ns here, half of what
// the same histograms cost with atomic adds (BenchmarkTaskMetricsDone,
// bench/results/metrics-amd64.txt).
func (m *taskMetrics) done(wait, run time.Duration, timed, panicked bool) {
	if timed || panicked {
		m.record(wait, run, timed, panicked)
	}
}

// record is done's slow path.
func (m *taskMetrics) record(wait, run time.Duration, timed, panicked bool) {
	if panicked {
		atomics.StoreRelease64(&m.panics, m.panics+1)
	}
	if timed {
		m.queueWait.record(wait)
		m.runTime.record(run)
	}
}

// addTo adds the worker's counters to st: Panics, QueueWait and RunTime.
// Any goroutine, any time.
func (m *taskMetrics) addTo(st *Stats) {
	st.Panics += atomics.LoadAcquire64(&m.panics)
	m.queueWait.addTo(&st.QueueWait)
	m.runTime.addTo(&st.RunTime)
}
