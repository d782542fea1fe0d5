package blitz

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tests of work isolation (wait.go) and of the Goexit and panic rules that
// rest on it (doc.go, "Panics and Goexit").

// TestJoinWaitRunsNoUnrelatedTask pins a joiner in waitJoin (its second
// half stolen and held by a gate) with a submitted task queued, and lets
// the joiner run out of idle rounds and sleep: the task must not run on the
// joiner meanwhile. It runs once the join is done and the worker is idle.
// The pool is capped at its size (WithMaxWorkers), so that no worker added
// for the two blocked ones takes the task first (blocking.go).
func TestJoinWaitRunsNoUnrelatedTask(t *testing.T) {
	for _, k := range testParkings() {
		t.Run(fmt.Sprintf("parking=%v", k), func(t *testing.T) {
			withPool(t, []Option{WithParking(k), WithWorkers(2), WithMaxWorkers(2)}, func(p *Pool) {
				bStarted, queued, release := make(chan struct{}), make(chan struct{}), make(chan struct{})
				var released, ranEarly atomic.Bool
				gDone := make(chan struct{})
				joined := make(chan error, 1)
				go func() {
					_, err := DoContext(context.Background(), p, func(w *Worker) struct{} {
						w.Join(func(*Worker) { <-bStarted; <-queued }, func(*Worker) { close(bStarted); <-release })
						return struct{}{}
					})
					joined <- err
				}()
				// Both workers are held (one in each half) while the task
				// is queued, so it is in the queue when the join starts
				// waiting.
				within(t, "the second half starting", func() { <-bStarted })
				require.NoError(t, p.Go(func(*Worker) {
					ranEarly.Store(!released.Load())
					close(gDone)
				}))
				close(queued)
				// The joiner has searched, yielded and parked on its join
				// latch with the task in the queue: before isolation it
				// ran the task first.
				eventually(t, "the joiner sleeping on its join", func() bool { return p.Stats().JoinSleeps > 0 })
				released.Store(true)
				close(release)
				within(t, "the join", func() { require.NoError(t, <-joined) })
				within(t, "the queued task", func() { <-gDone })
				require.False(t, ranEarly.Load(), "a task submitted while a join waited ran on the waiting worker")
			})
		})
	}
}

// TestMutexAroundJoinAndScope runs tasks that hold a mutex around a
// fork-join next to tasks that take the same mutex. Each round makes sure the
// holder really waits with those tasks queued: its second half (or its
// scope's task) is stolen, and it stays busy until the plain tasks were
// submitted. Without isolation the waiting holder picks up a task that
// blocks on the mutex, on its own goroutine: a deadlock. The watchdog turns
// a hang into a failure with a goroutine dump.
func TestMutexAroundJoinAndScope(t *testing.T) {
	rounds := 30
	if testing.Short() {
		rounds = 10
	}
	for _, kind := range []string{"join", "scope"} {
		for _, k := range testParkings() {
			for _, n := range []int{2, 4, 8} {
				t.Run(fmt.Sprintf("around=%s/parking=%v/workers=%d", kind, k, n), func(t *testing.T) {
					testMutexAround(t, kind, rounds, []Option{WithParking(k), WithWorkers(n)}, n)
				})
			}
		}
	}
}

func testMutexAround(t *testing.T, kind string, rounds int, opts []Option, n int) {
	withPool(t, opts, func(p *Pool) {
		var mu sync.Mutex
		var bad, plain atomic.Int64
		for r := 0; r < rounds; r++ {
			var wg sync.WaitGroup
			started, submitted := make(chan struct{}), make(chan struct{})
			stolen := func(w *Worker) int {
				close(started)
				<-submitted
				return fibJoin(w, 12)
			}
			wg.Add(1)
			require.NoError(t, p.Go(func(w *Worker) {
				defer wg.Done()
				mu.Lock()
				defer mu.Unlock()
				switch kind {
				case "join":
					_, got := Join(w, func(*Worker) int { <-started; return 0 }, stolen)
					if got != seqFib(12) {
						bad.Add(1)
					}
				case "scope":
					var sum atomic.Int64
					w.Scope(func(s *Scope) {
						s.Spawn(func(w *Worker, _ *Scope) { sum.Add(int64(stolen(w))) })
						for i := 0; i < 4; i++ {
							s.Spawn(func(w *Worker, _ *Scope) { sum.Add(int64(fibJoin(w, 10))) })
						}
						<-started
					})
					if sum.Load() != int64(seqFib(12)+4*seqFib(10)) {
						bad.Add(1)
					}
				}
			}))
			within(t, "the stolen half starting", func() { <-started })
			for i := 0; i < 2*n; i++ {
				wg.Add(1)
				require.NoError(t, p.Go(func(*Worker) {
					defer wg.Done()
					mu.Lock()
					plain.Add(1)
					mu.Unlock()
				}))
			}
			close(submitted)
			within(t, "tasks around a mutex", wg.Wait)
		}
		require.Zero(t, bad.Load())
		require.EqualValues(t, rounds*2*n, plain.Load())
	})
}

// fibJoin is fib with a JoinArgs at every level.
func fibJoin(w *Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := JoinArgs(w, fibJoin, n-1, fibJoin, n-2)
	return a + b
}

// stormArg is a node of a storm tree: the leaves lo..hi-1 sum to their
// indexes; the leaves at goexitAt and panicAt (when in range) set off their
// bomb.
type stormArg struct {
	lo, hi            int
	goexitAt, panicAt int
}

type stormPanic struct{ at int }

func stormSum(w *Worker, a stormArg) int {
	if a.hi-a.lo == 1 {
		switch a.lo {
		case a.goexitAt:
			runtime.Goexit()
		case a.panicAt:
			panic(stormPanic{a.lo})
		}
		return a.lo
	}
	mid := a.lo + (a.hi-a.lo)/2
	l, r := a, a
	l.hi, r.lo = mid, mid
	x, y := JoinArgs(w, stormSum, l, stormSum, r)
	return x + y
}

// TestGoexitAndPanicStorm submits, from many goroutines at once, fork-joins
// that are clean, that Goexit at a random leaf, that panic at one, or both,
// next to plain tasks that Goexit or panic, on every backend and pool size.
// A clean fork-join must return its exact sum, never ErrGoexit or a panic
// that it did not cause (a worker waiting on its join used to run the other
// tasks, whose Goexit unwound the join); a bombed one must report its own
// bomb. Afterwards the pool must still compute exactly. Under -race this
// also catches a frame reused while a thief still writes it.
func TestGoexitAndPanicStorm(t *testing.T) {
	const leaves = 256
	want := leaves * (leaves - 1) / 2
	tasks := 400
	if testing.Short() {
		tasks = 100
	}
	for _, k := range testParkings() {
		for _, n := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("parking=%v/workers=%d", k, n), func(t *testing.T) {
				handled := make(chan struct{}, 4*tasks)
				opts := []Option{WithParking(k), WithWorkers(n),
					WithPanicHandler(func(any, []byte) { handled <- struct{}{} })}
				withPool(t, opts, func(p *Pool) {
					var wg sync.WaitGroup
					var clean, exited, panicked atomic.Int64
					var gate sync.Mutex // held by the one clean tree whose root join is forced stolen
					errs := make(chan error, tasks)
					for g := 0; g < tasks; g++ {
						wg.Add(1)
						go func(seed uint64) {
							defer wg.Done()
							rng := rand.New(rand.NewPCG(seed, 7))
							a := stormArg{lo: 0, hi: leaves, goexitAt: -1, panicAt: -1}
							kind := rng.IntN(5)
							if kind == 1 || kind == 3 {
								a.goexitAt = rng.IntN(leaves)
							}
							if kind == 2 || kind == 3 {
								a.panicAt = rng.IntN(leaves)
								if a.panicAt == a.goexitAt {
									a.panicAt = (a.panicAt + 1) % leaves
								}
							}
							// Noise: plain tasks that end in a Goexit or a
							// panic, run by whichever worker is free.
							_ = p.Go(func(*Worker) { runtime.Goexit() })
							_ = p.Go(func(*Worker) { panic("noise") })
							task := func(w *Worker) int { return stormSum(w, a) }
							if n > 1 && a.goexitAt < 0 && a.panicAt < 0 && gate.TryLock() {
								// One clean tree at a time makes sure its root
								// join is stolen and waited for, whatever the
								// scheduler does (GOMAXPROCS=1 included): its
								// first half returns only once the second half
								// has started on another worker.
								task = func(w *Worker) int {
									defer gate.Unlock()
									started := make(chan struct{})
									l, r := a, a
									l.hi, r.lo = leaves/2, leaves/2
									x, y := Join(w,
										func(w *Worker) int { <-started; return stormSum(w, l) },
										func(w *Worker) int { close(started); return stormSum(w, r) })
									return x + y
								}
							}
							got, err := DoContext(context.Background(), p, task)
							var pe *PanicError
							switch {
							case kind == 0 || kind == 4:
								if err != nil || got != want {
									errs <- fmt.Errorf("clean tree: %d, %v; want %d", got, err, want)
								}
								clean.Add(1)
							case kind == 1:
								if !errors.Is(err, ErrGoexit) {
									errs <- fmt.Errorf("tree with a Goexit at %d: %d, %v", a.goexitAt, got, err)
								}
								exited.Add(1)
							case kind == 2:
								if !errors.As(err, &pe) || pe.Value != (stormPanic{a.panicAt}) {
									errs <- fmt.Errorf("tree with a panic at %d: %d, %v", a.panicAt, got, err)
								}
								panicked.Add(1)
							default: // both: one of the two, never success
								if !errors.Is(err, ErrGoexit) && !(errors.As(err, &pe) && pe.Value == (stormPanic{a.panicAt})) {
									errs <- fmt.Errorf("tree with both bombs: %d, %v", got, err)
								}
							}
						}(uint64(g))
					}
					within(t, "storm", wg.Wait)
					close(errs)
					for err := range errs {
						t.Error(err)
					}
					for i := 0; i < tasks; i++ {
						within(t, "the noise panics", func() { <-handled })
					}
					require.Equal(t, seqFib(20), doW(t, p, func(w *Worker) int { return fibJoin(w, 20) }))
					st := p.Stats()
					require.NotZero(t, st.Respawns, "no task ended its goroutine")
					require.NotZero(t, clean.Load()*exited.Load()*panicked.Load(), "a kind of tree never ran")
					if n > 1 {
						require.NotZero(t, st.JoinsStolen, "no join was stolen: the waits under test never happened")
					}
				})
			})
		}
	}
}

// TestJoinNestedGoexitAndPanic covers a second Goexit or panic while a join
// already unwinds: the half the joiner runs during its cleanup (popped back
// on one worker, or stolen on two) ends badly too. The outcome follows the
// rules of doc.go, and the pool's frames stay consistent: an exact fork-join
// afterwards on the same workers.
func TestJoinNestedGoexitAndPanic(t *testing.T) {
	type half func(w *Worker)
	exit := func(*Worker) { runtime.Goexit() }
	boom := func(v string) half { return func(*Worker) { panic(v) } }
	nested := func(w *Worker) { w.Join(exit, exit) }
	cases := []struct {
		name string
		a, b half
		// want: "goexit" or the panic value that must arrive
		want string
	}{
		{"goexit,goexit", exit, exit, "goexit"},
		{"goexit,panic", exit, boom("b"), "b"},
		{"panic,panic", boom("a"), boom("b"), "a"},
		{"nested-goexit,goexit", nested, exit, "goexit"},
		{"nested-goexit,panic", nested, boom("b"), "b"},
	}
	for _, k := range testParkings() {
		for _, n := range []int{1, 2} {
			t.Run(fmt.Sprintf("parking=%v/workers=%d", k, n), func(t *testing.T) {
				withPool(t, []Option{WithParking(k), WithWorkers(n)}, func(p *Pool) {
					for _, c := range cases {
						_, err := DoContext(context.Background(), p, func(w *Worker) struct{} {
							w.Join(c.a, c.b)
							return struct{}{}
						})
						var pe *PanicError
						if c.want == "goexit" {
							require.ErrorIs(t, err, ErrGoexit, c.name)
						} else {
							require.ErrorAs(t, err, &pe, c.name)
							require.Equal(t, c.want, pe.Value, c.name)
						}
						require.Equal(t, seqFib(18), doW(t, p, func(w *Worker) int { return fibJoin(w, 18) }), c.name)
					}
				})
			})
		}
	}
}

// TestScopeGoexitWhileSettling: the body of a scope calls Goexit, and tasks
// of the scope call Goexit while the owner settles the scope during that
// unwinding. Every task still runs (counted), the caller sees ErrGoexit, and
// the pool computes exactly afterwards.
func TestScopeGoexitWhileSettling(t *testing.T) {
	for _, k := range testParkings() {
		for _, n := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("parking=%v/workers=%d", k, n), func(t *testing.T) {
				withPool(t, []Option{WithParking(k), WithWorkers(n)}, func(p *Pool) {
					const spawned = 16
					var ran atomic.Int64
					_, err := DoContext(context.Background(), p, func(w *Worker) struct{} {
						w.Scope(func(s *Scope) {
							for i := 0; i < spawned; i++ {
								s.Spawn(func(w *Worker, _ *Scope) {
									ran.Add(1)
									if i%3 == 0 {
										runtime.Goexit()
									}
									_ = fibJoin(w, 8)
								})
							}
							runtime.Goexit()
						})
						return struct{}{}
					})
					require.ErrorIs(t, err, ErrGoexit)
					require.EqualValues(t, spawned, ran.Load())
					require.Equal(t, seqFib(18), doW(t, p, func(w *Worker) int { return fibJoin(w, 18) }))
				})
			})
		}
	}
}

// TestJoinWaitSkipsLentThief: the thief of a join's second half waits on a
// call into another pool, and is lent meanwhile to a goroutine that serves
// its pool; what that goroutine pushes descends from nothing the thief was
// running. The joiner, leapfrogging on the thief, must leave it alone: the
// unrelated half below runs on the thief's loan, not on the joiner.
func TestJoinWaitSkipsLentThief(t *testing.T) {
	withPool(t, []Option{WithWorkers(2)}, func(a *Pool) {
		b, err := New(WithWorkers(1))
		require.NoError(t, err)
		defer within(t, "Close", func() { assert.NoError(t, b.Close()) })
		func() {
			var joiner, ranOn atomic.Int64
			callStarted, release := make(chan struct{}), make(chan struct{})
			u1Started, u2Ran := make(chan struct{}), make(chan struct{})
			joined := make(chan struct{})
			go func() {
				defer close(joined)
				a.Run(func(w *Worker) {
					joiner.Store(int64(w.Index()))
					w.Join(func(*Worker) { <-u1Started }, func(w *Worker) {
						b.Run(func(*Worker) { close(callStarted); <-release })
					})
				})
			}()
			within(t, "the call into the other pool", func() { <-callStarted })
			// Only the thief's loan can take this task: the joiner is held
			// in its first half until the task has pushed its own half.
			require.NoError(t, a.Go(func(w *Worker) {
				w.Join(func(*Worker) {
					close(u1Started)
					// Give the joiner its chance: it parks on its join
					// once it found nothing it may take.
					for a.Stats().JoinSleeps == 0 {
						select {
						case <-u2Ran:
							return
						default:
							runtime.Gosched()
						}
					}
				}, func(w *Worker) {
					ranOn.Store(int64(w.Index()))
					close(u2Ran)
				})
			}))
			within(t, "the unrelated half", func() { <-u2Ran })
			close(release)
			within(t, "the join", func() { <-joined })
			require.NotEqual(t, joiner.Load(), ranOn.Load(), "the joiner ran a half pushed by its lent thief")
		}()
	})
}

// scopeTree forks a join tree of the given depth with, at each leaf, a scope
// whose tasks spawn more tasks into it, and counts the leaves' tasks.
func scopeTree(w *Worker, depth int, ran *atomic.Int64) {
	if depth == 0 {
		w.Scope(func(s *Scope) {
			for range 3 {
				s.Spawn(func(w *Worker, s *Scope) {
					ran.Add(1)
					s.Spawn(func(*Worker, *Scope) { ran.Add(1) })
				})
			}
		})
		return
	}
	w.Join(func(w *Worker) { scopeTree(w, depth-1, ran) }, func(w *Worker) { scopeTree(w, depth-1, ran) })
}

// TestJoinWaitRunsSpawnsLeftInItsDeque runs join trees with scopes at the
// leaves from many callers at once. A joiner waiting for its thief can
// steal a task of a scope opened in the stolen half; that task spawns into
// the joiner's deque and returns, and the tasks it left there belong to the
// scope, whose owner cannot steal them: the joiner must run them itself, or
// the scope's owner and the joiner wait for each other for ever.
func TestJoinWaitRunsSpawnsLeftInItsDeque(t *testing.T) {
	callers, rounds := 16, 20
	if testing.Short() {
		callers, rounds = 8, 5
	}
	const depth = 5
	eachConfig(t, func(t *testing.T, p *Pool) {
		var ran atomic.Int64
		together(t, "callers", callers, func(int) {
			for range rounds {
				p.Run(func(w *Worker) { scopeTree(w, depth, &ran) })
			}
		})
		require.Equal(t, int64(callers*rounds*(1<<depth)*6), ran.Load())
	})
}

// withYield replaces the backend's idle-round yield (tests only).
func withYield(f func()) Option { return func(c *config) { c.yield = f } }

// TestHandoffParksSoon: a worker whose last job handed its result to a
// caller outside the pool (Run, Do, DoContext, TryDo) yields handoffRounds
// idle rounds and one more as it gets sleepy, then parks (after a Run or Do
// in a pool whose calls may run on their callers, none at all); after a
// fire-and-forget task, or a call whose task forked, and on a backend that
// locks workers to threads, it yields the configured rounds first. Counted
// with a yield that counts, on every backend.
func TestHandoffParksSoon(t *testing.T) {
	const rounds = 200
	calls := []struct {
		name     string
		submit   func(p *Pool)
		handsOff bool
	}{
		{"Do", func(p *Pool) { Do(p, func(*Worker) int { return 1 }) }, true},
		{"Run", func(p *Pool) { p.Run(func(*Worker) {}) }, true},
		{"DoContext", func(p *Pool) {
			_, err := DoContext(context.Background(), p, func(*Worker) int { return 1 })
			require.NoError(t, err)
		}, true},
		{"TryDo", func(p *Pool) {
			_, err := TryDo(context.Background(), p, func(*Worker) int { return 1 })
			require.NoError(t, err)
		}, true},
		{"Go", func(p *Pool) {
			done := make(chan struct{})
			require.NoError(t, p.Go(func(*Worker) { close(done) }))
			<-done
		}, false},
		{"Do that forks", func(p *Pool) {
			Do(p, func(w *Worker) int {
				a, b := Join(w, func(*Worker) int { return 1 }, func(*Worker) int { return 2 })
				return a + b
			})
		}, false},
	}
	for _, be := range testBackends(t) {
		for _, callerRuns := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/callerruns=%v", be.kind, callerRuns), func(t *testing.T) {
				var yields atomic.Int64
				yield := func() { yields.Add(1); be.yield() }
				// Without the monitor: on a loaded machine it could take the
				// worker held at the gate below for a blocked one and add a
				// worker, whose idle rounds would count as yields here, or
				// take a worker slow to leave its park (ParkingSpin) for a
				// lost wake and wake it again (a stall wake), which sends a
				// worker getting sleepy through its rounds once more.
				opts := []Option{WithWorkers(1), withoutMonitor(), WithParking(be.kind), WithSpinRounds(rounds), withYield(yield), WithCallerRuns(callerRuns)}
				withPool(t, opts, func(p *Pool) {
					sleeps := uint64(1)
					parked := func() {
						for p.Stats().Sleeps < sleeps {
							runtime.Gosched()
						}
						sleeps++
					}
					parked() // the rounds after the pool started
					for _, c := range calls {
						if p.callerRuns && (c.name == "Do" || c.name == "Run" || c.name == "Do that forks") {
							continue // it would run on its caller: the worker stays asleep
						}
						yields.Store(0)
						c.submit(p)
						parked()
						want := int64(rounds + 1)
						if c.handsOff && !be.lockThread {
							want = handoffRounds + 1
						}
						require.Equal(t, want, yields.Load(), "yields after %s before parking", c.name)
					}
					if p.callerRuns {
						// A Do handed to a busy worker (none sleeps):
						// after it, the worker parks without yielding.
						gate, started := make(chan struct{}), make(chan struct{})
						require.NoError(t, p.Go(func(*Worker) { close(started); <-gate }))
						<-started
						done := make(chan int)
						go func() { done <- Do(p, func(*Worker) int { return 1 }) }()
						eventually(t, "the Do queued", func() bool { return queued(p) == 1 })
						// And its caller done submitting: a caller still
						// between its write and its wake decision would
						// move the jobs counter under the worker getting
						// sleepy after the Do (a search again, a yield),
						// or wake it once it parked.
						eventually(t, "the Do's caller waiting", func() bool { return blockedIn("(*callJob[...]).wait(") })
						yields.Store(0)
						close(gate)
						<-done
						parked()
						require.Zero(t, yields.Load(), "yields after a handed-off Do before parking, in a pool with caller runs")
						require.Zero(t, p.Stats().CallerRuns)
					}
				})
			})
		}
	}
}
