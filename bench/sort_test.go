package main

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

// The sort benchmarks compare par.Sort, SortFunc and SortStableFunc with
// the slices functions they replace, on 1M ints of several shapes:
//
//	go test -run '^$' -bench 'Sort' -count 10 | tee sort.txt
//	benchstat -col /impl -row /input sort.txt   (slices against blitz)
//
// Names are key=value for benchstat: input, n, impl (slices or blitz) and
// workers (the pool's size; slices rows run on the calling goroutine and
// are named workers=1). Each row makes its pool once, outside the loop.
//
// Each op sorts a fresh copy of the same input. The copy is made with the
// timer stopped: StopTimer and StartTimer cost a few microseconds (a
// runtime.ReadMemStats each), against sorts of one to a hundred
// milliseconds, and they cost the same for every impl, so the figures are
// the sort alone. Before timing, each row checks its result against
// slices.Sort's.

const sortBenchN = 1 << 20

// sortBenchInputs are the shapes of the inputs, each built once.
var sortBenchInputs = []struct {
	name string
	make func(n int) []int
}{
	{"random", func(n int) []int {
		r := rand.New(rand.NewPCG(1, 2))
		v := make([]int, n)
		for i := range v {
			v[i] = r.Int()
		}
		return v
	}},
	{"sorted", func(n int) []int {
		v := make([]int, n)
		for i := range v {
			v[i] = i
		}
		return v
	}},
	{"reverse", func(n int) []int {
		v := make([]int, n)
		for i := range v {
			v[i] = n - i
		}
		return v
	}},
	{"equal", func(n int) []int { return make([]int, n) }},
	{"organpipe", func(n int) []int {
		v := make([]int, n)
		for i := range v {
			v[i] = min(i, n-i)
		}
		return v
	}},
	{"nearly", func(n int) []int { // every 256th element out of place
		r := rand.New(rand.NewPCG(3, 4))
		v := make([]int, n)
		for i := range v {
			v[i] = i
			if i%256 == 128 {
				v[i] = r.IntN(n)
			}
		}
		return v
	}},
}

// sortBenchImpl is one implementation of a row: sort s, on pool p for ours.
type sortBenchImpl struct {
	name    string
	workers []int
	sort    func(p *blitz.Pool, s []int)
}

func BenchmarkSort(b *testing.B) {
	runSortBench(b, []string{"random", "sorted", "reverse", "equal", "organpipe"}, []sortBenchImpl{
		{"slices", []int{1}, func(_ *blitz.Pool, s []int) { slices.Sort(s) }},
		{"blitz", []int{1, 2}, func(p *blitz.Pool, s []int) { par.Sort(p, s) }},
	})
}

func BenchmarkSortFunc(b *testing.B) {
	runSortBench(b, []string{"random"}, []sortBenchImpl{
		{"slices", []int{1}, func(_ *blitz.Pool, s []int) { slices.SortFunc(s, cmp.Compare[int]) }},
		{"blitz", []int{1, 2}, func(p *blitz.Pool, s []int) { par.SortFunc(p, s, cmp.Compare[int]) }},
	})
}

func BenchmarkSortStableFunc(b *testing.B) {
	runSortBench(b, []string{"random", "sorted", "reverse", "nearly"}, []sortBenchImpl{
		{"slices", []int{1}, func(_ *blitz.Pool, s []int) { slices.SortStableFunc(s, cmp.Compare[int]) }},
		{"blitz", []int{1, 2}, func(p *blitz.Pool, s []int) { par.SortStableFunc(p, s, cmp.Compare[int]) }},
	})
}

func runSortBench(b *testing.B, inputs []string, impls []sortBenchImpl) {
	n := sortBenchN
	if testing.Short() {
		n = 1 << 14
	}
	for _, in := range sortBenchInputs {
		if !slices.Contains(inputs, in.name) {
			continue
		}
		src := in.make(n)
		want := slices.Clone(src)
		slices.Sort(want)
		for _, impl := range impls {
			for _, workers := range impl.workers {
				name := fmt.Sprintf("input=%s/n=%s/impl=%s/workers=%d", in.name, sizeName(n), impl.name, workers)
				b.Run(name, func(b *testing.B) {
					var p *blitz.Pool
					if impl.name != "slices" {
						var err error
						if p, err = blitz.New(blitz.WithWorkers(workers)); err != nil {
							b.Fatal(err)
						}
						defer p.Close()
					}
					buf := slices.Clone(src)
					impl.sort(p, buf)
					if !slices.Equal(buf, want) {
						b.Fatalf("%s: the result is not the sorted input", name)
					}
					b.ReportAllocs()
					for b.Loop() {
						b.StopTimer()
						copy(buf, src)
						b.StartTimer()
						impl.sort(p, buf)
					}
				})
			}
		}
	}
}

// sizeName writes n as 1M, 16K or n.
func sizeName(n int) string {
	switch {
	case n%(1<<20) == 0:
		return fmt.Sprintf("%dM", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%dK", n>>10)
	}
	return fmt.Sprint(n)
}
