package par

import "github.com/blitz-go/blitz"

// Partition reorders s so that the elements x with pred(x) true come first,
// and returns their count: afterwards pred is true for s[:i] and false for
// s[i:]. The partition is stable: both groups keep their relative order.
// pred is called exactly once per element, potentially in parallel.
//
// It takes two passes over pieces of s and a buffer of len(s) elements: the
// first calls pred and writes each piece into its place in the buffer, the
// elements that satisfy pred forwards from the piece's start and the others
// backwards from its end, counting them; the second copies each piece's two
// groups to their final offsets in s (the second group read backwards,
// which restores its order). A nil pred panics.
func Partition[S ~[]E, E any](r blitz.Runner, s S, pred func(E) bool) int {
	if pred == nil {
		panic("par: Partition: nil function")
	}
	checkRunner("Partition", r)
	n := len(s)
	if n == 0 {
		return 0
	}
	return doOn("Partition", r, func(w *blitz.Worker) int {
		plan := newPiecePlan(n, pieceCount(r, n, piecesPerWorker*w.Pool().Workers()), 1)
		buf := make(S, n)
		// starts[i+1] counts piece i's elements that satisfy pred; the
		// prefix sum then makes starts[i] the offset of piece i's first
		// such element in s, and starts[k] their total.
		starts := make([]int, plan.k+1)
		eachPiece(w, 0, plan.k, func(_ *blitz.Worker, i int) {
			lo, hi := plan.bounds(i)
			t, f := lo, hi
			for _, x := range s[lo:hi] {
				if pred(x) {
					buf[t] = x
					t++
				} else {
					f--
					buf[f] = x
				}
			}
			starts[i+1] = t - lo
		})
		for i := 1; i <= plan.k; i++ {
			starts[i] += starts[i-1]
		}
		total := starts[plan.k]
		eachPiece(w, 0, plan.k, func(_ *blitz.Worker, i int) {
			lo, hi := plan.bounds(i)
			t := starts[i+1] - starts[i]
			copy(s[starts[i]:], buf[lo:lo+t])
			// The others of pieces 0..i-1 number lo - starts[i].
			rest := s[total+lo-starts[i]:][:hi-lo-t]
			for j := range rest {
				rest[j] = buf[hi-1-j]
			}
		})
		return total
	})
}
