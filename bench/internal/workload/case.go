package workload

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/blitz-go/blitz/bench/internal/rusage"
)

// A Case is one row of the suite: one workload at one size, run by one
// implementation with one worker count. The same Case runs under `go test
// -bench` (as a sub-benchmark of the workload's Benchmark function) and under
// the report command (through testing.Benchmark), so both print the same
// figures for the same code.
type Case struct {
	// Workload is the family the row belongs to: "fib", "tree-sum",
	// "fork-join", ..., "submit" (see workloads). It names the Benchmark
	// function (BenchmarkFib, BenchmarkTreeSum, ...), see benchFuncName.
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
	// Pool says which pool a fork-join row of the pool runs on at 2
	// workers and more: poolFresh, a new pool, or PoolWarm, a long-lived
	// one (warmPool). Empty for every other row, which runs on a new pool.
	Pool string
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
	// KindSeq is the sequential baseline every speedup is taken over.
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
// "n=30/impl=blitz-args/workers=1", "n=30/impl=blitz-args/workers=2/pool=warm".
func (c Case) Name() string {
	var sb strings.Builder
	if c.Params != "" {
		sb.WriteString(c.Params)
		sb.WriteByte('/')
	}
	fmt.Fprintf(&sb, "impl=%s/workers=%d", c.Impl, c.Workers)
	if c.Pool != "" {
		fmt.Fprintf(&sb, "/pool=%s", c.Pool)
	}
	if c.Parking != "" && c.Parking != "auto" {
		fmt.Fprintf(&sb, "/parking=%s", c.Parking)
	}
	return sb.String()
}

// Label is the impl as the report's tables show it: the impl, and
// "pool=warm" for a row on a long-lived pool.
func (c Case) Label() string {
	if c.Pool == PoolWarm {
		return c.Impl + " pool=warm"
	}
	return c.Impl
}

// FullName is the name `go test -bench` prints, without the -GOMAXPROCS
// suffix: "BenchmarkFib/n=30/impl=blitz-args/workers=1".
func (c Case) FullName() string { return benchFuncName(c.Workload) + "/" + c.Name() }

// seqKey identifies the sequential baseline of a row: its workload and size.
func (c Case) seqKey() string { return c.Workload + "/" + c.Params }

// benchFuncName maps a workload to its Benchmark function's name:
// "tree-sum" -> "BenchmarkTreeSum".
func benchFuncName(workload string) string {
	var sb strings.Builder
	sb.WriteString("Benchmark")
	for _, part := range strings.Split(workload, "-") {
		if part != "" {
			sb.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return sb.String()
}

// workloadCases builds the rows of one workload for a configuration.
type workloadCases func(cfg Config) []Case

// workloads lists the workload families in report order, each with the
// function (in the workload's own file) that builds all its rows: the
// sequential baseline, the plain-Go peers and the pool's.
var workloads = []struct {
	name  string
	cases workloadCases
}{
	{"fib", fibCases},
	{"tree-sum", treeCases},
	{"fork-join", forkJoinCases},
	{"quicksort", quicksortCases},
	{"sum", sumCases},
	{"sort-f64", sortCases},
	{"search", searchCases},
	{"by-key", byKeyCases},
	{"chunks-sum", chunksCases},
	{"enumerate", enumerateCases},
	{"chain-sum", chainCases},
	{"zip-dot", zipCases},
	{"flatten-sum", flattenCases},
	{"submit", submitCases},
	{BlockingSleep, blockingSleepCases},
	{BlockingWait, blockingWaitCases},
	{BlockingServer, blockingServerCases},
}

// Sizes are the problem sizes of one suite. Full sizes are the ones the
// figures are quoted at; quick sizes make every row run in microseconds so
// `go test -short` exercises every implementation for correctness.
type Sizes struct {
	Fib         int   // fib(n) with a join at every level
	FibNoCutoff int   // fib(n) for goroutine-per-fork (~1.3 µs a fork: smaller n)
	FibCutoff   int   // the goroutine-wg-cutoff variant runs fib sequentially at n <= FibCutoff
	FibSpeedup  int   // fib(n) for the 1 -> 2 workers speedup
	FibTable    []int // Blitz's table: fib(n) in parallel, sequential at n <= FibTableCutoff
	FibTableCut int   // that cutoff (20 in Blitz's table)
	TreeDepth   int   // tree-sum over a complete tree of 2^TreeDepth - 1 nodes
	TreeCutoff  int   // goroutine-wg-cutoff sums subtrees of depth <= TreeCutoff sequentially
	ForkJoin    []int // Blitz's fork-join depths: a join at every node of a tree of that depth
	SortN       int   // quicksort of SortN ints
	SortCutoff  int   // below this length every quicksort recurses sequentially
	SumN        int   // parallel-for sum over SumN float64
	SumGrain    int   // grain of the blitz For/MapReduce variants
	Tasks       int   // tasks per op of the submit workload
	TableN      int   // Blitz's table: elements of the search, by-key, chunks and enumerate inputs (10M)
	TableSortN  int   // Blitz's table: float64 elements of the sort inputs (1M)
	ChainN      int   // Blitz's table: length of each chained and zipped slice (5M)
	FlattenOut  int   // Blitz's table: flatten's outer slices (1000)
	FlattenIn   int   // and their length (10k)
	ChunkLen    int   // Blitz's table: chunks(1000)
	WarmUp      int   `json:",omitempty"` // the k of the warm-up of the pool=warm rows' pools (warmPool)

	// The blocking section (blocking.go, server.go).
	BlockSleep    []SleepBatch  `json:",omitempty"` // batches of tasks that sleep
	WaitFanIn     int           `json:",omitempty"` // tasks waiting on a channel that one more task, submitted last, closes
	WaitChain     int           `json:",omitempty"` // tasks each waiting for the next one
	BlockDeadline time.Duration `json:",omitempty"` // the guard's deadline per op of a batch row
	Server        *ServerSizes  `json:",omitempty"` // the open-loop server workload
}

// FullSizes are the sizes the committed figures use; Blitz's table rows use
// the sizes of NerdMeNot/blitz's BENCHMARKS.md.
func FullSizes() Sizes {
	return Sizes{
		Fib:         30,
		FibNoCutoff: 25,
		FibCutoff:   20,
		FibSpeedup:  32,
		FibTable:    []int{35, 40},
		FibTableCut: 20,
		TreeDepth:   20,
		TreeCutoff:  12,
		ForkJoin:    []int{10, 15, 20},
		SortN:       1 << 20,
		SortCutoff:  1 << 11,
		SumN:        10_000_000,
		SumGrain:    1 << 15,
		Tasks:       10_000,
		TableN:      10_000_000,
		TableSortN:  1_000_000,
		ChainN:      5_000_000,
		FlattenOut:  1000,
		FlattenIn:   10_000,
		ChunkLen:    1000,
		WarmUp:      200_000,
		BlockSleep:  []SleepBatch{{Tasks: 200, Sleep: 20 * time.Millisecond}, {Tasks: 10_000, Sleep: time.Millisecond}},
		WaitFanIn:   8,
		WaitChain:   1000,
		// 200 x 20 ms on a pool of 2 workers that runs one blocked task per
		// worker take 2 s: within the deadline, so that figure is measured.
		BlockDeadline: 5 * time.Second,
		Server: &ServerSizes{
			Loads: []int{30, 50, 70, 90, 95, 110}, Window: time.Second, Drain: 500 * time.Millisecond,
			Wait: 2 * time.Millisecond, CPU: 200 * time.Microsecond, Forks: 4,
		},
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
		FibTable:    []int{15, 17},
		FibTableCut: 8,
		TreeDepth:   10,
		TreeCutoff:  4,
		ForkJoin:    []int{4, 6, 8},
		SortN:       5000,
		SortCutoff:  64,
		SumN:        100_000,
		SumGrain:    1 << 10,
		Tasks:       500,
		TableN:      100_000,
		TableSortN:  20_000,
		ChainN:      50_000,
		FlattenOut:  100,
		FlattenIn:   1000,
		ChunkLen:    1000,
		WarmUp:      20,
		BlockSleep:  []SleepBatch{{Tasks: 20, Sleep: 2 * time.Millisecond}, {Tasks: 100, Sleep: time.Millisecond}},
		WaitFanIn:   8,
		WaitChain:   50,
		// Quick runs check the rows, not speed: a hung row costs this.
		BlockDeadline: 300 * time.Millisecond,
		Server: &ServerSizes{
			Loads: []int{50, 95}, Window: 40 * time.Millisecond, Drain: 40 * time.Millisecond,
			Wait: 2 * time.Millisecond, CPU: 200 * time.Microsecond, Forks: 4,
		},
	}
}

// Config selects what a suite contains.
type Config struct {
	Sizes Sizes
	// Parkings are the blitz parking backends to run ("auto", "futex",
	// "portable", "spin", "cond"); each adds one set of blitz rows.
	Parkings []string
	// Workers are the worker counts (and GOMAXPROCS limits) to run.
	Workers []int
}

// Suite returns every row of the suite, in report order: by workload, then
// sequential, peers and ours, as each workload's file lists them.
func Suite(cfg Config) []Case {
	var out []Case
	for _, w := range workloads {
		out = append(out, w.cases(cfg)...)
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

// measure is the timed loop of every row: body once per op, counted, so
// the row can report its per-item metric, its time over the sequential
// baseline's and the context switches per op. prepare, if not nil, runs
// before each op with the timer stopped (a fresh copy of a sort's input).
func measure(b *testing.B, c *Case, prepare, body func()) {
	b.ReportAllocs()
	n := 0
	before := rusage.Read()
	for b.Loop() {
		if prepare != nil {
			b.StopTimer()
			prepare()
			b.StartTimer()
		}
		body()
		n++
	}
	after := rusage.Read()
	reportMetrics(b, c, n)
	if n > 0 && after.OK && before.OK {
		b.ReportMetric(float64(after.VCSW-before.VCSW)/float64(n), "vcsw/op")
		b.ReportMetric(float64(after.IVCSW-before.IVCSW)/float64(n), "ivcsw/op")
	}
}

// reportMetrics adds the custom metrics of a row: the per-item time and
// x-seq, the row's time over the sequential time (below 1 is faster: the
// form the root package's benchmarks and bench/rayon print; the report
// shows its inverse, the speedup over sequential).
func reportMetrics(b *testing.B, c *Case, n int) {
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
	if c.Workload == "submit" || IsBlocking(c.Workload) {
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
var failures = struct {
	sync.Mutex
	m map[string]string
}{m: map[string]string{}}

// TakeFailure returns, and forgets, why the row of that full name failed
// (Fail), if it did.
func TakeFailure(fullName string) (string, bool) {
	failures.Lock()
	defer failures.Unlock()
	msg, ok := failures.m[fullName]
	delete(failures.m, fullName)
	return msg, ok
}

// Fail fails a row's benchmark and records why, for TakeFailure: every
// row fails through it (a wrong answer, a pool that would not open).
func Fail(b *testing.B, c *Case, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	failures.Lock()
	failures.m[c.FullName()] = msg
	failures.Unlock()
	b.Fatalf("%s: %s", c.FullName(), msg)
}

// timeouts records why a row timed out (TimedOut), for TakeTimeout.
var timeouts = struct {
	sync.Mutex
	m map[string]string
}{m: map[string]string{}}

// TimedOut stops a row whose op ran past its guard's deadline (a blitz row
// of the blocking section before the pool replaces blocked workers): the
// row is skipped, not failed, and TakeTimeout says why, so the report shows
// it as timed out and goes on.
func TimedOut(b *testing.B, c *Case, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	timeouts.Lock()
	timeouts.m[c.FullName()] = msg
	timeouts.Unlock()
	b.Skipf("%s: %s", c.FullName(), msg)
}

// TakeTimeout returns, and forgets, why the row of that full name timed
// out (TimedOut), if it did.
func TakeTimeout(fullName string) (string, bool) {
	timeouts.Lock()
	defer timeouts.Unlock()
	msg, ok := timeouts.m[fullName]
	delete(timeouts.m, fullName)
	return msg, ok
}

// check fails b when got differs from want.
func check[T comparable](b *testing.B, c *Case, got, want T) {
	if got != want {
		Fail(b, c, "result %v, want %v (the sequential answer)", got, want)
	}
}

// keep consumes a result so the compiler cannot drop the work that made it.
// It is not inlined, so it costs one call per op, and does not convert v to
// an interface, so it allocates nothing.
//
//go:noinline
func keep[T any](v T) {}

// Note says what one op of a workload is, at the sizes s, for the head of
// the workload's tables in the report.
func Note(workload string, s Sizes) string {
	switch workload {
	case "fib":
		return fmt.Sprintf("one op = fib(n) with a join at every level; ns/join divides by fib(n+1)-1 joins for every impl "+
			"(goroutine-wg forks every call at n=%d; goroutine-wg-cutoff runs fib sequentially at n <= %d)", s.FibNoCutoff, s.FibCutoff)
	case "tree-sum":
		return fmt.Sprintf("one op = the sum of a complete binary tree of 2^depth-1 pointer nodes, built once; "+
			"blitz joins at every node, goroutine-wg-cutoff forks above depth %d", s.TreeCutoff)
	case "quicksort":
		return fmt.Sprintf("one op = sorting a fresh copy of the same random ints (the copy is untimed); "+
			"parallel impls fork both parts of every partition longer than %d", s.SortCutoff)
	case "sum":
		return fmt.Sprintf("one op = the sum of n float64 (built once); goroutine-chunks splits into GOMAXPROCS chunks, "+
			"blitz-for and blitz-mapreduce use grain %d", s.SumGrain)
	case "submit":
		return "one op = tasks trivial tasks submitted from one goroutine, then waited for; pools are built once per row " +
			"(conc: per op, it cannot be reused); peers run GOMAXPROCS=workers with pools of that size"
	case "fork-join":
		return fmt.Sprintf("one op = a join at every node of a recursion of that depth that does nothing else; ns/fork divides by its 2^(depth+1)-1 nodes; "+
			"goroutine-wg-top forks goroutines at the top %d levels only", joinGoLevels)
	case "sort-f64":
		return fmt.Sprintf("one op = sorting a fresh copy of the float64 input (the copy is untimed): slices.Sort, a goroutine per partition above %d "+
			"finishing with slices.Sort, par.Sort", sortGoCutoff)
	case BlockingSleep:
		return "one op = a batch of tasks that sleep (their number and sleep in the title), submitted in order from one goroutine, then waited for; " + blockingNote(s)
	case BlockingWait:
		return fmt.Sprintf("one op = a batch of tasks waiting on later tasks, submitted in order from one goroutine, then waited for: "+
			"fan-in = %d tasks wait on a channel the last task closes; chain = task i waits for task i+1; ", s.WaitFanIn) + blockingNote(s)
	case BlockingServer:
		return serverNote(s)
	case "search", "by-key", "chunks-sum", "enumerate", "chain-sum", "zip-dot", "flatten-sum":
		return "one op = the layer call against the loop and GOMAXPROCS goroutines over contiguous pieces (goSearch stops early), " +
			"with Blitz's table's predicates and inputs (see the workload's file)"
	}
	return ""
}
