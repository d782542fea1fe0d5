package par_test

import (
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

func ExampleForEach() {
	words := []string{"fork", "join", "steal", "park"}
	var letters atomic.Int64
	par.ForEach(blitz.Default(), words, func(w string) { letters.Add(int64(len(w))) })
	fmt.Println(letters.Load())
	// Output: 17
}

func ExampleForEachIndex() {
	squares := make([]int, 6)
	par.ForEachIndex(blitz.Default(), squares, func(i, _ int) { squares[i] = i * i })
	fmt.Println(squares)
	// Output: [0 1 4 9 16 25]
}

func ExampleMapInPlace() {
	names := []string{"ada", "grace", "edsger"}
	par.MapInPlace(blitz.Default(), names, strings.ToUpper)
	fmt.Println(names)
	// Output: [ADA GRACE EDSGER]
}

func ExampleMap() {
	words := []string{"fork", "join", "steal"}
	fmt.Println(par.Map(blitz.Default(), words, func(w string) int { return len(w) }))
	// Output: [4 4 5]
}

func ExampleFill() {
	grid := make([]byte, 8)
	par.Fill(blitz.Default(), grid, '.')
	fmt.Println(string(grid))
	// Output: ........
}

func ExampleFilter() {
	xs := []int{5, 8, 13, 21, 34, 55, 89}
	odd := par.Filter(blitz.Default(), xs, func(x int) bool { return x%2 == 1 })
	fmt.Println(odd) // in their order in xs
	// Output: [5 13 21 55 89]
}

func ExampleChunks() {
	samples := []float64{1, 2, 3, 4, 5, 6, 7}
	means := make([]float64, 3)
	par.Chunks(blitz.Default(), samples, 3, func(w *blitz.Worker, i int, chunk []float64) {
		// w lets a chunk run nested parallel work: here a parallel sum.
		means[i] = par.Sum(w, chunk) / float64(len(chunk))
	})
	fmt.Println(means)
	// Output: [2 5 7]
}
