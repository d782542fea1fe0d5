// Package rusage reads what getrusage says about the running process: CPU
// time, context switches and peak memory. The benchmark rows report their
// context switches per op with it, the parking probes their CPU time and
// context switches per wake, and the report the peak memory of the run.
package rusage

import "time"

// Usage is the process's resource usage at one moment. OK is false where
// the system has no getrusage: every figure is then zero, and the report
// leaves them out.
type Usage struct {
	OK     bool
	CPU    time.Duration // user + system CPU time of every thread
	VCSW   int64         // voluntary context switches (blocked: futex waits, sleeps)
	IVCSW  int64         // involuntary context switches (preempted)
	MaxRSS int64         // peak resident set size, bytes
}
