package par

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/blitz-go/blitz"
)

// This file holds the stable sort. It is a merge sort in two layers, both
// writing each merge to the other of two slices (s and a scratch slice of
// the same length), so that a merge moves each element once and never
// overwrites an input it still reads:
//
//   - The parallel layer halves the slice until the pieces are short
//     (stableJoinMin), sorts the halves of each piece in parallel, and
//     merges them, a long merge split among the workers by binary search.
//     Each piece says which slice holds its result. A sequential piece
//     ends in the slice its depth calls for, so that for a random input
//     the levels alternate and the root's merge lands in s, unless it is
//     one run already: then it stays in s, unmoved. Halves already in
//     order are not merged, and halves that lie apart are first brought
//     together by moving the shorter one, so a sorted input costs one
//     scan and no copy. A strictly descending slice is reversed whole
//     before the split (see stableDescending).
//   - Each piece is sorted sequentially by powersort (Munro and Wild, 2018):
//     it finds the natural runs of the piece, ascending ones and strictly
//     descending ones (reversed in place, which keeps the order of equal
//     elements, since a strictly descending run has none), extends the
//     short ones by insertion sort to stableRunMin elements, and merges
//     adjacent runs in the order of a nearly optimal merge tree, whose node
//     depths it computes from the runs' midpoints as it goes: a sorted piece
//     costs one comparison per element and no merge, a piece of a few runs
//     a few merges. Each run lies in s or in the scratch slice; a merge
//     writes to the other one, after moving the shorter input beside the
//     longer when they lie apart, and two runs already in order are joined
//     without moving.
//
// A merge gallops (see mergeKernel) over the stretches that one input
// takes whole, so merging nearly sorted runs costs a few comparisons per
// stretch. Its inner loop branches on cmp's result rather than selecting
// the element arithmetically: the comparison is a call through a func
// value, which the compiler cannot inline, and a comparison such as
// cmp.Compare branches on its operands itself, so a branch-free merge
// would still pay that branch's mispredictions, and the longer chain of
// dependent loads besides.
//
// When cmp panics, every run still holds its elements, in s or in the
// scratch slice, since no merge overwrites its inputs: the deferred
// functions of stableSortSeq and stableSortPar bring those in the scratch
// slice back to s, so s stays a permutation of its elements.

// SortStableFunc sorts s in ascending order as determined by cmp, keeping
// equal elements in their original order, potentially in parallel on r. The
// result is slices.SortStableFunc's. cmp is as for SortFunc.
//
// It is a merge sort that finds the runs already in order in s, ascending
// or strictly descending, and merges them: a sorted or strictly decreasing
// s costs about one comparison per element, a nearly sorted one not many
// more. The halves of each long piece are sorted in parallel, and a long
// merge is itself split among the workers, each part bounded by a binary
// search. It allocates one scratch slice of len(s) per call and a few
// small objects; no scratch slice for a slice short enough for insertion
// sort or strictly decreasing, nor on one worker for one already sorted. A slice
// too short to split (a few thousand elements) is sorted by the calling
// goroutine.
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
	// stableInsertionMax: slices this short are sorted by insertion.
	stableInsertionMax = 20
	// stableRunMin: shorter natural runs are extended to this length by
	// insertion sort.
	stableRunMin = 16
	// mergeBlockFirst, mergeBlock, mergeBlockMax: the first block of a
	// merge, the block after a gallop and the longest block, in elements
	// taken from one input (see mergeKernel).
	mergeBlockFirst = 32
	mergeBlock      = 8
	mergeBlockMax   = 128
	// stableJoinMin: pieces longer than this sort their halves in parallel.
	stableJoinMin = 1 << 12
	// stableMergeGrain: merges longer than this are split in parallel.
	stableMergeGrain = 1 << 13
)

// stableCtx is shared by every job of one SortStableFunc call.
//
// A piece sorts v[lo:hi] into v[lo:hi] or into buf[lo:hi], and says which:
// it merges its two halves from the slice that holds them into the other
// one, or leaves them where they are when they are in order already. Every
// piece reads its input from v, and when cmp panics every piece leaves its
// elements in v before the panic goes on (the deferred functions of
// stableSortSeq and stableSortPar), so s stays a permutation.
type stableCtx[E any] struct {
	// v is the slice to sort; buf, the scratch slice of the same length,
	// is made by a sequential sort at its first merge (so a sorted slice
	// needs none), by a parallel one before its pieces start.
	v, buf []E
	cmp    func(a, b E) int
	// workers is the pool's worker count; with one, nothing forks.
	workers int
	// done[i] is set when the parallel piece numbered i (the root is 0,
	// the halves of i are 2i+1 and 2i+2) has finished without a panic, so
	// that its parent, unwinding, knows where that half's elements are:
	// in buf if inBuf[i] is set, else in v. Each is written by the job of
	// piece i and read by its parent once the join of the two halves has
	// returned.
	done, inBuf []bool
	// rec is stableRun[E], taken once, since taking it inside generic
	// code allocates.
	rec func(*blitz.Worker, stableJob[E]) struct{}
}

// stableJob is the one argument type that the jobs of a stable sort pass
// through JoinArgs, so that the join frames of every depth are reused: a
// piece to sort, or (merge set) a part of a parallel merge.
type stableJob[E any] struct {
	c *stableCtx[E]
	// A piece: v[lo:hi], the node-th of the parallel levels, to be sorted
	// into buf when toBuf is set (see stableSortSeq).
	lo, hi int
	node   int
	toBuf  bool
	// A merge: s[ia:ea] and s[jb:eb] merge into d.
	merge          bool
	s, d           []E
	ia, ea, jb, eb int
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
	c := &stableCtx[E]{v: s, cmp: cmp, rec: stableRun[E]}
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
	c.inBuf = make([]bool, 1<<(d+1))
	enter(name, r, func(w *blitz.Worker) {
		c.workers = workersOf(w)
		if c.workers > 1 {
			if stableDescending(s, cmp) {
				slices.Reverse(s)
				return
			}
			c.buf = make([]E, n) // before the pieces share it
		}
		stableSortPar(w, stableJob[E]{c: c, lo: 0, hi: n})
		if c.inBuf[0] {
			copy(s, c.buf)
		}
	})
}

// stableDescending reports whether s, len(s) >= 3, is strictly descending,
// to be reversed whole: the pieces of a parallel sort would find it out
// each, but each level above them would then swap its halves, moving the
// whole slice. (A sort on one worker finds it as one run.) It scans s only when its two ends and its first pair are
// descending, and stops at the first pair that is not: a random input
// costs a comparison or three, and the scan of any input costs at most
// the length of its descending start.
func stableDescending[E any](s []E, cmp func(a, b E) int) bool {
	n := len(s)
	if !(cmp(s[n-1], s[0]) < 0) || !(cmp(s[1], s[0]) < 0) || !(cmp(s[n-1], s[n-2]) < 0) {
		return false
	}
	for i := 2; i < n-1; i++ {
		if !(cmp(s[i], s[i-1]) < 0) {
			return false
		}
	}
	return true
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
// long, and records where the result lies in c.inBuf.
func stableSortPar[E any](w *blitz.Worker, j stableJob[E]) {
	c := j.c
	n := j.hi - j.lo
	if c.workers == 1 || n <= stableJoinMin {
		c.inBuf[j.node] = stableSortSeq(c, j.lo, j.hi, j.toBuf)
		c.done[j.node] = true
		return
	}
	mid := j.lo + n/2
	l := stableJob[E]{c: c, lo: j.lo, hi: mid, node: 2*j.node + 1, toBuf: !j.toBuf}
	r := stableJob[E]{c: c, lo: mid, hi: j.hi, node: 2*j.node + 2, toBuf: !j.toBuf}
	defer func() {
		if c.done[j.node] {
			return
		}
		// A half that panicked left its elements in v; one that finished
		// left them where c.inBuf says, and the merge, which writes to the
		// other slice, has not overwritten them.
		for _, h := range [2]stableJob[E]{l, r} {
			if c.done[h.node] && c.inBuf[h.node] {
				copy(c.v[h.lo:h.hi], c.buf[h.lo:h.hi])
			}
		}
	}()
	blitz.JoinArgs(w, c.rec, l, c.rec, r)
	lb, rb := &c.inBuf[l.node], &c.inBuf[r.node]
	if *lb != *rb {
		// Bring the shorter half beside the other.
		h, hb := r, rb
		if mid-j.lo < j.hi-mid {
			h, hb = l, lb
		}
		if *hb {
			copy(c.v[h.lo:h.hi], c.buf[h.lo:h.hi])
		} else {
			copy(c.buf[h.lo:h.hi], c.v[h.lo:h.hi])
		}
		*hb = !*hb
	}
	src, dst := c.v, c.buf
	if *lb {
		src, dst = c.buf, c.v
	}
	if c.cmp(src[mid], src[mid-1]) < 0 {
		mergePar(w, stableJob[E]{c: c, merge: true, s: src, ia: j.lo, ea: mid, jb: mid, eb: j.hi, d: dst[j.lo:j.hi]})
		c.inBuf[j.node] = !*lb
	} else {
		c.inBuf[j.node] = *lb // the halves are in order already
	}
	c.done[j.node] = true
}

// sortRun is a sorted run of a sequential piece: v[lo:hi], or buf[lo:hi]
// when inBuf.
type sortRun struct {
	lo, hi int
	inBuf  bool
}

// stableStackMax bounds the runs that wait on stableSortSeq's stack: their
// merge-tree depths strictly increase up the stack, and a depth is the
// count of leading zeros of a 64-bit word.
const stableStackMax = 66

// stableSortSeq sorts v[lo:hi] sequentially, by powersort over the natural
// runs of the piece, into v[lo:hi] (toBuf false) or buf[lo:hi], and
// returns whether the result lies in buf: a piece that is one run already,
// which costs no merge, stays in v.
func stableSortSeq[E any](c *stableCtx[E], lo, hi int, toBuf bool) (inBuf bool) {
	if hi-lo <= stableInsertionMax {
		insertionSortFunc(c.v, lo, hi, c.cmp)
		if toBuf {
			copy(c.buf[lo:hi], c.v[lo:hi])
		}
		return toBuf
	}
	var (
		stack  [stableStackMax]sortRun
		depth  [stableStackMax]int
		top    int
		cur    sortRun // the run after stack[top-1]
		merged int     // merges done
		done   bool
	)
	defer func() {
		if done {
			return
		}
		// cmp panicked. Merges write to the other slice than the one they
		// read, so every run still holds its elements, in v or in buf;
		// the run being found holds its own in v.
		for _, r := range stack[:top] {
			if r.inBuf {
				copy(c.v[r.lo:r.hi], c.buf[r.lo:r.hi])
			}
		}
		if cur.inBuf {
			copy(c.v[cur.lo:cur.hi], c.buf[cur.lo:cur.hi])
		}
	}()
	n := uint64(hi - lo)
	scale := (1<<62 + n - 1) / n
	end, ahead := stableNextRun(c.v, lo, hi, c.cmp)
	cur = sortRun{lo: lo, hi: end}
	for {
		// d is the depth in powersort's merge tree of the node that merges
		// cur with next: the number of leading bits that the midpoints of
		// the two runs, scaled to [0, 2^62), share. -1 at the end merges
		// every run left.
		d := -1
		var next sortRun
		if cur.hi < hi {
			if ahead > 0 {
				next = sortRun{lo: cur.hi, hi: ahead}
				ahead = 0
			} else {
				end, ahead = stableNextRun(c.v, cur.hi, hi, c.cmp)
				next = sortRun{lo: cur.hi, hi: end}
			}
			x := uint64(cur.lo-lo+cur.hi-lo) * scale
			y := uint64(cur.hi-lo+next.hi-lo) * scale
			d = bits.LeadingZeros64(x ^ y)
		}
		for top > 0 && depth[top-1] >= d {
			if c.buf == nil {
				c.buf = make([]E, len(c.v)) // the first merge of a sequential sort
			}
			cur = mergeRuns(c, &stack[top-1], &cur)
			top--
			merged++
		}
		if d < 0 {
			break
		}
		stack[top], depth[top] = cur, d
		top++
		cur = next
	}
	done = true
	if merged == 0 {
		return false
	}
	if cur.inBuf != toBuf {
		if toBuf {
			copy(c.buf[lo:hi], c.v[lo:hi])
		} else {
			copy(c.v[lo:hi], c.buf[lo:hi])
		}
	}
	return toBuf
}

// stableNextRun finds the run that starts at v[start], start < hi, and
// returns its end. A natural run (see scanRun) of stableRunMin elements or
// more is the run; a shorter one is extended to stableRunMin elements (or to
// hi) by insertion sort, unless the natural run after it is long: then
// the short run stays as it is, and ahead is the end of the long one, the
// next run, so that an element out of place in a sorted input costs a
// short run, not an insertion sort.
func stableNextRun[E any](v []E, start, hi int, cmp func(a, b E) int) (end, ahead int) {
	e := scanRun(v, start, hi, cmp)
	if e-start >= stableRunMin || e == hi {
		return e, 0
	}
	if f := scanRun(v, e, hi, cmp); f-e >= stableRunMin {
		return e, f
	}
	end = min(start+stableRunMin, hi)
	// Swaps rather than shifts: v stays a permutation whenever cmp is
	// called.
	for k := e; k < end; k++ {
		for m := k; m > start && cmp(v[m], v[m-1]) < 0; m-- {
			v[m], v[m-1] = v[m-1], v[m]
		}
	}
	return end, 0
}

// scanRun returns the end of the natural run that starts at v[start],
// start < hi: the longest ascending one, or strictly descending one,
// reversed in place (which keeps the sort stable since no two of its
// elements are equal).
func scanRun[E any](v []E, start, hi int, cmp func(a, b E) int) int {
	e := start + 1
	if e >= hi {
		return hi
	}
	if cmp(v[e], v[start]) < 0 {
		for e+1 < hi && cmp(v[e+1], v[e]) < 0 {
			e++
		}
		e++
		slices.Reverse(v[start:e])
		return e
	}
	for e+1 < hi && !(cmp(v[e+1], v[e]) < 0) {
		e++
	}
	return e + 1
}

// mergeRuns merges the adjacent runs x and y of a piece, moving the
// shorter one beside the other first when they lie in different slices,
// and returns the merged run: where x and y were if they were already in
// order, else in the other slice. x and y are updated as they move, so
// that a panic in cmp finds them.
func mergeRuns[E any](c *stableCtx[E], x, y *sortRun) sortRun {
	if x.inBuf != y.inBuf {
		m := x
		if y.hi-y.lo < x.hi-x.lo {
			m = y
		}
		if m.inBuf {
			copy(c.v[m.lo:m.hi], c.buf[m.lo:m.hi])
		} else {
			copy(c.buf[m.lo:m.hi], c.v[m.lo:m.hi])
		}
		m.inBuf = !m.inBuf
	}
	src, dst := c.v, c.buf
	if x.inBuf {
		src, dst = c.buf, c.v
	}
	if !(c.cmp(src[y.lo], src[x.hi-1]) < 0) {
		return sortRun{lo: x.lo, hi: y.hi, inBuf: x.inBuf}
	}
	mergeOverlap(src, x.lo, x.hi, y.lo, y.hi, dst[x.lo:y.hi], c.cmp)
	return sortRun{lo: x.lo, hi: y.hi, inBuf: !x.inBuf}
}

// mergePar merges s[ia:ea] and s[jb:eb] into m.d, splitting long merges in
// two parts that run in parallel: the middle element of the longer input
// and its place in the other, found by binary search, bound the parts, with
// ties kept in input order (a before b).
func mergePar[E any](w *blitz.Worker, m stableJob[E]) {
	c, s := m.c, m.s
	na, nb := m.ea-m.ia, m.eb-m.jb
	if c.workers == 1 || na+nb <= stableMergeGrain {
		mergeSeq(s, m.ia, m.ea, m.jb, m.eb, m.d, c.cmp)
		return
	}
	var i, j int
	if na >= nb {
		// s[jb:j] < s[i] <= s[j:eb]
		i = m.ia + na/2
		x := s[i]
		j = m.jb + searchFirst(nb, func(k int) bool { return !(c.cmp(s[m.jb+k], x) < 0) })
	} else {
		// s[ia:i] <= s[j] < s[i:ea]
		j = m.jb + nb/2
		x := s[j]
		i = m.ia + searchFirst(na, func(k int) bool { return c.cmp(x, s[m.ia+k]) < 0 })
	}
	k := i - m.ia + j - m.jb
	l, r := m, m
	l.ea, l.eb, l.d = i, j, m.d[:k]
	r.ia, r.jb, r.d = i, j, m.d[k:]
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

// mergeSeq merges the sorted a = s[i:ea] and b = s[j:eb] into d
// (len(a)+len(b) elements), taking from a on ties. When a's last element is
// not greater than b's first, it only copies.
func mergeSeq[E any](s []E, i, ea, j, eb int, d []E, cmp func(a, b E) int) {
	if i == ea || j == eb || !(cmp(s[j], s[ea-1]) < 0) {
		copy(d[copy(d, s[i:ea]):], s[j:eb])
		return
	}
	mergeOverlap(s, i, ea, j, eb, d, cmp)
}

// mergeOverlap is mergeSeq for a and b both non-empty with b's first
// element less than a's last. It first gallops over the ends that are
// already in place, a's elements not greater than b's first and b's
// elements not less than a's last, and when a's first element is not in
// place, b's elements less than it: it copies these without comparing each
// (so a reversed input costs a few comparisons per merge, not one per
// element), then merges the rest with mergeKernel.
func mergeOverlap[E any](s []E, i, ea, j, eb int, d []E, cmp func(a, b E) int) {
	// s[i:i2] <= b's first < s[i2]: i2 < ea, since b's first < a's last.
	bf, al := s[j], s[ea-1]
	i2 := i + gallopFirst(ea-i, func(k int) bool { return cmp(bf, s[i+k]) < 0 })
	// s[j2-1] < a's last <= s[j2]: j2 > j, since b's first < a's last.
	j2 := eb - gallopFirst(eb-j, func(k int) bool { return cmp(s[eb-1-k], al) < 0 })
	dk := copy(d, s[i:i2])
	de := len(d) - copy(d[len(d)-(eb-j2):], s[j2:eb])
	if i2 == i {
		// s[j:j+h] < a's first <= s[j+h] (a reversed input's merges are all
		// of this kind).
		af := s[i]
		h := gallopFirst(j2-j, func(k int) bool { return !(cmp(s[j+k], af) < 0) })
		dk += copy(d[dk:], s[j:j+h])
		j += h
	}
	mergeKernel(s, i2, ea, j, j2, d[dk:de], cmp)
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

// mergeKernel merges the sorted a = s[i:ea] and b = s[j:eb] into d, taking
// from a on ties.
//
// It goes by blocks (see mergeSteps), each ending once it has taken g
// elements from a or g from b. A block that took all its elements from one
// input starts a gallop (see mergeGallop), so a merge of inputs that
// interleave in long stretches (a nearly sorted input) costs a few
// comparisons per stretch, not one per element, and an input of a few
// elements costs a few comparisons per element whatever the length of the
// other. g starts at mergeBlockFirst, is mergeBlock after a gallop and
// doubles, up to mergeBlockMax, after each block that does not gallop: each
// block costs a mispredicted branch at its end, which a random input, whose
// blocks seldom gallop, pays rarely.
func mergeKernel[E any](s []E, i, ea, j, eb int, d []E, cmp func(a, b E) int) {
	k, g := 0, mergeBlockFirst
	for i < ea && j < eb {
		i0, j0 := i, j
		i, j, k = mergeSteps(s, i, min(ea, i+g), j, min(eb, j+g), d, k, cmp)
		if i == i0 || j == j0 {
			i, j, k = mergeGallop(s, i, ea, j, eb, d, k, i == i0, cmp)
			g = mergeBlock
		} else {
			g = min(2*g, mergeBlockMax)
		}
	}
	k += copy(d[k:], s[i:ea])
	copy(d[k:], s[j:eb])
}

// mergeSteps merges s[i:ea] and s[j:eb] into d[k:] until one of them ends,
// and returns the new i, j and k. It is the merge's inner loop, in a
// function of its own: the fewer values live across the call of cmp, the
// fewer the compiler reloads from the stack at each step.
//
//go:noinline
func mergeSteps[E any](s []E, i, ea, j, eb int, d []E, k int, cmp func(a, b E) int) (int, int, int) {
	for i < ea && j < eb {
		if cmp(s[j], s[i]) < 0 {
			d[k] = s[j]
			j++
		} else {
			d[k] = s[i]
			i++
		}
		k++
	}
	return i, j, k
}

// mergeGallop is mergeKernel's gallop: from b when fromB is set, else from
// a, it copies the elements that come before the other input's next one,
// found by gallopFirst, then does the same from the other input, and so on
// while each gallop finds mergeBlock elements or more. It returns the new
// i, j and k.
func mergeGallop[E any](s []E, i, ea, j, eb int, d []E, k int, fromB bool, cmp func(a, b E) int) (int, int, int) {
	for i < ea && j < eb {
		var g int
		if fromB {
			x, j0 := s[i], j // b's elements less than a's next
			g = gallopFirst(eb-j, func(k int) bool { return !(cmp(s[j0+k], x) < 0) })
			copy(d[k:], s[j:j+g])
			j += g
		} else {
			x, i0 := s[j], i // a's elements not greater than b's next
			g = gallopFirst(ea-i, func(k int) bool { return cmp(x, s[i0+k]) < 0 })
			copy(d[k:], s[i:i+g])
			i += g
		}
		k += g
		fromB = !fromB
		if g < mergeBlock {
			break
		}
	}
	return i, j, k
}
