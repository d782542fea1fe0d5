package workload

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/blitz-go/blitz"
)

// insertionLimit is the length below which every quicksort finishes with an
// insertion sort.
const insertionLimit = 16

// partition reorders a (len(a) >= 2) around the median of its first, middle
// and last elements (Hoare's scheme) and returns j such that every element of
// a[:j+1] is <= every element of a[j+1:], with both parts non-empty.
func partition[E cmp.Ordered](a []E) int {
	hi := len(a) - 1
	mid := hi / 2
	if a[mid] < a[0] {
		a[mid], a[0] = a[0], a[mid]
	}
	if a[hi] < a[0] {
		a[hi], a[0] = a[0], a[hi]
	}
	if a[hi] < a[mid] {
		a[hi], a[mid] = a[mid], a[hi]
	}
	p := a[mid]
	i, j := -1, len(a)
	for {
		for {
			i++
			if a[i] >= p {
				break
			}
		}
		for {
			j--
			if a[j] <= p {
				break
			}
		}
		if i >= j {
			return j
		}
		a[i], a[j] = a[j], a[i]
	}
}

func insertionSort(a []int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// quicksortSeq is the sequential baseline, and what every parallel variant
// runs below its cutoff.
func quicksortSeq(a []int) {
	for len(a) > insertionLimit {
		j := partition(a)
		// Recurse on the smaller part, loop on the larger: O(log n) stack.
		if j+1 < len(a)-(j+1) {
			quicksortSeq(a[:j+1])
			a = a[j+1:]
		} else {
			quicksortSeq(a[j+1:])
			a = a[:j+1]
		}
	}
	insertionSort(a)
}

// quicksortGo forks a goroutine for the left part of every partition longer
// than cutoff (and than insertionLimit: partition needs two elements).
func quicksortGo(a []int, cutoff int) {
	if len(a) <= cutoff || len(a) <= insertionLimit {
		quicksortSeq(a)
		return
	}
	j := partition(a)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		quicksortGo(a[:j+1], cutoff)
		wg.Done()
	}()
	quicksortGo(a[j+1:], cutoff)
	wg.Wait()
}

// sortInput returns n pseudo-random ints (fixed seed, so every run sorts the
// same input) and their sorted copy.
func sortInput(n int) (data, sorted []int) {
	r := rand.New(rand.NewPCG(1, 2))
	data = make([]int, n)
	for i := range data {
		data[i] = r.IntN(n)
	}
	sorted = slices.Clone(data)
	slices.Sort(sorted)
	return data, sorted
}

// quicksortCase returns a quicksort row; the metric is ns per element.
func quicksortCase(n int, impl string, workers int, kind Kind) Case {
	return Case{
		Workload: "quicksort",
		Params:   fmt.Sprintf("n=%d", n),
		Impl:     impl,
		Workers:  workers,
		Unit:     "ns/elem",
		PerOp:    float64(n),
		Kind:     kind,
	}
}

// sortArg is one quicksort job's argument: the part to sort and the cutoff
// below which it sorts sequentially.
type sortArg struct {
	a      []int
	cutoff int
}

// quicksortArgs forks both parts of every partition longer than the cutoff
// with JoinArgs.
func quicksortArgs(w *blitz.Worker, s sortArg) struct{} {
	if len(s.a) <= s.cutoff || len(s.a) <= insertionLimit {
		quicksortSeq(s.a)
		return struct{}{}
	}
	j := partition(s.a)
	blitz.JoinArgs(w, quicksortArgs, sortArg{s.a[:j+1], s.cutoff}, quicksortArgs, sortArg{s.a[j+1:], s.cutoff})
	return struct{}{}
}

// quicksortClosure forks both parts of every partition longer than the
// cutoff with Join and closures.
func quicksortClosure(w *blitz.Worker, a []int, cutoff int) {
	if len(a) <= cutoff || len(a) <= insertionLimit {
		quicksortSeq(a)
		return
	}
	j := partition(a)
	blitz.Join(w,
		func(w *blitz.Worker) struct{} { quicksortClosure(w, a[:j+1], cutoff); return struct{}{} },
		func(w *blitz.Worker) struct{} { quicksortClosure(w, a[j+1:], cutoff); return struct{}{} })
}

// quicksortSetup builds a row's input and buffer, times the sequential
// baseline if needed, runs sortBuf once on a fresh copy and fails b unless
// it sorted. It returns the untimed prepare (a fresh copy) and the op.
func quicksortSetup(b *testing.B, c *Case, n int, sortBuf func(buf []int)) (prepare, op func()) {
	data, sorted := sortInput(n)
	buf := make([]int, n)
	prepare = func() { copy(buf, data) }
	seqBaseline(c, prepare, func() { quicksortSeq(buf) })
	prepare()
	sortBuf(buf)
	if !slices.Equal(buf, sorted) {
		Fail(b, c, "output is not the sorted input")
	}
	return prepare, func() { sortBuf(buf) }
}

// quicksortRow binds a sort to a row. Each op sorts a fresh copy of the same
// input; the copy is made with the timer stopped, so ns/op is the sort alone
// for every implementation.
func quicksortRow(c Case, n int, run func(a []int)) Case {
	return bind(c, func(b *testing.B, c *Case) {
		prepare, op := quicksortSetup(b, c, n, run)
		measure(b, c, prepare, op)
	})
}

// quicksortCases are the quicksort rows: sequential, a goroutine per
// partition above the cutoff, and the pool's joins in both forms.
func quicksortCases(cfg Config) []Case {
	s := cfg.Sizes
	n, cutoff := s.SortN, s.SortCutoff
	out := []Case{quicksortRow(quicksortCase(n, "seq", 1, KindSeq), n, quicksortSeq)}
	for _, w := range cfg.Workers {
		out = append(out, procsRow(quicksortRow(quicksortCase(n, "goroutine-wg-cutoff", w, KindPeer), n,
			func(a []int) { quicksortGo(a, cutoff) }), w))
	}
	for _, impl := range []struct {
		name string
		sort func(w *blitz.Worker, a []int)
	}{
		{"blitz-args", func(w *blitz.Worker, a []int) { quicksortArgs(w, sortArg{a, cutoff}) }},
		{"blitz-closure", func(w *blitz.Worker, a []int) { quicksortClosure(w, a, cutoff) }},
	} {
		out = append(out, poolRows(cfg, func(w int) Case { return quicksortCase(n, impl.name, w, KindBlitz) },
			func(b *testing.B, c *Case, p *blitz.Pool) (func(), func()) {
				return quicksortSetup(b, c, n, func(buf []int) { p.Run(func(w *blitz.Worker) { impl.sort(w, buf) }) })
			})...)
	}
	return out
}
