package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// parkingNames are the backends -parking accepts; "all" runs each.
var parkingNames = []string{"auto", "futex", "portable", "spin"}

// run is the report command: it parses args, runs the suite and prints the
// report to stdout (progress to stderr). It returns the exit status: 0 when
// every row ran and matched the sequential answer, 1 when a row failed, 2 on
// bad flags.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: go run . [flags]\n\n"+
			"Runs the Blitz for Go benchmark suite (fork-join and submit workloads, our pool\n"+
			"against sequential code, goroutines, ants, pond, errgroup and conc) and prints\n"+
			"median figures per workload, impl and worker count.\n\nflags:\n")
		fs.PrintDefaults()
	}
	count := fs.Int("count", 5, "repetitions of every row, interleaved; medians are reported")
	quick := fs.Bool("quick", false, "tiny sizes and one iteration per row: a smoke run that checks every row, not figures")
	only := fs.String("only", "", "run only rows whose benchmark name matches this regexp (e.g. 'Fib|Submit', 'impl=blitz')")
	parking := fs.String("parking", "auto", "blitz parking backend: auto, futex, portable, spin, or all (side by side)")
	workers := fs.String("workers", "1,2", "comma-separated worker counts (GOMAXPROCS limits for the goroutine peers)")
	benchtime := fs.String("benchtime", "", "per-row benchmark time or count, as go test's -benchtime (default 1s; 1x with -quick)")
	out := fs.String("out", "", "also write the report as Markdown to this file")
	raw := fs.String("raw", "", "also write every measurement in go test -bench format (for benchstat) to this file")
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
	opts := Options{Count: *count, Quick: *quick, Benchtime: *benchtime, Command: commandLine(args)}
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

	rep, runErr := RunSuite(opts)
	if rep == nil {
		fmt.Fprintf(stderr, "bench: %v\n", runErr)
		return 2
	}
	if err := rep.WriteText(stdout); err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	if *out != "" {
		if err := writeMarkdownFile(*out, rep); err != nil {
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

func writeMarkdownFile(path string, rep *Report) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := rep.WriteMarkdown(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// parseParking turns the -parking value into the backends to run.
func parseParking(s string) ([]string, error) {
	if s == "all" {
		return parkingNames, nil
	}
	for _, p := range parkingNames {
		if s == p {
			return []string{s}, nil
		}
	}
	return nil, fmt.Errorf("bad -parking %q: want one of %s or all", s, strings.Join(parkingNames, ", "))
}

// parseWorkers parses the -workers list: positive, distinct, increasing.
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
		ws = append(ws, n)
	}
	return ws, nil
}

// commandLine is the command as a shell would take it back: arguments
// outside [A-Za-z0-9_./=,:+-] are single-quoted.
func commandLine(args []string) string {
	parts := []string{"go", "run", "."}
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
