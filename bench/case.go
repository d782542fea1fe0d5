package main

import (
	"fmt"
	"math"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// A Case is one row of the suite: one workload at one size, run by one
// implementation with one worker count. The same Case runs under `go test
// -bench` (as a sub-benchmark of the workload's Benchmark function) and under
// the report command (through testing.Benchmark), so both print the same
// figures for the same code.
type Case struct {
	// Workload is the family the row belongs to: "fib", "tree-sum",
	// "quicksort", "sum" or "submit". It names the Benchmark function
	// (BenchmarkFib, BenchmarkTreeSum, ...), see benchFuncName.
	Workload string
	// Params are the size parameters as key=value pairs ("n=30").
	Params string
	// Impl names the implementation ("seq", "goroutine-wg", "blitz-args", ...).
	Impl string
	// Workers is the blitz worker count, or the GOMAXPROCS limit the
	// goroutine-based implementations run under; 1 for seq.
	Workers int
	// Parking is the blitz parking backend ("auto", "futex", ...), empty
	// for every other implementation. It appears in the name only when the
	// run was asked for a backend other than auto.
	Parking string
	// Unit is the custom per-item metric ("ns/join", "ns/task", ...) and
	// PerOp the number of items one op processes; the metric is ns/op
	// divided by PerOp.
	Unit  string
	PerOp float64
	// Kind says how the row is compared: the sequential baseline, one of
	// ours, or a peer (what Go users use today).
	Kind Kind
	// Bench is the benchmark body. It checks its result against the
	// sequential answer once and fails b on a mismatch.
	Bench func(b *testing.B)
}

// Kind classifies a Case for the report's ratios.
type Kind int

const (
	// KindSeq is the sequential baseline the x-seq ratio divides by.
	KindSeq Kind = iota
	// KindPeer is a way Go users do this today (goroutines, ants, pond, ...).
	KindPeer
	// KindBlitz is our pool.
	KindBlitz
)

func (k Kind) String() string {
	switch k {
	case KindSeq:
		return "seq"
	case KindPeer:
		return "peer"
	case KindBlitz:
		return "blitz"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Name is the sub-benchmark name below the Benchmark function, in the
// key=value form benchstat splits into columns:
// "n=30/impl=blitz-args/workers=1".
func (c Case) Name() string {
	var sb strings.Builder
	if c.Params != "" {
		sb.WriteString(c.Params)
		sb.WriteByte('/')
	}
	fmt.Fprintf(&sb, "impl=%s/workers=%d", c.Impl, c.Workers)
	if c.Parking != "" && c.Parking != "auto" {
		fmt.Fprintf(&sb, "/parking=%s", c.Parking)
	}
	return sb.String()
}

// FullName is the name `go test -bench` prints, without the -GOMAXPROCS
// suffix: "BenchmarkFib/n=30/impl=blitz-args/workers=1".
func (c Case) FullName() string { return benchFuncName(c.Workload) + "/" + c.Name() }

// seqKey identifies the sequential baseline a row's x-seq divides by.
func (c Case) seqKey() string { return c.Workload + "/" + c.Params }

// benchFuncName maps a workload to its Benchmark function's name.
func benchFuncName(workload string) string {
	switch workload {
	case "fib":
		return "BenchmarkFib"
	case "tree-sum":
		return "BenchmarkTreeSum"
	case "quicksort":
		return "BenchmarkQuicksort"
	case "sum":
		return "BenchmarkSum"
	case "submit":
		return "BenchmarkSubmit"
	}
	return "Benchmark" + workload
}

// Workloads lists the workload families in report order.
var Workloads = []string{"fib", "tree-sum", "quicksort", "sum", "submit"}

// Sizes are the problem sizes of one suite. Full sizes are the ones the
// figures are quoted at; quick sizes make every row run in microseconds so
// `go test -short` exercises every implementation for correctness.
type Sizes struct {
	Fib         int // fib(n) with a join at every level
	FibNoCutoff int // fib(n) for goroutine-per-fork (~1.3 µs a fork: smaller n)
	FibCutoff   int // the goroutine-wg-cutoff variant runs fib sequentially at n <= FibCutoff
	FibSpeedup  int // fib(n) for the 1 -> 2 workers speedup
	TreeDepth   int // tree-sum over a complete tree of 2^TreeDepth - 1 nodes
	TreeCutoff  int // goroutine-wg-cutoff sums subtrees of depth <= TreeCutoff sequentially
	SortN       int // quicksort of SortN ints
	SortCutoff  int // below this length every quicksort recurses sequentially
	SumN        int // parallel-for sum over SumN float64
	SumGrain    int // grain of the blitz For/MapReduce variants
	Tasks       int // tasks per op of the submit workload
}

// FullSizes are the sizes the committed figures use.
func FullSizes() Sizes {
	return Sizes{
		Fib:         30,
		FibNoCutoff: 25,
		FibCutoff:   20,
		FibSpeedup:  32,
		TreeDepth:   20,
		TreeCutoff:  12,
		SortN:       1 << 20,
		SortCutoff:  1 << 11,
		SumN:        10_000_000,
		SumGrain:    1 << 15,
		Tasks:       10_000,
	}
}

// QuickSizes are tiny sizes for the smoke run (-quick) and the tests: every
// row still forks, steals and joins, in microseconds.
func QuickSizes() Sizes {
	return Sizes{
		Fib:         12,
		FibNoCutoff: 10,
		FibCutoff:   6,
		FibSpeedup:  14,
		TreeDepth:   10,
		TreeCutoff:  4,
		SortN:       5000,
		SortCutoff:  64,
		SumN:        100_000,
		SumGrain:    1 << 10,
		Tasks:       500,
	}
}

// Config selects what a suite contains.
type Config struct {
	Sizes Sizes
	// Parkings are the blitz parking backends to run ("auto", "futex",
	// "portable", "spin"); each adds one set of blitz rows.
	Parkings []string
	// Workers are the worker counts (and GOMAXPROCS limits) to run.
	Workers []int
}

// blitzAvailable is true when our pool's rows are built in (blitz.go).
var blitzAvailable bool

// resolveParking returns the backend the pool picks for a -parking name
// ("auto" -> "futex" on Linux). Set by blitz.go.
var resolveParking func(name string) (string, error)

// blitzSuite builds the rows of our pool for one parking backend. It is set
// by blitz.go; nil while the pool's API is not built in.
var blitzSuite func(cfg Config, parking string) []Case

// Suite returns every row of the suite, in report order: by workload, then
// sequential, peers and ours.
func Suite(cfg Config) []Case {
	var all []Case
	all = append(all, fibCases(cfg)...)
	all = append(all, treeCases(cfg)...)
	all = append(all, quicksortCases(cfg)...)
	all = append(all, sumCases(cfg)...)
	all = append(all, submitCases(cfg)...)
	if blitzSuite != nil {
		for _, parking := range cfg.Parkings {
			all = append(all, blitzSuite(cfg, parking)...)
		}
	}
	// Stable order: workload, then the order rows were appended (seq,
	// peers, ours), so tables read top to bottom the same every run.
	order := map[string]int{}
	for i, w := range Workloads {
		order[w] = i
	}
	out := make([]Case, 0, len(all))
	for _, w := range Workloads {
		for _, c := range all {
			if c.Workload == w {
				out = append(out, c)
			}
		}
	}
	for _, c := range all {
		if _, ok := order[c.Workload]; !ok {
			out = append(out, c)
		}
	}
	return out
}

// Filter keeps the rows whose FullName matches re (nil keeps all).
func Filter(cases []Case, re *regexp.Regexp) []Case {
	if re == nil {
		return cases
	}
	var out []Case
	for _, c := range cases {
		if re.MatchString(c.FullName()) {
			out = append(out, c)
		}
	}
	return out
}

// withProcs runs the goroutine-based peers under a GOMAXPROCS limit of n,
// restoring the previous value afterwards. n <= 0 leaves GOMAXPROCS alone.
func withProcs(n int, f func()) {
	if n <= 0 {
		f()
		return
	}
	prev := setProcs(n)
	defer setProcs(prev)
	f()
}

// setProcs sets GOMAXPROCS and returns the previous value.
func setProcs(n int) int { return runtime.GOMAXPROCS(n) }

// bind attaches a benchmark body to a Case. The body receives the Case's own
// copy, so it can name itself in failures and metrics.
func bind(c Case, body func(b *testing.B, c *Case)) Case {
	c.Bench = func(b *testing.B) { body(b, &c) }
	return c
}

// measure runs the timed loop of a row: body once per op, counted, so the
// row can report its per-item metric and its ratio to the sequential
// baseline. It returns the number of ops run.
func measure(b *testing.B, c *Case, body func()) {
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		body()
		n++
	}
	report(b, c, n)
}

// report adds the custom metrics of a row: the per-item time and x-seq.
func report(b *testing.B, c *Case, n int) {
	if n == 0 {
		return
	}
	nsPerOp := float64(b.Elapsed().Nanoseconds()) / float64(n)
	if c.Unit != "" && c.PerOp > 0 {
		b.ReportMetric(nsPerOp/c.PerOp, c.Unit)
	}
	if c.Kind == KindSeq {
		seqTimes.store(c.seqKey(), nsPerOp)
	}
	if c.Workload == "submit" {
		return
	}
	if seq, ok := seqTimes.load(c.seqKey()); ok && seq > 0 {
		b.ReportMetric(nsPerOp/seq, "x-seq")
	}
}

// seqTimes holds the latest ns/op of each sequential baseline measured in
// this process, keyed by workload and size, so each parallel row reports its
// ratio to a baseline measured in the same run. A row whose baseline has not
// run yet (the -bench filter skipped it) measures it first, see seqBaseline.
var seqTimes = &seqCache{m: map[string]float64{}}

type seqCache struct {
	mu sync.Mutex
	m  map[string]float64
}

func (s *seqCache) store(key string, ns float64) {
	s.mu.Lock()
	s.m[key] = ns
	s.mu.Unlock()
}

func (s *seqCache) load(key string) (float64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ns, ok := s.m[key]
	return ns, ok
}

// seqBaseline makes sure the sequential baseline of c is known, timing run
// (the sequential algorithm, untimed by b) when no seq row ran before;
// prepare, if not nil, runs untimed before each run. It is called in a row's
// setup, before the timed loop. The baseline is the fastest
// of at least three runs and at least 200 ms, so it is a floor like the
// benchmark's own figure.
func seqBaseline(c *Case, prepare, run func()) {
	if c.Kind == KindSeq {
		return
	}
	if _, ok := seqTimes.load(c.seqKey()); ok {
		return
	}
	best := math.Inf(1)
	var total time.Duration
	for i := 0; i < 3 || total < 200*time.Millisecond; i++ {
		if prepare != nil {
			prepare()
		}
		start := time.Now()
		run()
		d := time.Since(start)
		total += d
		best = math.Min(best, float64(d.Nanoseconds()))
		if i >= 1000 {
			break
		}
	}
	seqTimes.store(c.seqKey(), best)
}

// failures records why a row failed, so the report command (which runs rows
// through testing.Benchmark and only sees a zero result) can say why.
var failures = &failureLog{m: map[string]string{}}

type failureLog struct {
	mu sync.Mutex
	m  map[string]string
}

func (f *failureLog) take(name string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	msg, ok := f.m[name]
	delete(f.m, name)
	return msg, ok
}

// fail records the mismatch and fails b.
func fail(b *testing.B, c *Case, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	failures.mu.Lock()
	failures.m[c.FullName()] = msg
	failures.mu.Unlock()
	b.Fatalf("%s: %s", c.FullName(), msg)
}

// check fails b when got differs from want.
func check[T comparable](b *testing.B, c *Case, got, want T) {
	if got != want {
		fail(b, c, "result %v, want %v (the sequential answer)", got, want)
	}
}

// keep consumes a result so the compiler cannot drop the work that made it.
// It is not inlined, so it costs one call per op, and does not convert v to
// an interface, so it allocates nothing.
//
//go:noinline
func keep[T any](v T) {}
