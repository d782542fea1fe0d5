package main

import (
	"bytes"
	"encoding/json"
	"flag"
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
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata from the recorded reports")

// The recorded inputs: two JSON reports of the same quick run, one from
// this amd64 machine and one from an arm64 build under qemu-aarch64 (see
// testdata/README).
const (
	recordedA = "testdata/report-amd64.json"
	recordedB = "testdata/report-arm64.json"
)

// golden compares got with the golden file, or rewrites it under -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -run %s -update to create it", t.Name())
	assert.Equal(t, string(want), string(got), "%s differs; if the change is intended, run go test -run %s -update", path, t.Name())
}

// TestGoldenReport renders a recorded JSON report as text and Markdown.
func TestGoldenReport(t *testing.T) {
	for _, path := range []string{recordedA, recordedB} {
		rep, err := readJSONFile(path)
		require.NoError(t, err)
		var txt, md bytes.Buffer
		require.NoError(t, rep.WriteText(&txt))
		require.NoError(t, rep.WriteMarkdown(&md))
		base := strings.TrimSuffix(path, ".json")
		golden(t, base+".txt", txt.Bytes())
		golden(t, base+".md", md.Bytes())

		// The verdict comes first, then Blitz's table.
		titles := regexp.MustCompile(`(?m)^== (.*)$`).FindAllStringSubmatch(txt.String(), -1)
		require.GreaterOrEqual(t, len(titles), 3)
		assert.Equal(t, "verdict: targets met and missed", titles[0][1])
		assert.True(t, strings.HasPrefix(titles[1][1], "Blitz's table"), titles[1][1])
		assert.Contains(t, txt.String(), "futex vs condvar: wake latency and idle cost")
		assert.Contains(t, txt.String(), "futex vs condvar: throughput per workload")
	}
}

// TestJSONSchema: a recorded report reads back and writes out byte for
// byte, so the schema is stable, and carries the whole machine identity.
func TestJSONSchema(t *testing.T) {
	for _, path := range []string{recordedA, recordedB} {
		raw, err := os.ReadFile(path)
		require.NoError(t, err)
		rep, err := ReadJSON(bytes.NewReader(raw))
		require.NoError(t, err)
		var out bytes.Buffer
		require.NoError(t, rep.WriteJSON(&out))
		assert.Equal(t, string(raw), out.String(), "%s does not round-trip", path)

		var doc map[string]any
		require.NoError(t, json.Unmarshal(raw, &doc))
		assert.Equal(t, jsonSchema, doc["schema"])
		m, ok := doc["machine"].(map[string]any)
		require.True(t, ok)
		for _, key := range []string{"goos", "goarch", "arch_level", "go_version", "commit", "num_cpu", "allowed_cpus", "cpu_model",
			"features", "caches", "cores", "smt", "numa_nodes", "kernel"} {
			assert.Contains(t, m, key, "%s: machine lacks %s", path, key)
		}
		for _, key := range []string{"workers", "parkings", "parking_resolved", "rows", "probes", "capacity", "peak_rss_bytes"} {
			assert.Contains(t, doc, key, "%s lacks %s", path, key)
		}
	}
}

func TestReadJSONRejects(t *testing.T) {
	raw, err := os.ReadFile(recordedA)
	require.NoError(t, err)
	for _, tc := range []struct{ old, new, msg string }{
		{`"schema": "blitz-bench/1"`, `"schema": "blitz-bench/0"`, "schema"},
		{`"kind": "seq"`, `"kind": "sequential"`, "unknown kind"},
		{`"impl": "seq"`, `"impl": "other"`, "does not match"},
		{`"count":`, `"counts":`, "unknown field"},
	} {
		bad := strings.Replace(string(raw), tc.old, tc.new, 1)
		require.NotEqual(t, string(raw), bad, "the recorded report lacks %s", tc.old)
		_, err := ReadJSON(strings.NewReader(bad))
		require.Error(t, err, tc.new)
		assert.Contains(t, err.Error(), tc.msg)
	}
}

// TestGoldenCompare compares the two recorded reports and draws the charts.
func TestGoldenCompare(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run([]string{"compare", "-charts", dir, recordedA, recordedB}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	golden(t, "testdata/compare.txt", stdout.Bytes())
	for _, name := range []string{"speedup.png", "wake.png"} {
		f, err := os.Open(filepath.Join(dir, name))
		require.NoError(t, err)
		cfg, err := png.DecodeConfig(f)
		f.Close()
		require.NoError(t, err, name)
		assert.Greater(t, cfg.Width, 100, name)
	}
	a, err := readJSONFile(recordedA)
	require.NoError(t, err)
	b, err := readJSONFile(recordedB)
	require.NoError(t, err)
	cmp := Compare(a, b, "amd64", "arm64")
	require.NotEmpty(t, cmp.Rows)
	for _, r := range cmp.Rows {
		assert.Equal(t, r.A.Case.FullName(), r.B.Case.FullName())
		assert.InDelta(t, median(r.B.NsPerOp)/median(r.A.NsPerOp), r.Ratio, 1e-12)
		assert.Equal(t, r.Cmp.P < r.Cmp.Alpha, r.Significant)
	}

	for _, args := range [][]string{{"compare", recordedA}, {"compare", recordedA, "testdata/missing.json"}} {
		stderr.Reset()
		assert.Equal(t, 2, run(args, &stdout, &stderr), args)
		assert.NotEmpty(t, stderr.String())
	}
}

// TestSuiteRuns is the seconds-long run of the whole suite: every row at
// quick sizes, twice, with every backend this system has, the probes
// included. Every row checks its answer against the sequential one; the
// JSON must hold every row with two measurements and a probe per backend.
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
	want := Suite(Config{Sizes: QuickSizes(), Parkings: parkings, Workers: ws})
	rep, err := readJSONFile(js)
	require.NoError(t, err)
	require.Len(t, rep.Results, len(want))
	for i, res := range rep.Results {
		assert.Equal(t, want[i].FullName(), res.Case.FullName())
		assert.Empty(t, res.Err, res.Case.FullName())
		assert.Len(t, res.NsPerOp, 2, res.Case.FullName())
	}
	require.Len(t, rep.Probes, len(parkings))
	for _, pr := range rep.Probes {
		assert.Empty(t, pr.Err, pr.Parking)
		assert.Len(t, pr.WakeParkedNs, quickProbeSizes().wakes, pr.Parking)
		assert.Len(t, pr.WakeYieldNs, quickProbeSizes().wakes, pr.Parking)
	}
	// Every row of Blitz's table is in the report.
	out := stdout.String()
	for _, br := range blitzTableRows(QuickSizes()) {
		assert.Contains(t, out, br.label)
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
	assert.Equal(t, 2*len(want), strings.Count(string(rawText), " ns/op"))
	mdText, err := os.ReadFile(md)
	require.NoError(t, err)
	assert.Contains(t, string(mdText), "## verdict: targets met and missed")
}

// TestReportFailsOnWrongAnswer checks that a row whose result differs from
// the sequential answer fails the run, names itself, and is not dropped
// from the table silently.
func TestReportFailsOnWrongAnswer(t *testing.T) {
	restore, err := setBenchtime("1x")
	require.NoError(t, err)
	defer restore()
	broken := fibRow(fibCase(10, "broken", 1, KindPeer), 10, func(n int) int { return fib(n) + 1 })
	good := fibRow(fibCase(10, "seq", 1, KindSeq), 10, fib)
	var rep *Report
	watchdog(t, time.Minute, func() {
		rep, err = runCases(Options{Count: 2, Parkings: []string{"auto"}, Workers: []int{1}}, QuickSizes(), []Case{good, broken})
	})
	require.Error(t, err, "a wrong answer did not fail the run")
	assert.Contains(t, err.Error(), "impl=broken")
	assert.Contains(t, err.Error(), "want 55")
	var out bytes.Buffer
	require.NoError(t, rep.WriteText(&out))
	assert.Contains(t, out.String(), "FAILED: result 56, want 55")
	assert.Len(t, rep.Results[0].NsPerOp, 2, "the good row must run every repetition")
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
