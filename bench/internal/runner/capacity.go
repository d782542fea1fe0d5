package runner

import (
	"runtime"
	"sync"
	"time"
)

// The machine's parallel capacity: the speedup that perfectly parallel work
// gets from n goroutines over one, measured during the run. On a dedicated
// machine with n idle CPUs it is close to n; on a shared or overcommitted
// one it is lower, and no pool can beat it. The report prints it next to the
// scaling table so a speedup below target can be read against what the
// machine gave every implementation at that moment.

// spinWork burns CPU for units iterations of an integer hash, with no memory
// traffic, and returns the result so the loop cannot be dropped.
func spinWork(units int) uint64 {
	x := uint64(88172645463325252)
	for i := 0; i < units; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// CapacityUnits is the total work of one capacity probe (~10-20 ms of CPU).
const CapacityUnits = 8 << 20

// SpinParallel runs units of spinWork split over g goroutines and waits
// for them: the work of the capacity probe, and of BenchmarkCapacity.
func SpinParallel(g, units int) {
	var wg sync.WaitGroup
	wg.Add(g)
	for i := 0; i < g; i++ {
		go func() {
			defer wg.Done()
			sink(spinWork(units / g))
		}()
	}
	wg.Wait()
}

// parallelCapacity returns t(1 goroutine doing all the work) / t(n goroutines
// doing a 1/n share each), the best of three tries of each.
func parallelCapacity(n int) float64 {
	n = max(n, 1)
	run := func(g, units int) time.Duration {
		best := time.Duration(1<<63 - 1)
		for try := 0; try < 3; try++ {
			start := time.Now()
			SpinParallel(g, units)
			best = min(best, time.Since(start))
		}
		return best
	}
	prev := runtime.GOMAXPROCS(n)
	defer runtime.GOMAXPROCS(prev)
	t1 := run(1, CapacityUnits)
	tn := run(n, CapacityUnits)
	return float64(t1) / float64(tn)
}

// sink consumes a result so the compiler cannot drop the work that made
// it.
//
//go:noinline
func sink[T any](T) {}
