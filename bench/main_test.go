package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/blitz-go/blitz/bench/internal/report"
	"github.com/blitz-go/blitz/bench/internal/workload"
)

// The recorded JSON reports of package report's tests, for compare.
const (
	recordedA = "internal/report/testdata/report-amd64.json"
	recordedB = "internal/report/testdata/report-arm64.json"
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

// TestSuiteRuns is the seconds-long run of the whole suite through the
// command: every row at quick sizes, twice, with every backend this system
// has, the probes included. Every row checks its answer against the
// sequential one; the JSON must hold every row with two measurements and a
// probe per backend, the report every section.
func TestSuiteRuns(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	parking := "all"
	if runtime.GOOS != "linux" {
		parking = "portable,spin,cond" // futex parking is Linux-only
	}
	workers, ws := "1", []int{1}
	if runtime.NumCPU() >= 2 {
		workers, ws = "1,2", []int{1, 2}
	}
	dir := t.TempDir()
	js, raw, md := filepath.Join(dir, "r.json"), filepath.Join(dir, "raw.txt"), filepath.Join(dir, "r.md")
	var stdout, stderr bytes.Buffer
	code := -1
	watchdog(t, 4*time.Minute, func() {
		code = run([]string{"-quick", "-count", "2", "-workers", workers, "-parking", parking, "-json", js, "-raw", raw, "-out", md}, &stdout, &stderr)
	})
	require.Equal(t, 0, code, "stderr:\n%s", stderr.String())

	parkings, err := parseParking(parking)
	require.NoError(t, err)
	want := workload.Suite(workload.Config{Sizes: workload.QuickSizes(), Parkings: parkings, Workers: ws})
	rep, err := report.ReadJSONFile(js)
	require.NoError(t, err)
	require.Len(t, rep.Results, len(want))
	measured := 0
	for i, res := range rep.Results {
		assert.Equal(t, want[i].FullName(), res.Case.FullName())
		assert.Empty(t, res.Err, res.Case.FullName())
		measured += len(res.NsPerOp)
		if res.TimedOut != "" {
			// Only the pool's blocking rows may pass their guard's
			// deadline, until it replaces blocked workers (issue 32),
			// in the first repetition or (on a busy machine) the second.
			assert.True(t, workload.IsBlocking(res.Case.Workload) && res.Case.Kind == workload.KindBlitz, res.Case.FullName())
			assert.LessOrEqual(t, len(res.NsPerOp), 1, res.Case.FullName())
			continue
		}
		assert.Len(t, res.NsPerOp, 2, res.Case.FullName())
	}
	require.Len(t, rep.Probes, len(parkings))
	for _, pr := range rep.Probes {
		assert.Empty(t, pr.Err, pr.Parking)
		assert.NotEmpty(t, pr.WakeParkedNs, pr.Parking)
	}
	assert.True(t, strings.HasPrefix(rep.Command, "cd bench && go run . -quick -count 2 "), rep.Command)

	out := stdout.String()
	assert.Contains(t, out, "\ncommand: cd bench && go run . -quick -count 2 ")
	for _, br := range workload.BlitzRows(workload.QuickSizes()) {
		assert.Contains(t, out, br.Label)
	}
	for _, section := range []string{"== verdict: ", "== Blitz's table ", "== scaling: ", "== futex vs condvar: wake latency", "== futex vs condvar: throughput",
		"== blocking: blocking-sleep ", "== blocking: blocking-wait shape=chain", "== blocking: server under open-loop load", "== blocking: server p99 by load"} {
		assert.Contains(t, out, section)
	}
	assert.Contains(t, out, "Peak Memory")
	// Progress: every measured row once, with the count and the time left.
	lines := regexp.MustCompile(`(?m)^\[(\d+)/(\d+) +\d+% \S+ left\] `).FindAllStringSubmatch(stderr.String(), -1)
	require.Len(t, lines, 2*len(want))
	assert.Equal(t, lines[len(lines)-1][1], lines[len(lines)-1][2])
	// The raw file is benchstat's input: the identity, then two lines a row.
	rawText, err := os.ReadFile(raw)
	require.NoError(t, err)
	for _, key := range []string{"goarch: ", "cpu: ", "commit: ", "kernel: ", "go-version: ", "parking: ", "numa-nodes: "} {
		assert.Contains(t, string(rawText), "\n"+key)
	}
	assert.Equal(t, measured, strings.Count(string(rawText), " ns/op"))
	mdText, err := os.ReadFile(md)
	require.NoError(t, err)
	assert.Contains(t, string(mdText), "## verdict: ")
}

// TestDefaultRunLacksParkingSection: a run with the default backend alone
// replaces the futex vs condvar section by one line saying how to get it.
func TestDefaultRunLacksParkingSection(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := -1
	watchdog(t, 2*time.Minute, func() {
		code = run([]string{"-quick", "-count", "1", "-q", "-workers", "1", "-only", "ForkJoin/depth=4/"}, &stdout, &stderr)
	})
	require.Equal(t, 0, code, "stderr:\n%s", stderr.String())
	out := stdout.String()
	assert.NotContains(t, out, "== futex vs condvar")
	assert.Contains(t, out, "\nfutex vs condvar: not in this run, which parked with auto (= portable) only; `cd bench && go run . -parking all` runs every backend and adds the section\n")
	assert.Empty(t, stderr.String(), "-q prints no progress")
}

// TestCompareCommand compares the two recorded reports through the
// command and checks the charts; package report's tests check the tables.
func TestCompareCommand(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run([]string{"compare", "-charts", dir, recordedA, recordedB}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	assert.Contains(t, stdout.String(), "== compare: report-amd64 (A) vs report-arm64 (B)")
	for _, name := range []string{"speedup.png", "wake.png"} {
		f, err := os.Open(filepath.Join(dir, name))
		require.NoError(t, err)
		cfg, err := png.DecodeConfig(f)
		f.Close()
		require.NoError(t, err, name)
		assert.Greater(t, cfg.Width, 100, name)
	}
	stdout.Reset()
	require.Equal(t, 0, run([]string{"compare", "-md", "-a", "x86", "-b", "arm", recordedA, recordedB}, &stdout, &stderr))
	assert.Contains(t, stdout.String(), "## compare: x86 (A) vs arm (B)")

	for _, args := range [][]string{{"compare", recordedA}, {"compare", recordedA, "testdata/missing.json"}, {"compare", "-nosuchflag"}} {
		stderr.Reset()
		assert.Equal(t, 2, run(args, &stdout, &stderr), args)
		assert.NotEmpty(t, stderr.String())
	}
}

// TestBadFlags checks that bad flags get a clear message and exit status 2.
func TestBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-parking", "condvar"}, `bad -parking "condvar"`},
		{[]string{"-parking", "cond,cond"}, "cond named twice"},
		{[]string{"-workers", "2,1"}, "counts must increase"},
		{[]string{"-workers", "0"}, "positive integers"},
		{[]string{"-workers", "x"}, "positive integers"},
		{[]string{"-workers", "1,100000"}, "more than the"},
		{[]string{"-only", "("}, "bad -only pattern"},
		{[]string{"-only", "NoSuchBenchmark", "-quick"}, "no benchmark matches"},
		{[]string{"-count", "0", "-quick"}, "count must be at least 1"},
		{[]string{"-benchtime", "soon", "-quick", "-workers", "1"}, `bad -benchtime "soon"`},
		{[]string{"extra"}, "unexpected arguments"},
	} {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, 2, run(tc.args, &stdout, &stderr), tc.args)
		assert.Contains(t, stderr.String(), tc.msg, tc.args)
	}
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 0, run([]string{"-h"}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "usage: cd bench && go run . [flags]")
}

func TestParseParkingAndWorkers(t *testing.T) {
	ps, err := parseParking("all")
	require.NoError(t, err)
	assert.Equal(t, []string{"auto", "futex", "portable", "spin", "cond"}, ps)
	ps, err = parseParking("futex, cond")
	require.NoError(t, err)
	assert.Equal(t, []string{"futex", "cond"}, ps)

	ws, err := parseWorkers(defaultWorkers())
	require.NoError(t, err)
	assert.Equal(t, 1, ws[0])
	assert.Equal(t, min(runtime.NumCPU(), 2), ws[min(1, len(ws)-1)])
	assert.Equal(t, runtime.NumCPU(), slices.Max(ws))
}

func TestCommandLine(t *testing.T) {
	got := commandLine([]string{"-count", "5", "-only", "Fib/n=30/|Submit", "-out", "it's.md", ""})
	want := `cd bench && go run . -count 5 -only 'Fib/n=30/|Submit' -out 'it'\''s.md' ''`
	assert.Equal(t, want, got)
	assert.Equal(t, "cd bench && go run .", commandLine(nil))
}
