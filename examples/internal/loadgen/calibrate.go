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
