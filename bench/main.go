package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/blitz-go/blitz/bench/internal/report"
	"github.com/blitz-go/blitz/bench/internal/runner"
	"github.com/blitz-go/blitz/bench/internal/workload"
)

// buildCommit is the commit the binary was built from, set with
// -ldflags "-X main.buildCommit=..." when cross-building (see README).
var buildCommit string

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the report command: it parses args, runs the suite and prints the
// report to stdout (progress to stderr). It returns the exit status: 0 when
// every row ran and matched the sequential answer, 1 when a row failed, 2 on
// bad flags.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "compare" {
		return runCompare(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: cd bench && go run . [flags]\n       cd bench && go run . compare [flags] A.json B.json\n\n"+
			"Runs the Blitz for Go benchmark suite (Blitz's table, fork-join, data-parallel,\n"+
			"submit and blocking workloads: our pool against sequential code, goroutines, ants, pond,\n"+
			"errgroup and conc) and prints the verdict, then median figures per workload, impl\n"+
			"and worker count; every ratio is a speedup over the baseline it names. compare\n"+
			"puts two JSON reports side by side.\n\nflags:\n")
		fs.PrintDefaults()
	}
	count := fs.Int("count", 6, "repetitions of every row, interleaved; medians are reported, with 95% confidence intervals from 6 on")
	quick := fs.Bool("quick", false, "tiny sizes and one iteration per row: a smoke run that checks every row, not figures")
	only := fs.String("only", "", "run only rows whose benchmark name matches this regexp (e.g. 'Fib|Submit', 'impl=blitz', 'Blocking' for the blocking section)")
	parking := fs.String("parking", "auto", "blitz parking backends, comma-separated: auto, futex, portable, spin, cond; or all (side by side, with the futex vs condvar section)")
	workers := fs.String("workers", defaultWorkers(), "comma-separated increasing worker counts (GOMAXPROCS limits for the goroutine peers), at most the CPUs allowed")
	benchtime := fs.String("benchtime", "", "per-row benchmark time or count, as go test's -benchtime (default 1s; 1x with -quick)")
	out := fs.String("out", "", "also write the report as Markdown to this file")
	raw := fs.String("raw", "", "also write every measurement in go test -bench format (for benchstat) to this file")
	jsonOut := fs.String("json", "", "also write the report, with the machine's identity, as JSON to this file (input of compare)")
	probes := fs.Bool("probes", true, "run the parking probes (wake latency, idle CPU) after the rows")
	quiet := fs.Bool("q", false, "no progress lines on stderr")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "bench: unexpected arguments %q\n", fs.Args())
		return 2
	}
	opts := runner.Options{Count: *count, Quick: *quick, Benchtime: *benchtime, Command: commandLine(args), Probes: *probes, Commit: buildCommit}
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			fmt.Fprintf(stderr, "bench: bad -only pattern: %v\n", err)
			return 2
		}
		opts.Only = re
	}
	ps, err := parseParking(*parking)
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 2
	}
	opts.Parkings = ps
	ws, err := parseWorkers(*workers)
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 2
	}
	opts.Workers = ws
	if !*quiet {
		opts.Progress = stderr
	}
	if *raw != "" {
		f, err := os.Create(*raw)
		if err != nil {
			fmt.Fprintf(stderr, "bench: %v\n", err)
			return 2
		}
		defer f.Close()
		opts.Raw = f
	}

	rep, runErr := runner.Run(opts)
	if rep == nil {
		fmt.Fprintf(stderr, "bench: %v\n", runErr)
		return 2
	}
	if err := rep.WriteText(stdout); err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	if *out != "" {
		if err := writeFile(*out, rep.WriteMarkdown); err != nil {
			fmt.Fprintf(stderr, "bench: %v\n", err)
			return 1
		}
	}
	if *jsonOut != "" {
		if err := writeFile(*jsonOut, rep.WriteJSON); err != nil {
			fmt.Fprintf(stderr, "bench: %v\n", err)
			return 1
		}
	}
	if runErr != nil {
		fmt.Fprintf(stderr, "bench: %v\n", runErr)
		return 1
	}
	return 0
}

// runCompare is `bench compare [flags] A.json B.json`.
func runCompare(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: cd bench && go run . compare [flags] A.json B.json\n\n"+
			"Compares two JSON reports (-json): every row both have, with confidence\n"+
			"intervals and p-values from golang.org/x/perf/benchmath, and writes charts.\n\nflags:\n")
		fs.PrintDefaults()
	}
	nameA := fs.String("a", "", "label of the first report (default: its file name)")
	nameB := fs.String("b", "", "label of the second report (default: its file name)")
	charts := fs.String("charts", "", "write speedup.png and wake.png into this directory")
	md := fs.Bool("md", false, "print Markdown tables instead of aligned text")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 2 {
		fmt.Fprintf(stderr, "bench compare: want two JSON reports, got %d arguments\n", fs.NArg())
		return 2
	}
	a, err := report.ReadJSONFile(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "bench compare: %v\n", err)
		return 2
	}
	b, err := report.ReadJSONFile(fs.Arg(1))
	if err != nil {
		fmt.Fprintf(stderr, "bench compare: %v\n", err)
		return 2
	}
	la, lb := *nameA, *nameB
	if la == "" {
		la = strings.TrimSuffix(filepath.Base(fs.Arg(0)), ".json")
	}
	if lb == "" {
		lb = strings.TrimSuffix(filepath.Base(fs.Arg(1)), ".json")
	}
	if la == lb {
		la, lb = "A: "+la, "B: "+lb
	}
	cmp := report.Compare(a, b, la, lb)
	write := cmp.WriteText
	if *md {
		write = cmp.WriteMarkdown
	}
	if err := write(stdout); err != nil {
		fmt.Fprintf(stderr, "bench compare: %v\n", err)
		return 1
	}
	if *charts != "" {
		if err := report.WriteCharts(*charts, cmp); err != nil {
			fmt.Fprintf(stderr, "bench compare: %v\n", err)
			return 1
		}
	}
	return 0
}

// writeFile creates path and writes it with write.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// parseParking turns the -parking value into the backends to run: one
// name, a comma-separated list, or all.
func parseParking(s string) ([]string, error) {
	names := workload.ParkingNames()
	if s == "all" {
		return names, nil
	}
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if !slices.Contains(names, f) {
			return nil, fmt.Errorf("bad -parking %q: want one of %s, a comma-separated list of them, or all", s, strings.Join(names, ", "))
		}
		if slices.Contains(out, f) {
			return nil, fmt.Errorf("bad -parking %q: %s named twice", s, f)
		}
		out = append(out, f)
	}
	return out, nil
}

// allowedCPUs is the number of CPUs this process may run on.
func allowedCPUs() int { return runtime.NumCPU() }

// defaultWorkers is -workers' default: 1, 2 and the CPUs allowed.
func defaultWorkers() string {
	ws := []string{"1"}
	if n := allowedCPUs(); n >= 2 {
		ws = append(ws, "2")
		if n > 2 {
			ws = append(ws, strconv.Itoa(n))
		}
	}
	return strings.Join(ws, ",")
}

// parseWorkers parses the -workers list: positive, increasing, at most the
// CPUs allowed.
func parseWorkers(s string) ([]int, error) {
	var ws []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bad -workers %q: want positive integers separated by commas", s)
		}
		if len(ws) > 0 && n <= ws[len(ws)-1] {
			return nil, fmt.Errorf("bad -workers %q: counts must increase", s)
		}
		if n > allowedCPUs() {
			return nil, fmt.Errorf("bad -workers %q: %d is more than the %d CPUs this process may use", s, n, allowedCPUs())
		}
		ws = append(ws, n)
	}
	return ws, nil
}

// commandLine is the command as a reader runs it again, from the
// repository root: `cd bench && go run .` and the arguments, whatever
// binary ran (go run, ./bench, a cross-built one). Arguments outside
// [A-Za-z0-9_./=,:+-] are single-quoted.
func commandLine(args []string) string {
	parts := []string{"cd", "bench", "&&", "go", "run", "."}
	for _, a := range args {
		safe := a != ""
		for _, r := range a {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_./=,:+-", r)) {
				safe = false
				break
			}
		}
		if !safe {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}
