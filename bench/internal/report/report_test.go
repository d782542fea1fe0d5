package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata from the recorded and synthetic reports")

// The recorded inputs: two JSON reports of the same quick run, one from
// this amd64 machine and one from an arm64 build under qemu-aarch64 (see
// testdata/README).
const (
	recordedA = "testdata/report-amd64.json"
	recordedB = "testdata/report-arm64.json"
)

// golden compares got with the golden file, or rewrites it under -update:
// go test -run 'Golden|Synthetic' -update ./internal/report.
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
		rep, err := ReadJSONFile(path)
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
		assert.Equal(t, "verdict: the pool's targets, met or missed", titles[0][1])
		assert.True(t, strings.HasPrefix(titles[1][1], "Blitz's table"), titles[1][1])
		// The recorded runs were a built binary: the report says how to run it.
		assert.Contains(t, txt.String(), "\ncommand: cd bench && go run . -quick -count 3 ")
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
		rep, err := readJSON(bytes.NewReader(raw))
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
		_, err := readJSON(strings.NewReader(bad))
		require.Error(t, err, tc.new)
		assert.Contains(t, err.Error(), tc.msg)
	}
}

// TestGoldenCompare compares the two recorded reports and draws the charts.
func TestGoldenCompare(t *testing.T) {
	a, err := ReadJSONFile(recordedA)
	require.NoError(t, err)
	b, err := ReadJSONFile(recordedB)
	require.NoError(t, err)
	cmp := Compare(a, b, "report-amd64", "report-arm64")
	var out bytes.Buffer
	require.NoError(t, cmp.WriteText(&out))
	golden(t, "testdata/compare.txt", out.Bytes())
	require.NotEmpty(t, cmp.rows)
	for _, r := range cmp.rows {
		assert.Equal(t, r.a.Case.FullName(), r.b.Case.FullName())
		assert.InDelta(t, median(r.a.NsPerOp)/median(r.b.NsPerOp), r.speedup, 1e-12, "B's speedup over A is A's time over B's")
		assert.Equal(t, r.cmp.P < r.cmp.Alpha, r.significant)
	}
	assert.Equal(t, 0, cmp.onlyA)
	assert.Equal(t, 0, cmp.onlyB)

	dir := filepath.Join(t.TempDir(), "charts")
	require.NoError(t, WriteCharts(dir, cmp))
	for _, name := range []string{"speedup.png", "wake.png"} {
		f, err := os.Open(filepath.Join(dir, name))
		require.NoError(t, err)
		cfg, err := png.DecodeConfig(f)
		f.Close()
		require.NoError(t, err, name)
		assert.Greater(t, cfg.Width, 100, name)
	}
}

// TestCompareLeavesInputs: comparing does not reorder a report's
// repetitions (benchmath sorts the samples it is given).
func TestCompareLeavesInputs(t *testing.T) {
	a, err := ReadJSONFile(recordedA)
	require.NoError(t, err)
	var before, after bytes.Buffer
	require.NoError(t, a.WriteJSON(&before))
	Compare(a, a, "A", "B")
	require.NoError(t, a.WriteJSON(&after))
	assert.Equal(t, before.String(), after.String())
}

func TestMedianAndInterval(t *testing.T) {
	if !math.IsNaN(median(nil)) {
		t.Error("median of nothing is not NaN")
	}
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
	} {
		in := slices.Clone(tc.xs)
		if got := median(tc.xs); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.xs, got, tc.want)
		}
		if !slices.Equal(in, tc.xs) {
			t.Errorf("median reordered its input")
		}
	}
	// Six repetitions give a 95% interval, the smallest and largest of them.
	six := []float64{102, 98, 100, 100, 101, 99}
	assert.Equal(t, "±2%", fmtCI(six))
	assert.Equal(t, "±∞", fmtCI(six[:5]), "five repetitions give no 95% interval")
	assert.Equal(t, "-", fmtCI(nil))
}
