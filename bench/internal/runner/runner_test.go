package runner

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/blitz-go/blitz/bench/internal/workload"
)

// watchdog runs f and fails the test with every goroutine's stack if f does
// not return within d, instead of hanging the test binary.
func watchdog(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		t.Fatalf("no result after %v; goroutines:\n%s", d, buf[:n])
	}
}

// fibCase is a fib row whose op computes fib(10) with f and fails, through
// workload.Fail, when the answer is not 55.
func fibCase(impl string, kind workload.Kind, f func(int) int) workload.Case {
	c := workload.Case{Workload: "fib", Params: "n=10", Impl: impl, Workers: 1, Unit: "ns/join", PerOp: 88, Kind: kind}
	c.Bench = func(b *testing.B) {
		if got := f(10); got != 55 {
			workload.Fail(b, &c, "result %d, want 55", got)
		}
		for b.Loop() {
			f(10)
		}
	}
	return c
}

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

// TestRunFailsOnWrongAnswer checks that a row whose result differs from
// the sequential answer fails the run, names itself, is not run again and
// is not dropped from the report silently, while the other rows run every
// repetition.
func TestRunFailsOnWrongAnswer(t *testing.T) {
	restore, err := setBenchtime("1x")
	require.NoError(t, err)
	defer restore()
	good := fibCase("seq", workload.KindSeq, fib)
	broken := fibCase("broken", workload.KindPeer, func(n int) int { return fib(n) + 1 })
	var progress bytes.Buffer
	opts := Options{Count: 2, Parkings: []string{"auto"}, Workers: []int{1}, Progress: &progress}
	watchdog(t, time.Minute, func() {
		rep, err := runCases(opts, workload.QuickSizes(), []workload.Case{good, broken})
		require.Error(t, err, "a wrong answer did not fail the run")
		assert.Contains(t, err.Error(), "impl=broken")
		assert.Contains(t, err.Error(), "result 56, want 55")
		require.Len(t, rep.Results, 2)
		assert.Len(t, rep.Results[0].NsPerOp, 2, "the good row must run every repetition")
		assert.Empty(t, rep.Results[0].Err)
		assert.Equal(t, "result 56, want 55", rep.Results[1].Err)
		assert.Empty(t, rep.Results[1].NsPerOp)
	})
	assert.Contains(t, progress.String(), "FAILED: result 56, want 55")
	assert.Contains(t, progress.String(), "skipped (failed before)")
}

// TestRunTimedOutRow: a row that times out (workload.TimedOut) is reported
// as timed out, not failed, is not run again, does not fail the run; the
// row's extra metrics are kept by unit.
func TestRunTimedOutRow(t *testing.T) {
	restore, err := setBenchtime("1x")
	require.NoError(t, err)
	defer restore()
	hung := workload.Case{Workload: workload.BlockingWait, Params: "shape=chain/tasks=2", Impl: "blitz-go", Workers: 1, Kind: workload.KindBlitz}
	hung.Bench = func(b *testing.B) {
		for b.Loop() {
			workload.TimedOut(b, &hung, "an op passed its deadline")
		}
	}
	runs := 0
	extra := workload.Case{Workload: workload.BlockingServer, Params: "load=50", Impl: "go", Workers: 1, Unit: workload.MetricP99, Kind: workload.KindPeer}
	extra.Bench = func(b *testing.B) {
		runs++
		for b.Loop() {
		}
		b.ReportMetric(float64(runs), workload.MetricP99)
		b.ReportMetric(100, workload.MetricServed)
	}
	var progress bytes.Buffer
	opts := Options{Count: 2, Parkings: []string{"auto"}, Workers: []int{1}, Progress: &progress}
	watchdog(t, time.Minute, func() {
		rep, err := runCases(opts, workload.QuickSizes(), []workload.Case{hung, extra})
		require.NoError(t, err, "a timed-out row does not fail the run")
		require.Len(t, rep.Results, 2)
		assert.Equal(t, "an op passed its deadline", rep.Results[0].TimedOut)
		assert.Empty(t, rep.Results[0].Err)
		assert.Empty(t, rep.Results[0].NsPerOp)
		assert.Equal(t, []float64{1, 2}, rep.Results[1].Metric)
		assert.Equal(t, map[string][]float64{workload.MetricServed: {100, 100}}, rep.Results[1].Extra)
	})
	assert.Contains(t, progress.String(), "TIMED OUT: an op passed its deadline")
	assert.Contains(t, progress.String(), "skipped (timed out before)")
}

// TestRunRejects: options that cannot run return no report.
func TestRunRejects(t *testing.T) {
	for _, tc := range []struct {
		opts Options
		msg  string
	}{
		{Options{Count: 0, Workers: []int{1}, Quick: true}, "count must be at least 1"},
		{Options{Count: 1, Quick: true}, "no worker counts"},
		{Options{Count: 1, Workers: []int{0}, Quick: true}, "worker count must be at least 1"},
		{Options{Count: 1, Workers: []int{1}, Quick: true, Only: regexp.MustCompile("NoSuchBenchmark")}, "no benchmark matches"},
		{Options{Count: 1, Workers: []int{1}, Quick: true, Benchtime: "soon"}, `bad -benchtime "soon"`},
	} {
		rep, err := Run(tc.opts)
		assert.Nil(t, rep, tc.msg)
		require.Error(t, err, tc.msg)
		assert.Contains(t, err.Error(), tc.msg)
	}
}

// TestRunQuick runs a few rows of every kind at quick sizes, twice, with
// the raw output and the probes: every row measured every repetition, the
// raw file in go test format, a probe per backend, no goroutine left.
func TestRunQuick(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var raw, progress bytes.Buffer
	opts := Options{
		Count: 2, Quick: true, Parkings: []string{"auto", "cond"}, Workers: []int{1}, Probes: true,
		Only: regexp.MustCompile(`^Benchmark(ForkJoin/depth=4|Submit)/`), Raw: &raw, Progress: &progress,
		Command: "cd bench && go run . -quick", Commit: "0123456789ab",
	}
	var err error
	watchdog(t, 2*time.Minute, func() {
		rep, runErr := Run(opts)
		err = runErr
		require.NotNil(t, rep)
		assert.Equal(t, "0123456789ab", rep.Machine.Commit)
		assert.Equal(t, "portable", rep.Resolved["auto"])
		assert.Equal(t, "cond", rep.Resolved["cond"])
		require.NotEmpty(t, rep.Results)
		for _, res := range rep.Results {
			assert.Regexp(t, `^Benchmark(ForkJoin|Submit)/`, res.Case.FullName())
			assert.Len(t, res.NsPerOp, 2, res.Case.FullName())
			assert.Len(t, res.Allocs, 2, res.Case.FullName())
			if res.Case.Workload == "fork-join" && res.Case.Kind != workload.KindSeq {
				assert.Len(t, res.XSeq, 2, "%s reports no x-seq", res.Case.FullName())
			}
		}
		assert.Empty(t, rep.Capacity, "a one-worker run has no capacity to measure")
		require.Len(t, rep.Probes, 2)
		for _, pr := range rep.Probes {
			assert.Empty(t, pr.Err, pr.Parking)
			assert.Len(t, pr.WakeParkedNs, quickProbeSizes().wakes, pr.Parking)
			assert.Len(t, pr.WakeYieldNs, quickProbeSizes().wakes, pr.Parking)
		}
		assert.Equal(t, 2*len(rep.Results), strings.Count(raw.String(), " ns/op"))
		assert.Contains(t, raw.String(), "\ncommit: 0123456789ab\n")
		assert.Contains(t, raw.String(), "\nparking: auto (= portable), cond\n")
	})
	require.NoError(t, err)
	// Progress: every measured row once, with the count and the time left.
	lines := regexp.MustCompile(`(?m)^\[(\d+)/(\d+) +\d+% \S+ left\] `).FindAllStringSubmatch(progress.String(), -1)
	require.NotEmpty(t, lines)
	assert.Equal(t, lines[len(lines)-1][1], lines[len(lines)-1][2])
	assert.Contains(t, progress.String(), "probe: parking cond, 1 workers")
}

func TestFilter(t *testing.T) {
	cases := workload.Suite(workload.Config{Sizes: workload.QuickSizes(), Parkings: []string{"auto"}, Workers: []int{1}})
	assert.Equal(t, cases, filter(cases, nil))
	got := filter(cases, regexp.MustCompile(`^BenchmarkSearch/op=any-full/`))
	require.NotEmpty(t, got)
	for _, c := range got {
		assert.Equal(t, "search", c.Workload)
		assert.True(t, strings.HasPrefix(c.Params, "op=any-full/"), c.Params)
	}
}

func TestProgress(t *testing.T) {
	var buf bytes.Buffer
	p := progress{w: &buf, total: 4, start: time.Now()}
	for i := 0; i < 4; i++ {
		p.step("BenchmarkX/impl=seq/workers=1", "1.00µs/op")
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 4)
	assert.True(t, strings.HasPrefix(lines[0], "[1/4  25% "), lines[0])
	assert.True(t, strings.HasPrefix(lines[3], "[4/4 100% 0s left]"), lines[3])
}

func TestMachine(t *testing.T) {
	m := detectMachine("")
	if m.NumCPU < 1 || m.GOMAXPROCS < 1 || m.CPUModel == "" || m.GoVersion == "" || m.Kernel == "" || m.Commit == "" {
		t.Errorf("incomplete machine description: %+v", m)
	}
	if m.Features == nil || m.Caches == nil {
		t.Errorf("nil lists would be null in JSON: %+v", m)
	}
	if got := detectMachine("abc").Commit; got != "abc" {
		t.Errorf("a stamped commit became %q", got)
	}
}

func TestParallelCapacity(t *testing.T) {
	if got := spinWork(0); got != 88172645463325252 {
		t.Errorf("spinWork(0) = %d, want the seed", got)
	}
	if spinWork(10) == spinWork(11) {
		t.Error("spinWork does not depend on its work")
	}
	// No timing threshold: the probe must return a finite positive ratio
	// and leave GOMAXPROCS as it found it.
	before := runtime.GOMAXPROCS(0)
	if c := parallelCapacity(2); !(c > 0) || math.IsInf(c, 0) {
		t.Errorf("parallelCapacity(2) = %v, want a positive finite ratio", c)
	}
	if after := runtime.GOMAXPROCS(0); after != before {
		t.Errorf("GOMAXPROCS %d after the probe, %d before", after, before)
	}
}

func TestProbeUnavailable(t *testing.T) {
	pr := runProbe("condvar", 1, quickProbeSizes())
	assert.Contains(t, pr.Err, "unknown parking backend")
	assert.Empty(t, pr.WakeParkedNs)
}

func TestFmtNs(t *testing.T) {
	for ns, want := range map[float64]string{12.34: "12.3ns", 1234: "1.23µs", 1.5e6: "1.50ms", 2.5e9: "2.50s"} {
		assert.Equal(t, want, fmtNs(ns), fmt.Sprint(ns))
	}
}
