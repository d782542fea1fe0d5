package blitz

import (
	"time"

	"github.com/blitz-go/blitz/atomics"
)

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
