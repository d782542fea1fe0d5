package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
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

// expectedRows are the rows the quick report must print: table title, impl,
// workers. Written out by hand, so a row that disappears from the suite fails
// here. Our pool's rows are expected when blitz.go is built in.
func expectedRows() [][3]string {
	rows := [][3]string{
		{"fib n=12", "seq", "1"},
		{"fib n=10", "seq", "1"},
		{"fib n=14", "seq", "1"},
		{"tree-sum depth=10", "seq", "1"},
		{"quicksort n=5000", "seq", "1"},
		{"sum n=100000", "seq", "1"},
	}
	for _, w := range []string{"1", "2"} {
		rows = append(rows,
			[3]string{"fib n=10", "goroutine-wg", w},
			[3]string{"fib n=12", "goroutine-wg-cutoff", w},
			[3]string{"tree-sum depth=10", "goroutine-wg-cutoff", w},
			[3]string{"quicksort n=5000", "goroutine-wg-cutoff", w},
			[3]string{"sum n=100000", "goroutine-chunks", w},
		)
		for _, impl := range []string{"chan-workers", "pond", "ants", "errgroup-limit", "go-wg", "conc"} {
			rows = append(rows, [3]string{"submit tasks=500", impl, w})
		}
		if blitzAvailable {
			rows = append(rows,
				[3]string{"fib n=12", "blitz-args", w},
				[3]string{"fib n=12", "blitz-closure", w},
				[3]string{"fib n=14", "blitz-args", w},
				[3]string{"tree-sum depth=10", "blitz-args", w},
				[3]string{"tree-sum depth=10", "blitz-closure", w},
				[3]string{"quicksort n=5000", "blitz-args", w},
				[3]string{"quicksort n=5000", "blitz-closure", w},
				[3]string{"sum n=100000", "blitz-for", w},
				[3]string{"sum n=100000", "blitz-mapreduce", w},
				[3]string{"submit tasks=500", "blitz", w},
			)
		}
	}
	return rows
}

// parseTextTables reads the tables of a text report: title -> rows of fields.
func parseTextTables(out string) map[string][][]string {
	tables := map[string][][]string{}
	title := ""
	header := false
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "== "):
			title = strings.TrimPrefix(line, "== ")
			header = true
		case title == "" || strings.TrimSpace(line) == "":
		case strings.HasPrefix(line, "   ") && !strings.HasPrefix(line, "    ") && header:
			// a note line (three spaces); table cells are padded otherwise
		case header:
			header = false // the column header
		default:
			tables[title] = append(tables[title], strings.Fields(line))
		}
	}
	return tables
}

// TestReportQuick runs the report command in quick mode, exercising every row
// of the suite for correctness (each checks its result against the
// sequential answer and the command exits 1 if one does not), and checks
// that the text and Markdown tables hold every expected row with a figure.
func TestReportQuick(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	md := filepath.Join(t.TempDir(), "report.md")
	raw := filepath.Join(t.TempDir(), "raw.txt")
	var stdout, stderr bytes.Buffer
	code := -1
	watchdog(t, 2*time.Minute, func() {
		code = run([]string{"-quick", "-count", "2", "-q", "-out", md, "-raw", raw}, &stdout, &stderr)
	})
	if code != 0 {
		t.Fatalf("exit status %d, stderr:\n%s\nstdout:\n%s", code, stderr.String(), stdout.String())
	}
	out := stdout.String()
	for _, want := range []string{"machine: ", runtime.Version(), "quick sizes"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	tables := parseTextTables(out)
	mdBytes, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	mdText := string(mdBytes)
	rawBytes, err := os.ReadFile(raw)
	if err != nil {
		t.Fatal(err)
	}
	want := expectedRows()
	for _, r := range want {
		title, impl, workers := r[0], r[1], r[2]
		found := false
		for _, fields := range tables[title] {
			if len(fields) >= 4 && fields[0] == impl && fields[1] == workers {
				found = true
				if strings.HasPrefix(fields[2], "FAILED") || fields[2] == "-" {
					t.Errorf("%s %s workers=%s has no figure: %v", title, impl, workers, fields)
				}
				if fields[len(fields)-1] != "2" {
					t.Errorf("%s %s workers=%s ran %s times, want 2", title, impl, workers, fields[len(fields)-1])
				}
			}
		}
		if !found {
			t.Errorf("text report lacks row %s / %s / workers=%s", title, impl, workers)
		}
		if !strings.Contains(mdText, fmt.Sprintf("| %s | %s | ", impl, workers)) || !strings.Contains(mdText, "## "+title+"\n") {
			t.Errorf("markdown report lacks row %s / %s / workers=%s", title, impl, workers)
		}
	}
	// Every row printed is an expected one: nothing unaccounted for.
	rows := 0
	for title, tab := range tables {
		if title == "scaling" || title == "targets" {
			continue
		}
		rows += len(tab)
	}
	if rows != len(want) {
		t.Errorf("report has %d rows, want %d:\n%s", rows, len(want), out)
	}
	if !strings.Contains(out, "parallel capacity during this run") {
		t.Errorf("report lacks the parallel capacity note:\n%s", out)
	}
	if len(tables["scaling"]) == 0 {
		t.Errorf("report lacks the scaling table:\n%s", out)
	}
	if blitzAvailable && len(tables["targets"]) == 0 {
		t.Errorf("report lacks the targets table:\n%s", out)
	}
	// The raw output holds two measurements per row, in go test's format.
	if n := strings.Count(string(rawBytes), " ns/op"); n != 2*len(want) {
		t.Errorf("raw output has %d measurements, want %d", n, 2*len(want))
	}
}

// TestReportFailsOnWrongAnswer checks that a row whose result differs from
// the sequential answer fails the run, names itself, and is not dropped
// from the table silently.
func TestReportFailsOnWrongAnswer(t *testing.T) {
	restore, err := setBenchtime("1x")
	if err != nil {
		t.Fatal(err)
	}
	defer restore()
	broken := fibRow(fibCase(10, "broken", 1, KindPeer), 10, func(n int) int { return fib(n) + 1 })
	good := fibRow(fibCase(10, "seq", 1, KindSeq), 10, fib)
	var rep *Report
	watchdog(t, time.Minute, func() {
		rep, err = runCases(Options{Count: 2, Parkings: []string{"auto"}, Workers: []int{1}}, QuickSizes(), []Case{good, broken})
	})
	if err == nil {
		t.Fatal("a wrong answer did not fail the run")
	}
	if !strings.Contains(err.Error(), "impl=broken") || !strings.Contains(err.Error(), "want 55") {
		t.Errorf("error does not name the row and the answer: %v", err)
	}
	var out bytes.Buffer
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "FAILED: result 56, want 55") {
		t.Errorf("table does not show the failure:\n%s", out.String())
	}
	if len(rep.Results[0].NsPerOp) != 2 {
		t.Errorf("the good row ran %d times, want 2", len(rep.Results[0].NsPerOp))
	}
}

// TestBadFlags checks that bad flags get a clear message and exit status 2.
func TestBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-parking", "condvar"}, `bad -parking "condvar"`},
		{[]string{"-workers", "2,1"}, "counts must increase"},
		{[]string{"-workers", "0"}, "positive integers"},
		{[]string{"-workers", "x"}, "positive integers"},
		{[]string{"-only", "("}, "bad -only pattern"},
		{[]string{"-only", "NoSuchBenchmark", "-quick"}, "no benchmark matches"},
		{[]string{"-count", "0", "-quick"}, "count must be at least 1"},
		{[]string{"-benchtime", "soon", "-quick"}, `bad -benchtime "soon"`},
		{[]string{"extra"}, "unexpected arguments"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(tc.args, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit status %d, want 2", tc.args, code)
		}
		if !strings.Contains(stderr.String(), tc.msg) {
			t.Errorf("%v: stderr %q lacks %q", tc.args, stderr.String(), tc.msg)
		}
	}
}

// TestOnlyAndParkingAll checks -only filtering and that -parking all runs our
// rows once per backend (or, without the pool built in, runs the peers once).
func TestOnlyAndParkingAll(t *testing.T) {
	parking, backends := "all", len(parkingNames)
	if runtime.GOOS != "linux" {
		// The futex backend is Linux-only: its rows would fail by design.
		parking, backends = "portable", 1
	}
	var stdout, stderr bytes.Buffer
	code := -1
	watchdog(t, time.Minute, func() {
		code = run([]string{"-quick", "-count", "1", "-q", "-only", "Submit", "-parking", parking}, &stdout, &stderr)
	})
	if code != 0 {
		t.Fatalf("exit status %d, stderr:\n%s", code, stderr.String())
	}
	tables := parseTextTables(stdout.String())
	if len(tables) == 0 {
		t.Fatalf("no tables:\n%s", stdout.String())
	}
	for title := range tables {
		if !strings.HasPrefix(title, "submit") && title != "scaling" && title != "targets" {
			t.Errorf("-only Submit printed table %q", title)
		}
	}
	sub := tables["submit tasks=500"]
	wantRows := 2 * len(submitters)
	if blitzAvailable {
		wantRows += 2 * backends
	}
	if len(sub) != wantRows {
		t.Errorf("submit table has %d rows, want %d:\n%s", len(sub), wantRows, stdout.String())
	}
	for _, fields := range sub {
		if len(fields) < 4 || strings.HasPrefix(fields[3], "FAILED") {
			t.Errorf("row without a figure: %v", fields)
		}
	}
}
