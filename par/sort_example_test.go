package par_test

import (
	"cmp"
	"fmt"
	"math"
	"strings"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

func ExampleSort() {
	p, _ := blitz.New(blitz.WithWorkers(2))
	defer p.Close()
	s := []float64{3, math.NaN(), -1, 2.5, math.Inf(-1)}
	par.Sort(p, s)
	fmt.Println(s)
	// Output: [NaN -Inf -1 2.5 3]
}

func ExampleSortFunc() {
	p, _ := blitz.New(blitz.WithWorkers(2))
	defer p.Close()
	words := []string{"Banana", "apple", "Cherry", "date"}
	// Inside a task, pass its *Worker: the sort runs there, without
	// entering the pool again.
	p.Run(func(w *blitz.Worker) {
		par.SortFunc(w, words, func(a, b string) int {
			return strings.Compare(strings.ToLower(a), strings.ToLower(b))
		})
	})
	fmt.Println(words)
	// Output: [apple Banana Cherry date]
}

func ExampleSortStableFunc() {
	p, _ := blitz.New(blitz.WithWorkers(2))
	defer p.Close()
	type order struct {
		customer string
		id       int
	}
	orders := []order{{"bo", 1}, {"al", 2}, {"bo", 3}, {"al", 4}, {"cy", 5}, {"al", 6}}
	// Equal customers keep their order ids in their original order.
	par.SortStableFunc(p, orders, func(a, b order) int { return cmp.Compare(a.customer, b.customer) })
	fmt.Println(orders)
	// Output: [{al 2} {al 4} {al 6} {bo 1} {bo 3} {cy 5}]
}

func ExampleSortByKey() {
	p, _ := blitz.New(blitz.WithWorkers(2))
	defer p.Close()
	type city struct {
		name string
		pop  int
	}
	cities := []city{{"Lyon", 522}, {"Paris", 2103}, {"Nice", 342}}
	par.SortByKey(p, cities, func(c city) int { return -c.pop }) // largest first
	fmt.Println(cities)
	// Output: [{Paris 2103} {Lyon 522} {Nice 342}]
}

func ExampleSortStableByKey() {
	p, _ := blitz.New(blitz.WithWorkers(2))
	defer p.Close()
	words := []string{"kiwi", "fig", "banana", "plum"}
	par.SortStableByKey(p, words, func(s string) int { return len(s) })
	fmt.Println(words)
	// Output: [fig kiwi plum banana]
}

func ExampleIsSorted() {
	p, _ := blitz.New(blitz.WithWorkers(2))
	defer p.Close()
	s := make([]int, 1_000_000)
	for i := range s {
		s[i] = i / 3
	}
	fmt.Println(par.IsSorted(p, s))
	s[500_000] = -1
	fmt.Println(par.IsSorted(p, s))
	// Output:
	// true
	// false
}
