package par_test

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

func ExampleReduce() {
	// Any associative op with its identity; it need not be commutative.
	words := []string{"work", "-", "stealing"}
	fmt.Println(par.Reduce(blitz.Default(), words, "", func(a, b string) string { return a + b }))
	// Output: work-stealing
}

func ExampleSum() {
	fmt.Println(par.Sum(blitz.Default(), []int{1, 2, 3, 4}))
	// Output: 10
}

func ExampleCount() {
	words := []string{"go", "rust", "zig", "c"}
	fmt.Println(par.Count(blitz.Default(), words, func(w string) bool { return len(w) <= 2 }))
	// Output: 2
}

func ExampleMin() {
	fmt.Println(par.Min(blitz.Default(), []float64{2.5, -1, 7}))
	fmt.Println(par.Min(blitz.Default(), []float64{})) // empty: ok is false
	// Output:
	// -1 true
	// 0 false
}

func ExampleMax() {
	fmt.Println(par.Max(blitz.Default(), []string{"fork", "join", "steal"}))
	// Output: steal true
}

type city struct {
	name string
	pop  int
}

var cities = []city{{"Lyon", 5}, {"Oslo", 7}, {"Rome", 28}, {"Bonn", 3}, {"Nice", 3}, {"Kyiv", 28}}

func ExampleMinFunc() {
	// Among equal minimal elements the first wins, as in slices.MinFunc.
	c, _ := par.MinFunc(blitz.Default(), cities, func(a, b city) int { return cmp.Compare(a.pop, b.pop) })
	fmt.Println(c.name)
	// Output: Bonn
}

func ExampleMaxFunc() {
	// The first maximal element, as in slices.MaxFunc.
	c, _ := par.MaxFunc(blitz.Default(), cities, func(a, b city) int { return cmp.Compare(a.pop, b.pop) })
	fmt.Println(c.name)
	// Output: Rome
}

func ExampleMinByKey() {
	c, _ := par.MinByKey(blitz.Default(), cities, func(c city) string { return strings.ToLower(c.name) })
	fmt.Println(c.name)
	// Output: Bonn
}

func ExampleMaxByKey() {
	c, _ := par.MaxByKey(blitz.Default(), cities, func(c city) int { return c.pop })
	fmt.Println(c.name)
	// Output: Rome
}
