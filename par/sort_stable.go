package par

import (
	"cmp"

	"github.com/blitz-go/blitz"
)

// SortStableFunc sorts s in ascending order as determined by cmp, keeping
// equal elements in their original order, potentially in parallel on r. The
// result is slices.SortStableFunc's. cmp is as for SortFunc.
//
// It is a merge sort: the halves of each piece are sorted in parallel, and
// a long merge is itself split among the workers, each part bounded by a
// binary search. It allocates one scratch slice of len(s) per call (none
// for a slice short enough for insertion sort) and a few small objects. A
// slice too short to split (a few thousand elements) is sorted by the
// calling goroutine.
//
// If cmp panics, SortStableFunc panics in the caller with a *PanicError once
// every piece in progress has stopped; s then holds its original elements
// in an unspecified order. As for SortFunc, that holds at every length and
// for panic(nil). A nil cmp panics.
func SortStableFunc[S ~[]E, E any](r blitz.Runner, s S, cmp func(a, b E) int) {
	checkRunner("SortStableFunc", r)
	if cmp == nil {
		panic("par: SortStableFunc: nil comparison function")
	}
	sortStableFunc("SortStableFunc", r, s, cmp)
}

// SortStableByKey sorts s in ascending order of key(e), keeping elements
// with equal keys in their original order, potentially in parallel on r: it
// is SortStableFunc with a comparison of the keys (cmp.Compare, so NaN keys
// come first). key is called twice per comparison, from several workers at
// once. A nil key panics.
func SortStableByKey[S ~[]E, E any, K cmp.Ordered](r blitz.Runner, s S, key func(E) K) {
	checkRunner("SortStableByKey", r)
	if key == nil {
		panic("par: SortStableByKey: nil key function")
	}
	sortStableFunc("SortStableByKey", r, s, func(a, b E) int { return cmp.Compare(key(a), key(b)) })
}

// Sizes of the stable sort.
const (
	// stableInsertionMax: pieces this short are sorted by insertion.
	stableInsertionMax = 20
	// stableJoinMin: pieces longer than this sort their halves in parallel.
	stableJoinMin = 1 << 12
	// stableMergeGrain: merges longer than this are split in parallel.
	stableMergeGrain = 1 << 13
)

// stableCtx is shared by every job of one SortStableFunc call.
//
// A piece sorts v[lo:hi] into v[lo:hi] or into buf[lo:hi]: its two halves
// sort into the other slice, and its merge brings them back. Every piece
// reads its input from v, and when cmp panics every piece leaves its
// elements in v before the panic goes on (the deferred functions of
// stableSortSeq and stableSortPar), so s stays a permutation.
type stableCtx[E any] struct {
	v, buf []E
	cmp    func(a, b E) int
	// workers is the pool's worker count; with one, nothing forks.
	workers int
	// done[i] is set when the parallel piece numbered i (the root is 0,
	// the halves of i are 2i+1 and 2i+2) has finished without a panic, so
	// that its parent, unwinding, knows where that half's elements are.
	done []bool
	// rec is stableRun[E], taken once, since taking it inside generic
	// code allocates.
	rec func(*blitz.Worker, stableJob[E]) struct{}
}

// stableJob is the one argument type that the jobs of a stable sort pass
// through JoinArgs, so that the join frames of every depth are reused: a
// piece to sort, or (merge set) a part of a parallel merge.
type stableJob[E any] struct {
	c *stableCtx[E]
	// A piece: v[lo:hi], the node-th of the parallel levels, sorted into
	// buf when toBuf is set.
	lo, hi int
	node   int
	toBuf  bool
	// A merge: a and b merge into d.
	merge   bool
	a, b, d []E
}

// sortStableFunc is SortStableFunc after the checks, shared with
// SortStableByKey; name is the function the user called.
func sortStableFunc[E any](name string, r blitz.Runner, s []E, cmp func(a, b E) int) {
	n := len(s)
	if n < 2 {
		return
	}
	if n <= stableInsertionMax {
		onCaller(func() { insertionSortFunc(s, 0, n, cmp) })
		return
	}
	c := &stableCtx[E]{v: s, buf: make([]E, n), cmp: cmp, rec: stableRun[E]}
	if n <= stableJoinMin || seqUnderMin(r, n) {
		onCaller(func() { stableSortSeq(c, 0, n, false) })
		return
	}
	// The parallel levels halve the slice until pieces are no longer than
	// stableJoinMin: d levels below the root, numbered in heap order.
	d := 0
	for m := n; m > stableJoinMin; m = m - m/2 {
		d++
	}
	c.done = make([]bool, 1<<(d+1))
	enter(name, r, func(w *blitz.Worker) {
		c.workers = workersOf(w)
		stableSortPar(w, stableJob[E]{c: c, lo: 0, hi: n})
	})
}

// stableRun runs one job of a parallel stable sort.
func stableRun[E any](w *blitz.Worker, j stableJob[E]) struct{} {
	if j.merge {
		mergePar(w, j)
	} else {
		stableSortPar(w, j)
	}
	return struct{}{}
}

// stableSortPar sorts the piece j, its halves in parallel while they are
// long.
func stableSortPar[E any](w *blitz.Worker, j stableJob[E]) {
	c := j.c
	n := j.hi - j.lo
	if c.workers == 1 || n <= stableJoinMin {
		stableSortSeq(c, j.lo, j.hi, j.toBuf)
		c.done[j.node] = true
		return
	}
	mid := j.lo + n/2
	l := stableJob[E]{c: c, lo: j.lo, hi: mid, node: 2*j.node + 1, toBuf: !j.toBuf}
	r := stableJob[E]{c: c, lo: mid, hi: j.hi, node: 2*j.node + 2, toBuf: !j.toBuf}
	stage := 0 // 1 while merging, 2 when done
	defer func() {
		if j.toBuf || stage == 2 {
			return // the halves sorted into v and the merge only reads them
		}
		if stage == 0 {
			// A half panicked and left its elements in v; a half that
			// finished left them in buf.
			for _, h := range [2]stableJob[E]{l, r} {
				if c.done[h.node] {
					copy(c.v[h.lo:h.hi], c.buf[h.lo:h.hi])
				}
			}
			return
		}
		copy(c.v[j.lo:j.hi], c.buf[j.lo:j.hi]) // the merge reads buf only
	}()
	blitz.JoinArgs(w, c.rec, l, c.rec, r)
	stage = 1
	src, dst := c.buf, c.v
	if j.toBuf {
		src, dst = c.v, c.buf
	}
	mergePar(w, stableJob[E]{c: c, merge: true, a: src[j.lo:mid], b: src[mid:j.hi], d: dst[j.lo:j.hi]})
	stage = 2
	c.done[j.node] = true
}

// stableSortSeq sorts v[lo:hi] into v[lo:hi] (toBuf false) or buf[lo:hi],
// sequentially.
func stableSortSeq[E any](c *stableCtx[E], lo, hi int, toBuf bool) {
	if hi-lo <= stableInsertionMax {
		insertionSortFunc(c.v, lo, hi, c.cmp)
		if toBuf {
			copy(c.buf[lo:hi], c.v[lo:hi])
		}
		return
	}
	mid := lo + (hi-lo)/2
	stage := 0 // 1 once the left half is sorted, 2 while merging, 3 when done
	defer func() {
		if toBuf {
			return // the halves sorted into v and the merge only reads them
		}
		switch stage {
		case 1:
			// The right half panicked, leaving its elements in v; the left
			// one is in buf.
			copy(c.v[lo:mid], c.buf[lo:mid])
		case 2:
			copy(c.v[lo:hi], c.buf[lo:hi]) // the merge reads buf only
		}
	}()
	stableSortSeq(c, lo, mid, !toBuf)
	stage = 1
	stableSortSeq(c, mid, hi, !toBuf)
	stage = 2
	src, dst := c.buf, c.v
	if toBuf {
		src, dst = c.v, c.buf
	}
	mergeSeq(src[lo:mid], src[mid:hi], dst[lo:hi], c.cmp)
	stage = 3
}

// mergePar merges m.a and m.b into m.d, splitting long merges in two parts
// that run in parallel: the middle element of the longer input and its
// place in the other, found by binary search, bound the parts, with ties
// kept in input order (a before b).
func mergePar[E any](w *blitz.Worker, m stableJob[E]) {
	c := m.c
	na, nb := len(m.a), len(m.b)
	if c.workers == 1 || na+nb <= stableMergeGrain {
		mergeSeq(m.a, m.b, m.d, c.cmp)
		return
	}
	var i, j int
	if na >= nb {
		// b[:j] < a[i] <= b[j:]
		i = na / 2
		j = searchFirst(nb, func(k int) bool { return !(c.cmp(m.b[k], m.a[i]) < 0) })
	} else {
		// a[:i] <= b[j] < a[i:]
		j = nb / 2
		i = searchFirst(na, func(k int) bool { return c.cmp(m.b[j], m.a[k]) < 0 })
	}
	l, r := m, m
	l.a, l.b, l.d = m.a[:i], m.b[:j], m.d[:i+j]
	r.a, r.b, r.d = m.a[i:], m.b[j:], m.d[i+j:]
	blitz.JoinArgs(w, c.rec, l, c.rec, r)
}

// searchFirst returns the first k in [0, n) for which f is true, or n; f is
// false then true over [0, n).
func searchFirst(n int, f func(k int) bool) int {
	lo, hi := 0, n
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if f(h) {
			hi = h
		} else {
			lo = h + 1
		}
	}
	return lo
}

// mergeSeq merges the sorted a and b into d (len(a)+len(b) elements),
// taking from a on ties. When a's last element is not greater than b's
// first, it only copies. Otherwise it first gallops over the ends that are
// already in place, a's elements not greater than b's first and b's
// elements not less than a's last, and when a's first element is not in
// place, b's elements less than it: it copies these without comparing each
// (so a nearly sorted or a reversed input costs a few comparisons per
// merge, not one per element), then merges the rest.
func mergeSeq[E any](a, b, d []E, cmp func(a, b E) int) {
	if len(a) == 0 || len(b) == 0 || !(cmp(b[0], a[len(a)-1]) < 0) {
		copy(d[copy(d, a):], b)
		return
	}
	// a[:i] <= b[0] < a[i]: i < len(a), since b[0] < a's last.
	i := gallopFirst(len(a), func(k int) bool { return cmp(b[0], a[k]) < 0 })
	// b[j-1] < a's last <= b[j]: j > 0, since b[0] < a's last.
	last := a[len(a)-1]
	j := len(b) - gallopFirst(len(b), func(k int) bool { return cmp(b[len(b)-1-k], last) < 0 })
	copy(d, a[:i])
	copy(d[len(d)-(len(b)-j):], b[j:])
	if i == 0 {
		// b[:h] < a[0] <= b[h]: those come first (a reversed input's
		// merges are all of this kind).
		h := gallopFirst(j, func(k int) bool { return !(cmp(b[k], a[0]) < 0) })
		copy(d, b[:h])
		b, d = b[h:], d[h:]
		j -= h
	}
	mergeKernel(a[i:], b[:j], d[i:len(d)-(len(b)-j)], cmp)
}

// gallopFirst returns the first k in [0, n) for which f is true, or n; f is
// false then true over [0, n). It probes 0, 1, 3, 7, ... before a binary
// search between the last two probes, so an answer k costs about 2·log2(k)
// calls of f, one for k = 0.
func gallopFirst(n int, f func(k int) bool) int {
	lo, hi := 0, 0 // f is false below lo; hi is the next probe
	for hi < n && !f(hi) {
		lo, hi = hi+1, 2*hi+1
	}
	hi = min(hi, n)
	return lo + searchFirst(hi-lo, func(k int) bool { return f(lo + k) })
}

// mergeKernel merges the sorted a and b into d, taking from a on ties.
func mergeKernel[E any](a, b, d []E, cmp func(a, b E) int) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if cmp(b[j], a[i]) < 0 {
			d[k] = b[j]
			j++
		} else {
			d[k] = a[i]
			i++
		}
		k++
	}
	k += copy(d[k:], a[i:])
	copy(d[k:], b[j:])
}
