package par_test

import (
	"fmt"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

func ExampleWindows() {
	readings := []int{3, 5, 4, 9, 2}
	rises := make([]bool, len(readings)-1)
	par.Windows(blitz.Default(), readings, 2, func(i int, w []int) { rises[i] = w[1] > w[0] })
	fmt.Println(rises)
	// Output: [true false true false]
}

func ExampleMapWindows() {
	readings := []float64{1, 2, 3, 4, 5}
	mean := func(w []float64) float64 { return (w[0] + w[1] + w[2]) / 3 }
	fmt.Println(par.MapWindows(blitz.Default(), readings, 3, mean))
	// Output: [2 3 4]
}
