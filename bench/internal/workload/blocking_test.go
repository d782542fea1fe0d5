package workload

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shortGrace shortens the guard's grace for one test.
func shortGrace(t *testing.T, d time.Duration) {
	prev := guardGrace
	guardGrace = d
	t.Cleanup(func() { guardGrace = prev })
}

func TestGuardedReturnsOpsResult(t *testing.T) {
	called := false
	timedOut, err := guarded(time.Minute, func(<-chan struct{}) error { return nil }, func() { called = true })
	assert.False(t, timedOut)
	assert.NoError(t, err)
	assert.False(t, called, "atDeadline runs only at the deadline")
}

func TestGuardedStopsAtDeadline(t *testing.T) {
	order := make(chan string, 2)
	timedOut, err := guarded(time.Millisecond, func(abort <-chan struct{}) error {
		<-abort
		order <- "aborted"
		return nil
	}, func() { order <- "atDeadline" })
	assert.True(t, timedOut)
	assert.NoError(t, err)
	assert.Equal(t, "atDeadline", <-order, "atDeadline runs before abort is closed")
	assert.Equal(t, "aborted", <-order)
}

func TestGuardedGivesUpOnAnOpThatIgnoresAbort(t *testing.T) {
	shortGrace(t, time.Millisecond)
	release := make(chan struct{})
	defer close(release)
	timedOut, err := guarded(time.Millisecond, func(<-chan struct{}) error { <-release; return nil }, nil)
	assert.True(t, timedOut)
	assert.ErrorIs(t, err, errNotRecovered)
}

// runShape runs a shape's n tasks on goroutines and returns, for each task,
// whether task dep(i) had started when task i returned (dep(i) < 0: not
// looked at). A task is marked started before it is called, so a task that
// returns only after dep(i) did something sees it marked. The order in
// which the tasks' returns are recorded is not looked at: a task that lets
// another go on (a close) races that one to record its own return.
func runShape(shape batchShape, n int, dep func(i int) int) []bool {
	task := shape(n, nil)
	started := make([]atomic.Bool, n)
	after := make([]bool, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			started[i].Store(true)
			task(i)
			if d := dep(i); d >= 0 {
				after[i] = started[d].Load()
			}
		}()
	}
	wg.Wait()
	return after
}

func TestFanInWaitersFinishAfterTheLastTask(t *testing.T) {
	watchdog(t, time.Minute, func() {
		after := runShape(fanInShape, 9, func(i int) int {
			if i == 8 {
				return -1
			}
			return 8
		})
		for i := range 8 {
			assert.True(t, after[i], "waiter %d returned before the last task started", i)
		}
	})
}

func TestChainFinishesInReverse(t *testing.T) {
	watchdog(t, time.Minute, func() {
		const n = 20
		after := runShape(chainShape, n, func(i int) int {
			if i == n-1 {
				return -1
			}
			return i + 1
		})
		for i := range n - 1 {
			assert.True(t, after[i], "task %d returned before task %d started", i, i+1)
		}
	})
}

func TestShapesEndOnAbort(t *testing.T) {
	abort := make(chan struct{})
	close(abort)
	watchdog(t, time.Minute, func() {
		// Run alone, every task but fan-in's last and chain's last would wait forever.
		fan := fanInShape(9, abort)
		chain := chainShape(5, abort)
		for i := range 8 {
			fan(i)
		}
		chain(0)
		sleepShape(time.Hour)(1, abort)(0)
	})
}

// Every batcher runs every task once: on independent tasks, and on tasks
// waiting on later tasks, where the pool's rows may time out until it
// replaces blocked workers (issue 32); then the guard must still have let
// every task end, once.
func TestBatchersRunEveryTaskOnce(t *testing.T) {
	shapes := []struct {
		name  string
		shape batchShape
		n     int
	}{
		{"sleep", sleepShape(100 * time.Microsecond), 50},
		{"fan-in", fanInShape, 9},
		{"chain", chainShape, 50},
	}
	for _, bt := range batchers() {
		t.Run(bt.impl, func(t *testing.T) {
			run, closeFn, err := bt.open("auto")
			require.NoError(t, err)
			for _, sh := range shapes {
				counts := make([]atomic.Int32, sh.n)
				recording := func(n int, abort <-chan struct{}) func(int) {
					task := sh.shape(n, abort)
					return func(i int) { task(i); counts[i].Add(1) }
				}
				var ran atomic.Int64
				var timedOut bool
				watchdog(t, time.Minute, func() {
					timedOut, _, err = batchOp(run, recording, sh.n, time.Second, &ran)
				})
				require.NoError(t, err, sh.name)
				if timedOut {
					require.Equal(t, KindBlitz, bt.kind, "%s: a peer timed out", sh.name)
					t.Logf("%s: timed out (the pool runs one blocked task per worker: issue 32)", sh.name)
				}
				assert.Equal(t, int64(sh.n), ran.Load(), sh.name)
				for i := range counts {
					assert.Equal(t, int32(1), counts[i].Load(), "%s: task %d", sh.name, i)
				}
			}
			require.NoError(t, closeFn())
		})
	}
}

func TestBatchRowsNamesAndWorkers(t *testing.T) {
	cfg := Config{Sizes: QuickSizes(), Parkings: []string{"auto", "cond"}, Workers: []int{1, 2}}
	var names []string
	for _, c := range Suite(cfg) {
		if !IsBlocking(c.Workload) {
			continue
		}
		assert.Equal(t, 2, c.Workers, "%s: the blocking rows run at the most workers", c.FullName())
		if c.Kind == KindBlitz {
			assert.NotEmpty(t, c.Parking, c.FullName())
		} else {
			assert.Empty(t, c.Parking, c.FullName())
		}
		names = append(names, c.FullName())
	}
	for _, want := range []string{
		"BenchmarkBlockingSleep/tasks=20/sleep=2ms/impl=go-wg/workers=2",
		"BenchmarkBlockingSleep/tasks=20/sleep=2ms/impl=blitz-group/workers=2/parking=cond",
		"BenchmarkBlockingWait/shape=fan-in/tasks=9/impl=blitz-go/workers=2",
		"BenchmarkBlockingWait/shape=chain/tasks=50/impl=conc/workers=2",
		"BenchmarkBlockingServer/load=95/impl=blitz-fork-par/workers=2",
		"BenchmarkBlockingServer/load=50/impl=inline/workers=2",
	} {
		assert.Contains(t, names, want)
	}
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	assert.Len(t, slices.Compact(sorted), len(names), "row names are unique")
}
