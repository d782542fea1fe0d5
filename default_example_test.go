package blitz_test

import (
	"errors"
	"fmt"

	"github.com/blitz-go/blitz"
)

func ExampleDefault() {
	xs := []float64{1.5, 2.5, 3}
	// The shared pool, created by the first call: any data-parallel
	// function takes it as its Runner.
	fmt.Println(blitz.Sum(blitz.Default(), xs))
	// Output: 7
}

func ExampleSetDefaultOptions() {
	// In main, before anything uses the default pool.
	err := blitz.SetDefaultOptions(blitz.WithWorkers(4), blitz.WithName("render"))
	if errors.Is(err, blitz.ErrDefaultStarted) {
		fmt.Println("too late: the default pool already runs")
	} else if err != nil {
		panic(err)
	}
	fmt.Println(blitz.Max(blitz.Default(), []int{3, 9, 4}))
}
