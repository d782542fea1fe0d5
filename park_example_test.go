package blitz_test

import (
	"fmt"

	"github.com/blitz-go/blitz"
)

// ExampleNewParker parks and unparks through the portable backend. Unpark
// before Park leaves a token, so Park returns at once.
func ExampleNewParker() {
	p, err := blitz.NewParker(blitz.ParkingPortable)
	if err != nil {
		panic(err)
	}
	p.Unpark()
	p.Unpark() // still one token
	p.Park()
	fmt.Println("parked and woken")

	_, err = blitz.NewParker(blitz.Parking(7))
	fmt.Println(err)
	// Output:
	// parked and woken
	// blitz: unknown parking kind Parking(7)
}
