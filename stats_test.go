package blitz

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serverStats are the server gauges and counters a test expects.
type serverStats struct {
	queued, running int
	rejected        uint64
}

// checkServerStats compares the pool's queue gauges and refusal count with
// want, and checks that the snapshot adds up.
func checkServerStats(t *testing.T, p *Pool, want serverStats) {
	t.Helper()
	st := p.Stats()
	if st.Queued != want.queued || st.Running != want.running || st.Rejected != want.rejected {
		t.Errorf("Stats: %d queued, %d running, %d rejected; want %d, %d, %d",
			st.Queued, st.Running, st.Rejected, want.queued, want.running, want.rejected)
	}
	if st.Injected != uint64(st.Queued+st.Running)+st.Completed {
		t.Errorf("Stats: Injected %d != Queued %d + Running %d + Completed %d", st.Injected, st.Queued, st.Running, st.Completed)
	}
}

// TestStatsServer follows the server counters through a deterministic run:
// the gauges with every worker held and the queue full, refusals, then
// completions, panics (handled and returned) and a Goexit, and with
// WithLatencySampling(1) a queue-wait and run-time sample for every task.
func TestStatsServer(t *testing.T) {
	handled := make(chan any, 1)
	opts := []Option{WithCapacity(3), WithLatencySampling(1), WithPanicHandler(func(v any, _ []byte) { handled <- v })}
	eachServer(t, []int{1, 2}, opts, func(t *testing.T, p *Pool, workers int) {
		if st := p.Stats(); st.Queued != 0 || st.Running != 0 || st.Completed != 0 || st.Rejected != 0 || st.Panics != 0 ||
			st.Injected != 0 || st.QueueWait.Count != 0 || st.RunTime.Count != 0 {
			t.Errorf("a new pool's Stats: %+v", st)
		}
		g := newGate()
		defer g.open()
		g.occupy(t, p, workers)
		checkServerStats(t, p, serverStats{running: workers})
		var ran atomic.Int64
		fill(t, p, 3, &ran)
		checkServerStats(t, p, serverStats{queued: 3, running: workers})
		for i := 0; i < 2; i++ {
			if err := p.TryGo(func(*Worker) {}); !errors.Is(err, ErrQueueFull) {
				t.Fatalf("TryGo = %v, want ErrQueueFull", err)
			}
		}
		if _, err := TryDo(context.Background(), p, func(*Worker) int { return 0 }); !errors.Is(err, ErrQueueFull) {
			t.Fatalf("TryDo = %v, want ErrQueueFull", err)
		}
		checkServerStats(t, p, serverStats{queued: 3, running: workers, rejected: 3})
		if st := p.Stats(); st.Completed != 0 || st.Injected != uint64(workers+3) {
			t.Errorf("with the gate shut: Completed %d, Injected %d; want 0, %d", st.Completed, st.Injected, workers+3)
		}

		g.open()
		accepted := uint64(workers + 3)
		// A Go task that panics (to the handler), a DoContext that
		// panics (to the caller), a Go task that calls Goexit.
		if err := p.Go(func(*Worker) { panic("handled") }); err != nil {
			t.Fatal(err)
		}
		within(t, "the panic handler", func() {
			assert.EqualValues(t, "handled", <-handled, "handler")
		})
		if _, err := DoContext(context.Background(), p, func(*Worker) int { panic("returned") }); !errors.Is(err, ErrPanic) {
			t.Errorf("DoContext panic = %v", firstLine(err))
		}
		exited := make(chan struct{})
		if err := p.Go(func(*Worker) { defer close(exited); runtime.Goexit() }); err != nil {
			t.Fatal(err)
		}
		within(t, "the Goexit task", func() { <-exited })
		accepted += 3
		// The worker counts a task finished just after the task's own
		// last action (the caller's wake-up, the handler, a deferred
		// close), so the final counts are awaited.
		var st Stats
		eventually(t, "every task counted finished and sampled", func() bool {
			st = p.Stats()
			return st.Completed == accepted && st.QueueWait.Count == accepted && st.RunTime.Count == accepted
		})
		if st.Queued != 0 || st.Running != 0 || st.Injected != accepted || st.Panics != 2 || st.Rejected != 3 {
			t.Errorf("after the drain: %d queued, %d running, %d injected, %d panics, %d rejected; want 0, 0, %d, 2, 3",
				st.Queued, st.Running, st.Injected, st.Panics, st.Rejected, accepted)
		}
		if ran.Load() != 3 {
			t.Errorf("%d of 3 queued tasks ran", ran.Load())
		}
	})
}

// TestStatsServerSampling checks that the default sampling times some tasks
// but not every one.
func TestStatsServerSampling(t *testing.T) {
	withPool(t, []Option{WithWorkers(1)}, func(p *Pool) {
		const n = 4 * DefaultLatencySampling
		for i := 0; i < n; i++ {
			if err := p.Go(func(*Worker) {}); err != nil {
				t.Fatal(err)
			}
		}
		var st Stats
		eventually(t, "every task counted finished", func() bool { st = p.Stats(); return st.Completed == n })
		if st.QueueWait.Count == 0 || st.QueueWait.Count >= n || st.RunTime.Count != st.QueueWait.Count {
			t.Errorf("%d tasks with the default sampling: %d queue waits and %d run times sampled; want some, not all",
				n, st.QueueWait.Count, st.RunTime.Count)
		}
	})
}

// TestStatsLatencyBounds checks the sampled durations against the
// test's own clock, with bounds that causality guarantees whatever the
// scheduling: a task held by the gate ran at least from when the test saw it
// start to when the test opened the gate; a task queued behind it waited at
// least from its submission's return to the opening; no duration exceeds the
// whole run. The pause before the opening is not synchronisation: it only
// makes the lower bounds large enough (milliseconds) to catch a duration
// recorded in the wrong unit or from the wrong clock reading.
func TestStatsLatencyBounds(t *testing.T) {
	withPool(t, []Option{WithWorkers(1), WithMaxWorkers(1), WithLatencySampling(1)}, func(p *Pool) {
		t0 := time.Now()
		g := newGate()
		defer g.open()
		g.occupy(t, p, 1)
		tStarted := time.Now()
		done := make(chan struct{})
		if err := p.Go(func(*Worker) { close(done) }); err != nil {
			t.Fatal(err)
		}
		tSubmitted := time.Now()
		time.Sleep(2 * time.Millisecond)
		tOpen := time.Now()
		g.open()
		within(t, "the queued task", func() { <-done })
		var st Stats
		eventually(t, "both tasks counted", func() bool {
			st = p.Stats()
			return st.Completed == 2 && st.QueueWait.Count == 2 && st.RunTime.Count == 2
		})
		span := time.Since(t0)
		if lo := tOpen.Sub(tStarted); st.RunTime.Max < lo || st.RunTime.Max > span {
			t.Errorf("RunTime.Max = %v; the gate task ran at least %v, and the run took %v", st.RunTime.Max, lo, span)
		}
		if lo := tOpen.Sub(tSubmitted); st.QueueWait.Max < lo || st.QueueWait.Max > span {
			t.Errorf("QueueWait.Max = %v; the queued task waited at least %v, and the run took %v", st.QueueWait.Max, lo, span)
		}
		if st.RunTime.Sum < st.RunTime.Max || st.QueueWait.Sum < st.QueueWait.Max || st.RunTime.Sum > 2*span || st.QueueWait.Sum > 2*span {
			t.Errorf("sums out of range: QueueWait %v, RunTime %v (max %v, %v; run %v)", st.QueueWait.Sum, st.RunTime.Sum, st.QueueWait.Max, st.RunTime.Max, span)
		}
	})
}

// TestStatsServerCounters runs submitted tasks through a pool, some of them
// panicking, and checks the server counters once the pool has drained.
func TestStatsServerCounters(t *testing.T) {
	goTasks, doTasks := 400, 100
	if testing.Short() {
		goTasks, doTasks = 100, 20
	}
	for _, workers := range testWorkerCounts {
		var handled atomic.Int64
		opts := []Option{WithWorkers(workers), WithLatencySampling(1), WithPanicHandler(func(any, []byte) { handled.Add(1) })}
		p, err := New(opts...)
		if err != nil {
			t.Fatal(err)
		}
		var ran atomic.Int64
		wantPanics := 0
		for i := 0; i < goTasks; i++ {
			boom := i%10 == 0
			if boom {
				wantPanics++
			}
			if err := p.Go(func(*Worker) {
				ran.Add(1)
				if boom {
					panic("boom")
				}
			}); err != nil {
				t.Fatalf("Go: %v", err)
			}
		}
		within(t, "DoContext calls", func() {
			for i := 0; i < doTasks; i++ {
				boom := i%5 == 0
				if boom {
					wantPanics++
				}
				_, err := DoContext(context.Background(), p, func(*Worker) int {
					ran.Add(1)
					if boom {
						panic("boom")
					}
					return i
				})
				if boom != errors.Is(err, ErrPanic) {
					t.Errorf("DoContext task %d: err %v", i, err)
				}
			}
		})
		within(t, "Close", func() {
			assert.NoError(t, p.Close(), "Close")
		})
		st := p.Stats()
		total := uint64(goTasks + doTasks)
		if ran.Load() != int64(total) {
			t.Fatalf("workers=%d: %d tasks ran, want %d", workers, ran.Load(), total)
		}
		if st.Completed != total || st.Injected != total {
			t.Errorf("workers=%d: Completed %d, Injected %d, want %d", workers, st.Completed, st.Injected, total)
		}
		if st.Queued != 0 || st.Running != 0 || st.Rejected != 0 {
			t.Errorf("workers=%d: after Close Queued %d, Running %d, Rejected %d, want 0", workers, st.Queued, st.Running, st.Rejected)
		}
		if st.Panics != uint64(wantPanics) {
			t.Errorf("workers=%d: Panics %d, want %d (handler saw %d)", workers, st.Panics, wantPanics, handled.Load())
		}
		// WithLatencySampling(1): every task is timed.
		if st.QueueWait.Count != total || st.RunTime.Count != total {
			t.Errorf("workers=%d: QueueWait.Count %d, RunTime.Count %d, want %d", workers, st.QueueWait.Count, st.RunTime.Count, total)
		}
		if st.RunTime.Sum <= 0 || st.RunTime.Max <= 0 || st.RunTime.Quantile(1) > st.RunTime.Max {
			t.Errorf("workers=%d: RunTime = %+v", workers, st.RunTime)
		}
	}
	verifyNone(t)
}

// TestStatsDefaultSampling checks that the default sampling times some
// tasks, not all of them, and that every timed task reaches both histograms.
func TestStatsDefaultSampling(t *testing.T) {
	const n = 64 * DefaultLatencySampling
	var st Stats
	withPool(t, []Option{WithWorkers(2)}, func(p *Pool) {
		for i := 0; i < n; i++ {
			require.NoError(t, p.Go(func(*Worker) {}), "Go")
		}
		within(t, "Shutdown", func() {
			assert.NoError(t, p.Shutdown(context.Background()), "Shutdown")
		})
		st = p.Stats()
	})
	require.EqualValues(t, n, st.Completed, "Completed")
	if c := st.RunTime.Count; c == 0 || c >= n || st.QueueWait.Count != c {
		t.Errorf("with the default sampling RunTime.Count %d, QueueWait.Count %d of %d tasks; want both equal, above 0 and below %d",
			c, st.QueueWait.Count, n, n)
	}
}

// TestStatsGauges holds a pool's only worker in a task and fills its bounded
// queue, so that Queued, Running and Rejected have known values.
func TestStatsGauges(t *testing.T) {
	withPool(t, []Option{WithWorkers(1), WithCapacity(2)}, func(p *Pool) {
		started, release := make(chan struct{}), make(chan struct{})
		if err := p.Go(func(*Worker) { close(started); <-release }); err != nil {
			t.Fatalf("Go: %v", err)
		}
		select {
		case <-started:
		case <-time.After(watchdogTimeout):
			t.Fatalf("the first task did not start\n%s", dumpAll())
		}
		for i := 0; i < 2; i++ {
			if err := p.TryGo(func(*Worker) {}); err != nil {
				t.Fatalf("TryGo %d: %v", i, err)
			}
		}
		for i := 0; i < 3; i++ {
			if err := p.TryGo(func(*Worker) {}); !errors.Is(err, ErrQueueFull) {
				t.Fatalf("TryGo on a full queue: %v, want ErrQueueFull", err)
			}
		}
		if _, err := TryDo(context.Background(), p, func(*Worker) int { return 1 }); !errors.Is(err, ErrQueueFull) {
			t.Fatalf("TryDo on a full queue: %v, want ErrQueueFull", err)
		}
		st := p.Stats()
		if st.Queued != 2 || st.Running != 1 || st.Rejected != 4 || st.Injected != 3 || st.Completed != 0 {
			t.Errorf("held: Queued %d, Running %d, Rejected %d, Injected %d, Completed %d; want 2, 1, 4, 3, 0",
				st.Queued, st.Running, st.Rejected, st.Injected, st.Completed)
		}
		close(release)
		within(t, "Shutdown", func() {
			assert.NoError(t, p.Shutdown(context.Background()), "Shutdown")
		})
		st = p.Stats()
		if st.Queued != 0 || st.Running != 0 || st.Completed != 3 || st.Rejected != 4 {
			t.Errorf("drained: Queued %d, Running %d, Completed %d, Rejected %d; want 0, 0, 3, 4",
				st.Queued, st.Running, st.Completed, st.Rejected)
		}
	})
}

// TestStatsConcurrentReaders calls Stats from several goroutines while
// submitters keep the pool busy, and checks every snapshot: counters never go
// back, Completed never exceeds Injected, Running never exceeds the tasks in
// flight. Under -race it checks the readers against the workers' writes.
func TestStatsConcurrentReaders(t *testing.T) {
	submitters, perSubmitter, readers := 2, 2000, 2
	if testing.Short() {
		submitters, perSubmitter = 2, 300
	}
	withPool(t, []Option{WithWorkers(2), WithLatencySampling(1), WithCapacity(64), WithPanicHandler(func(any, []byte) {})}, func(p *Pool) {
		start := make(chan struct{})
		stop := make(chan struct{})
		var subs, reads sync.WaitGroup
		var busy atomic.Int64 // snapshots that saw tasks queued or running: the concurrent path
		// Each submitter's first task waits until a reader saw the pool
		// busy: on a loaded machine the readers could otherwise miss the
		// whole run of short tasks.
		seen := make(chan struct{})
		var seenOnce sync.Once
		var bad atomic.Int64
		var tasks sync.WaitGroup
		tasks.Add(submitters * perSubmitter)
		for r := 0; r < readers; r++ {
			reads.Add(1)
			go func() {
				defer reads.Done()
				<-start
				var prev Stats
				for {
					select {
					case <-stop:
						return
					default:
					}
					st := p.Stats()
					if st.Completed < prev.Completed || st.Injected < prev.Injected || st.Panics < prev.Panics ||
						st.QueueWait.Count < prev.QueueWait.Count || st.RunTime.Count < prev.RunTime.Count {
						t.Errorf("a counter went back: %+v after %+v", st, prev)
						bad.Add(1)
					}
					if st.Completed > st.Injected {
						t.Errorf("Completed %d > Injected %d", st.Completed, st.Injected)
						bad.Add(1)
					}
					if st.Running < 0 || st.Queued < 0 || st.Injected != uint64(st.Queued)+uint64(st.Running)+st.Completed {
						t.Errorf("Injected %d != Queued %d + Running %d + Completed %d", st.Injected, st.Queued, st.Running, st.Completed)
						bad.Add(1)
					}
					if st.Running > 0 || st.Queued > 0 {
						busy.Add(1)
						seenOnce.Do(func() { close(seen) })
					}
					if bad.Load() > 10 {
						return
					}
					prev = st
					runtime.Gosched() // leave the P to submitters and workers with -cpu 1
				}
			}()
		}
		for s := 0; s < submitters; s++ {
			subs.Add(1)
			go func() {
				defer subs.Done()
				<-start
				for i := 0; i < perSubmitter; i++ {
					if err := p.GoContext(context.Background(), func(*Worker) {
						defer tasks.Done()
						if i == 0 {
							<-seen
						}
						if i%100 == 0 {
							panic("boom")
						}
					}); err != nil {
						t.Errorf("GoContext: %v", err)
						tasks.Done()
					}
				}
			}()
		}
		close(start)
		within(t, "submitters", subs.Wait)
		within(t, "tasks", tasks.Wait)
		close(stop)
		within(t, "readers", reads.Wait)

		within(t, "Shutdown", func() {
			assert.NoError(t, p.Shutdown(context.Background()), "Shutdown")
		})
		st := p.Stats()
		total := uint64(submitters * perSubmitter)
		if st.Completed != total || st.QueueWait.Count != total || st.RunTime.Count != total {
			t.Errorf("final: Completed %d, QueueWait.Count %d, RunTime.Count %d, want %d", st.Completed, st.QueueWait.Count, st.RunTime.Count, total)
		}
		if want := uint64(submitters * ((perSubmitter + 99) / 100)); st.Panics != want {
			t.Errorf("final: Panics %d, want %d", st.Panics, want)
		}
		t.Logf("%d snapshots saw tasks in flight", busy.Load())
		if busy.Load() == 0 {
			t.Errorf("no snapshot saw a task queued or running: the concurrent path was not exercised")
		}
	})
}

// TestStatsGoexit checks that a task that calls runtime.Goexit counts as
// completed, not as a panic, and still reaches the histograms.
func TestStatsGoexit(t *testing.T) {
	var st Stats
	withPool(t, []Option{WithWorkers(2), WithLatencySampling(1)}, func(p *Pool) {
		var err error
		within(t, "DoContext", func() {
			_, err = DoContext(context.Background(), p, func(*Worker) int { runtime.Goexit(); return 0 })
		})
		if !errors.Is(err, ErrGoexit) {
			t.Fatalf("DoContext of a task that called Goexit: %v, want ErrGoexit", err)
		}
		within(t, "Shutdown", func() {
			assert.NoError(t, p.Shutdown(context.Background()), "Shutdown")
		})
		st = p.Stats()
	})
	if st.Completed != 1 || st.Panics != 0 || st.RunTime.Count != 1 || st.Running != 0 {
		t.Errorf("after a Goexit task: Completed %d, Panics %d, RunTime.Count %d, Running %d; want 1, 0, 1, 0",
			st.Completed, st.Panics, st.RunTime.Count, st.Running)
	}
}

func TestStats(t *testing.T) {
	withPool(t, []Option{WithWorkers(2)}, func(p *Pool) {
		before := p.Stats()
		doW(t, p, func(w *Worker) int { return fibArgs(w, 18) })
		var wg sync.WaitGroup
		wg.Add(10)
		for i := 0; i < 10; i++ {
			p.Go(func(*Worker) { wg.Done() })
		}
		within(t, "tasks", wg.Wait)
		st := p.Stats()
		assert.EqualValues(t, 2, st.Workers, "Workers")
		// The Do either ran on its caller or was submitted.
		if grew := st.Injected + st.CallerRuns - before.Injected - before.CallerRuns; grew != 11 {
			t.Errorf("Injected and CallerRuns grew by %d, want 11", grew)
		}
		if st.Executed-before.Executed < 10 {
			t.Errorf("Executed grew by %d, want >= 10", st.Executed-before.Executed)
		}
	})
}
