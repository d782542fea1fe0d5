package workload

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// The plain-Go parallel versions of Blitz's slice workloads: what a Go
// programmer writes without a pool. GOMAXPROCS goroutines each take one
// contiguous piece and a WaitGroup waits for them; rows run them under
// GOMAXPROCS = workers.

// goChunks splits [0, n) into GOMAXPROCS contiguous pieces, runs leaf on each
// in its own goroutine, and combines the results in index order.
func goChunks[T any](n int, leaf func(lo, hi int) T, combine func(a, b T) T) T {
	p := max(1, min(runtime.GOMAXPROCS(0), n))
	part := make([]T, p)
	var wg sync.WaitGroup
	wg.Add(p)
	for i := 0; i < p; i++ {
		go func(i int) {
			defer wg.Done()
			part[i] = leaf(i*n/p, (i+1)*n/p)
		}(i)
	}
	wg.Wait()
	acc := part[0]
	for _, v := range part[1:] {
		acc = combine(acc, v)
	}
	return acc
}

// goSearchBlock is how many indexes a goSearch goroutine tests between
// looks at the best match found so far.
const goSearchBlock = 4096

// goSearch returns the smallest i in [0, n) with match(i), or -1. It runs
// GOMAXPROCS goroutines over contiguous pieces; each scans its piece in
// blocks and stops at its first match, or once a match left of its next
// block is known, so an early match ends the search early.
func goSearch(n int, match func(i int) bool) int {
	var best atomic.Int64 // the smallest matching index found so far; n if none
	best.Store(int64(n))
	goChunks(n, func(lo, hi int) struct{} {
		for b := lo; b < hi && best.Load() >= int64(b); b += goSearchBlock {
			if i := scanBlock(b, min(b+goSearchBlock, hi), match); i >= 0 {
				lowerTo(&best, int64(i))
				break
			}
		}
		return struct{}{}
	}, func(a, _ struct{}) struct{} { return a })
	if i := best.Load(); i < int64(n) {
		return int(i)
	}
	return -1
}

// scanBlock returns the first i in [lo, hi) with match(i), or -1.
func scanBlock(lo, hi int, match func(i int) bool) int {
	for i := lo; i < hi; i++ {
		if match(i) {
			return i
		}
	}
	return -1
}

// lowerTo sets *v to x unless it already holds something smaller.
func lowerTo(v *atomic.Int64, x int64) {
	for old := v.Load(); x < old && !v.CompareAndSwap(old, x); old = v.Load() {
	}
}
