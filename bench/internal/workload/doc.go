// Package workload is the benchmark suite's rows: each workload (fib,
// tree-sum, fork-join, quicksort, sum, sort-f64, search, by-key,
// chunks-sum, enumerate, chain-sum, zip-dot, flatten-sum, submit; the
// blocking section's blocking-sleep and blocking-wait in blocking.go,
// blocking-server in server.go) with all
// its implementations in one file (fib.go, tree.go, ...): the sequential
// baseline, the peers Go users run today and the pool's. Suite turns a
// Config into Cases; each Case's Bench is a func(*testing.B) that checks
// its answer against the sequential one before it times anything, and
// fails through Fail, so a fast wrong row never prints a figure.
//
// The same Cases run as sub-benchmarks of the Benchmark functions of the
// bench command's tests (go test -bench) and through testing.Benchmark in
// its report (package runner). BlitzRows maps the rows of Blitz's
// published table onto them.
package workload
