// Package par runs loops and slice operations in parallel on a blitz pool:
// the functions of Go's slices package (Sum, SortFunc, IndexFunc, ...) and
// index-range loops, split over the pool's workers by work stealing.
//
// Every function takes a blitz.Runner first, which says where it runs:
//
//   - blitz.Default(): the pool a program shares, created on first use;
//   - a *blitz.Pool of your own;
//   - inside a task, the task's *blitz.Worker (or the task's own pool,
//     which then runs the call on that worker): nested work runs on the
//     task's worker without re-entering the pool.
//
// A short example:
//
//	total := par.Sum(blitz.Default(), prices)
//	i := par.IndexFunc(blitz.Default(), users, func(u User) bool { return u.Banned })
//	par.SortFunc(blitz.Default(), users, func(a, b User) int { return cmp.Compare(a.Age, b.Age) })
//
// # Which function
//
//	to ...                                   call
//	run a body over pieces of an index range  For, ForContext (stops when a context ends)
//	map pieces and combine in index order     MapReduce, MapReduceContext
//	visit or transform every element          ForEach, ForEachIndex, MapInPlace, Map, Fill, Chunks
//	walk two slices together, or split one    ZipWith, Unzip
//	visit overlapping windows                 Windows, MapWindows
//	keep some elements, in order              Filter, FilterMap; Partition (stable, in place),
//	                                          PartitionMap; FlatMap (any number per element)
//	reduce to one value                       Sum, Count, Reduce, Min, Max, MinFunc, MaxFunc,
//	                                          MinByKey, MaxByKey; Fold (an accumulator per
//	                                          piece run in parallel)
//	ask whether any or all elements match     ContainsFunc, Contains, All
//	find an element                           IndexFunc, Index (leftmost), LastIndexFunc
//	                                          (rightmost), IndexAnyFunc (any match)
//	prefix sums, offsets from lengths         InclusiveScan, ExclusiveScan
//	sort                                      Sort, SortFunc, SortByKey (pdqsort);
//	                                          SortStableFunc, SortStableByKey (merge sort);
//	                                          IsSorted, IsSortedFunc
//	consume an iter.Seq in parallel           ForEachSeq, ForEachSeq2 (unordered)
//	map an iter.Seq in parallel, in order     MapSeq, MapSeq2, MapSeqErr (bounded window)
//	stop at the first error                   ForEachErr, MapErr, ForErr, MapReduceErr
//
// Answers match the slices package: IndexFunc is leftmost, MinFunc returns
// the first minimal element, Sort orders NaNs first. Searches stop once the
// answer is known (see Searches below): no piece past a found match starts.
// The error loops likewise return the lowest index's error, the one a
// sequential loop returns, and start no piece past it.
//
// # Rules
//
//   - Callbacks run in parallel, in no particular order: what they share
//     must be synchronised. Reductions combine pieces in index order, so op
//     must be associative, not commutative.
//   - A panic in a callback reaches the caller as a *blitz.PanicError (the
//     value and the stack where it happened) once every piece has stopped;
//     a runtime.Goexit ends the caller's goroutine, as if the callback had
//     run there.
//   - Given a closed pool, from outside its tasks, every function panics
//     with an error wrapping blitz.ErrClosed, at every input size. A nil
//     Runner or callback panics.
//   - Holding a lock around a call with a *Worker is safe: while the call
//     waits for stolen pieces its worker runs only pieces of the same call.
//     A callback that takes a lock held around the call deadlocks, as it
//     would run sequentially.
//
// # Searches
//
// ContainsFunc, Contains, All and IndexAnyFunc stop at the first match any
// worker finds: every running piece checks a shared result before each
// block of elements (32, doubling up to 1024 within a piece) and stops once
// it is set, and pieces not yet started skip at once. So the predicate runs
// on an unspecified subset of the slice, in parallel, and at most a block
// per running piece is examined after the match.
//
// IndexFunc and Index return the leftmost match. They keep the smallest
// match index found so far: pieces right of it stop or skip, pieces left of
// it run to their end, since they may still hold a smaller one. They search
// the slice in windows from the left, each searched in parallel and each
// twice as long as the last, up to a sixteenth of the slice, and a window
// right of the one holding the answer never starts: the elements examined
// are those up to the answer and at most one window more. LastIndexFunc is
// the mirror image, from the right.
//
// # Splitting
//
// A range starts with one split per worker; each split halves that budget,
// and a piece stolen by another worker (some worker is idle) gets the budget
// back. So an idle pool cuts a call into about twice as many pieces as it
// has workers, and pieces keep splitting only while thieves keep taking
// them. Fold makes its accumulators by the steals, not the pieces: one, and
// at most one more per range a thief starts early. Functions without a
// callback (Sum, Min, Fill, Contains, ...) never cut pieces under a few
// thousand elements, and on a *blitz.Pool they run short inputs on the
// calling goroutine. For and MapReduce take a grain: a grain > 0 cuts pieces
// of at most grain indexes, <= 0 splits adaptively. MinLen wraps a Runner to
// set the shortest piece of every function given it.
//
// The per-element callback is called through a func value, which the
// compiler does not inline: for the cheapest per-element work, Chunks or For
// with a loop of your own keeps the callback inlined. So does a build with
// a CPU profile of the program (go build -pgo, or a default.pgo beside the
// main package) when the callback is a named function, not a function
// literal: the compiler then inlines the hot one into the loop.
package par
