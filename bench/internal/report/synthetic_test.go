package report

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/blitz-go/blitz/bench/internal/workload"
)

// The synthetic reports: a few rows with round figures, so the golden files
// (testdata/synthetic-*) show the report's layout and conventions on inputs
// a reader can check by hand, and the assertions below check the
// convention itself: every ratio is the baseline's time over the row's.

// reps are six repetitions whose median is ns and whose 95% confidence
// interval is ±2% (the smallest and largest of six).
func reps(ns float64) []float64 {
	out := make([]float64, 0, 6)
	for _, f := range []float64{0.98, 0.99, 1, 1, 1.01, 1.02} {
		out = append(out, ns*f)
	}
	return out
}

// syntheticReport is a full-size run at 1 and 2 workers with the given
// backends: fib(30) and fib(32), the sum of Blitz's table, and submit.
// Every row of the pool at backend i runs (1 + i/10) times as long as the
// first backend's.
func syntheticReport(parkings []string, resolved map[string]string) *Report {
	s := workload.FullSizes()
	r := &Report{
		Machine: Machine{GOOS: "linux", GOARCH: "amd64", ArchLevel: "GOAMD64=v1", GoVersion: "go1.26.8", Commit: "0123456789ab",
			NumCPU: 2, GOMAXPROCS: 2, Allowed: 2, CPUModel: "Test CPU", Features: []string{"sse2"}, Caches: []string{"L1d 48KiB x2"},
			CacheLine: 64, Packages: 1, Cores: 2, SMT: 1, NUMANodes: 1, Kernel: "linux 6.1"},
		Command: "./bench -workers 1,2 -parking " + strings.Join(parkings, ","), Count: 6, Workers: []int{1, 2}, Parkings: parkings, Sizes: s,
		Started: time.Date(2026, 11, 24, 7, 0, 0, 0, time.UTC), Elapsed: 25 * time.Minute,
		Capacity: []float64{1.8, 1.9, 1.9, 2.0, 2.0, 2.0}, Resolved: resolved,
		PeakRSS: 268_000_000, VCSW: 1000, IVCSW: 200,
	}
	add := func(c workload.Case, ns, allocs float64) {
		res := &Result{Case: c, NsPerOp: reps(ns), Allocs: []float64{allocs, allocs, allocs, allocs, allocs, allocs}}
		for range 6 {
			res.VCSW = append(res.VCSW, 3)
			res.IVCSW = append(res.IVCSW, 1)
		}
		r.Results = append(r.Results, res)
	}
	fib := func(n int, impl string, workers int, kind workload.Kind, parking, pool string) workload.Case {
		joins := map[int]float64{30: 1346268, 32: 3524577}[n]
		return workload.Case{Workload: "fib", Params: fmt.Sprintf("n=%d", n), Impl: impl, Workers: workers, Parking: parking, Pool: pool,
			Unit: "ns/join", PerOp: joins, Kind: kind}
	}
	sum := func(impl string, workers int, kind workload.Kind, parking string) workload.Case {
		return workload.Case{Workload: "sum", Params: fmt.Sprintf("n=%d", s.SumN), Impl: impl, Workers: workers, Parking: parking,
			Unit: "ns/elem", PerOp: float64(s.SumN), Kind: kind}
	}
	submit := func(impl string, workers int, kind workload.Kind, parking string) workload.Case {
		return workload.Case{Workload: "submit", Params: fmt.Sprintf("tasks=%d", s.Tasks), Impl: impl, Workers: workers, Parking: parking,
			Unit: "ns/task", PerOp: float64(s.Tasks), Kind: kind}
	}
	add(fib(30, "seq", 1, workload.KindSeq, "", ""), 4e6, 0)
	add(fib(32, "seq", 1, workload.KindSeq, "", ""), 10e6, 0)
	add(sum("seq", 1, workload.KindSeq, ""), 6e6, 0)
	for _, w := range r.Workers {
		add(fib(30, "goroutine-wg-cutoff", w, workload.KindPeer, "", ""), 8e6/float64(w), 100)
		add(sum("goroutine-chunks", w, workload.KindPeer, ""), 6e6/float64(w), 4)
		add(submit("chan-workers", w, workload.KindPeer, ""), 800e3, 0)
	}
	for i, p := range parkings {
		slow := 1 + float64(i)/10
		for _, w := range r.Workers {
			pools := []string{""}
			if w >= 2 {
				pools = []string{"fresh", workload.PoolWarm}
			}
			for _, pool := range pools {
				add(fib(30, "blitz-args", w, workload.KindBlitz, p, pool), slow*1e7/float64(w), 2)
			}
			add(fib(32, "blitz-args", w, workload.KindBlitz, p, ""), slow*20e6/float64(w), 2)
			add(sum("blitz-sum", w, workload.KindBlitz, p), slow*5e6/float64(w), 3)
			add(submit("blitz", w, workload.KindBlitz, p), slow*700e3, 2)
		}
		r.Probes = append(r.Probes, Probe{Parking: p, Resolved: resolved[p], Workers: 2,
			WakeParkedNs: []float64{1000 * slow, 2000 * slow, 3000 * slow}, WakeYieldNs: []float64{100 * slow, 200 * slow},
			WakeParkedVCSW: 4, WakeYieldVCSW: 1, IdleCPU: 0.001, IdleVCSW: 10, GapCPU: 0.02 * slow, GapVCSW: 5, GapIVCSW: 1})
	}
	return r
}

// render returns the report's text and Markdown.
func render(t *testing.T, r *Report) (txt, md string) {
	t.Helper()
	var tb, mb bytes.Buffer
	require.NoError(t, r.WriteText(&tb))
	require.NoError(t, r.WriteMarkdown(&mb))
	return tb.String(), mb.String()
}

// row returns the cells of the first Markdown table row whose cells start
// with the given ones.
func row(t *testing.T, md string, prefix ...string) []string {
	t.Helper()
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) >= len(prefix) && slicesEqual(cells[:len(prefix)], prefix) {
			return cells
		}
	}
	t.Fatalf("no row starting with %q", prefix)
	return nil
}

func slicesEqual(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") }

// TestSyntheticDefaultRun is a run with the default backend only: no
// futex vs condvar section, one line saying how to get it instead.
func TestSyntheticDefaultRun(t *testing.T) {
	r := syntheticReport([]string{"auto"}, map[string]string{"auto": "portable"})
	txt, md := render(t, r)
	golden(t, "testdata/synthetic-auto.txt", []byte(txt))
	golden(t, "testdata/synthetic-auto.md", []byte(md))

	// The command says how to run the report, whatever binary ran it.
	assert.Contains(t, txt, "\ncommand: cd bench && go run . -workers 1,2 -parking auto\n")
	assert.Contains(t, md, "\n- command: `cd bench && go run . -workers 1,2 -parking auto`\n")
	// The futex vs condvar section is one line, not a table.
	line := "futex vs condvar: not in this run, which parked with auto (= portable) only; `cd bench && go run . -parking all` runs every backend and adds the section"
	assert.Contains(t, txt, "\n"+line+"\n")
	assert.Contains(t, md, "\n"+line+"\n")
	assert.NotContains(t, txt, "== futex vs condvar")
	assert.NotContains(t, md, "## futex vs condvar")
	assert.Equal(t, 1, strings.Count(txt, "futex vs condvar"))

	// Every ratio is the baseline's time over the row's.
	// fib(30): seq 4ms, goroutine-wg-cutoff 8ms at 1 worker and 4ms at 2 (the
	// best peer), blitz-args 10ms and 5ms.
	assert.Equal(t, []string{"seq", "1", "4.00ms", "±2%", "2.97", "0", "1.00x", "-", "6"}, row(t, md, "seq", "1", "4.00ms"))
	assert.Equal(t, []string{"blitz-args", "1", "10.00ms", "±2%", "7.43", "2.00", "0.40x", "0.40x", "6"}, row(t, md, "blitz-args", "1", "10.00ms"))
	assert.Equal(t, []string{"blitz-args", "2", "5.00ms", "±2%", "3.71", "2.00", "0.80x", "0.80x", "6"}, row(t, md, "blitz-args", "2"))
	assert.Equal(t, "blitz-args pool=warm", row(t, md, "blitz-args pool=warm")[0])
	// Scaling: 10ms at 1 worker, 5ms at 2.
	assert.Equal(t, []string{"fib n=30", "blitz-args", "auto", "1 -> 2", "2.00x"}, row(t, md, "fib n=30", "blitz-args", "auto"))
	// Blitz's table: the sum's seq 6ms, best plain Go 3ms, the pool 2.5ms;
	// Blitz's published 7.89 / 1.62 in its labelled column.
	sumRow := row(t, md, "Parallel vs sequential sum (10M)")
	assert.Equal(t, []string{"Parallel vs sequential sum (10M)", "6.00ms", "3.00ms (goroutine-chunks)", "2.00x", "2.50ms", "2.40x", "3.00", "1.00", "4.87x"}, sumRow)
	assert.Contains(t, md, "| Blitz (Zig, 10 workers, Apple M3 Pro): speedup over seq |")
	assert.Contains(t, md, "## Blitz's table (NerdMeNot/blitz BENCHMARKS.md) at 2 workers, beside Blitz (Zig, 10 workers, Apple M3 Pro)")

	// Targets: the goal and the measured value, then met or missed.
	assert.Equal(t, []string{"fib(30) ns/join at 1 worker, JoinArgs", "auto", "at most 15", "7.43", "met"}, row(t, md, "fib(30) ns/join at 1 worker, JoinArgs"))
	assert.Equal(t, []string{"fib(32) speedup at 2 workers over 1 worker", "auto", "at least 1.80x", "2.00x", "met"}, row(t, md, "fib(32) speedup at 2 workers over 1 worker"))
	assert.Equal(t, []string{"submit ns/task at 2 workers", "auto", "at most 80", "70.0", "met"}, row(t, md, "submit ns/task at 2 workers"))
	assert.Equal(t, []string{"submit at 1 worker: speedup over the best peer (chan-workers at 1 worker)", "auto", "at least 2.00x", "1.14x", "missed"},
		row(t, md, "submit at 1 worker: speedup over the best peer (chan-workers at 1 worker)"))
	assert.Equal(t, []string{"fib(30) allocs/join at 1 worker, JoinArgs", "auto", "below 1e-4 (0 but the op's entry into the pool)", "1.5e-06 (2.00 allocs/op)", "met"},
		row(t, md, "fib(30) allocs/join at 1 worker, JoinArgs"))
	for _, bare := range []string{"| NO |", "| yes |", "x-seq", "time ratio"} {
		assert.NotContains(t, md, bare)
	}
}

// TestSyntheticParkingSection is a run with futex and cond: the section
// is there, with every backend, and cond's speedup over futex.
func TestSyntheticParkingSection(t *testing.T) {
	r := syntheticReport([]string{"futex", "cond"}, map[string]string{"futex": "futex", "cond": "cond"})
	txt, md := render(t, r)
	golden(t, "testdata/synthetic-futex-cond.txt", []byte(txt))
	golden(t, "testdata/synthetic-futex-cond.md", []byte(md))

	assert.NotContains(t, txt, "futex vs condvar: not in this run")
	assert.Contains(t, txt, "\n== futex vs condvar: wake latency and idle cost\n")
	assert.Contains(t, txt, "\n== futex vs condvar: throughput per workload at 2 workers\n")
	// cond's rows take 1.1 times futex's: its speedup over futex is 1/1.1.
	assert.Equal(t, []string{"fib n=30", "blitz-args", "5.00ms", "5.50ms", "0.91x"}, row(t, md, "fib n=30", "blitz-args", "5.00ms"))
	assert.Contains(t, md, "| workload | impl | futex | cond | speedup of cond over futex |")
	assert.Equal(t, "futex", row(t, md, "futex", "2")[0])
	assert.Equal(t, "cond", row(t, md, "cond", "2")[0])
}

// TestSyntheticParkingSectionNeedsBoth: a run with several backends but not
// both of futex and cond gets the line, never a section of one backend.
func TestSyntheticParkingSectionNeedsBoth(t *testing.T) {
	for _, tc := range []struct {
		parkings []string
		resolved map[string]string
		want     string
	}{
		{[]string{"futex", "portable"}, map[string]string{"futex": "futex", "portable": "portable"}, "parked with futex, portable only"},
		{[]string{"auto", "cond"}, map[string]string{"auto": "portable", "cond": "cond"}, "parked with auto (= portable), cond only"},
		{[]string{"futex", "cond"}, map[string]string{"futex": "unavailable: needs Linux", "cond": "cond"},
			"parked with futex (unavailable: needs Linux), cond only"},
	} {
		txt, _ := render(t, syntheticReport(tc.parkings, tc.resolved))
		assert.Contains(t, txt, "\nfutex vs condvar: not in this run, which "+tc.want+"; `cd bench && go run . -parking all`", tc.parkings)
		assert.NotContains(t, txt, "== futex vs condvar", tc.parkings)
	}
	// A backend reached through auto counts: a report from when auto was futex.
	txt, _ := render(t, syntheticReport([]string{"auto", "cond"}, map[string]string{"auto": "futex", "cond": "cond"}))
	assert.Contains(t, txt, "== futex vs condvar: throughput per workload")
	assert.Contains(t, txt, "speedup of cond over auto")
}

// TestEveryRatioIsASpeedup: no column or note of any rendering calls a
// ratio anything but a speedup over a named baseline.
func TestEveryRatioIsASpeedup(t *testing.T) {
	r := syntheticReport([]string{"futex", "cond"}, map[string]string{"futex": "futex", "cond": "cond"})
	_, md := render(t, r)
	var cmp bytes.Buffer
	require.NoError(t, Compare(r, r, "A", "B").WriteMarkdown(&cmp))
	ratioHeader := regexp.MustCompile(`(?i)\b(x-seq|vs best peer|/ ?futex|B/A|time / ours|over the first)\b`)
	for _, out := range []string{md, cmp.String()} {
		for _, line := range strings.Split(out, "\n") {
			assert.NotRegexp(t, ratioHeader, line)
		}
	}
	// Every header cell holding ratios names its baseline.
	for _, line := range strings.Split(md+cmp.String(), "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| ---") {
			continue
		}
		for _, cell := range strings.Split(strings.Trim(line, "| "), " | ") {
			if strings.Contains(cell, "speedup") && !strings.Contains(cell, " over ") {
				t.Errorf("header %q names no baseline", cell)
			}
		}
	}
}

func TestHowToRun(t *testing.T) {
	for in, want := range map[string]string{
		"":                                       "",
		"cd bench && go run . -quick":            "cd bench && go run . -quick",
		"go run . -quick -count 3":               "cd bench && go run . -quick -count 3",
		"./bench -quick -only 'Fib|Submit'":      "cd bench && go run . -quick -only 'Fib|Submit'",
		"./blitz-bench-linux-arm64 -parking all": "cd bench && go run . -parking all",
		"./bench":                                "cd bench && go run .",
		"go run .":                               "cd bench && go run .",
	} {
		assert.Equal(t, want, howToRun(in), in)
	}
}

func TestFormats(t *testing.T) {
	for v, want := range map[float64]string{2: "2.00x", 0.5: "0.50x", 133.4: "133x", 0.0041: "0.0041x", 0: "0.00x"} {
		assert.Equal(t, want, fmtRatio(v), v)
	}
	for ns, want := range map[float64]string{12.34: "12.3ns", 1234: "1.23µs", 1.5e6: "1.50ms", 2.5e9: "2.50s"} {
		assert.Equal(t, want, fmtNs(ns), ns)
	}
	assert.Equal(t, "±2%", fmtCI(reps(1000)))
	assert.Equal(t, "±∞", fmtCI(reps(1000)[:5]), "95% needs six repetitions")
	assert.Equal(t, "-", fmtCI(nil))
	assert.InDelta(t, 1000, median(reps(1000)), 1e-9)
	assert.Equal(t, "268.0 MB", fmtBytesSI(268_000_000))
	assert.Equal(t, "1 worker", fmtWorkers(1))
	assert.Equal(t, "4 workers", fmtWorkers(4))
}
