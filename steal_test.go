package blitz

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/blitz-go/blitz/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFlatVictim checks the arithmetic of the flat default tier: for every
// pool size and worker, k in [0, n-1) names every other worker exactly once.
func TestFlatVictim(t *testing.T) {
	for n := 1; n <= 70; n++ {
		for self := 0; self < n; self++ {
			seen := make([]int, n)
			for k := 0; k < n-1; k++ {
				v := flatVictim(self, n, k)
				require.True(t, v >= 0 && v < n, "n=%d self=%d k=%d: victim %d out of range", n, self, k, v)
				seen[v]++
			}
			for v, c := range seen {
				want := 1
				if v == self {
					want = 0
				}
				require.Equal(t, want, c, "n=%d self=%d: victim %d named %d times", n, self, v, c)
			}
		}
	}
}

// TestSweepFollowsProcs pins the sweep's bounds: twice GOMAXPROCS, within
// [minSweep, maxSweep], and New's pool starts with the value for the
// current GOMAXPROCS.
func TestSweepFollowsProcs(t *testing.T) {
	for procs, want := range map[int]int32{1: minSweep, 2: minSweep, 8: minSweep, 9: 18, 20: 40, 32: maxSweep, 256: maxSweep} {
		assert.Equal(t, want, sweepFor(procs), "sweep at GOMAXPROCS %d", procs)
	}
	withPool(t, nil, func(p *Pool) {
		assert.Equal(t, sweepFor(runtime.GOMAXPROCS(0)), p.sweep.Load(), "a new pool's sweep")
	})
}

// TestLargePool creates pools of thousands of workers and checks that they
// start, that every worker runs out of work and parks (an idle round's steal
// sweep is bounded: with a sweep over every other worker, the idle rounds of
// n workers cost n² probes each), that they compute and close, and that New's
// memory is linear in the worker count: the bytes allocated per worker stay
// below a constant and do not grow from a small pool to a large one (n steal
// lists of n-1 victims each made them grow with n).
func TestLargePool(t *testing.T) {
	small, large := 256, 4096
	if testing.Short() || raceEnabled {
		small, large = 128, 1024
	}
	type variant struct {
		name string
		opts []Option
	}
	variants := []variant{{"parking=portable", []Option{WithParking(ParkingPortable)}}}
	if runtime.GOOS == "linux" {
		variants = append(variants, variant{"parking=futex", []Option{WithParking(ParkingFutex)}})
	}
	if topology.PinSupported {
		// Oversubscribed on any machine with fewer CPUs than workers: the
		// placement's tiers must not be a list of n victims per worker
		// either. (Pinning works only on Linux, so futex parking is there:
		// its idle yield is sched_yield, far cheaper on a locked thread
		// than the portable backend's Gosched.)
		variants = append(variants, variant{"parking=futex/placement=compact",
			[]Option{WithParking(ParkingFutex), WithPlacement(topology.PolicyCompact)}})
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			defer verifyNone(t)
			// A futex pool without a placement hands its threads back to
			// the runtime, and the next pool reuses them instead of
			// allocating its own: one pool of the larger size first, so
			// that both measured pools find their threads made, as they
			// would both make them where threads end with their workers.
			newPoolBytesPerWorker(t, large, v.opts)
			perSmall := newPoolBytesPerWorker(t, small, v.opts)
			perLarge := newPoolBytesPerWorker(t, large, v.opts)
			t.Logf("New allocated %.0f bytes per worker at %d workers, %.0f at %d", perSmall, small, perLarge, large)
			const maxPerWorker = 32 << 10
			assert.Less(t, perLarge, float64(maxPerWorker), "bytes allocated by New per worker at %d workers", large)
			assert.LessOrEqual(t, perLarge, perSmall*5/4, "bytes per worker grew from %d to %d workers", small, large)
		})
	}
}

// newPoolBytesPerWorker creates a pool of n workers, returns the heap bytes
// allocated per worker from New until every worker has parked once (so that
// everything a worker allocates when it starts, its thread included, is
// counted, however far the workers got when New returned), and checks the
// pool: work computes, Close returns.
func newPoolBytesPerWorker(t *testing.T, n int, opts []Option) float64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p, err := New(append([]Option{WithWorkers(n)}, opts...)...)
	require.NoError(t, err)
	eventually(t, fmt.Sprintf("all %d workers parked", n), func() bool { return parkedOnce(p) })
	runtime.ReadMemStats(&after)
	assert.Equal(t, seqFib(20), doW(t, p, func(w *Worker) int { return fibArgs(w, 20) }))
	var closeErr error
	within(t, "Close", func() { closeErr = p.Close() })
	require.NoError(t, closeErr)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
}

// parkedOnce reports whether every worker of p has parked at least once. It
// reads the counters Stats sums, without Stats' allocations.
func parkedOnce(p *Pool) bool {
	for _, w := range p.workerList() {
		if w.stats.sleeps.Load() == 0 {
			return false
		}
	}
	return true
}

// BenchmarkStealEmpty is one steal attempt by a worker whose victims are all
// empty (the other workers are idle): the cost of an idle round's sweep,
// every victim probed once per pass. Up to the sweep (sweepFor) plus one
// workers it grows with the pool; beyond, it stays at the sweep's probes.
func BenchmarkStealEmpty(b *testing.B) {
	for _, workers := range []int{2, 8, 64, 1024} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			p, err := New(WithWorkers(workers), WithParking(ParkingPortable))
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			Do(p, func(w *Worker) int {
				for b.Loop() {
					if _, ok := w.steal(); ok {
						b.Fatal("stole from an idle pool")
					}
				}
				return 0
			})
		})
	}
}

// TestVictimsAfterRetirement grows a pool of two far past its sweep for
// blocked tasks, lets the added workers retire, and checks that the
// thieves' flat tier spans the active workers again, not the list of every
// worker ever made (which sampled, found the other active worker by chance
// only), and that a join whose first half waits for the second to start
// elsewhere is stolen by the other active worker: no worker added for it.
func TestVictimsAfterRetirement(t *testing.T) {
	withPool(t, []Option{WithWorkers(2), WithParking(ParkingPortable), withMonitorHook(time.Millisecond, nil)}, func(p *Pool) {
		requireSchedCounts(t, p)
		blockedBurst(t, p, 4*maxSweep, 2)
		ws := p.workerList()
		require.Greater(t, len(ws)-1, int(p.sweep.Load()), "workers made: more than the sweep")
		assert.Equal(t, 2, ws[0].victims(ws), "the flat tier of an active worker")
		assert.Equal(t, len(ws), ws[len(ws)-1].victims(ws), "the flat tier of a retired one")
		added := p.Stats().WorkersAdded
		for range 5 {
			got := doW(t, p, func(w *Worker) int {
				ran := make(chan struct{})
				a, b := Join(w, func(*Worker) int { <-ran; return 1 }, func(*Worker) int { close(ran); return 2 })
				return a + b
			})
			require.Equal(t, 3, got)
		}
		assert.Equal(t, added, p.Stats().WorkersAdded, "workers added for a join the other active worker can steal")
	})
}
