package loadgen_test

import (
	"context"
	"fmt"
	"time"

	"github.com/blitz-go/blitz/examples/internal/loadgen"
)

// Run sends on a fixed open-loop schedule whatever the server does; here
// the "server" is a function that answers 200 at once.
func ExampleRun() {
	do := func(ctx context.Context) (int, error) { return 200, nil }
	res, err := loadgen.Run(context.Background(), loadgen.Config{
		Rate: 10_000, Count: 20, Duration: time.Minute, Timeout: time.Second, MaxInFlight: 100, Seed: 1,
	}, do, loadgen.RealClock{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Sent, res.OK, res.Rejected, len(res.Latencies))
	// Output: 20 20 0 20
}

func ExampleCheckTarget() {
	fmt.Println(loadgen.CheckTarget("http://127.0.0.1:8080/work"))
	fmt.Println(loadgen.CheckTarget("http://10.1.2.3/work") != nil)
	// Output:
	// <nil>
	// true
}
