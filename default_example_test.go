package blitz_test

import (
	"errors"
	"fmt"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

func ExampleDefault() {
	xs := []float64{1.5, 2.5, 3}
	// The shared pool, created by the first call: any data-parallel
	// function takes it as its Runner.
	fmt.Println(par.Sum(blitz.Default(), xs))
	// Output: 7
}

func ExampleSetDefaultOptions() {
	// In main, before anything uses the default pool. Once it runs, its
	// options are fixed: ErrDefaultStarted says so.
	err := blitz.SetDefaultOptions(blitz.WithWorkers(4), blitz.WithName("render"))
	if err != nil && !errors.Is(err, blitz.ErrDefaultStarted) {
		panic(err) // an invalid option
	}
	fmt.Println(par.Max(blitz.Default(), []int{3, 9, 4}))
	// Output: 9 true
}
