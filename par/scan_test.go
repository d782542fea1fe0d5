package par

import (
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// affine is the map x -> a*x + b; composing maps is associative but not
// commutative, so a scan that combines pieces out of order gives another
// answer.
type affine struct{ a, b int }

// thenApply is f followed by g.
func thenApply(f, g affine) affine { return affine{g.a * f.a, g.a*f.b + g.b} }

var affineID = affine{1, 0}

func seqScan[E any](src []E, identity E, op func(a, b E) E, inclusive bool) ([]E, E) {
	dst := make([]E, len(src))
	acc := identity
	for i, x := range src {
		if !inclusive {
			dst[i] = acc
		}
		acc = op(acc, x)
		if inclusive {
			dst[i] = acc
		}
	}
	return dst, acc
}

func affines(n int, seed uint64) []affine {
	r := randInts(2*n, 7, seed)
	s := make([]affine, n)
	for i := range s {
		s[i] = affine{r[2*i] - 3, r[2*i+1]}
	}
	return s
}

func TestScansMatchSequential(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, n := range layerSizes(lr) {
			src := affines(n, 9)
			for _, inclusive := range []bool{true, false} {
				name := fmt.Sprintf("n=%d inclusive=%v", n, inclusive)
				want, wantTotal := seqScan(src, affineID, thenApply, inclusive)
				scan := ExclusiveScan[[]affine, affine]
				if inclusive {
					scan = InclusiveScan[[]affine, affine]
				}
				dst := make([]affine, n)
				total := layerCall(t, lr, func(r blitz.Runner) affine { return scan(r, dst, src, affineID, thenApply) })
				requireEqualSlices(t, want, dst, name)
				require.Equal(t, wantTotal, total, name+": total")

				// In place: dst is src.
				in := slices.Clone(src)
				total = layerCall(t, lr, func(r blitz.Runner) affine { return scan(r, in, in, affineID, thenApply) })
				requireEqualSlices(t, want, in, name+": in place")
				require.Equal(t, wantTotal, total, name+": in-place total")
			}
		}
	})
}

func TestScanCallsOpAtMostTwicePerElement(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(8)}, func(p *blitz.Pool) {
		const n = 100_000
		src := randInts(n, 100, 10)
		var calls atomic.Int64
		add := func(a, b int) int { calls.Add(1); return a + b }
		dst := make([]int, n)
		want, wantTotal := seqScan(src, 0, func(a, b int) int { return a + b }, true)
		require.Equal(t, wantTotal, InclusiveScan(p, dst, src, 0, add))
		require.Equal(t, want, dst)
		// Pass 1 reduces all pieces but the last, pass 2 scans all but the
		// first, and the piece totals are folded once: below 2n.
		require.Less(t, calls.Load(), int64(2*n))
		require.GreaterOrEqual(t, calls.Load(), int64(n))
	})
}

func TestScanBadArguments(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(2)}, func(p *blitz.Pool) {
		add := func(a, b int) int { return a + b }
		requirePanicMessage(t, "par: InclusiveScan: len(dst) = 2, len(src) = 3", func() {
			InclusiveScan(p, make([]int, 2), make([]int, 3), 0, add)
		})
		requirePanicMessage(t, "par: ExclusiveScan: nil function", func() {
			ExclusiveScan(p, []int{1}, []int{1}, 0, nil)
		})
		requirePanicMessage(t, "par: ExclusiveScan: nil Runner", func() {
			ExclusiveScan(nil, []int(nil), nil, 0, add)
		})
		assert.Equal(t, 5, ExclusiveScan(p, []int(nil), nil, 5, add), "empty: the identity")
	})
}

func TestScanPanicsPropagate(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, n := range []int{1, 100, 50_000} {
			src := make([]int, n)
			for i := range src {
				src[i] = i
			}
			at := n / 2
			op := func(a, b int) int {
				if b == at {
					panic(fmt.Sprint("boom at ", b))
				}
				return a + b
			}
			v := layerPanic(t, lr, func(r blitz.Runner) { InclusiveScan(r, make([]int, n), src, 0, op) })
			requirePanicError(t, v, fmt.Sprint("boom at ", at))
		}
	})
}

func FuzzScan(f *testing.F) {
	f.Add([]byte{}, uint8(0), uint8(1), true)
	f.Add([]byte{1, 2, 3}, uint8(1), uint8(200), false)
	f.Add([]byte("prefix sums of bytes"), uint8(2), uint8(100), true)
	ps := fuzzPools(f)
	f.Fuzz(func(t *testing.T, data []byte, pool, rep uint8, inclusive bool) {
		p := ps[int(pool)%len(ps)]
		s := fuzzLayerInts(data, int(rep)%64+1)
		src := make([]affine, len(s))
		for i, x := range s {
			src[i] = affine{x%5 - 2, x}
		}
		want, wantTotal := seqScan(src, affineID, thenApply, inclusive)
		dst := make([]affine, len(src))
		var total affine
		if inclusive {
			total = InclusiveScan(p, dst, src, affineID, thenApply)
		} else {
			total = ExclusiveScan(p, dst, src, affineID, thenApply)
		}
		require.Equal(t, want, dst)
		require.Equal(t, wantTotal, total)
	})
}

// TestScanPartialOverlap checks that a dst that overlaps src without being
// it (a shifted window of the same array, either way) is refused with a
// panic before anything is written, at every size, while the in-place scan
// (dst starting where src starts) still works at sizes that the scan cuts
// into pieces for several workers.
func TestScanPartialOverlap(t *testing.T) {
	for _, workers := range []int{1, 8} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			withPool(t, []blitz.Option{blitz.WithWorkers(workers)}, func(p *blitz.Pool) {
				add := func(a, b int) int { return a + b }
				for _, n := range []int{2, 3 * scanMinPiece, 50_000} {
					for _, name := range []string{"InclusiveScan", "ExclusiveScan"} {
						scan := ExclusiveScan[[]int, int]
						if name == "InclusiveScan" {
							scan = InclusiveScan[[]int, int]
						}
						for _, shift := range []int{1, n / 2, n - 1} {
							buf := randInts(n+shift, 100, uint64(shift))
							orig := slices.Clone(buf)
							msg := "par: " + name + ": dst and src overlap but do not start at the same element"
							requirePanicMessage(t, msg, func() { scan(p, buf[shift:], buf[:n], 0, add) })
							requirePanicMessage(t, msg, func() { scan(p, buf[:n], buf[shift:], 0, add) })
							requireEqualSlices(t, orig, buf, name+": written before the refusal")
						}
						// In place, through two headers of the same elements.
						buf := randInts(n, 100, 3)
						want, wantTotal := seqScan(buf, 0, add, name == "InclusiveScan")
						total := scan(p, buf[:n:n], buf, 0, add)
						requireEqualSlices(t, want, buf, name+": in place")
						require.Equal(t, wantTotal, total, name+": in-place total")
					}
				}
			})
		})
	}
}
