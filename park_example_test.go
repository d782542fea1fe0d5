package blitz_test

import (
	"fmt"

	"github.com/blitz-go/blitz"
)

// A pool whose idle workers wait on a mutex and a sync.Cond each, the
// original Blitz and Rayon design: the backend changes how workers sleep and
// wake, never what they compute.
func ExampleParking_cond() {
	p, err := blitz.New(blitz.WithWorkers(2), blitz.WithParking(blitz.ParkingCond))
	if err != nil {
		panic(err)
	}
	defer p.Close()
	fmt.Println(p.Parking(), blitz.Do(p, func(w *blitz.Worker) int { return fib(w, 20) }))
	// Output: cond 6765
}
