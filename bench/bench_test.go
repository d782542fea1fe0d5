package main

import (
	"flag"
	"fmt"
	"runtime"
	"testing"

	"github.com/blitz-go/blitz/bench/internal/runner"
	"github.com/blitz-go/blitz/bench/internal/workload"
)

// The Benchmark functions run the same rows as the report command, one
// sub-benchmark per row, named key=value for benchstat:
//
//	go test -run '^$' -bench . -count 1        # full sizes
//	go test -run '^$' -bench 'Fib/n=30' -parking futex
//
// With -short they use the quick sizes (a smoke run). -parking and -workers
// select the pool's backend and the worker counts, as for the command. The
// rows are package workload's; besides their per-item metric they report
// x-seq, their time over the sequential time (below 1 is faster), which the
// report shows inverted, as the speedup over seq.

var (
	benchParking = flag.String("parking", "auto", "blitz parking backends for the benchmarks: auto, futex, portable, spin, cond, a list, or all")
	benchWorkers = flag.String("workers", defaultWorkers(), "worker counts for the benchmarks (GOMAXPROCS limits for goroutine peers)")
)

func BenchmarkFib(b *testing.B)        { runWorkload(b, "fib") }
func BenchmarkTreeSum(b *testing.B)    { runWorkload(b, "tree-sum") }
func BenchmarkForkJoin(b *testing.B)   { runWorkload(b, "fork-join") }
func BenchmarkQuicksort(b *testing.B)  { runWorkload(b, "quicksort") }
func BenchmarkSum(b *testing.B)        { runWorkload(b, "sum") }
func BenchmarkSortF64(b *testing.B)    { runWorkload(b, "sort-f64") }
func BenchmarkSearch(b *testing.B)     { runWorkload(b, "search") }
func BenchmarkByKey(b *testing.B)      { runWorkload(b, "by-key") }
func BenchmarkChunksSum(b *testing.B)  { runWorkload(b, "chunks-sum") }
func BenchmarkEnumerate(b *testing.B)  { runWorkload(b, "enumerate") }
func BenchmarkChainSum(b *testing.B)   { runWorkload(b, "chain-sum") }
func BenchmarkZipDot(b *testing.B)     { runWorkload(b, "zip-dot") }
func BenchmarkFlattenSum(b *testing.B) { runWorkload(b, "flatten-sum") }
func BenchmarkSubmit(b *testing.B)     { runWorkload(b, "submit") }

// The blocking section (issue 32): tasks that block, the pool beside the
// peers. The server rows report p50-ns, p99-ns, p99.9-ns, served-% and
// done/s for benchstat (their ns/op is the length of a run); a row whose
// op passes its guard's deadline is skipped with the reason.
func BenchmarkBlockingSleep(b *testing.B)  { runWorkload(b, workload.BlockingSleep) }
func BenchmarkBlockingWait(b *testing.B)   { runWorkload(b, workload.BlockingWait) }
func BenchmarkBlockingServer(b *testing.B) { runWorkload(b, workload.BlockingServer) }

// runWorkload runs every row of one workload as a sub-benchmark.
func runWorkload(b *testing.B, name string) {
	parkings, err := parseParking(*benchParking)
	if err != nil {
		b.Fatal(err)
	}
	workers, err := parseWorkers(*benchWorkers)
	if err != nil {
		b.Fatal(err)
	}
	cfg := workload.Config{Sizes: workload.FullSizes(), Parkings: parkings, Workers: workers}
	if testing.Short() {
		cfg.Sizes = workload.QuickSizes()
	}
	b.Cleanup(workload.ClosePools)
	for _, c := range workload.Suite(cfg) {
		if c.Workload == name {
			b.Run(c.Name(), c.Bench)
		}
	}
}

// BenchmarkCapacity measures the machine, not a pool: perfectly parallel
// CPU-bound work split over workers goroutines under GOMAXPROCS=workers.
// `benchstat -col /workers` on it gives the speedup the machine offered every
// implementation during the run (2.00x on two idle CPUs; less when the
// machine is shared).
func BenchmarkCapacity(b *testing.B) {
	workers, err := parseWorkers(*benchWorkers)
	if err != nil {
		b.Fatal(err)
	}
	units := runner.CapacityUnits
	if testing.Short() {
		units = 1 << 16
	}
	for _, w := range workers {
		b.Run(fmt.Sprintf("impl=spin/workers=%d", w), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(w))
			b.ReportAllocs()
			for b.Loop() {
				runner.SpinParallel(w, units)
			}
		})
	}
}
