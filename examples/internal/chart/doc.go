// Package chart draws the sweep's latency against offered load with
// gonum/plot: p99 of successful requests on a log scale, one line per mode.
// The rejected share is what keeps the blitz line flat under overload, so
// the legend of each mode says how much it refused at the highest load.
//
// The chart is the picture in one image: where inline and ants
// curves turn up, whether the blitz curve stays flat, and (in the legend)
// what the blitz mode refused to stay flat. Points with no successful
// request have no p99 and are left out (a log scale has no zero). The Y
// range keeps a decade of headroom for the legend, and the X ticks are the
// loads that were measured, so the chart never suggests points between
// them.
package chart
