package par_test

import (
	"fmt"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

func ExampleMinLen() {
	samples := make([]float64, 100_000)
	for i := range samples {
		samples[i] = float64(i % 10)
	}
	// Pieces of at least 10,000 samples: at most ten buckets to merge.
	r := par.MinLen(blitz.Default(), 10_000)
	hist := par.Fold(r, samples,
		func() []int { return make([]int, 10) },
		func(h []int, x float64) []int { h[int(x)]++; return h },
		func(a, b []int) []int {
			for i := range a {
				a[i] += b[i]
			}
			return a
		})
	fmt.Println(hist)
	// Output: [10000 10000 10000 10000 10000 10000 10000 10000 10000 10000]
}
