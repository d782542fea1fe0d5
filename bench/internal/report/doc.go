// Package report is the benchmark report: a finished run of the suite
// (Report: every repetition of every row, the machine it ran on, the
// parking probes), its text and Markdown renderings, its JSON form, and
// Compare, which puts two JSON reports side by side and draws them
// (WriteCharts).
package report
