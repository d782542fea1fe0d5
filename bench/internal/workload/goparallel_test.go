package workload

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestGoChunks(t *testing.T) {
	for _, procs := range []int{1, 2, 3, 8} {
		withProcs(procs, func() {
			for _, n := range []int{0, 1, 2, 7, 1000} {
				var spans [][2]int
				got := goChunks(n, func(lo, hi int) [][2]int { return [][2]int{{lo, hi}} },
					func(a, b [][2]int) [][2]int { return append(a, b...) })
				spans = got
				next := 0
				for _, s := range spans {
					assert.Equal(t, next, s[0], "procs=%d n=%d: pieces must be contiguous, in order", procs, n)
					next = s[1]
				}
				assert.Equal(t, n, next, "procs=%d n=%d: pieces must cover [0, n)", procs, n)
				assert.LessOrEqual(t, len(spans), max(runtime.GOMAXPROCS(0), 1))
			}
		})
	}
}

func TestGoSearch(t *testing.T) {
	n := 5 * goSearchBlock
	for _, procs := range []int{1, 2, 4} {
		withProcs(procs, func() {
			assert.Equal(t, -1, goSearch(n, func(int) bool { return false }))
			assert.Equal(t, 0, goSearch(n, func(int) bool { return true }))
			assert.Equal(t, n-1, goSearch(n, func(i int) bool { return i == n-1 }))
			// The leftmost of several matches, wherever the pieces split.
			for _, first := range []int{1, goSearchBlock - 1, goSearchBlock, n / 2, n/2 + 1} {
				assert.Equal(t, first, goSearch(n, func(i int) bool { return i >= first && i%3 == first%3 }), "procs=%d", procs)
			}
			assert.Equal(t, -1, goSearch(0, func(int) bool { return true }))
		})
	}
}
