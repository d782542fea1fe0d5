package par

import (
	"math"

	"github.com/blitz-go/blitz"
)

// The minimum piece length (rayon's with_min_len) travels in the Runner
// rather than in a parameter, so that no function's signature grows: a
// minLenRunner embeds the Runner it wraps, which keeps it a blitz.Runner
// (the root package's sealing method is promoted), and par's entry
// (checkRunner, enter, doOn, inlineOnCaller) unwraps it before anything
// reaches the root package. Each function asks pieceMin for the minimum of
// its own splitter, the larger of the function's floor and the caller's.
// A plain *Pool or *Worker pays one failed type assertion per call, never
// one per piece: the value is read once, before the split starts.

// MinLen returns a Runner that runs on r, as r does, and makes every
// function of this package given it cut its input into pieces of at least
// n elements: rayon's with_min_len. A piece is the run of elements one
// worker handles in one go, calling the callback once per element; a
// longer minimum makes fewer pieces, which pays where a piece costs more to
// start than its elements cost to run, or where pieces may each do setup
// of their own (Fold makes at most one accumulator per piece, and only for
// a piece a thief starts early). An input shorter than twice the minimum
// is one piece. The functions that cut a fixed number of pieces (Filter,
// Partition, the scans, FlatMap, FilterMap, PartitionMap) may leave the
// last piece shorter. For, MapReduce and their error and context forms
// count indexes, Chunks chunks, Windows windows, and ForEachSeq the values
// of a batch; the ordered streams (MapSeq and its kin) map one value per
// task and ignore the minimum. The minimum only
// raises the function's own floor, which for the functions without a
// callback (Sum, Min, Fill, Contains, ...) is a few thousand elements.
//
// With For and MapReduce the minimum wins over the grain: pieces are at
// most grain long unless halving one would make it shorter than n. The
// sorts and IsSorted cut pieces of thousands of elements of their own: for
// them the minimum only keeps a slice shorter than twice n in one piece,
// sorted (or checked) by the calling goroutine, as a short slice is.
//
// The minimum applies to the call given the Runner, not to calls made from
// its callbacks with the *blitz.Worker they receive. Wrapping a Runner
// that MinLen returned replaces its minimum; n < 1 means no minimum beyond
// the function's own. The Runner may also be given to the root package's
// functions that take one (blitz.DoOn, NewGroup), which run on r's pool
// and ignore the minimum. A nil r panics.
func MinLen(r blitz.Runner, n int) blitz.Runner {
	if m, ok := r.(minLenRunner); ok {
		r = m.Runner
	}
	if r == nil {
		panic("par: MinLen: nil Runner")
	}
	return minLenRunner{Runner: r, n: max(n, 1)}
}

// minLenRunner is the Runner MinLen returns: r's minimum piece length.
type minLenRunner struct {
	blitz.Runner
	n int
}

// unwrap returns the *Pool or *Worker under r.
func unwrap(r blitz.Runner) blitz.Runner {
	if m, ok := r.(minLenRunner); ok {
		return m.Runner
	}
	return r
}

// pieceMin is the shortest piece a function whose own floor is floor cuts
// on r.
func pieceMin(r blitz.Runner, floor int) int {
	if m, ok := r.(minLenRunner); ok {
		return max(floor, m.n)
	}
	return floor
}

// pieceCount is the number of pieces a two-pass family cuts n elements
// into on r: k, or fewer where pieces of n/k elements would be shorter than
// r's minimum.
func pieceCount(r blitz.Runner, n, k int) int {
	if m, ok := r.(minLenRunner); ok {
		k = min(k, n/m.n)
	}
	return max(k, 1)
}

// seqUnderMin reports whether r's minimum keeps n elements in one piece,
// for the sorts, whose splitters have floors of their own.
func seqUnderMin(r blitz.Runner, n int) bool {
	m, ok := r.(minLenRunner)
	return ok && n < twice(m.n)
}

// twice is 2*n for a minimum or a length n >= 0, saturated at math.MaxInt:
// a minimum read from a request or a configuration may be near MaxInt,
// where 2*n would wrap negative and turn "shorter than twice the minimum"
// false for every input. Every doubling of a minimum goes through it.
func twice(n int) int {
	if n > math.MaxInt/2 {
		return math.MaxInt
	}
	return 2 * n
}
