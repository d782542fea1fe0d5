package blitz_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/blitz-go/blitz"
)

// A server gives each endpoint its own Sub of one pool: a burst of
// reports fills the reports' queue and takes at most 1 worker, and the
// other endpoints keep the rest of the pool.
func ExampleSub() {
	p, err := blitz.New(blitz.WithWorkers(4))
	if err != nil {
		panic(err)
	}
	defer p.Close()
	reports, err := p.Sub(1, 2) // 1 running, 2 waiting, then ErrQueueFull
	if err != nil {
		panic(err)
	}
	defer reports.Close()

	release := make(chan struct{})
	started := make(chan struct{})
	_ = reports.Go(func(*blitz.Worker) { close(started); <-release }) // a slow report
	<-started
	for range 2 {
		_ = reports.Go(func(*blitz.Worker) {}) // queued
	}
	_, err = blitz.TryDo(context.Background(), reports, func(*blitz.Worker) int { return 0 })
	fmt.Println(errors.Is(err, blitz.ErrQueueFull)) // answer 503

	// Another endpoint is not held up by the reports.
	n, err := blitz.TryDo(context.Background(), p, func(*blitz.Worker) int { return 42 })
	fmt.Println(n, err)

	close(release)
	_ = reports.Close() // waits for the queued reports
	st := reports.Stats()
	fmt.Println(st.Submitted, st.Completed, st.Rejected)
	// Output:
	// true
	// 42 <nil>
	// 3 3 1
}
