package blitz

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// requireSchedCounts skips a test that needs the scheduler's counts of
// running and runnable goroutines (Go 1.26 and later: blocking.go).
func requireSchedCounts(t *testing.T, p *Pool) {
	t.Helper()
	if p.monitor.sched == nil {
		t.Skip("runtime/metrics has no scheduler counts before Go 1.26: the monitor cannot tell a blocked worker from a busy one")
	}
}

// waitersFor is how many tasks wait on the last one in
// TestTasksWaitingOnTheLastOne: 1,000 (a server's calls in flight, a
// worker each), 100 under -short, and 64 on the spinning backend, whose
// parked workers spin until they retire.
func waitersFor(k Parking) int {
	n := 1000
	if testing.Short() {
		n = 100
	}
	if k == ParkingSpin {
		n = min(n, 64)
	}
	return n
}

// TestTasksWaitingOnTheLastOne submits n tasks that all wait for the last one
// to close a channel, to a pool of one worker: plain goroutines complete
// this, and so must the pool, by adding workers for the blocked ones. The
// rare path (an addition) is checked from Stats.
func TestTasksWaitingOnTheLastOne(t *testing.T) {
	for _, k := range serverParkings() {
		for _, workers := range []int{1, 2} {
			t.Run(fmt.Sprintf("parking=%v/workers=%d", k, workers), func(t *testing.T) {
				withPool(t, []Option{WithParking(k), WithWorkers(workers)}, func(p *Pool) {
					n := waitersFor(k)
					last := make(chan struct{})
					var ran, waited atomic.Int64
					var wg sync.WaitGroup
					wg.Add(n + 1)
					for range n {
						require.NoError(t, p.Go(func(*Worker) {
							defer wg.Done()
							ran.Add(1)
							<-last
							waited.Add(1)
						}))
					}
					require.NoError(t, p.Go(func(*Worker) { defer wg.Done(); ran.Add(1); close(last) }))
					within(t, "tasks waiting on the last one", wg.Wait)
					assert.Equal(t, int64(n+1), ran.Load(), "tasks run")
					assert.Equal(t, int64(n), waited.Load(), "waiters released")
					st := p.Stats()
					assert.Positive(t, st.WorkersAdded, "workers added for the blocked ones")
					assert.Positive(t, st.BlockedSeen, "blocked workers seen")
					assert.Equal(t, workers, st.Workers, "the pool's size is unchanged")
					assert.LessOrEqual(t, st.Active, DefaultMaxWorkers)
				})
			})
		}
	}
}

// TestChainBehindABlockedBatch submits a chain of tasks, each waiting for the
// next, to a pool of two workers: each worker takes a batch of them into its
// run queue (batch.go) and blocks in the first, with the next ones behind it.
// The pool grows far past its sweep (steal.go), where a thief's sample of
// the victims finds those run queues by chance only; the monitor names the
// blocked worker with work behind it (Pool.stuck), and thieves try it first.
// The chain is queued while both workers are held by gate tasks, so that
// they take batches when the gate opens. Every round must complete; a thief
// can find a parked batch by chance before a tick names its worker, so the
// rounds repeat (each on a fresh pool) until one tick named a worker: the
// rare path ran.
func TestChainBehindABlockedBatch(t *testing.T) {
	const rounds = 20
	for _, k := range serverParkings() {
		t.Run(fmt.Sprintf("parking=%v", k), func(t *testing.T) {
			var batched, named uint64
			for r := 0; r < rounds && named == 0; r++ {
				b, n := chainBehindABlockedBatch(t, k)
				batched += b
				named += n
			}
			t.Logf("%d tasks batched, %d ticks named a stuck worker", batched, named)
			assert.Positive(t, batched, "tasks batched into a run queue")
			assert.Positive(t, named, "ticks that named a blocked worker with work behind it")
		})
	}
}

// chainBehindABlockedBatch runs one round of TestChainBehindABlockedBatch
// on a fresh pool and returns the tasks batched and the ticks that named a
// stuck worker.
func chainBehindABlockedBatch(t *testing.T, k Parking) (batched, named uint64) {
	withPool(t, []Option{WithParking(k), WithWorkers(2)}, func(p *Pool) {
		requireSchedCounts(t, p)
		g := newGate()
		defer g.open()
		g.occupy(t, p, 2)
		n := waitersFor(k)
		done := make([]chan struct{}, n)
		for i := range done {
			done[i] = make(chan struct{})
		}
		var wg sync.WaitGroup
		wg.Add(n)
		for i := range n {
			require.NoError(t, p.Go(func(*Worker) {
				defer wg.Done()
				if i+1 < n {
					<-done[i+1]
				}
				close(done[i])
			}))
		}
		g.open()
		within(t, "a chain of tasks behind blocked batches", wg.Wait)
		p.resizeMu.Lock()
		named = p.monitor.stuckNamed
		p.resizeMu.Unlock()
		require.Greater(t, p.Stats().WorkersAdded, uint64(p.sweep.Load()), "workers added: the pool outgrew its sweep")
		for _, w := range p.workerList() {
			batched += atomic.LoadUint64(&w.stats.batched)
		}
	})
	return batched, named
}

// TestGroupLimitAboveWorkers runs a Group with SetLimit(4) on a pool of two
// workers whose tasks block until four of them are inside at once (a
// barrier, reused by each wave of four): errgroup runs four goroutines, and
// the pool must reach the limit too. Eight tasks, two waves; the most at once
// is exactly the limit.
func TestGroupLimitAboveWorkers(t *testing.T) {
	for _, k := range serverParkings() {
		t.Run(fmt.Sprintf("parking=%v", k), func(t *testing.T) {
			withPool(t, []Option{WithParking(k), WithWorkers(2)}, func(p *Pool) {
				const limit, tasks = 4, 8
				var mu sync.Mutex
				inside, most, wave := 0, 0, 0
				cond := sync.NewCond(&mu)
				g, _ := NewGroup(context.Background(), p)
				g.SetLimit(limit)
				for range tasks {
					g.Go(func(*Worker) error {
						mu.Lock()
						defer mu.Unlock()
						inside++
						most = max(most, inside)
						my := wave
						if inside == limit {
							wave++
							inside = 0
							cond.Broadcast()
						}
						for wave == my {
							cond.Wait()
						}
						return nil
					})
				}
				within(t, "Wait", func() { require.NoError(t, g.Wait()) })
				assert.Equal(t, limit, most, "most tasks inside at once")
				assert.Equal(t, tasks/limit, wave, "waves")
			})
		})
	}
}

// TestGroupTasksWaitOnALaterTask is the case: eight tasks of a Group
// wait on a channel that a ninth, given to Go last, closes.
func TestGroupTasksWaitOnALaterTask(t *testing.T) {
	for _, k := range serverParkings() {
		t.Run(fmt.Sprintf("parking=%v", k), func(t *testing.T) {
			withPool(t, []Option{WithParking(k), WithWorkers(2)}, func(p *Pool) {
				ch := make(chan struct{})
				var released atomic.Int64
				g, _ := NewGroup(context.Background(), p)
				for range 8 {
					g.Go(func(*Worker) error { <-ch; released.Add(1); return nil })
				}
				g.Go(func(*Worker) error { close(ch); return nil })
				within(t, "Wait", func() { require.NoError(t, g.Wait()) })
				assert.Equal(t, int64(8), released.Load())
			})
		})
	}
}

// TestJoinHalfWaitsForTheOther forks a join whose first half waits for the
// second, on a pool of two workers whose other worker is held by a task:
// `go b(); a()` completes with goroutines, and the pool replaces the
// blocked first half so that the second is stolen and run. (On a pool of
// one worker the worker keeps its deque to itself while it runs a job: the
// package documentation lists that case.)
func TestJoinHalfWaitsForTheOther(t *testing.T) {
	for _, k := range serverParkings() {
		t.Run(fmt.Sprintf("parking=%v", k), func(t *testing.T) {
			withPool(t, []Option{WithParking(k), WithWorkers(2)}, func(p *Pool) {
				requireSchedCounts(t, p)
				g := newGate()
				defer g.open()
				g.occupy(t, p, 1)
				for range 5 {
					ch := make(chan struct{})
					got := doW(t, p, func(w *Worker) int {
						a, b := Join(w, func(*Worker) int { <-ch; return 1 }, func(*Worker) int { close(ch); return 2 })
						return a + b
					})
					require.Equal(t, 3, got)
				}
				g.open()
				assert.Positive(t, p.Stats().WorkersAdded, "workers added")
			})
		})
	}
}

// TestCPUBoundTaskIsNotBlocked runs a CPU-bound task on a pool of one worker,
// with a task queued behind it, for as many monitor ticks as it takes to
// see the worker stuck several times: the monitor sees a running worker,
// and adds nobody.
func TestCPUBoundTaskIsNotBlocked(t *testing.T) {
	var ticks atomic.Int64
	withPool(t, []Option{WithWorkers(1), withMonitorHook(0, func() { ticks.Add(1) })}, func(p *Pool) {
		requireSchedCounts(t, p)
		var spins atomic.Int64
		done := make(chan struct{})
		require.NoError(t, p.Go(func(*Worker) {
			for start := ticks.Load(); ticks.Load() < start+2*monitorStuckTicks+2; {
				spins.Add(1) // CPU work: never blocks, never yields
			}
		}))
		require.NoError(t, p.Go(func(*Worker) { close(done) }))
		waitOrDump(t, done, "the queued task")
		st := p.Stats()
		assert.Zero(t, st.WorkersAdded, "workers added for a CPU-bound task")
		assert.Positive(t, spins.Load())
	})
}

// TestBlockInAJoinOfOneWorker: on a pool of one worker, a join's first half
// that waits in Block for its second half completes: Block offers the
// pending half and makes the deque stealable before it adds a worker, which
// takes the half. Nested joins put the half below lazy ones; every backend,
// repeated, on one long-lived pool.
func TestBlockInAJoinOfOneWorker(t *testing.T) {
	rounds := 50
	if testing.Short() {
		rounds = 10
	}
	for _, k := range serverParkings() {
		t.Run(fmt.Sprint("parking=", k), func(t *testing.T) {
			withPool(t, []Option{WithParking(k), WithWorkers(1)}, func(p *Pool) {
				for i := range rounds {
					got := doW(t, p, func(w *Worker) int {
						var nest func(w *Worker, d int) int
						nest = func(w *Worker, d int) int {
							if d > 0 {
								x, y := Join(w, func(w *Worker) int { return nest(w, d-1) }, func(*Worker) int { return 1 })
								return x + y
							}
							ch := make(chan int)
							x, y := Join(w, func(w *Worker) int {
								var v int
								w.Block(func() { v = <-ch })
								return v
							}, func(*Worker) int { ch <- 1; return 1 })
							return x + y
						}
						return nest(w, i%12)
					})
					require.Equal(t, 2+i%12, got)
				}
			})
		})
	}
}

// TestBlockAddsAWorkerAtOnce checks the hint: on a pool of one worker whose
// only worker runs the task, Block adds a worker before fn runs, and the
// queued task that fn waits for runs on it.
func TestBlockAddsAWorkerAtOnce(t *testing.T) {
	for _, k := range serverParkings() {
		t.Run(fmt.Sprintf("parking=%v", k), func(t *testing.T) {
			withPool(t, []Option{WithParking(k), WithWorkers(1)}, func(p *Pool) {
				ch := make(chan struct{})
				var addedBefore uint64
				done := make(chan struct{})
				require.NoError(t, p.Go(func(w *Worker) {
					defer close(done)
					require.NoError(t, p.Go(func(*Worker) { close(ch) }))
					w.Block(func() {
						addedBefore = p.Stats().WorkersAdded
						<-ch
					})
				}))
				waitOrDump(t, done, "the blocking task")
				assert.Equal(t, uint64(1), addedBefore, "workers added when fn started")
			})
		})
	}
}

// TestGrownPoolAddsForQueuedTasks checks the rule for tasks queued behind a
// grown pool (blocking.go: Blocked workers, 3) with a monitor that sees no
// worker blocked, as under CPU saturation: a pool of one worker grows by
// Block, then tasks that all wait on one gate queue behind the worker added
// for it, and every one of them gets a worker of its own. Without the rule
// all but one would wait for good.
func TestGrownPoolAddsForQueuedTasks(t *testing.T) {
	const n = 8
	for _, k := range serverParkings() {
		t.Run(fmt.Sprintf("parking=%v", k), func(t *testing.T) {
			withPool(t, []Option{WithParking(k), WithWorkers(1), withBlindMonitor()}, func(p *Pool) {
				hold, inBlock := make(chan struct{}), make(chan struct{})
				require.NoError(t, p.Go(func(w *Worker) {
					w.Block(func() {
						close(inBlock)
						<-hold
					})
				}))
				defer close(hold)
				waitOrDump(t, inBlock, "the task in Block")
				g := newGate()
				defer g.open()
				g.occupy(t, p, n) // every one started: none left in the queue
				p.resizeMu.Lock()
				behind := p.monitor.behindTicks
				p.resizeMu.Unlock()
				assert.Positive(t, behind, "ticks that added for tasks queued behind the pool")
				assert.GreaterOrEqual(t, p.Stats().WorkersAdded, uint64(n), "workers added: one for Block, one for each task but the first")
			})
		})
	}
}

// TestBlockOutsideAPool runs fn directly, and nil functions panic.
func TestBlockOutsideAPool(t *testing.T) {
	ran := false
	Block(func() { ran = true })
	assert.True(t, ran)
	requirePanicMessage(t, "blitz: Block: nil function", func() { Block(nil) })
	requirePanicMessage(t, "blitz: Worker.Block: nil *Worker", func() { (*Worker)(nil).Block(func() {}) })
	withPool(t, []Option{WithWorkers(1)}, func(p *Pool) {
		requireTaskPanics(t, p, "blitz: Worker.Block: nil function", func(w *Worker) { w.Block(nil) })
	})
}

// TestBlockPanicAndGoexitStorm runs, on every backend, a storm of tasks that
// call Block (the method and the function) around a wait on a later task,
// where fn returns, panics or calls runtime.Goexit. The panics reach the
// callers (Do) or the panic handler (Go), the Goexits end their tasks only,
// every task runs once, every worker's Block count is back to 0, and once
// the storm is over the pool retires what it added.
func TestBlockPanicAndGoexitStorm(t *testing.T) {
	rounds := 300
	if testing.Short() {
		rounds = 60
	}
	for _, k := range serverParkings() {
		t.Run(fmt.Sprintf("parking=%v", k), func(t *testing.T) {
			var handled atomic.Int64
			opts := []Option{WithParking(k), WithWorkers(2), WithPanicHandler(func(any, []byte) { handled.Add(1) }),
				withMonitorHook(time.Millisecond, nil)}
			withPool(t, opts, func(p *Pool) {
				var ran, returned, goexits atomic.Int64
				var doPanics atomic.Int64
				var wg sync.WaitGroup
				// A first round that needs a worker added, whatever the
				// timing: both workers are held in tasks before the task
				// that releases them is submitted. The storm's rounds may
				// all find a sleeper when they Block; this one makes the
				// add-and-retire path run.
				held, release := make(chan struct{}, 2), make(chan struct{})
				wg.Add(3)
				for range 2 {
					require.NoError(t, p.Go(func(*Worker) { defer wg.Done(); held <- struct{}{}; <-release }))
				}
				<-held
				<-held
				require.NoError(t, p.Go(func(w *Worker) { defer wg.Done(); w.Block(func() { close(release) }) }))
				for i := range rounds {
					gate := make(chan struct{})
					body := func(w *Worker) {
						ran.Add(1)
						fn := func() {
							<-gate
							switch i % 3 {
							case 1:
								panic("block")
							case 2:
								goexits.Add(1)
								runtime.Goexit()
							}
						}
						if i%2 == 0 {
							w.Block(fn)
						} else {
							Block(fn)
						}
						returned.Add(1)
					}
					wg.Add(2)
					if i%4 == 0 {
						go func() {
							defer wg.Done()
							err := func() (err error) {
								defer func() {
									if r := recover(); r != nil {
										err, _ = r.(error)
									}
								}()
								Do(p, func(w *Worker) struct{} { body(w); return struct{}{} })
								return nil
							}()
							if errors.Is(err, ErrPanic) {
								doPanics.Add(1)
							}
						}()
					} else {
						require.NoError(t, p.Go(func(w *Worker) { defer wg.Done(); body(w) }))
					}
					require.NoError(t, p.Go(func(*Worker) { defer wg.Done(); close(gate) }))
				}
				within(t, "the storm", wg.Wait)
				assert.Equal(t, int64(rounds), ran.Load(), "tasks run")
				// Every round ends one way: fn returned, panicked (to a
				// Do caller or the handler) or called Goexit. The handler
				// runs after the task's deferred Done.
				outcomes := func() int64 { return returned.Load() + doPanics.Load() + handled.Load() + goexits.Load() }
				eventually(t, "every panic handled", func() bool { return outcomes() >= int64(rounds) })
				assert.Equal(t, int64(rounds), outcomes(), "outcomes")
				for _, w := range p.workerList() {
					assert.Zero(t, w.blocking.Load(), "worker %d's Block count", w.index)
				}
				eventually(t, "the added workers retiring", func() bool { return p.Stats().Active == p.Workers() })
				st := p.Stats()
				assert.Positive(t, st.WorkersRetired, "added workers retired: %+v", st)
			})
		})
	}
}

// TestBlockingStorm mixes, on every backend, tasks that block on later
// tasks, CPU fork-join (fib through Join) and Resize calls, then checks
// that every task ran exactly once, that the pool added workers (the rare
// path) and retired them back to its size, and Closes it (withPool) with
// nothing left running.
func TestBlockingStorm(t *testing.T) {
	rounds, chain := 200, 20
	if testing.Short() {
		rounds, chain = 40, 8
	}
	for _, k := range serverParkings() {
		t.Run(fmt.Sprintf("parking=%v", k), func(t *testing.T) {
			withPool(t, []Option{WithParking(k), WithWorkers(2), withMonitorHook(time.Millisecond, nil)}, func(p *Pool) {
				runs := make([]atomic.Int32, rounds*chain)
				var fibs atomic.Int64
				var wg sync.WaitGroup
				stop := make(chan struct{})
				resized := make(chan struct{})
				go func() { // the resizer
					defer close(resized)
					for i := 0; ; i++ {
						select {
						case <-stop:
							return
						default:
						}
						_ = p.Resize(1 + i%3)
						runtime.Gosched()
					}
				}()
				for r := range rounds {
					// A chain: task j waits for task j+1, submitted after it.
					chs := make([]chan struct{}, chain)
					for j := range chs {
						chs[j] = make(chan struct{})
					}
					for j := range chain {
						wg.Add(1)
						require.NoError(t, p.Go(func(w *Worker) {
							defer wg.Done()
							runs[r*chain+j].Add(1)
							if j+1 < chain {
								<-chs[j+1]
							}
							close(chs[j])
						}))
					}
					wg.Add(1)
					require.NoError(t, p.Go(func(w *Worker) {
						defer wg.Done()
						if fibArgs(w, 15) == seqFib(15) {
							fibs.Add(1)
						}
					}))
				}
				within(t, "the storm", wg.Wait)
				close(stop)
				<-resized
				require.NoError(t, p.Resize(2))
				for i := range runs {
					require.Equal(t, int32(1), runs[i].Load(), "runs of task %d", i)
				}
				assert.Equal(t, int64(rounds), fibs.Load(), "fork-joins right")
				st := p.Stats()
				assert.Positive(t, st.WorkersAdded, "workers added")
				eventually(t, "the pool back to its size", func() bool { return p.Stats().Active == 2 })
			})
		})
	}
}

// TestMonitorDisarmsWhenIdle checks that the monitor stops once the pool has
// nothing to watch, after a task's Goexit too (the replaced goroutine's
// jobs never count finished on their own: worker.go squares the counts),
// and that the next task arms it again.
func TestMonitorDisarmsWhenIdle(t *testing.T) {
	withPool(t, []Option{WithWorkers(2), withMonitorHook(time.Millisecond, nil)}, func(p *Pool) {
		done := make(chan struct{})
		require.NoError(t, p.Go(func(*Worker) { defer close(done); runtime.Goexit() }))
		waitOrDump(t, done, "the Goexit task")
		eventually(t, "the monitor disarming", func() bool { return !p.monitor.armed.Load() })
		doW(t, p, func(*Worker) int { return 0 })
		// Armed by the worker that found the task; it disarms again.
		eventually(t, "the monitor disarming again", func() bool { return !p.monitor.armed.Load() })
		for _, w := range p.workerList() {
			s := &w.stats
			assert.Equal(t, s.executed+s.callerRuns, s.finished, "worker %d's started and finished counts", w.index)
		}
	})
}

// TestWithMaxWorkers checks the option's bounds and that a cap at the
// pool's size turns the additions off.
func TestWithMaxWorkers(t *testing.T) {
	for _, n := range []int{0, -1, 1 << 16} {
		_, err := New(WithMaxWorkers(n))
		assert.ErrorContains(t, err, "WithMaxWorkers", "WithMaxWorkers(%d)", n)
	}
	// The ticks are waited for on a channel the monitor's hook signals,
	// not polled: a polling goroutine is runnable at many ticks, and the
	// monitor, reading the scheduler's counts, takes it for the busy
	// worker running (at GOMAXPROCS 1 in CI's race sweep it saw no
	// blocked worker for a minute).
	ticked := make(chan struct{}, 1)
	hook := func() {
		select {
		case ticked <- struct{}{}:
		default:
		}
	}
	withPool(t, []Option{WithWorkers(1), WithMaxWorkers(1), withMonitorHook(defaultRetireAfter, hook)}, func(p *Pool) {
		g := newGate()
		defer g.open()
		g.occupy(t, p, 1)
		var ran atomic.Int64
		require.NoError(t, p.Go(func(*Worker) { ran.Add(1) }))
		// Wait for the monitor to look several times at the blocked
		// worker and the queued task.
		start := p.monitor.blockedSeen.Load()
		deadline := time.After(watchdogTimeout)
		for p.monitor.blockedSeen.Load() < start+2 {
			select {
			case <-ticked:
			case <-deadline:
				t.Fatalf("the monitor seeing the blocked worker: %d ticks saw it after %v\n%s", p.monitor.blockedSeen.Load()-start, watchdogTimeout, dumpAll())
			}
		}
		assert.Zero(t, ran.Load(), "the queued task ran on an added worker")
		assert.Zero(t, p.Stats().WorkersAdded)
		g.open()
	})
}

// The deadlock list of the package documentation ("Locks"): each case left
// is shown here, without hanging: the step that would block is a TryLock or
// a look at who ran what.

// TestDeadlockPartTakingTheLockAroundIt shows the first case, which plain
// goroutines share: a part of a join cannot take the lock held around the
// join (with Lock it would wait for its own joiner).
func TestDeadlockPartTakingTheLockAroundIt(t *testing.T) {
	withPool(t, []Option{WithWorkers(2)}, func(p *Pool) {
		var mu sync.Mutex
		got := doW(t, p, func(w *Worker) bool {
			mu.Lock()
			defer mu.Unlock()
			_, free := Join(w, func(*Worker) bool { return true }, func(*Worker) bool {
				if mu.TryLock() {
					mu.Unlock()
					return true
				}
				return false
			})
			return free
		})
		assert.False(t, got, "the part took the lock held around the join")
	})
}

// TestDeadlockOneWorkerJoin shows the second case: on a pool of one worker,
// the second half of a join waits while the first blocks, for as many
// monitor ticks as would make a worker of a larger pool count as blocked;
// so a first half waiting for it would wait for good. It runs after the
// first returns.
func TestDeadlockOneWorkerJoin(t *testing.T) {
	var ticks atomic.Int64
	withPool(t, []Option{WithWorkers(1), withMonitorHook(0, func() { ticks.Add(1) })}, func(p *Pool) {
		var bRan atomic.Bool
		early := doW(t, p, func(w *Worker) bool {
			ranEarly, _ := Join(w, func(*Worker) bool {
				for start := ticks.Load(); ticks.Load() < start+2*monitorStuckTicks; {
					blockOneTick()
				}
				return bRan.Load()
			}, func(*Worker) bool { bRan.Store(true); return true })
			return ranEarly
		})
		assert.False(t, early, "the second half ran while the first waited")
		assert.True(t, bRan.Load())
		assert.Zero(t, p.Stats().WorkersAdded)
	})
}

// blockOneTick blocks the calling goroutine briefly, as a task waiting on
// I/O would.
func blockOneTick() { <-time.After(monitorMin) }

// TestDeadlockLockAcrossACallIntoAnotherPool shows the third case: a task
// of pool p that holds a lock across a call into pool q lends its worker to
// a goroutine that serves p meanwhile, and a task of p that takes the same
// lock can run there. With Lock, that task would wait for the lock, and the
// caller, its call done, would wait for its worker back. p is capped at its
// one worker so that no added worker takes the task first.
func TestDeadlockLockAcrossACallIntoAnotherPool(t *testing.T) {
	withTwoPools(t, []Option{WithWorkers(1), WithMaxWorkers(1)}, []Option{WithWorkers(1)}, func(p, q *Pool) {
		var mu sync.Mutex
		type outcome struct{ onCallersWorker, lockFree bool }
		got := doW(t, p, func(w *Worker) outcome {
			mu.Lock()
			defer mu.Unlock()
			return Do(q, func(*Worker) outcome {
				ch := make(chan outcome, 1)
				require.NoError(t, p.Go(func(tw *Worker) {
					free := mu.TryLock()
					if free {
						mu.Unlock()
					}
					ch <- outcome{tw == w, free}
				}))
				return <-ch
			})
		})
		assert.True(t, got.onCallersWorker, "the task ran on the caller's lent worker")
		assert.False(t, got.lockFree, "the lock was free")
	})
}

// TestAddStepsDouble checks the plan of an addition's steps
// (Pool.addForBlocked): addFirstStep first, then steps that double the
// workers added, k in all, in a number of steps logarithmic in k.
func TestAddStepsDouble(t *testing.T) {
	for _, k := range []int{1, addFirstStep - 1, addFirstStep, addFirstStep + 1, 100, DefaultMaxWorkers} {
		var steps []int
		for added := 0; added < k; {
			n := min(addStep(added), k-added)
			if added > 0 {
				require.LessOrEqual(t, n, added, "k=%d: a step after the first adds at most what was added before it", k)
			}
			steps = append(steps, n)
			added += n
		}
		assert.Equal(t, min(k, addFirstStep), steps[0], "k=%d: the first step", k)
		want := 1
		for d := addFirstStep; d < k; d *= 2 {
			want++
		}
		assert.Len(t, steps, want, "k=%d: steps %v", k, steps)
	}
}

// TestAddForBlockedStopsWhenNoTaskWaits calls an addition directly, with
// nothing queued: one for submitted tasks (inRunqs >= 0) stops after its
// first step, plus the run queues' tasks it was told of, since the
// injector is empty; one for something else (inRunqs < 0) adds all it was
// asked for.
func TestAddForBlockedStopsWhenNoTaskWaits(t *testing.T) {
	const k = 100
	for _, c := range []struct {
		inRunqs, want int
	}{{0, addFirstStep}, {50, addFirstStep + 50}, {-1, k}} {
		t.Run(fmt.Sprintf("inRunqs=%d", c.inRunqs), func(t *testing.T) {
			withPool(t, []Option{WithWorkers(1)}, func(p *Pool) {
				p.resizeMu.Lock()
				got := p.addForBlocked(k, c.inRunqs)
				active := int(p.active.Load())
				p.resizeMu.Unlock()
				assert.Equal(t, c.want, got, "workers added")
				assert.Equal(t, 1+c.want, active, "active workers")
				assert.Equal(t, uint64(c.want), p.Stats().WorkersAdded)
			})
		})
	}
}

// TestMonitorWakesASleeperForAStalledQueue: a submitted task whose wake is
// lost (here: published into the injector with no post to the sleep
// protocol, while every worker sleeps) is run all the same: the monitor
// sees the queue stall with no worker busy and wakes a sleeper. The
// protocol owes the task a wake (Sleep.WorkFoundAlone names the one it
// once missed); this is the net under it.
func TestMonitorWakesASleeperForAStalledQueue(t *testing.T) {
	for _, k := range serverParkings() {
		t.Run(fmt.Sprintf("parking=%v", k), func(t *testing.T) {
			withPool(t, []Option{WithParking(k), WithWorkers(2)}, func(p *Pool) {
				eventually(t, "every worker asleep", func() bool { return p.sleep.Sleeping() == 2 })
				ran := make(chan struct{})
				pos, b, r := p.inj.tryClaim()
				require.Equal(t, claimOK, r)
				p.inj.publish(pos, b, injTask{job: goJob(func(*Worker) { close(ran) })})
				p.woke() // arms the monitor, as a worker's wake would
				waitOrDump(t, ran, "the task whose wake was lost")
				p.resizeMu.Lock()
				wakes := p.monitor.stallWakes
				p.resizeMu.Unlock()
				assert.Positive(t, wakes, "ticks that woke a sleeper for the stalled queue")
			})
		})
	}
}

// TestIdleWorkersSleepPastAnUnwrittenClaim: a producer that claimed a
// position in the injector and has not written it yet (a goroutine
// descheduled between the two) does not keep the idle workers awake. Their
// final check before they park asks for a task they could take, not for a
// claim: counting it, every idle worker came back from each sleep attempt
// to a search that found nothing, and a submitter starved of a CPU by
// thousands of such workers held a burst of 10,000 tasks for over a minute.
// The workers are woken with the claim in place, and must all park again;
// then the producer writes its task and wakes one, as submit does.
func TestIdleWorkersSleepPastAnUnwrittenClaim(t *testing.T) {
	for _, k := range serverParkings() {
		t.Run(fmt.Sprintf("parking=%v", k), func(t *testing.T) {
			withPool(t, []Option{WithParking(k), WithWorkers(2)}, func(p *Pool) {
				eventually(t, "every worker asleep", func() bool { return p.sleep.Sleeping() == 2 })
				pos, b, r := p.inj.tryClaim()
				require.Equal(t, claimOK, r)
				ran := make(chan struct{})
				publish := sync.OnceFunc(func() {
					p.inj.publish(pos, b, injTask{job: goJob(func(*Worker) { close(ran) })})
					p.sleep.NewInjectedJobsLazy(1, p.queueWasEmpty)
				})
				defer publish() // on a failure too: Close drains the claim
				before := p.Stats().Sleeps
				p.sleep.NewInternalJobs(2, false) // wakes both: they search, and find the claim
				eventually(t, "both workers parked again past the claim", func() bool {
					return p.Stats().Sleeps >= before+2 && p.sleep.Sleeping() == 2
				})
				publish()
				waitOrDump(t, ran, "the task written after the workers slept")
			})
		})
	}
}

// TestForkedJobsBehindEveryWorkerWithoutSchedCounts: where the scheduler's
// counts are missing (Go before 1.26), two tasks on a pool of two that each
// spawn into a scope and then wait on a channel their spawn closes still
// finish: every worker is in a job with a forked job behind it, and the
// monitor adds a worker that steals them. Two barriers hold both tasks,
// from before they spawn until both have, so neither worker is free to
// steal the other's spawn.
func TestForkedJobsBehindEveryWorkerWithoutSchedCounts(t *testing.T) {
	for _, k := range serverParkings() {
		t.Run(fmt.Sprintf("parking=%v", k), func(t *testing.T) {
			withPool(t, []Option{WithParking(k), WithWorkers(2), withoutSchedCounts()}, func(p *Pool) {
				require.Nil(t, p.monitor.sched)
				var running, spawned sync.WaitGroup
				running.Add(2)
				spawned.Add(2)
				var wg sync.WaitGroup
				wg.Add(2)
				for range 2 {
					require.NoError(t, p.Go(func(w *Worker) {
						defer wg.Done()
						running.Done()
						running.Wait() // both workers in a task: nobody steals
						started := make(chan struct{})
						w.Scope(func(s *Scope) {
							s.Spawn(func(*Worker, *Scope) { close(started) })
							spawned.Done()
							spawned.Wait()
							<-started
						})
					}))
				}
				within(t, "the tasks waiting on their spawns", wg.Wait)
				assert.Positive(t, p.Stats().WorkersAdded, "workers added")
			})
		})
	}
}
