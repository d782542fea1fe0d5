package blitz_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/blitz-go/blitz"
)

// BenchmarkForkJoin measures the fork-join workloads whose balance work
// isolation could cost: fib (a join at every level), a balanced tree sum, a
// quicksort and an unbalanced tree search (UTS-like: a geometric number of
// children per node, so subtrees differ wildly in size and joiners often wait
// for thieves). It uses the public API only, so the same file measures any
// two versions of the pool side by side.
//
// Each row runs on a new pool; at 2 workers also on a long-lived one
// (pool=fresh and pool=warm): a pool that ran benchWarmUp first, shared by
// the warm rows.
func BenchmarkForkJoin(b *testing.B) {
	tree := benchTree(16)
	src := rand.New(rand.NewPCG(1, 2)).Perm(200_000)
	buf := make([]int, len(src))
	works := []struct {
		name string
		run  func(b *testing.B, p *blitz.Pool)
	}{
		{"fib25", func(b *testing.B, p *blitz.Pool) {
			for b.Loop() {
				blitz.Do(p, func(w *blitz.Worker) int { return benchFib(w, 25) })
			}
		}},
		{"tree16", func(b *testing.B, p *blitz.Pool) {
			for b.Loop() {
				blitz.Do(p, func(w *blitz.Worker) int { return benchTreeSum(w, tree) })
			}
		}},
		{"quicksort200k", func(b *testing.B, p *blitz.Pool) {
			for b.Loop() {
				copy(buf, src)
				blitz.Do(p, func(w *blitz.Worker) struct{} { return benchQuicksort(w, buf) })
			}
			if !slices.IsSorted(buf) {
				b.Fatal("not sorted")
			}
		}},
		{"uts", func(b *testing.B, p *blitz.Pool) {
			var nodes int
			for b.Loop() {
				nodes = blitz.Do(p, func(w *blitz.Worker) int { return benchUTS(w, utsNode{seed: 42, depth: 0}) })
			}
			b.ReportMetric(float64(nodes), "nodes")
		}},
	}
	var warm *blitz.Pool // made by the first warm row
	for _, n := range []int{1, 2} {
		for _, work := range works {
			name := fmt.Sprintf("work=%s/workers=%d", work.name, n)
			fresh := func(b *testing.B) {
				p, err := blitz.New(blitz.WithWorkers(n))
				if err != nil {
					b.Fatal(err)
				}
				defer p.Close()
				work.run(b, p)
				cpuOnly(b, p)
			}
			if n == 1 {
				b.Run(name, fresh)
				continue
			}
			b.Run(name+"/pool=fresh", fresh)
			b.Run(name+"/pool=warm", func(b *testing.B) {
				if warm == nil {
					warm = benchWarmUp(b, n)
				}
				work.run(b, warm)
				cpuOnly(b, warm)
			})
		}
	}
	if warm != nil {
		warm.Close()
	}
}

// benchWarmUp returns a pool of the given size after the warm-up of a
// long-lived pool: fib(20), fib(22), ..., fib(28) with a join at every call,
// 200000>>(n-20) times each (2000>>(n-20), at least once, under -short), one
// Do per size: bench_test.go's warmFib in the public API. Its time is not
// counted.
func benchWarmUp(b *testing.B, workers int) *blitz.Pool {
	b.StopTimer()
	defer b.StartTimer()
	p, err := blitz.New(blitz.WithWorkers(workers))
	if err != nil {
		b.Fatal(err)
	}
	k := 200000
	if testing.Short() {
		k = 2000
	}
	for n := 20; n <= 28; n += 2 {
		blitz.Do(p, func(w *blitz.Worker) int {
			s := 0
			for range max(k>>(n-20), 1) {
				s += benchFib(w, n)
			}
			return s
		})
	}
	return p
}

func benchFib(w *blitz.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := blitz.JoinArgs(w, benchFib, n-1, benchFib, n-2)
	return a + b
}

type benchNode struct {
	val         int
	left, right *benchNode
}

func benchTree(depth int) *benchNode {
	if depth == 0 {
		return nil
	}
	return &benchNode{val: depth, left: benchTree(depth - 1), right: benchTree(depth - 1)}
}

func benchTreeSum(w *blitz.Worker, n *benchNode) int {
	if n == nil {
		return 0
	}
	l, r := blitz.JoinArgs(w, benchTreeSum, n.left, benchTreeSum, n.right)
	return n.val + l + r
}

func benchQuicksort(w *blitz.Worker, s []int) struct{} {
	if len(s) <= 512 {
		slices.Sort(s)
		return struct{}{}
	}
	pivot := s[len(s)/2]
	lo, hi := 0, len(s)-1
	for lo <= hi {
		for s[lo] < pivot {
			lo++
		}
		for s[hi] > pivot {
			hi--
		}
		if lo <= hi {
			s[lo], s[hi] = s[hi], s[lo]
			lo++
			hi--
		}
	}
	blitz.JoinArgs(w, benchQuicksort, s[:hi+1], benchQuicksort, s[lo:])
	return struct{}{}
}

// utsNode is a node of the unbalanced tree: its children are derived from
// its seed, so the tree is the same in every run without being stored.
type utsNode struct {
	seed  uint64
	depth int
}

// utsChildren gives a node 8 children with probability 0.1249 (below depth
// 1, where the root always has 512), else none: an expected 0.9992 children per
// node, a critical-ish branching process whose subtrees differ by orders of
// magnitude in size.
func utsChildren(n utsNode) int {
	if n.depth == 0 {
		return 512
	}
	if mix(n.seed)%10000 < 1249 {
		return 8
	}
	return 0
}

func mix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	return x ^ x>>31
}

type utsRange struct {
	parent utsNode
	lo, hi int
}

func benchUTS(w *blitz.Worker, n utsNode) int {
	k := utsChildren(n)
	if k == 0 {
		return 1
	}
	return 1 + benchUTSRange(w, utsRange{n, 0, k})
}

func benchUTSRange(w *blitz.Worker, r utsRange) int {
	if r.hi-r.lo == 1 {
		return benchUTS(w, utsNode{seed: mix(r.parent.seed + uint64(r.lo) + 1), depth: r.parent.depth + 1})
	}
	mid := r.lo + (r.hi-r.lo)/2
	a, b := blitz.JoinArgs(w, benchUTSRange, utsRange{r.parent, r.lo, mid}, benchUTSRange, utsRange{r.parent, mid, r.hi})
	return a + b
}

// cpuOnly fails a benchmark of CPU work in which p added a worker for a
// blocked one: pure CPU work never blocks (see "Blocking" in the package
// documentation).
func cpuOnly(b *testing.B, p *blitz.Pool) {
	b.Helper()
	if st := p.Stats(); st.WorkersAdded != 0 || st.BlockedSeen != 0 {
		b.Fatalf("a CPU benchmark saw %d blocked workers and added %d workers", st.BlockedSeen, st.WorkersAdded)
	}
}
