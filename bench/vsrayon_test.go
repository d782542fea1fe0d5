package main

import (
	"cmp"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

// BenchmarkVsRayon is the layer's side of the comparison with rayon that
// rayon/compare.sh runs: the rows of the rayon/src/bin/rayon-layer.rs
// program, on the same inputs (the same splitmix64 generator and sizes), with
// the same names but side=go, so that `benchstat -col /side` sets each row of
// the two beside each other. impl is seq (the sequential loop as a user
// writes it, the callback inlined), par1 or par2 (the layer on a pool of one
// or two workers, called from a task of that pool, as rayon's rows run
// inside install). The pools live for the whole benchmark, so later rows
// run on pools that have already run others.
//
// TestVsRayonAnswers writes each row's answer, checked against the
// sequential one, for rayon/compare.sh to check against rayon's.

var vsRayonAnswers = flag.String("vsrayon-answers", "", "TestVsRayonAnswers writes the rows' answers to this file")

const (
	vsN       = 10_000_000
	vsSortN   = 1 << 20
	vsFlatOut = 1000
	vsFlatIn  = 10_000
)

// splitMix is the splitmix64 generator, as rayon-layer.rs has it.
type splitMix uint64

func (g *splitMix) next() uint64 {
	*g += 0x9e3779b97f4a7c15
	z := uint64(*g)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// vsRec is the stable sort's 16-byte record, sorted by key.
type vsRec struct{ key, val uint64 }

type vsInputs struct {
	ints   []int64
	floats []float64
	outer  [][]int64
	u64s   []uint64
	recs   []vsRec
}

var vsOnce = sync.OnceValue(func() *vsInputs {
	d := &vsInputs{ints: make([]int64, vsN), floats: make([]float64, vsN)}
	for i := range vsN {
		d.ints[i] = int64(i)
		d.floats[i] = float64(i % 1000)
	}
	d.outer = make([][]int64, vsFlatOut)
	for c := range d.outer {
		d.outer[c] = make([]int64, vsFlatIn)
		for i := range d.outer[c] {
			d.outer[c][i] = int64(c*vsFlatIn + i)
		}
	}
	g := splitMix(1)
	d.u64s = make([]uint64, vsSortN)
	for i := range d.u64s {
		d.u64s[i] = g.next()
	}
	g = splitMix(2)
	d.recs = make([]vsRec, vsSortN)
	for i := range d.recs {
		d.recs[i] = vsRec{g.next() % (vsSortN / 4), uint64(i)}
	}
	return d
})

// The rows' callbacks are named functions, not function literals: a build
// with a profile (the go-pgo side) devirtualizes a hot call through a func
// value only to a named function, and then inlines it.
func vsNegative(x int64) bool      { return x < 0 }
func vsNonNegative(x int64) bool   { return x >= 0 }
func vsMinKey(x float64) float64   { return math.Abs(x - 499.25) }
func vsMaxKey(x float64) float64   { return math.Abs(x - 400.25) }
func vsCompareKeys(a, b vsRec) int { return cmp.Compare(a.key, b.key) }

// fold64 is the order-sensitive checksum of a sorted result (both sides).
func fold64[E any](s []E, f func(E) uint64) uint64 {
	h := uint64(14695981039346656037)
	for _, x := range s {
		h = (h ^ f(x)) * 1099511628211
	}
	return h
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// vsRow is one row: seq computes the answer sequentially, par on w.
type vsRow struct {
	name string
	seq  func(d *vsInputs) uint64
	par  func(w *blitz.Worker, d *vsInputs) uint64
}

// vsSortRow is a sorting row: seq or par sorts s in place.
type vsSortRow[E any] struct {
	name  string
	input func(d *vsInputs) []E
	seq   func(s []E)
	par   func(w *blitz.Worker, s []E)
	sum   func(E) uint64
}

func vsRows() []vsRow {
	return []vsRow{
		{"any", func(d *vsInputs) uint64 {
			return b2u(slices.ContainsFunc(d.ints, vsNegative))
		}, func(w *blitz.Worker, d *vsInputs) uint64 {
			return b2u(par.ContainsFunc(w, d.ints, vsNegative))
		}},
		{"all", func(d *vsInputs) uint64 {
			return b2u(!slices.ContainsFunc(d.ints, func(x int64) bool { return !vsNonNegative(x) }))
		}, func(w *blitz.Worker, d *vsInputs) uint64 {
			return b2u(par.All(w, d.ints, vsNonNegative))
		}},
		{"min-by-key", func(d *vsInputs) uint64 {
			m, mk := d.floats[0], vsMinKey(d.floats[0])
			for _, x := range d.floats[1:] {
				if k := vsMinKey(x); k < mk {
					m, mk = x, k
				}
			}
			return uint64(m)
		}, func(w *blitz.Worker, d *vsInputs) uint64 {
			m, _ := par.MinByKey(w, d.floats, vsMinKey)
			return uint64(m)
		}},
		{"max-by-key", func(d *vsInputs) uint64 {
			m, mk := d.floats[0], vsMaxKey(d.floats[0])
			for _, x := range d.floats[1:] {
				if k := vsMaxKey(x); k > mk {
					m, mk = x, k
				}
			}
			return uint64(m)
		}, func(w *blitz.Worker, d *vsInputs) uint64 {
			m, _ := par.MaxByKey(w, d.floats, vsMaxKey)
			return uint64(m)
		}},
		{"flatten-sum", func(d *vsInputs) uint64 {
			var t int64
			for _, in := range d.outer {
				for _, x := range in {
					t += x
				}
			}
			return uint64(t)
		}, func(w *blitz.Worker, d *vsInputs) uint64 {
			return uint64(par.MapReduce(w, 0, len(d.outer), 1, 0, func(w *blitz.Worker, lo, hi int) int64 {
				var t int64
				for _, in := range d.outer[lo:hi] {
					t += par.Sum(w, in)
				}
				return t
			}, func(a, b int64) int64 { return a + b }))
		}},
		{"sum", func(d *vsInputs) uint64 {
			var s float64
			for _, x := range d.floats {
				s += x
			}
			return uint64(s)
		}, func(w *blitz.Worker, d *vsInputs) uint64 {
			return uint64(par.Sum(w, d.floats))
		}},
	}
}

var vsSortU64 = vsSortRow[uint64]{"sort-u64",
	func(d *vsInputs) []uint64 { return d.u64s },
	func(s []uint64) { slices.Sort(s) },
	func(w *blitz.Worker, s []uint64) { par.Sort(w, s) },
	func(x uint64) uint64 { return x }}

var vsStableRec = vsSortRow[vsRec]{"stable-sort-rec",
	func(d *vsInputs) []vsRec { return d.recs },
	func(s []vsRec) { slices.SortStableFunc(s, vsCompareKeys) },
	func(w *blitz.Worker, s []vsRec) { par.SortStableFunc(w, s, vsCompareKeys) },
	func(r vsRec) uint64 { return r.key ^ (r.val<<32 | r.val>>32) }}

// vsImpls are the impl names with the pool each runs on (nil: sequential).
func vsImpls(b testing.TB) []struct {
	name string
	p    *blitz.Pool
} {
	impls := []struct {
		name string
		p    *blitz.Pool
	}{{"seq", nil}}
	for _, workers := range []int{1, 2} {
		p, err := blitz.New(blitz.WithWorkers(workers))
		require.NoError(b, err)
		b.Cleanup(func() { p.Close() })
		impls = append(impls, struct {
			name string
			p    *blitz.Pool
		}{fmt.Sprintf("par%d", workers), p})
	}
	return impls
}

func BenchmarkVsRayon(b *testing.B) {
	d := vsOnce()
	impls := vsImpls(b)
	for _, row := range vsRows() {
		for _, im := range impls {
			b.Run(fmt.Sprintf("row=%s/side=go/impl=%s", row.name, im.name), func(b *testing.B) {
				var r uint64
				if im.p == nil {
					for b.Loop() {
						r = row.seq(d)
					}
				} else {
					im.p.Run(func(w *blitz.Worker) {
						for b.Loop() {
							r = row.par(w, d)
						}
					})
				}
				if want := row.seq(d); r != want {
					b.Fatalf("%s: %d, want %d", im.name, r, want)
				}
			})
		}
	}
	benchVsSort(b, d, impls, vsSortU64)
	benchVsSort(b, d, impls, vsStableRec)
}

func benchVsSort[E any](b *testing.B, d *vsInputs, impls []struct {
	name string
	p    *blitz.Pool
}, row vsSortRow[E]) {
	src := row.input(d)
	// want is sorted by the first sub-benchmark that runs, so that a run
	// filtering this row out does not pay for it.
	want := sync.OnceValue(func() []E {
		want := slices.Clone(src)
		row.seq(want)
		return want
	})
	v := make([]E, len(src))
	for _, im := range impls {
		b.Run(fmt.Sprintf("row=%s/side=go/impl=%s", row.name, im.name), func(b *testing.B) {
			sortOnce := func(w *blitz.Worker) {
				b.StopTimer()
				copy(v, src)
				b.StartTimer()
				if w == nil {
					row.seq(v)
				} else {
					row.par(w, v)
				}
			}
			if im.p == nil {
				for b.Loop() {
					sortOnce(nil)
				}
			} else {
				im.p.Run(func(w *blitz.Worker) {
					for b.Loop() {
						sortOnce(w)
					}
				})
			}
			if fold64(v, row.sum) != fold64(want(), row.sum) {
				b.Fatalf("%s: wrong order", im.name)
			}
		})
	}
}

// TestVsRayonAnswers writes every row's answer, at 2 workers and checked
// equal to the sequential one, to -vsrayon-answers, one "row answer" line
// each, as rayon-layer check prints them.
func TestVsRayonAnswers(t *testing.T) {
	if *vsRayonAnswers == "" {
		t.Skip("no -vsrayon-answers file given")
	}
	d := vsOnce()
	p, err := blitz.New(blitz.WithWorkers(2))
	require.NoError(t, err)
	defer p.Close()
	var out []byte
	for _, row := range vsRows() {
		got := blitz.Do(p, func(w *blitz.Worker) uint64 { return row.par(w, d) })
		require.Equal(t, row.seq(d), got, row.name)
		out = fmt.Appendf(out, "%s %d\n", row.name, got)
	}
	out = fmt.Appendf(out, "%s %d\n", vsSortU64.name, vsSortAnswer(t, p, d, vsSortU64))
	out = fmt.Appendf(out, "%s %d\n", vsStableRec.name, vsSortAnswer(t, p, d, vsStableRec))
	require.NoError(t, os.WriteFile(*vsRayonAnswers, out, 0o644))
}

func vsSortAnswer[E any](t *testing.T, p *blitz.Pool, d *vsInputs, row vsSortRow[E]) uint64 {
	want, got := slices.Clone(row.input(d)), slices.Clone(row.input(d))
	row.seq(want)
	p.Run(func(w *blitz.Worker) { row.par(w, got) })
	require.Equal(t, fold64(want, row.sum), fold64(got, row.sum), row.name)
	return fold64(got, row.sum)
}
