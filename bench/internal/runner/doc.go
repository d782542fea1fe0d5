// Package runner runs the suite for the report command: the rows of
// package workload through testing.Benchmark, every row once per
// repetition, the repetitions interleaved (every row once, then every row
// again) so that drift on a noisy machine spreads over all rows instead of
// biasing the last ones; with a progress line per row and the time left.
// Before each repetition it measures the machine's parallel capacity
// (capacity.go); after the rows, the parking probes of every backend
// (probe.go). The machine's identity comes from package topology
// (machine.go). Run returns a report.Report.
package runner
