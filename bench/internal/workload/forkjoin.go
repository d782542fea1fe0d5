package workload

import (
	"fmt"
	"sync"
	"testing"

	"github.com/blitz-go/blitz"
)

// The fork-join workload is Blitz's "Fork-Join (depth=d)": a join at every
// node of a complete binary recursion of depth d that does nothing else, so
// an op is all fork-join overhead. Every impl divides its time by the
// 2^(d+1)-1 nodes of the recursion, as Blitz's table does: ns/fork.

// joinSeq is the sequential baseline: the same recursion with plain calls.
//
//go:noinline
func joinSeq(depth int) int {
	if depth == 0 {
		return 1
	}
	return joinSeq(depth-1) + joinSeq(depth-1)
}

// joinGo forks a goroutine for the left half at every node deeper than
// cutoff levels from the leaves and recurses sequentially below.
func joinGo(depth, cutoff int) int {
	if depth <= cutoff {
		return joinSeq(depth)
	}
	var l int
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		l = joinGo(depth-1, cutoff)
		wg.Done()
	}()
	r := joinGo(depth-1, cutoff)
	wg.Wait()
	return l + r
}

// joinArgs joins with JoinArgs at every node.
func joinArgs(w *blitz.Worker, depth int) int {
	if depth == 0 {
		return 1
	}
	l, r := blitz.JoinArgs(w, joinArgs, depth-1, joinArgs, depth-1)
	return l + r
}

// joinGoLevels is how many levels from the root joinGo forks goroutines at:
// 64 goroutines, enough pieces for the machines this suite runs on.
const joinGoLevels = 6

func forkJoinCase(depth int, impl string, workers int, kind Kind) Case {
	return Case{
		Workload: "fork-join",
		Params:   fmt.Sprintf("depth=%d", depth),
		Impl:     impl,
		Workers:  workers,
		Unit:     "ns/fork",
		PerOp:    float64(int64(2)<<depth - 1),
		Kind:     kind,
	}
}

// forkJoinRow binds run(depth) to a row, checking it returns 2^depth.
func forkJoinRow(c Case, depth int, run func(depth int) int) Case {
	return bind(c, func(b *testing.B, c *Case) {
		seqBaseline(c, nil, func() { keep(joinSeq(depth)) })
		check(b, c, run(depth), 1<<depth)
		measure(b, c, nil, func() { keep(run(depth)) })
	})
}

// forkJoinCases are the fork-join rows at each of Blitz's depths: the plain
// recursion, goroutines at the top joinGoLevels levels, and the pool's
// JoinArgs at every node, on new and long-lived pools (longLivedRows).
func forkJoinCases(cfg Config) []Case {
	var out []Case
	for _, depth := range cfg.Sizes.ForkJoin {
		out = append(out, forkJoinRow(forkJoinCase(depth, "seq", 1, KindSeq), depth, joinSeq))
		cutoff := max(depth-joinGoLevels, 0)
		for _, w := range cfg.Workers {
			out = append(out, procsRow(forkJoinRow(forkJoinCase(depth, "goroutine-wg-top", w, KindPeer), depth,
				func(d int) int { return joinGo(d, cutoff) }), w))
		}
		out = append(out, longLivedRows(cfg, func(w int) Case { return forkJoinCase(depth, "blitz-args", w, KindBlitz) },
			func(b *testing.B, c *Case, p *blitz.Pool) (func(), func()) {
				run := func(w *blitz.Worker) int { return joinArgs(w, depth) }
				seqBaseline(c, nil, func() { keep(joinSeq(depth)) })
				check(b, c, blitz.Do(p, run), 1<<depth)
				return nil, func() { keep(blitz.Do(p, run)) }
			})...)
	}
	return out
}
