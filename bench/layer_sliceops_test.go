package main

import (
	"slices"
	"testing"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

// The rows of rayon's slice operations (ZipWith, Unzip, MapWindows,
// FlatMap, FilterMap, PartitionMap, Fold), each beside the plain loop a Go
// user writes for it (impl=seq, the callback inlined) and that loop with
// the callback out of line (impl=seq-call), on the layer benchmarks' ints.
// Every op allocates its result as the loop does; Fold's accumulator is a
// histogram of 16 buckets in a slice, as a Fold over a large accumulator
// keeps a pointer (a value is copied in and out of every call).

// sliceOp is one op's four forms; want is the loop's result, for check.
type sliceOp[T any] struct {
	name         string
	seq, seqCall func() T
	par          func(r blitz.Runner) T
	equal        func(a, b T) bool
}

// pair is the result of the ops with two outputs.
type pair[A, B any] struct {
	a []A
	b []B
}

func pairEqual[A, B comparable](x, y pair[A, B]) bool {
	return slices.Equal(x.a, y.a) && slices.Equal(x.b, y.b)
}

// bench runs op's rows under b.
func (op sliceOp[T]) bench(b *testing.B, p *blitz.Pool) {
	want := op.seq()
	b.Run("op="+op.name, func(b *testing.B) {
		layerRows(b, p, op.seq, op.seqCall, op.par, func(r T) bool { return op.equal(want, r) })
	})
}

// verify returns the forms of op whose result differs from the loop's.
func (op sliceOp[T]) verify(p *blitz.Pool) []string {
	want := op.seq()
	var bad []string
	if !op.equal(want, op.seqCall()) {
		bad = append(bad, op.name+"/seq-call")
	}
	if !op.equal(want, op.par(p)) {
		bad = append(bad, op.name+"/blitz")
	}
	if !op.equal(want, blitz.Do(p, func(w *blitz.Worker) T { return op.par(w) })) {
		bad = append(bad, op.name+"/blitz-worker")
	}
	return bad
}

// layerOp is a sliceOp of any result type.
type layerOp interface {
	bench(b *testing.B, p *blitz.Pool)
	verify(p *blitz.Pool) []string
}

// The callbacks, named so that seq and seq-call share them.
func zipF(x, y int) int                    { return 3*x - y }
func unzipF(x int) (int, uint8)            { return x >> 3, uint8(x & 7) }
func windowF(w []int) int                  { return w[0] + w[1] + w[2] + w[3] }
func filterMapF(x int) (int, bool)         { return 3 * x, x%3 == 0 }
func partitionMapF(x int) (int, int, bool) { return x, -x, x%2 == 0 }
func foldF(h []int, x int) []int           { h[x&15]++; return h }
func foldInit() []int                      { return make([]int, 16) }
func foldCombine(a, b []int) []int {
	for i := range a {
		a[i] += b[i]
	}
	return a
}

// flatTable backs flatMapF's results: views, so that neither the loop nor
// the layer allocates per element.
var flatTable = []int{0, 1, 2, 3, 4, 5}

func flatMapF(x int) []int { return flatTable[x%4 : x%4+x%3] }

// The loops with the callback out of line (impl=seq-call).

//go:noinline
func zipCall(a, b []int, f func(int, int) int) []int {
	out := make([]int, len(a))
	for i := range a {
		out[i] = f(a[i], b[i])
	}
	return out
}

//go:noinline
func unzipCall(s []int, f func(int) (int, uint8)) pair[int, uint8] {
	o := pair[int, uint8]{make([]int, len(s)), make([]uint8, len(s))}
	for i, x := range s {
		o.a[i], o.b[i] = f(x)
	}
	return o
}

//go:noinline
func windowsCall(s []int, size int, f func([]int) int) []int {
	out := make([]int, len(s)-size+1)
	for i := range out {
		out[i] = f(s[i : i+size : i+size])
	}
	return out
}

//go:noinline
func flatMapCall(s []int, f func(int) []int) []int {
	var out []int
	for _, x := range s {
		out = append(out, f(x)...)
	}
	return out
}

//go:noinline
func filterMapCall(s []int, f func(int) (int, bool)) []int {
	var out []int
	for _, x := range s {
		if v, ok := f(x); ok {
			out = append(out, v)
		}
	}
	return out
}

//go:noinline
func partitionMapCall(s []int, f func(int) (int, int, bool)) pair[int, int] {
	var o pair[int, int]
	for _, x := range s {
		if l, r, left := f(x); left {
			o.a = append(o.a, l)
		} else {
			o.b = append(o.b, r)
		}
	}
	return o
}

//go:noinline
func foldCall(s []int, init func() []int, f func([]int, int) []int) []int {
	h := init()
	for _, x := range s {
		h = f(h, x)
	}
	return h
}

// sliceOps returns the slice operations' rows on s (0, 1, ..., n-1).
func sliceOps(s []int) []layerOp {
	s2 := slices.Clone(s)
	slices.Reverse(s2)
	return []layerOp{sliceOp[[]int]{
		name: "zip-with",
		seq: func() []int {
			out := make([]int, len(s))
			for i := range s {
				out[i] = zipF(s[i], s2[i])
			}
			return out
		},
		seqCall: func() []int { return zipCall(s, s2, zipF) },
		par:     func(r blitz.Runner) []int { return par.ZipWith(r, s, s2, zipF) },
		equal:   slices.Equal[[]int],
	}, sliceOp[pair[int, uint8]]{
		name: "unzip",
		seq: func() pair[int, uint8] {
			o := pair[int, uint8]{make([]int, len(s)), make([]uint8, len(s))}
			for i, x := range s {
				o.a[i], o.b[i] = unzipF(x)
			}
			return o
		},
		seqCall: func() pair[int, uint8] { return unzipCall(s, unzipF) },
		par: func(r blitz.Runner) pair[int, uint8] {
			a, c := par.Unzip(r, s, unzipF)
			return pair[int, uint8]{a, c}
		},
		equal: pairEqual[int, uint8],
	}, sliceOp[[]int]{
		name: "map-windows",
		seq: func() []int {
			out := make([]int, len(s)-3)
			for i := range out {
				out[i] = windowF(s[i : i+4 : i+4])
			}
			return out
		},
		seqCall: func() []int { return windowsCall(s, 4, windowF) },
		par:     func(r blitz.Runner) []int { return par.MapWindows(r, s, 4, windowF) },
		equal:   slices.Equal[[]int],
	}, sliceOp[[]int]{
		name: "flat-map",
		seq: func() []int {
			var out []int
			for _, x := range s {
				out = append(out, flatMapF(x)...)
			}
			return out
		},
		seqCall: func() []int { return flatMapCall(s, flatMapF) },
		par:     func(r blitz.Runner) []int { return par.FlatMap(r, s, flatMapF) },
		equal:   slices.Equal[[]int],
	}, sliceOp[[]int]{
		name: "filter-map",
		seq: func() []int {
			var out []int
			for _, x := range s {
				if v, ok := filterMapF(x); ok {
					out = append(out, v)
				}
			}
			return out
		},
		seqCall: func() []int { return filterMapCall(s, filterMapF) },
		par:     func(r blitz.Runner) []int { return par.FilterMap(r, s, filterMapF) },
		equal:   slices.Equal[[]int],
	}, sliceOp[pair[int, int]]{
		name: "partition-map",
		seq: func() pair[int, int] {
			var o pair[int, int]
			for _, x := range s {
				if l, r, left := partitionMapF(x); left {
					o.a = append(o.a, l)
				} else {
					o.b = append(o.b, r)
				}
			}
			return o
		},
		seqCall: func() pair[int, int] { return partitionMapCall(s, partitionMapF) },
		par: func(r blitz.Runner) pair[int, int] {
			l, rs := par.PartitionMap(r, s, partitionMapF)
			return pair[int, int]{l, rs}
		},
		equal: pairEqual[int, int],
	}, sliceOp[[]int]{
		name: "fold",
		seq: func() []int {
			h := make([]int, 16)
			for _, x := range s {
				h[x&15]++
			}
			return h
		},
		seqCall: func() []int { return foldCall(s, foldInit, foldF) },
		par:     func(r blitz.Runner) []int { return par.Fold(r, s, foldInit, foldF, foldCombine) },
		equal:   slices.Equal[[]int],
	}}
}

// TestLayerSliceOpsCheck runs every form of the slice operations' rows at
// a small size and checks them against the loop, so that a broken row
// fails `go test` rather than a long run.
func TestLayerSliceOpsCheck(t *testing.T) {
	p, err := blitz.New(blitz.WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, op := range sliceOps(layerInts(50_000)) {
		if bad := op.verify(p); len(bad) > 0 {
			t.Errorf("differ from the loop: %v", bad)
		}
	}
}
