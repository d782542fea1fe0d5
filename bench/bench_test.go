package main

import (
	"flag"
	"testing"
)

// The Benchmark functions run the same rows as the report command, one
// sub-benchmark per row, named key=value for benchstat:
//
//	go test -run '^$' -bench . -count 1        # full sizes
//	go test -run '^$' -bench 'Fib/n=30' -parking futex
//
// With -short they use the quick sizes (a smoke run). -parking and -workers
// select the pool's backend and the worker counts, as for the command.

var (
	benchParking = flag.String("parking", "auto", "blitz parking backend for the benchmarks: auto, futex, portable, spin or all")
	benchWorkers = flag.String("workers", "1,2", "worker counts for the benchmarks (GOMAXPROCS limits for goroutine peers)")
)

func BenchmarkFib(b *testing.B)       { runWorkload(b, "fib") }
func BenchmarkTreeSum(b *testing.B)   { runWorkload(b, "tree-sum") }
func BenchmarkQuicksort(b *testing.B) { runWorkload(b, "quicksort") }
func BenchmarkSum(b *testing.B)       { runWorkload(b, "sum") }
func BenchmarkSubmit(b *testing.B)    { runWorkload(b, "submit") }

// runWorkload runs every row of one workload as a sub-benchmark.
func runWorkload(b *testing.B, workload string) {
	parkings, err := parseParking(*benchParking)
	if err != nil {
		b.Fatal(err)
	}
	workers, err := parseWorkers(*benchWorkers)
	if err != nil {
		b.Fatal(err)
	}
	cfg := Config{Sizes: FullSizes(), Parkings: parkings, Workers: workers}
	if testing.Short() {
		cfg.Sizes = QuickSizes()
	}
	for _, c := range Suite(cfg) {
		if c.Workload == workload {
			b.Run(c.Name(), c.Bench)
		}
	}
}
