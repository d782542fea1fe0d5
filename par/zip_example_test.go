package par_test

import (
	"fmt"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

func ExampleZipWith() {
	prices := []float64{2.5, 10, 4}
	quantities := []int{4, 1, 3}
	totals := par.ZipWith(blitz.Default(), prices, quantities, func(p float64, q int) float64 { return p * float64(q) })
	fmt.Println(totals)
	// Output: [10 10 12]
}

func ExampleUnzip() {
	type point struct{ x, y int }
	points := []point{{1, 2}, {3, 4}, {5, 6}}
	xs, ys := par.Unzip(blitz.Default(), points, func(p point) (int, int) { return p.x, p.y })
	fmt.Println(xs, ys)
	// Output: [1 3 5] [2 4 6]
}
