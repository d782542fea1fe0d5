package par

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkFold folds on a pool of 2 workers with a cheap accumulator and
// a costly one, each beside the loop that folds into one accumulator
// (impl=seq):
//
//   - acc=int sums 1<<20 ints: an accumulator costs nothing to make or
//     combine, so the split's speed is all that counts;
//   - acc=map aggregates per key: 64 inputs of 8192 keys each, drawn from
//     1<<16, counted in a map per accumulator and merged by combine. Each
//     accumulator made costs a map of up to 1<<16 keys and its merge;
//     impl=Fold-MinLen32 keeps the 64 inputs in two pieces.
//
// To compare the forms:
//
//	go test -run '^$' -bench 'Fold' -benchmem -count 10 ./par | tee raw.txt
//	benchstat -col /impl raw.txt
func BenchmarkFold(b *testing.B) {
	p := benchPool(b, 2)

	ints := make([]int, 1<<20)
	for i := range ints {
		ints[i] = i
	}
	add := func(a, x int) int { return a + x }
	b.Run("acc=int/impl=seq", func(b *testing.B) {
		for b.Loop() {
			acc := 0
			for _, x := range ints {
				acc = add(acc, x)
			}
			sink += acc
		}
	})
	b.Run("acc=int/impl=Fold", func(b *testing.B) {
		for b.Loop() {
			sink += Fold(p, ints, func() int { return 0 }, add, add)
		}
	})

	rng := rand.New(rand.NewPCG(1, 2))
	inputs := make([][]uint32, 64)
	for i := range inputs {
		inputs[i] = make([]uint32, 8192)
		for j := range inputs[i] {
			inputs[i][j] = uint32(rng.IntN(1 << 16))
		}
	}
	newMap := func() map[uint32]int { return map[uint32]int{} }
	count := func(m map[uint32]int, in []uint32) map[uint32]int {
		for _, k := range in {
			m[k]++
		}
		return m
	}
	merge := func(a, b map[uint32]int) map[uint32]int {
		if len(a) < len(b) {
			a, b = b, a
		}
		for k, c := range b {
			a[k] += c
		}
		return a
	}
	b.Run("acc=map/impl=seq", func(b *testing.B) {
		for b.Loop() {
			m := newMap()
			for _, in := range inputs {
				m = count(m, in)
			}
			sink += len(m)
		}
	})
	b.Run("acc=map/impl=Fold", func(b *testing.B) {
		for b.Loop() {
			sink += len(Fold(p, inputs, newMap, count, merge))
		}
	})
	b.Run("acc=map/impl=Fold-MinLen32", func(b *testing.B) {
		for b.Loop() {
			sink += len(Fold(MinLen(p, 32), inputs, newMap, count, merge))
		}
	})
}
