package blitz_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/blitz-go/blitz"
)

// A server reads the pool's counters: how many tasks wait and run, how many
// finished, were refused or panicked, and how long they waited and ran.
func ExamplePool_Stats() {
	p, err := blitz.New(
		blitz.WithWorkers(2),
		blitz.WithCapacity(64),
		blitz.WithLatencySampling(1), // time every task (the default times 1 in 16)
		blitz.WithPanicHandler(func(v any, stack []byte) {}),
	)
	if err != nil {
		panic(err)
	}
	for i := 0; i < 10; i++ {
		_ = p.Go(func(*blitz.Worker) {
			if i == 3 {
				panic("boom")
			}
		})
	}
	_, err = blitz.DoContext(context.Background(), p, func(*blitz.Worker) int { panic("bad input") })
	fmt.Println("DoContext:", errors.Is(err, blitz.ErrPanic))
	_ = p.Close() // drains: every accepted task has finished

	st := p.Stats()
	fmt.Println("completed:", st.Completed, "panics:", st.Panics, "queued:", st.Queued, "running:", st.Running)
	fmt.Println("timed:", st.RunTime.Count, st.QueueWait.Count)
	fmt.Println("p99 run time within Max:", st.RunTime.Quantile(0.99) <= st.RunTime.Max)
	// Output:
	// DoContext: true
	// completed: 11 panics: 2 queued: 0 running: 0
	// timed: 11 11
	// p99 run time within Max: true
}

// Expvar publishes the same snapshot as JSON, for /debug/vars: durations are
// integer nanoseconds in keys ending in Ns.
func ExamplePool_Expvar() {
	p, err := blitz.New(blitz.WithWorkers(2))
	if err != nil {
		panic(err)
	}
	for i := 0; i < 100; i++ {
		_ = p.Go(func(*blitz.Worker) {})
	}
	_ = p.Close()

	v := p.Expvar()
	// In a server, once per pool: expvar.Publish("blitz", v)

	var snap struct {
		Completed uint64
		RunTime   struct {
			Count        uint64
			P99Ns, MaxNs int64
			BoundsNs     []int64
			Counts       []uint64
		}
	}
	if err := json.Unmarshal([]byte(v.String()), &snap); err != nil {
		panic(err)
	}
	fmt.Println("completed:", snap.Completed)
	fmt.Println("sampled:", snap.RunTime.Count > 0, "p99 within max:", snap.RunTime.P99Ns <= snap.RunTime.MaxNs)
	fmt.Println("buckets:", len(snap.RunTime.Counts), "first bound:", time.Duration(snap.RunTime.BoundsNs[0]))
	// Output:
	// completed: 100
	// sampled: true p99 within max: true
	// buckets: 23 first bound: 1µs
}

// The bucket layout is fixed; an exporter maps it to Prometheus buckets
// ("le" labels in seconds), the last bucket being +Inf.
func ExampleHistogramBounds() {
	for _, b := range blitz.HistogramBounds()[:4] {
		fmt.Print(b.Seconds(), " ")
	}
	fmt.Println("...", blitz.HistogramBounds()[blitz.HistogramBuckets-2])
	// Output: 1e-06 2e-06 5e-06 1e-05 ... 10s
}
