package main

import "time"

// usage is what getrusage says about this process; ok is false where the
// system has no getrusage (every figure is then zero and the report omits
// them).
type usage struct {
	ok     bool
	cpu    time.Duration // user + system CPU time of every thread
	nvcsw  int64         // voluntary context switches (blocked: futex waits, sleeps)
	nivcsw int64         // involuntary context switches (preempted)
	maxRSS int64         // peak resident set size, bytes
}
