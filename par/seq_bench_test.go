package par

import (
	"fmt"
	"slices"
	"testing"
)

// BenchmarkForEachSeq consumes a sequence of 100,000 ints with a callback
// of cost multiply-adds that stores its result by index (no shared write):
// impl=seq is the plain loop over the sequence, impl=ForEachSeq the bridge.
//
//	go test -run '^$' -bench 'ForEachSeq' -count 10 ./par | tee raw.txt
//	benchstat -col /impl raw.txt
func BenchmarkForEachSeq(b *testing.B) {
	const n = 100_000
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	out := make([]int, n)
	for _, workers := range []int{1, 2} {
		p := benchPool(b, workers)
		for _, cost := range []int{10, 1000} {
			f := func(x int) { out[x] = spin(x, cost) }
			b.Run(fmt.Sprintf("cost=%d/workers=%d/impl=seq", cost, workers), func(b *testing.B) {
				for b.Loop() {
					for x := range slices.Values(s) {
						f(x)
					}
				}
			})
			b.Run(fmt.Sprintf("cost=%d/workers=%d/impl=ForEachSeq", cost, workers), func(b *testing.B) {
				for b.Loop() {
					ForEachSeq(p, slices.Values(s), f)
				}
			})
		}
	}
}
