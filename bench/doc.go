// Command bench is the benchmark suite of Blitz for Go: it measures the pool
// side by side with what Go users run today, in one process and one run, and
// prints the report.
//
//	cd bench && go run .                  # the report: 6 interleaved repetitions, medians
//	go run . -quick                       # a smoke run at tiny sizes (seconds)
//	go run . -only 'Fib|Submit' -count 10 -out report.md
//	go run . -parking all                 # every backend side by side, with the futex vs condvar section
//	go run . -workers 1,2,4,8 -json a.json -raw a.txt
//	go run . compare -charts out/ a.json b.json   # two machines or two commits
//	go test -run '^$' -bench . -count 1   # the same rows as Go benchmarks, for benchstat
//
// # Reading the report
//
// Every ratio in the report is a speedup over the baseline its column
// names: the baseline's time over the row's, so above 1 is faster than the
// baseline and below 1 slower. The baselines are seq (the sequential
// code, "speedup over seq"), the fastest peer of the same table ("speedup
// over best peer"), the fewest workers (the scaling table), futex (cond's
// speedup in the futex vs condvar section) and, in compare, the first
// report. Times are medians of the repetitions and ± the median's 95%
// confidence interval, both from golang.org/x/perf/benchmath as benchstat
// computes them. The report's command line is how to run it again (cd
// bench && go run . and the flags), whatever binary ran it.
//
// # Layout
//
// The command is a thin main over internal packages, each with its own
// tests:
//
//	main.go             the command line: the report's flags and compare's
//	bench_test.go       the Benchmark functions (go test -bench), over the same rows;
//	                    layer_test.go, sort_test.go: the layer's and the sorts' own
//	internal/workload   the workloads and every implementation of each: the rows (Case)
//	internal/runner     runs the rows: interleaved repetitions, progress, the machine's
//	                    identity and parallel capacity, the parking probes
//	internal/report     the report: text, Markdown, JSON, compare and its charts
//	internal/rusage     getrusage: CPU time, context switches, peak memory
//
// # Why a module of its own
//
// The peers (ants, pond, errgroup, conc) are dependencies of the comparison,
// never of the library: bench/ has its own go.mod that requires the library
// through a replace directive pointing at the parent directory, so the
// suite always measures the working tree it sits in.
//
// # Vocabulary
//
// A workload is one problem (fib, tree-sum, fork-join, quicksort, sum,
// sort-f64, search, by-key, chunks-sum, enumerate, chain-sum, zip-dot,
// flatten-sum, submit, and the blocking section's blocking-sleep,
// blocking-wait and blocking-server); each has one file holding all its implementations,
// the pool's included (internal/workload/fib.go,
// internal/workload/forkjoin.go, ...). A row (Case) is one workload at one
// size, run by one implementation ("impl") with one worker count.
// Implementations are of three kinds: seq, the sequential baseline; peers,
// the ways Go programmers parallelise today (a goroutine and a WaitGroup per
// fork, with and without a sequential cutoff; GOMAXPROCS goroutines over
// chunks; channel worker pools; pond; ants; errgroup with SetLimit; conc);
// and ours, the pool, with Join in its two forms (blitz-args: JoinArgs with non-capturing functions, zero
// allocations per join; blitz-closure: Join with closures), For, MapReduce
// and Go. "workers" is the pool's worker count for our rows and the
// GOMAXPROCS limit the goroutine-based peers run under (their pools are that
// size too), so a row at workers=1 is every implementation on one CPU.
// Our fib and fork-join rows at 2 workers and more run twice, named
// pool=fresh and pool=warm: on a new pool, and on a long-lived one that ran
// fib(20), fib(22), ..., fib(28) with a join at every call first (200000,
// 50000, ..., 781 times; warmPool in internal/workload/pool.go), shared by the warm rows of
// its size and backend. A pool's speed must not depend on what it ran
// before. The tables show a warm row as "impl pool=warm"; Blitz's table,
// the verdict and the futex vs condvar section use the fresh rows.
//
// # What one op is
//
//  1. fib: fib(n) with a join at every level. ns/join divides the time of
//     an op by the fib(n+1)-1 joins of the full recursion, for every impl,
//     so it is a per-node cost comparable across impls; a goroutine per fork
//     costs ~1.3 µs, so that impl runs at a smaller n (named in the row) and
//     its ns/join stays comparable. fib at the speedup size gives the 1 -> 2
//     workers speedup of our pool.
//  2. tree-sum: the sum of a complete binary tree of 2^depth-1 pointer
//     nodes, built once per row; our rows join at every node.
//  3. quicksort: sorting a fresh copy of the same 1M pseudo-random ints; the
//     copy is made with the timer stopped, for every impl alike. Every impl
//     runs the same partition and sorts parts below the cutoff with the
//     sequential quicksort.
//  4. sum: the sum of 10M float64, built once. The values are small integers
//     so every order of additions gives the same float64, and every impl is
//     checked with ==.
//  5. submit: 10k trivial tasks (bump a counter, mark a WaitGroup done) sent
//     fire-and-forget from one goroutine, then waited for. ns/task is the
//     whole hand-over: submit, run, account. Pools are built once per row,
//     outside the timed loop, and closed after it (conc's pool cannot be
//     reused after Wait, so it is built per op, as its users do).
//
// # The blocking section
//
// Tasks that block (issue 32), the pool beside the peers, at the largest
// worker count of the run (the peers under GOMAXPROCS = that count), with
// `-only Blocking` to run it alone:
//
//	go run . -only Blocking               # the section (about 10 minutes at -count 6)
//	go run . -quick -only Blocking        # a smoke run
//	go test -run '^$' -bench 'Blocking' -count 6 | benchstat -col /impl -
//
// Its workloads:
//
//  1. blocking-sleep: a batch of tasks that sleep (200 x 20 ms, 10,000 x 1
//     ms), submitted in order from one goroutine, then waited for.
//  2. blocking-wait: tasks waiting on later tasks: 8 tasks waiting on a
//     channel that a 9th, submitted last, closes (fan-in); 1000 tasks where
//     task i waits for task i+1 (chain).
//  3. blocking-server: an open-loop server: requests arrive on a fixed
//     schedule for 1 s at 30, 50, 70, 90, 95 and 110% of the CPU capacity
//     (GOMAXPROCS / 200 µs requests per second), each on its own goroutine,
//     each sleeping 2 ms then computing 200 µs (a hash loop calibrated at
//     start). Latency runs from the scheduled arrival, so a saturated server
//     or a late generator cannot hide what it delays (no coordinated
//     omission); a request not done 500 ms after the window is not served
//     and enters the percentiles as its lower bound (shown with ≥). Rows
//     report p50-ns, p99-ns, p99.9-ns, served-% and done/s.
//
// The peers are unbounded, as Go users run blocking work: a goroutine per
// task, errgroup without a limit, ants and pond pools without a size limit,
// conc's pool without a maximum; the server's are inline (the handler runs
// the request), go, errgroup, ants and pond, each handler waiting for its
// request. The pool's rows run on blitz.New() with no option but the
// parking, the configuration of blitz.Default() (a pool per row: a row that
// hangs must not harm the next): blitz-group (NewGroup, Go, Wait) and
// blitz-go (Pool.Go and a WaitGroup) for the batches, blitz
// (blitz.DoContext) and blitz-fork-group / blitz-fork-par (the CPU part
// forked in 4 inside the task, with a Group and with par.For) for the
// server. Every batch op runs under a guard: past its deadline (5 s, 300 ms
// under -quick) its tasks are told to stop and the row is reported as
// timed out, not failed, and not run again; the server's runs are bounded
// by their deadline, its handlers' context cancelled there. The goals, in
// the verdict: each batch within 1.2x of goroutines (go-wg); the server's
// p99 at or below the best peer's at every load; at 95% load, the forked
// request's p99 within 1.2x of the unforked one's, every request served.
//
// # Blitz's table
//
// The report's second table reproduces every row of Blitz's published table
// (BENCHMARKS.md in NerdMeNot/blitz, against Rayon) with its definitions:
// fork-join at depth 10, 15 and 20 in ns per fork; fib(35) and fib(40)
// parallel (sequential at n <= 20) and sequential; the sum of 10M float64;
// sorts of 1M float64 random, sorted, reverse and equal; find and position
// with an early match, position with the match in the middle, any with an
// early match and with none, all passing, over the 10M int64 0..n-1;
// minByKey |x - n/2| and maxByKey x; chunks(1000) summed; enumerate with a
// no-op body; the sum of two chained 5M slices; a zipped dot product; the
// sum of 1000 flattened slices of 10k; the run's peak memory and context
// switches (getrusage). Each row gives the sequential time, the best plain-Go
// version (goroutines and a WaitGroup: goChunks, goSearch, goroutines above a
// cutoff) and the pool at the most workers per parking backend, with their
// speedups over sequential: the figure that compares across machines and
// languages. The last column is Blitz's own speedup over sequential where
// its table gives both times, measured by Blitz with 10 workers on an Apple
// M3 Pro, not in this run; the report labels it so wherever it shows it.
//
// # Parking: futex vs condvar
//
// A run with both backends (-parking all, or a list naming futex and cond)
// ends with the futex vs condvar section: the probes of
// internal/runner/probe.go per backend (wake latency p50 and p99 of a task
// posted to parked workers and to workers still in their yielding idle
// rounds, idle CPU steady and in the 1-20 ms gaps between bursts of
// parallel work, context switches from getrusage for each), then every
// workload's pool rows per backend with cond's speedup over futex. A run
// without one of the two, the default (-parking auto, portable parking)
// among them, ends with one line saying how to get the section instead.
// The penalty of futex parking on a round trip from outside the pool is
// the figure of bench/results/parking-choice-amd64.txt: a Do from one
// goroutine costs 100x more with futex parking than with portable parking
// (57.4 µs against 0.57 µs), which is why the default is portable.
//
// # Machine-readable output
//
// -json writes the whole report, every repetition of every row, the probes
// and the machine identity (package topology's Identity and sysfs
// topology: CPU model, features, caches, cores, SMT, NUMA nodes,
// hypervisor, kernel; the build's GOAMD64/GOARM64 level, Go version and
// commit; parking backends and worker counts). -raw writes the measurements
// in go test -bench format with the identity as configuration lines, for
// benchstat. `compare A.json B.json` matches rows by name and prints medians
// with 95% confidence intervals, B's speedup over A with Mann-Whitney
// p-values (golang.org/x/perf/benchmath) and each side's speedup over its
// own sequential row; -charts DIR draws speedup.png (speedup against
// workers per workload) and wake.png (wake latency per backend) with
// gonum.org/v1/plot.
//
// # How a row is measured
//
// Every row is a func(*testing.B) whose timed loop is measure
// (internal/workload/case.go): b.Loop, b.ReportAllocs, an untimed prepare
// where a row needs a fresh input (the sorts), and b.ReportMetric for the
// per-item metric, x-seq and the context switches per op. Before its timed
// loop a row computes its answer once and fails b if it differs from the
// sequential answer, so a fast wrong row can never print a figure. Its
// custom metrics are the per-item time (ns/join, ns/node, ns/elem,
// ns/task) and x-seq, its time over the sequential time of the same
// workload and size measured in the same process (by the seq row when it
// ran first, else timed in the row's setup as the fastest of several
// runs). x-seq is a time ratio, below 1 faster, as the root package's
// benchmarks and bench/rayon print it for benchstat; the report shows its
// inverse, the speedup over seq.
//
// The report command runs the rows through testing.Benchmark, so `go run .`
// needs nothing but the module. It repeats the whole list -count times,
// interleaved (every row once, then every row again) so that drift on a
// noisy machine spreads over all rows instead of biasing the last ones,
// printing a progress line per row with the estimated time left (stderr).
// It prints the verdict first: each of the pool's targets with its goal,
// the value measured and met or missed, and how many of Blitz's rows the
// pool wins. Then Blitz's table, then for each workload and size the
// median time per op with its confidence interval, the per-item metric,
// allocs/op and the speedups over seq and over the fastest peer row of the
// same table. The scaling table follows (every impl's speedup at the most
// workers over the fewest, beside the machine's parallel capacity), then
// the futex vs condvar section or its one line. A row that fails its check
// is shown as FAILED with the reason and the command exits 1.
//
// The same rows are the sub-benchmarks of one Benchmark function per
// workload (BenchmarkFib, BenchmarkForkJoin, BenchmarkSortF64, ...) in
// bench_test.go, named key=value (BenchmarkFib/n=30/impl=blitz-args/workers=1)
// for benchstat; -parking and -workers select the backends and worker
// counts as for the command. With -short they run at the quick sizes.
package main
