package workload

import (
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countJoins counts the joins of fib(n) with a join at every level by
// running the recursion.
func countJoins(n int) int {
	if n < 2 {
		return 0
	}
	return 1 + countJoins(n-1) + countJoins(n-2)
}

func TestFibJoins(t *testing.T) {
	for n := 0; n <= 25; n++ {
		if got, want := fibJoins(n), countJoins(n); got != want {
			t.Errorf("fibJoins(%d) = %d, want %d", n, got, want)
		}
	}
	if got := fibJoins(30); got != 1346268 {
		t.Errorf("fibJoins(30) = %d, want fib(31)-1 = 1346268", got)
	}
}

func TestFibVariants(t *testing.T) {
	for n := 0; n <= 16; n++ {
		want := fib(n)
		if got := fibGo(n); got != want {
			t.Errorf("fibGo(%d) = %d, want %d", n, got, want)
		}
		for _, cutoff := range []int{-1, 0, 1, 5, 20} {
			if got := fibGoCutoff(n, cutoff); got != want {
				t.Errorf("fibGoCutoff(%d, %d) = %d, want %d", n, cutoff, got, want)
			}
		}
	}
}

func TestTree(t *testing.T) {
	for depth := 0; depth <= 12; depth++ {
		root := buildTree(depth)
		want := treeWant(depth)
		if got := treeSum(root); got != want {
			t.Errorf("depth %d: treeSum = %d, want %d", depth, got, want)
		}
		for _, cutoff := range []int{0, 1, 4, 20} {
			if got := treeSumGo(root, depth, cutoff); got != want {
				t.Errorf("depth %d cutoff %d: treeSumGo = %d, want %d", depth, cutoff, got, want)
			}
		}
	}
}

// sortInputs are the inputs every quicksort must sort: empty, tiny, sorted,
// reversed, all equal, few distinct values, random.
func sortInputs() [][]int {
	r := rand.New(rand.NewPCG(3, 4))
	var ins [][]int
	for _, n := range []int{0, 1, 2, 3, 15, 16, 17, 100, 1000, 5000} {
		random := make([]int, n)
		few := make([]int, n)
		sorted := make([]int, n)
		reversed := make([]int, n)
		equal := make([]int, n)
		for i := range random {
			random[i] = r.IntN(1 << 30)
			few[i] = r.IntN(3)
			sorted[i] = i
			reversed[i] = n - i
			equal[i] = 7
		}
		ins = append(ins, random, few, sorted, reversed, equal)
	}
	return ins
}

func TestQuicksort(t *testing.T) {
	sorts := map[string]func([]int){
		"seq":      quicksortSeq,
		"go/64":    func(a []int) { quicksortGo(a, 64) },
		"go/0":     func(a []int) { quicksortGo(a, 0) },
		"go/1<<20": func(a []int) { quicksortGo(a, 1<<20) },
	}
	for name, sortFn := range sorts {
		for _, in := range sortInputs() {
			a := slices.Clone(in)
			want := slices.Clone(in)
			slices.Sort(want)
			sortFn(a)
			if !slices.Equal(a, want) {
				t.Errorf("%s: len %d: not sorted", name, len(in))
			}
		}
	}
}

func TestPartition(t *testing.T) {
	for _, in := range sortInputs() {
		if len(in) < 2 {
			continue
		}
		a := slices.Clone(in)
		j := partition(a)
		if j < 0 || j >= len(a)-1 {
			t.Fatalf("len %d: split %d leaves an empty part", len(a), j)
		}
		if slices.Max(a[:j+1]) > slices.Min(a[j+1:]) {
			t.Errorf("len %d: max of left %d > min of right %d", len(a), slices.Max(a[:j+1]), slices.Min(a[j+1:]))
		}
		slices.Sort(a)
		want := slices.Clone(in)
		slices.Sort(want)
		if !slices.Equal(a, want) {
			t.Errorf("len %d: partition lost or duplicated elements", len(in))
		}
	}
}

func TestSum(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 999, 1000, 12345} {
		xs := sumInput(n)
		var want float64
		for i := 0; i < n; i++ {
			want += float64(i % 1000)
		}
		if got := sumSeq(xs); got != want {
			t.Errorf("n=%d: sumSeq = %v, want %v", n, got, want)
		}
		for _, procs := range []int{1, 2, 3} {
			var got float64
			withProcs(procs, func() { got = sumGo(xs) })
			if got != want {
				t.Errorf("n=%d procs=%d: sumGo = %v, want %v", n, procs, got, want)
			}
		}
	}
	// The full-size input sums exactly in any order: the total is far
	// below 2^53.
	if total := float64(FullSizes().SumN) * 999; total >= 1<<53 {
		t.Errorf("full-size sum may reach %v, beyond exact float64 integers", total)
	}
}

// TestSubmitters runs each peer's pool the way the submit rows do, for more
// ops and tasks than the quick report, and checks that every task runs
// exactly once per op and that close waits for the pool's goroutines.
func TestSubmitters(t *testing.T) {
	ops, tasks := 20, 2000
	if testing.Short() {
		ops, tasks = 5, 500
	}
	for _, s := range submitters {
		for _, workers := range []int{1, 2, 4} {
			var ran atomic.Int64
			var wg sync.WaitGroup
			op, closeFn, err := s.open(workers, func() { ran.Add(1); wg.Done() })
			if err != nil {
				t.Fatalf("%s: %v", s.impl, err)
			}
			watchdog(t, time.Minute, func() {
				for i := 0; i < ops; i++ {
					wg.Add(tasks)
					if err := op(tasks); err != nil {
						t.Errorf("%s: %v", s.impl, err)
						return
					}
					wg.Wait()
				}
				if err := closeFn(); err != nil {
					t.Errorf("%s: close: %v", s.impl, err)
				}
			})
			if got := ran.Load(); got != int64(ops*tasks) {
				t.Errorf("%s workers=%d: %d tasks ran, want %d", s.impl, workers, got, ops*tasks)
			}
		}
	}
}

func TestNames(t *testing.T) {
	cases := Suite(Config{Sizes: FullSizes(), Parkings: ParkingNames(), Workers: []int{1, 2}})
	seen := map[string]bool{}
	for _, c := range cases {
		name := c.FullName()
		if seen[name] {
			t.Errorf("duplicate benchmark name %s", name)
		}
		seen[name] = true
	}
	for _, want := range []string{
		"BenchmarkFib/n=30/impl=seq/workers=1",
		"BenchmarkFib/n=25/impl=goroutine-wg/workers=2",
		"BenchmarkFib/n=30/impl=goroutine-wg-cutoff/workers=1",
		"BenchmarkTreeSum/depth=20/impl=goroutine-wg-cutoff/workers=2",
		"BenchmarkQuicksort/n=1048576/impl=seq/workers=1",
		"BenchmarkSum/n=10000000/impl=goroutine-chunks/workers=2",
		"BenchmarkSubmit/tasks=10000/impl=errgroup-limit/workers=2",
		"BenchmarkFib/n=30/impl=blitz-args/workers=1",
		"BenchmarkFib/n=32/impl=blitz-args/workers=2/pool=fresh/parking=futex",
		"BenchmarkFib/n=32/impl=blitz-args/workers=2/pool=warm/parking=futex",
		"BenchmarkFib/n=40/impl=blitz-args-cutoff/workers=2/pool=warm/parking=cond",
		"BenchmarkForkJoin/depth=20/impl=blitz-args/workers=1",
		"BenchmarkForkJoin/depth=20/impl=blitz-args/workers=2/pool=fresh",
		"BenchmarkForkJoin/depth=20/impl=blitz-args/workers=2/pool=warm",
		"BenchmarkTreeSum/depth=20/impl=blitz-args/workers=2",
		"BenchmarkSubmit/tasks=10000/impl=blitz/workers=2/parking=portable",
		"BenchmarkForkJoin/depth=20/impl=goroutine-wg-top/workers=2",
		"BenchmarkSortF64/input=equal/n=1M/impl=blitz/workers=2/parking=cond",
		"BenchmarkSearch/op=position-middle/n=10M/impl=goroutine-chunks/workers=2",
		"BenchmarkFlattenSum/n=1000x10k/impl=seq/workers=1",
	} {
		if !seen[want] {
			t.Errorf("suite lacks %s", want)
		}
	}
}
