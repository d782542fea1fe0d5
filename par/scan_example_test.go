package par_test

import (
	"fmt"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

func add(a, b int) int { return a + b }

func ExampleInclusiveScan() {
	xs := []int{3, 1, 4, 1, 5, 9, 2, 6}
	par.InclusiveScan(blitz.Default(), xs, xs, 0, add) // in place: running totals
	fmt.Println(xs)
	// Output: [3 4 8 9 14 23 25 31]
}

func ExampleExclusiveScan() {
	// Offsets of variable-length records from their lengths, and the size
	// of the buffer that holds them all.
	lengths := []int{5, 0, 3, 8}
	offsets := make([]int, len(lengths))
	size := par.ExclusiveScan(blitz.Default(), offsets, lengths, 0, add)
	fmt.Println(offsets, size)
	// Output: [0 5 5 8] 16
}
