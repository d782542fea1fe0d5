package loadgen

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ClosedLoop runs conc clients that each send a request as soon as the
// previous one answered, for d, and returns the 200s per second. It is the
// right tool for one thing only: finding the most a server can do (its
// capacity), which Sweep uses to size the open-loop loads. Its latencies
// would suffer from coordinated omission, so it reports none.
func ClosedLoop(ctx context.Context, do Doer, conc int, d time.Duration) (float64, error) {
	if conc < 1 || d <= 0 {
		return 0, errors.New("loadgen: ClosedLoop needs conc >= 1 and d > 0")
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var (
		wg sync.WaitGroup
		mu sync.Mutex
		ok int
	)
	start := time.Now()
	for i := 0; i < conc; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 0
			for ctx.Err() == nil {
				if st, err := do(ctx); err == nil && st == 200 {
					n++
				}
			}
			mu.Lock()
			ok += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	return float64(ok) / time.Since(start).Seconds(), nil
}

// BestClosedLoop returns the best closed-loop throughput (200s per second)
// of do at each concurrency in concs, each run for d: the capacity of a
// server, as Calibrate measures it, for any endpoint. An endpoint whose
// requests wait (a backend call) needs concurrencies well above GOMAXPROCS
// to keep the CPUs busy.
func BestClosedLoop(ctx context.Context, do Doer, concs []int, d time.Duration) (float64, error) {
	if len(concs) == 0 {
		return 0, errors.New("loadgen: BestClosedLoop needs concurrencies")
	}
	best := 0.0
	for _, c := range concs {
		tput, err := ClosedLoop(ctx, do, c, d)
		if err != nil {
			return 0, err
		}
		best = max(best, tput)
	}
	if best <= 0 {
		return 0, errors.New("loadgen: calibration got no successful response")
	}
	return best, nil
}
