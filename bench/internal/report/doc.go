// Package report is the benchmark report: a finished run of the suite
// (Report: every repetition of every row, the machine it ran on, the
// parking probes), its text and Markdown renderings, its JSON form, and
// Compare, which puts two JSON reports side by side and draws them
// (WriteCharts).
//
// The report opens with the verdict (the pool's targets, each goal with
// the value measured), then Blitz's table beside Blitz's published
// figures (labelled with their machine and worker count), every
// workload's table, the scaling table, and the futex vs condvar section,
// or, in a run without both backends, one line saying how to get it.
//
// One convention holds in every table: a ratio is a speedup over the
// baseline its column names, the baseline's time over the row's, so above
// 1 is faster than the baseline and below 1 slower. Times are medians of
// the repetitions and ± their 95% confidence interval, both from
// golang.org/x/perf/benchmath as benchstat computes them.
package report
