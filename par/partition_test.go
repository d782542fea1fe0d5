package par

import (
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz"
	"github.com/stretchr/testify/require"
)

// seqPartition is the sequential stable partition: those satisfying pred,
// then the others, each in their order.
func seqPartition[E any](s []E, pred func(E) bool) ([]E, int) {
	yes, no := make([]E, 0, len(s)), []E(nil)
	for _, x := range s {
		if pred(x) {
			yes = append(yes, x)
		} else {
			no = append(no, x)
		}
	}
	return append(yes, no...), len(yes)
}

func TestPartitionIsStable(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, n := range layerSizes(lr) {
			// Elements are (key, position) pairs: stability shows in the
			// positions' order within each group.
			s := pairs(randInts(n, 100, 11))
			for _, pred := range []func(pair) bool{
				func(p pair) bool { return p.key%3 == 0 },
				func(p pair) bool { return p.key < 2 },
				func(pair) bool { return true },
				func(pair) bool { return false },
			} {
				want, wantK := seqPartition(s, pred)
				got := slices.Clone(s)
				var calls atomic.Int64
				k := layerCall(t, lr, func(r blitz.Runner) int {
					return Partition(r, got, func(p pair) bool { calls.Add(1); return pred(p) })
				})
				require.Equalf(t, wantK, k, "n=%d", n)
				requireEqualSlices(t, want, got, fmt.Sprintf("n=%d", n))
				require.EqualValuesf(t, n, calls.Load(), "n=%d: pred calls", n)
			}
		}
	})
}

func TestPartitionPanicsPropagate(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, n := range []int{1, 100, 50_000} {
			s := make([]int, n)
			for i := range s {
				s[i] = i
			}
			at := n / 2
			v := layerPanic(t, lr, func(r blitz.Runner) {
				Partition(r, s, func(x int) bool {
					if x == at {
						panic(fmt.Sprint("boom at ", x))
					}
					return x%2 == 0
				})
			})
			requirePanicError(t, v, fmt.Sprint("boom at ", at))
		}
	})
}

func TestPartitionBadArguments(t *testing.T) {
	withPool(t, []blitz.Option{blitz.WithWorkers(2)}, func(p *blitz.Pool) {
		requirePanicMessage(t, "par: Partition: nil function", func() { Partition(p, []int{1}, nil) })
		requirePanicMessage(t, "par: Partition: nil Runner", func() {
			Partition(nil, []int(nil), func(int) bool { return true })
		})
		require.Equal(t, 0, Partition(p, []int(nil), func(int) bool { return true }))
	})
}

func FuzzPartition(f *testing.F) {
	f.Add([]byte{}, uint8(0), uint8(1), uint8(2))
	f.Add([]byte{5, 4, 3, 2, 1}, uint8(1), uint8(9), uint8(2))
	f.Add([]byte("stable partition keeps order"), uint8(2), uint8(150), uint8(3))
	ps := fuzzPools(f)
	f.Fuzz(func(t *testing.T, data []byte, pool, rep, mod uint8) {
		p := ps[int(pool)%len(ps)]
		s := pairs(fuzzLayerInts(data, int(rep)%64+1))
		m := int(mod)%7 + 1
		pred := func(q pair) bool { return q.key%m == 0 }
		want, wantK := seqPartition(s, pred)
		require.Equal(t, wantK, Partition(p, s, pred))
		require.Equal(t, want, s)
	})
}
