package runner

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blitz-go/blitz/bench/internal/report"
	"github.com/blitz-go/blitz/bench/internal/rusage"
	"github.com/blitz-go/blitz/bench/internal/workload"
)

// Options select what Run runs.
type Options struct {
	Count     int            // repetitions of every row, interleaved (rep 1 of all rows, then rep 2, ...)
	Quick     bool           // tiny sizes and one iteration per row: a smoke run, not figures
	Only      *regexp.Regexp // keep rows whose full benchmark name matches; nil keeps all
	Parkings  []string       // blitz parking backends to run side by side; none means auto
	Workers   []int          // worker counts (GOMAXPROCS limits for goroutine peers), increasing
	Benchtime string         // the testing package's -benchtime for every row ("" = 1s, or 1x in quick mode)
	Progress  io.Writer      // one line per measured row as it finishes; nil for none
	Raw       io.Writer      // every measurement in `go test -bench` format, for benchstat; nil for none
	Command   string         // the command line, printed in the report's header
	Probes    bool           // run the parking probes after the rows
	Commit    string         // the measured commit when the build was stamped with it; "" detects it
}

// Run runs the selected rows Count times each through testing.Benchmark,
// interleaved, then the probes, and returns the report. Its error names
// every row that failed its correctness check (the report still holds the
// others); with a nil report, nothing ran.
func Run(opts Options) (*report.Report, error) {
	if opts.Count < 1 {
		return nil, fmt.Errorf("count must be at least 1, got %d", opts.Count)
	}
	if len(opts.Parkings) == 0 {
		opts.Parkings = []string{"auto"}
	}
	if len(opts.Workers) == 0 {
		return nil, errors.New("no worker counts to run")
	}
	for _, w := range opts.Workers {
		if w < 1 {
			return nil, fmt.Errorf("worker count must be at least 1, got %d", w)
		}
	}
	// A row that fails (Fail) or times out (TimedOut) logs through its
	// *testing.B, which reads the testing flags: without them registered
	// (a binary other than a test, run without -benchtime or -quick) the
	// log dereferences a nil flag and the whole report crashes.
	testing.Init()
	sizes := workload.FullSizes()
	benchtime := opts.Benchtime
	if opts.Quick {
		sizes = workload.QuickSizes()
		if benchtime == "" {
			benchtime = "1x"
		}
	}
	if benchtime != "" {
		restore, err := setBenchtime(benchtime)
		if err != nil {
			return nil, err
		}
		defer restore()
	}
	cases := filter(workload.Suite(workload.Config{Sizes: sizes, Parkings: opts.Parkings, Workers: opts.Workers}), opts.Only)
	if len(cases) == 0 {
		return nil, errors.New("no benchmark matches the -only pattern")
	}
	return runCases(opts, sizes, cases)
}

// filter keeps the rows whose FullName matches re (nil keeps all).
func filter(cases []workload.Case, re *regexp.Regexp) []workload.Case {
	if re == nil {
		return cases
	}
	var out []workload.Case
	for _, c := range cases {
		if re.MatchString(c.FullName()) {
			out = append(out, c)
		}
	}
	return out
}

// runCases runs the given rows for Run (opts already checked and
// defaulted, the benchtime already set).
func runCases(opts Options, sizes workload.Sizes, cases []workload.Case) (*report.Report, error) {
	rep := &report.Report{
		Machine: detectMachine(opts.Commit), Command: opts.Command, Count: opts.Count, Quick: opts.Quick, Benchtime: opts.Benchtime,
		Workers: opts.Workers, Parkings: opts.Parkings, Sizes: sizes, Started: time.Now(), Resolved: map[string]string{},
	}
	defer workload.ClosePools()
	for _, name := range opts.Parkings {
		if got, err := workload.ResolveParking(name); err != nil {
			rep.Resolved[name] = "unavailable: " + err.Error()
		} else {
			rep.Resolved[name] = got
		}
	}
	for _, c := range cases {
		rep.Results = append(rep.Results, &report.Result{Case: c})
	}
	if opts.Raw != nil {
		rep.WriteRawHeader(opts.Raw)
	}
	prog := progress{w: opts.Progress, total: opts.Count * len(cases), start: time.Now()}
	var failed []string
	u0 := rusage.Read()
	maxW := slices.Max(opts.Workers)
	for i := 0; i < opts.Count; i++ {
		if maxW > 1 {
			rep.Capacity = append(rep.Capacity, parallelCapacity(maxW))
		}
		prevFunc := ""
		for _, res := range rep.Results {
			name := res.Case.FullName()
			if fn, _, _ := strings.Cut(name, "/"); fn != prevFunc {
				// The long-lived pools of pool=warm rows last one
				// benchmark function's rows: an idle pool with spin
				// parking spins, and would burn CPU under every row
				// after it and in the idle probes.
				workload.ClosePools()
				prevFunc = fn
			}
			if res.Err != "" {
				prog.step(name, "skipped (failed before)")
				continue // a row that failed once is not run again
			}
			if res.TimedOut != "" {
				prog.step(name, "skipped (timed out before)")
				continue // nor one that timed out: each try costs its deadline
			}
			r := testing.Benchmark(res.Case.Bench)
			if msg, ok := workload.TakeTimeout(name); ok && r.N == 0 {
				res.TimedOut = msg
				prog.step(name, "TIMED OUT: "+msg)
				continue
			}
			if r.N == 0 {
				msg, ok := workload.TakeFailure(name)
				if !ok {
					msg = "the benchmark failed without a recorded reason"
				}
				res.Err = msg
				failed = append(failed, name+": "+msg)
				prog.step(name, "FAILED: "+msg)
				continue
			}
			ns := float64(r.T.Nanoseconds()) / float64(r.N)
			res.NsPerOp = append(res.NsPerOp, ns)
			res.Allocs = append(res.Allocs, float64(r.MemAllocs)/float64(r.N))
			known := map[string]*[]float64{res.Case.Unit: &res.Metric, "x-seq": &res.XSeq, "vcsw/op": &res.VCSW, "ivcsw/op": &res.IVCSW}
			for unit, dst := range known {
				if v, ok := r.Extra[unit]; ok {
					*dst = append(*dst, v)
				}
			}
			for unit, v := range r.Extra {
				if _, ok := known[unit]; !ok {
					if res.Extra == nil {
						res.Extra = map[string][]float64{}
					}
					res.Extra[unit] = append(res.Extra[unit], v)
				}
			}
			prog.step(name, fmtNs(ns)+"/op")
			if opts.Raw != nil {
				fmt.Fprintf(opts.Raw, "%s-%d\t%s\t%s\n", name, rep.Machine.GOMAXPROCS, r.String(), r.MemString())
			}
		}
	}
	if u1 := rusage.Read(); u0.OK && u1.OK {
		rep.PeakRSS, rep.VCSW, rep.IVCSW = u1.MaxRSS, u1.VCSW-u0.VCSW, u1.IVCSW-u0.IVCSW
	}
	workload.ClosePools() // before the probes measure an idle process
	if opts.Probes {
		sz := fullProbeSizes()
		if opts.Quick {
			sz = quickProbeSizes()
		}
		for _, name := range opts.Parkings {
			if opts.Progress != nil {
				fmt.Fprintf(opts.Progress, "probe: parking %s, %d workers\n", name, maxW)
			}
			rep.Probes = append(rep.Probes, runProbe(name, maxW, sz))
		}
	}
	rep.Elapsed = time.Since(rep.Started)
	if len(failed) > 0 {
		return rep, fmt.Errorf("%d row(s) failed:\n  %s", len(failed), strings.Join(failed, "\n  "))
	}
	return rep, nil
}

// progress prints one line per measured row: its position in the run, the
// share done and an estimate of the time left (the mean time per row so
// far times the rows left).
type progress struct {
	w     io.Writer
	total int
	done  int
	start time.Time
}

func (p *progress) step(name, what string) {
	p.done++
	if p.w == nil {
		return
	}
	el := time.Since(p.start)
	left := time.Duration(float64(el) / float64(p.done) * float64(p.total-p.done))
	fmt.Fprintf(p.w, "[%d/%d %3.0f%% %s left] %-72s %s\n", p.done, p.total, 100*float64(p.done)/float64(p.total),
		left.Round(time.Second), name, what)
}

// setBenchtime sets the testing package's -test.benchtime (registering the
// testing flags first when this is not a test binary) and returns a function
// that restores the previous value.
func setBenchtime(v string) (restore func(), err error) {
	testing.Init()
	fl := flag.Lookup("test.benchtime")
	if fl == nil {
		return nil, errors.New("testing flags are not registered")
	}
	prev := fl.Value.String()
	if err := fl.Value.Set(v); err != nil {
		return nil, fmt.Errorf("bad -benchtime %q: %v", v, err)
	}
	return func() { _ = fl.Value.Set(prev) }, nil
}

// fmtNs writes a time per op for the progress lines.
func fmtNs(ns float64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.2fs", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.2fms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.2fµs", ns/1e3)
	}
	return fmt.Sprintf("%.1fns", ns)
}
