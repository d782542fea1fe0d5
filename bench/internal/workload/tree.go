package workload

import (
	"fmt"
	"sync"
	"testing"

	"github.com/blitz-go/blitz"
)

// node is a binary tree node. The tree is a pointer structure, as in rayon's
// join benchmarks, so every visit is a dependent load the parallel versions
// must hide.
type node struct {
	left, right *node
	val         int64
}

// buildTree returns a complete binary tree of the given depth (2^depth - 1
// nodes) whose values are 1..2^depth-1 in depth-first order. The nodes live in
// one slice, laid out in depth-first order, so building costs one allocation
// and every implementation walks the same memory.
func buildTree(depth int) *node {
	if depth <= 0 {
		return nil
	}
	nodes := make([]node, (1<<depth)-1)
	next := 0
	var build func(d int) *node
	build = func(d int) *node {
		if d == 0 {
			return nil
		}
		n := &nodes[next]
		next++
		n.val = int64(next)
		n.left = build(d - 1)
		n.right = build(d - 1)
		return n
	}
	return build(depth)
}

// treeWant is the sum of a tree of the given depth: 1 + 2 + ... + (2^depth-1).
func treeWant(depth int) int64 {
	n := int64(1)<<depth - 1
	return n * (n + 1) / 2
}

// treeSum is the sequential baseline.
func treeSum(n *node) int64 {
	if n == nil {
		return 0
	}
	return n.val + treeSum(n.left) + treeSum(n.right)
}

// treeSumGo forks a goroutine per subtree above the cutoff depth and sums
// subtrees of depth <= cutoff sequentially.
func treeSumGo(n *node, depth, cutoff int) int64 {
	if n == nil {
		return 0
	}
	if depth <= cutoff {
		return treeSum(n)
	}
	var l int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		l = treeSumGo(n.left, depth-1, cutoff)
		wg.Done()
	}()
	r := treeSumGo(n.right, depth-1, cutoff)
	wg.Wait()
	return n.val + l + r
}

// treeCase returns a tree-sum row; the metric is ns per node.
func treeCase(depth int, impl string, workers int, kind Kind) Case {
	return Case{
		Workload: "tree-sum",
		Params:   fmt.Sprintf("depth=%d", depth),
		Impl:     impl,
		Workers:  workers,
		Unit:     "ns/node",
		PerOp:    float64(int64(1)<<depth - 1),
		Kind:     kind,
	}
}

// treeArgs sums a tree with JoinArgs at every node.
func treeArgs(w *blitz.Worker, n *node) int64 {
	if n == nil {
		return 0
	}
	l, r := blitz.JoinArgs(w, treeArgs, n.left, treeArgs, n.right)
	return n.val + l + r
}

// treeClosure sums a tree with Join and closures at every node.
func treeClosure(w *blitz.Worker, n *node) int64 {
	if n == nil {
		return 0
	}
	l, r := blitz.Join(w,
		func(w *blitz.Worker) int64 { return treeClosure(w, n.left) },
		func(w *blitz.Worker) int64 { return treeClosure(w, n.right) })
	return n.val + l + r
}

// treeRow binds a tree-sum implementation to a row. The tree is built once,
// outside the timed loop, and dropped when the row ends.
func treeRow(c Case, depth int, run func(root *node) int64) Case {
	return bind(c, func(b *testing.B, c *Case) {
		root := buildTree(depth)
		seqBaseline(c, nil, func() { keep(treeSum(root)) })
		check(b, c, run(root), treeWant(depth))
		measure(b, c, nil, func() { keep(run(root)) })
	})
}

// treeCases are the tree-sum rows: sequential, goroutines above a cutoff
// depth, and the pool's joins at every node in both forms.
func treeCases(cfg Config) []Case {
	s := cfg.Sizes
	depth, cutoff := s.TreeDepth, s.TreeCutoff
	out := []Case{treeRow(treeCase(depth, "seq", 1, KindSeq), depth, treeSum)}
	for _, w := range cfg.Workers {
		out = append(out, procsRow(treeRow(treeCase(depth, "goroutine-wg-cutoff", w, KindPeer), depth,
			func(root *node) int64 { return treeSumGo(root, depth, cutoff) }), w))
	}
	for _, impl := range []struct {
		name string
		sum  func(w *blitz.Worker, n *node) int64
	}{{"blitz-args", treeArgs}, {"blitz-closure", treeClosure}} {
		out = append(out, poolRows(cfg, func(w int) Case { return treeCase(depth, impl.name, w, KindBlitz) },
			func(b *testing.B, c *Case, p *blitz.Pool) (func(), func()) {
				root := buildTree(depth)
				seqBaseline(c, nil, func() { keep(treeSum(root)) })
				run := func(w *blitz.Worker) int64 { return impl.sum(w, root) }
				check(b, c, blitz.Do(p, run), treeWant(depth))
				return nil, func() { keep(blitz.Do(p, run)) }
			})...)
	}
	return out
}
