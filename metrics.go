package blitz

import "time"

// taskMetrics are one worker's server counters: the panics among the
// submitted tasks it ran, and histograms of queue wait and run time for the
// sampled ones. Written by the worker goroutine alone.
//
// PLACEHOLDER: the fixed-bucket implementation replaces this file.
type taskMetrics struct {
	panics uint64
}

// done records one finished submitted task. timed says whether wait and run
// were measured (the task was sampled); panicked whether it panicked.
// Called by the worker goroutine that ran the task.
func (m *taskMetrics) done(wait, run time.Duration, timed, panicked bool) {
	_, _, _ = wait, run, timed
	if panicked {
		m.panics++
	}
}
