package workload

import (
	"fmt"
	"testing"

	"github.com/blitz-go/blitz"
)

// Blitz's table (BENCHMARKS.md in NerdMeNot/blitz) measures a pool on slice
// workloads as well as on joins: sort, search, by-key reductions, chunks,
// enumerate, chain, zip and flatten. Each of those workloads has its own file
// holding its three implementations, written as Go users write them: the
// sequential loop, the plain-Go parallel version (GOMAXPROCS goroutines and
// a WaitGroup over contiguous pieces, see goChunks and goSearch) and the
// pool's data-parallel layer. This file turns the three into rows.

// opImpls are the implementations of one slice workload, over an input the
// workload's build function made for one row.
type opImpls[T comparable] struct {
	prepare func()                // untimed before each op (a fresh copy of a sort's input); nil for none
	seq     func() T              // the sequential loop; its result is the answer every impl must give
	goPar   func() T              // GOMAXPROCS goroutines and a WaitGroup
	pool    func(p *blitz.Pool) T // the data-parallel layer on p
	verify  func() error          // checked after the first run of every impl (a sort's output); nil for none
}

// opSpec names one slice workload's rows.
type opSpec struct {
	workload, params string
	unit             string  // per-item metric, "ns/elem"
	perOp            float64 // items per op
	peer             string  // the plain-Go impl's name
}

func (s opSpec) row(impl string, workers int, kind Kind) Case {
	return Case{Workload: s.workload, Params: s.params, Impl: impl, Workers: workers, Unit: s.unit, PerOp: s.perOp, Kind: kind}
}

// opCases returns a slice workload's rows: seq, the plain-Go peer at every
// worker count (under GOMAXPROCS = workers) and the pool's ("blitz") at
// every backend and worker count. build runs once per row, outside the
// timed loop.
func opCases[T comparable](cfg Config, spec opSpec, build func() opImpls[T]) []Case {
	out := []Case{bind(spec.row("seq", 1, KindSeq), func(b *testing.B, c *Case) {
		im := build()
		prepare, op := opSetup(b, c, im, im.seq)
		measure(b, c, prepare, op)
	})}
	for _, w := range cfg.Workers {
		out = append(out, procsRow(bind(spec.row(spec.peer, w, KindPeer), func(b *testing.B, c *Case) {
			im := build()
			prepare, op := opSetup(b, c, im, im.goPar)
			measure(b, c, prepare, op)
		}), w))
	}
	out = append(out, poolRows(cfg, func(w int) Case { return spec.row("blitz", w, KindBlitz) },
		func(b *testing.B, c *Case, p *blitz.Pool) (func(), func()) {
			im := build()
			return opSetup(b, c, im, func() T { return im.pool(p) })
		})...)
	return out
}

// opSetup checks run against the sequential answer (and im.verify), makes
// sure the sequential baseline is known, and returns the row's untimed
// prepare and its op.
func opSetup[T comparable](b *testing.B, c *Case, im opImpls[T], run func() T) (prepare, op func()) {
	if im.prepare != nil {
		im.prepare()
	}
	want := im.seq()
	seqBaseline(c, im.prepare, func() { keep(im.seq()) })
	if im.prepare != nil {
		im.prepare()
	}
	check(b, c, run(), want)
	if im.verify != nil {
		if err := im.verify(); err != nil {
			Fail(b, c, "%v", err)
		}
	}
	return im.prepare, func() { keep(run()) }
}

// sizeLabel writes n as 10M, 5M, 1M, 100k or n, as Blitz's table does.
func sizeLabel(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

// int64s returns 0, 1, ..., n-1, the input of Blitz's search, by-key,
// chunks and enumerate rows.
func int64s(n int) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = int64(i)
	}
	return s
}

// b2i is 1 for true, 0 for false: the boolean rows' results as int64.
func b2i(v bool) int64 {
	if v {
		return 1
	}
	return 0
}
