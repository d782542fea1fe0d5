package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/blitz-go/blitz/bench/internal/workload"
)

// blockingReport is a run of the blocking section alone, with round
// figures: a sleep batch where go-wg takes 20 ms, blitz-go 22 ms (within
// 1.2x) and blitz-group 40 ms (not); a chain where the pool timed out; the
// server at 50% and 95% load, where the pool's p99 beats the best peer at
// 50% only and its fork variant at 95% serves 99%.
func blockingReport() *Report {
	r := syntheticReport([]string{"auto"}, map[string]string{"auto": "portable"})
	r.Results = nil
	add := func(wl, params, impl string, kind workload.Kind, ns float64) *Result {
		parking := ""
		if kind == workload.KindBlitz {
			parking = "auto"
		}
		c := workload.Case{Workload: wl, Params: params, Impl: impl, Workers: 2, Parking: parking, Unit: "ns/task", PerOp: 200, Kind: kind}
		res := &Result{Case: c}
		if ns > 0 {
			res.NsPerOp, res.Allocs = reps(ns), reps(200)
		}
		r.Results = append(r.Results, res)
		return res
	}
	const sleep = "tasks=200/sleep=20ms"
	add(workload.BlockingSleep, sleep, "go-wg", workload.KindPeer, 20e6)
	add(workload.BlockingSleep, sleep, "errgroup", workload.KindPeer, 25e6)
	add(workload.BlockingSleep, sleep, "blitz-group", workload.KindBlitz, 40e6)
	add(workload.BlockingSleep, sleep, "blitz-go", workload.KindBlitz, 22e6)
	const chain = "shape=chain/tasks=1000"
	add(workload.BlockingWait, chain, "go-wg", workload.KindPeer, 3e6)
	add(workload.BlockingWait, chain, "blitz-go", workload.KindBlitz, 0).TimedOut = "an op passed its deadline of 5s (2 of 1000 tasks done then; stopped)"

	server := func(load, impl string, kind workload.Kind, p99, served float64) {
		res := add(workload.BlockingServer, "load="+load, impl, kind, 1.5e9)
		res.Case.Unit, res.Case.PerOp = workload.MetricP99, 0
		res.Metric = reps(p99)
		res.Extra = map[string][]float64{
			workload.MetricP50: reps(p99 / 4), workload.MetricP999: reps(p99 * 2), workload.MetricServed: {served, served, served, served, served, served},
			workload.MetricDone: reps(4000), workload.MetricOffered: reps(5000), workload.MetricLag: reps(1e5),
		}
	}
	server("50", "inline", workload.KindPeer, 4e6, 100)
	server("50", "go", workload.KindPeer, 5e6, 100)
	server("50", "blitz", workload.KindBlitz, 3e6, 100)
	server("95", "inline", workload.KindPeer, 8e6, 100)
	server("95", "blitz", workload.KindBlitz, 10e6, 100)
	server("95", "blitz-fork-group", workload.KindBlitz, 11e6, 99)
	return r
}

func TestBlockingSection(t *testing.T) {
	txt, md := render(t, blockingReport())
	for _, title := range []string{"== blocking: blocking-sleep tasks=200/sleep=20ms", "== blocking: blocking-wait shape=chain/tasks=1000",
		"== blocking: server under open-loop load at 2 workers", "== blocking: server p99 by load, side by side"} {
		assert.Contains(t, txt, title)
	}
	// The batches: speedups over go-wg, the baseline.
	assert.Equal(t, "0.50x", row(t, md, "blitz-group", "2")[7])
	assert.Equal(t, "0.91x", row(t, md, "blitz-go", "2")[7])
	assert.Equal(t, []string{"blitz-go", "2", "TIMED OUT"}, row(t, md, "blitz-go", "2", "TIMED OUT"))
	assert.Contains(t, md, "\nblitz-go timed out: an op passed its deadline of 5s (2 of 1000 tasks done then; stopped).  \n")
	// The server: p99 speedup over the best peer at its load (inline, 4 ms at 50%).
	assert.Equal(t, []string{"50%", "5000", "blitz", "750.00µs", "3.00ms", "±2%", "6.00ms", "100%", "4000", "100.00µs", "1.33x", "6"}, row(t, md, "50%", "5000", "blitz"))
	assert.Equal(t, "0.73x", row(t, md, "95%", "5000", "blitz-fork-group")[10])
	// A row serving 99% has its p99.9 among the unserved: a lower bound.
	assert.Equal(t, "≥22.00ms", row(t, md, "95%", "5000", "blitz-fork-group")[6])
	assert.Equal(t, "99.0%", row(t, md, "95%", "5000", "blitz-fork-group")[7])
	assert.Equal(t, []string{"50%", "5000", "4.00ms", "5.00ms", "3.00ms", "-"}, row(t, md, "50%", "5000", "4.00ms"))

	// The verdict.
	verdict := func(what string) []string { return row(t, md, what, "auto") }
	assert.Equal(t, []string{"0.50x", "missed"}, verdict("blocking-sleep tasks=200/sleep=20ms: blitz-group speedup over go-wg")[3:])
	assert.Equal(t, []string{"0.91x", "met"}, verdict("blocking-sleep tasks=200/sleep=20ms: blitz-go speedup over go-wg")[3:])
	assert.Equal(t, []string{"timed out", "missed"}, verdict("blocking-wait shape=chain/tasks=1000: blitz-go speedup over go-wg")[3:])
	assert.Equal(t, []string{"1.33x", "met"}, verdict("server at 50% load: p99 speedup over the best peer (inline)")[3:])
	assert.Equal(t, []string{"0.80x", "missed"}, verdict("server at 95% load: p99 speedup over the best peer (inline)")[3:])
	assert.Equal(t, []string{"at least 0.83x, 100%", "0.91x, 99.0%", "missed"},
		verdict("server at 95% load: blitz-fork-group p99, speedup over blitz (no fork), and served")[2:])
	// The generic workload tables leave the blocking rows to the section.
	assert.NotContains(t, txt, "== blocking-sleep ")
}

func TestBlockingJSONRoundTrip(t *testing.T) {
	r := blockingReport()
	var buf bytes.Buffer
	require.NoError(t, r.WriteJSON(&buf))
	assert.Contains(t, buf.String(), `"timed_out": "an op passed`)
	back, err := readJSON(strings.NewReader(buf.String()))
	require.NoError(t, err)
	require.Len(t, back.Results, len(r.Results))
	for i, res := range back.Results {
		assert.Equal(t, r.Results[i].TimedOut, res.TimedOut, res.Case.FullName())
		assert.Equal(t, r.Results[i].Extra, res.Extra, res.Case.FullName())
	}
	txt, _ := render(t, r)
	txtBack, _ := render(t, back)
	assert.Equal(t, txt, txtBack, "a report reads back from its JSON as it was")
}

// compare matches server rows by their p99, not their time per op (the
// length of a run).
func TestCompareServerRowsByP99(t *testing.T) {
	a, b := blockingReport(), blockingReport()
	for _, res := range b.Results {
		if res.Case.Workload == workload.BlockingServer {
			for i := range res.Metric {
				res.Metric[i] /= 2
			}
		}
	}
	var out bytes.Buffer
	require.NoError(t, Compare(a, b, "a", "b").WriteMarkdown(&out))
	cells := row(t, out.String(), "BenchmarkBlockingServer/load=50/impl=blitz/workers=2 (p99)")
	assert.Equal(t, []string{"3.00ms", "±2%", "1.50ms", "±2%", "2.00x"}, cells[1:6])
	cells = row(t, out.String(), "BenchmarkBlockingSleep/tasks=200/sleep=20ms/impl=go-wg/workers=2")
	assert.Equal(t, "~ 1.00x", cells[5])
}
