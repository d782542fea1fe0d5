package blitz

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/blitz-go/blitz/internal/goroutine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// callerRunParkings are the backends whose pools run calls on their caller,
// and those whose pools never do (workers that spin while parked, workers
// locked to threads).
func callerRunParkings() (on, off []Parking) {
	on = []Parking{ParkingPortable, ParkingCond}
	off = []Parking{ParkingSpin}
	if runtime.GOOS == "linux" {
		off = append(off, ParkingFutex)
	}
	return on, off
}

// onCaller makes one Do call once a worker sleeps and reports whether fn
// ran on the calling goroutine, and with which worker.
func onCaller(t *testing.T, p *Pool) (same bool, index int) {
	t.Helper()
	borrowable(t, p)
	within(t, "Do", func() {
		caller := goroutine.Self()
		index = Do(p, func(w *Worker) int {
			same = goroutine.Self() == caller
			return w.Index()
		})
	})
	return same, index
}

// TestCallerRunsWhereAllowed: with a worker asleep and an empty queue, Do
// runs fn on the calling goroutine, as that worker, counted in CallerRuns
// and not in Injected; a pool whose workers are locked to threads, or have
// hooks, or was made WithCallerRuns(false), hands fn to a worker.
func TestCallerRunsWhereAllowed(t *testing.T) {
	on, off := callerRunParkings()
	for _, k := range on {
		for _, workers := range []int{1, 2, 4} {
			withPool(t, []Option{WithWorkers(workers), WithParking(k)}, func(p *Pool) {
				same, index := onCaller(t, p)
				assert.True(t, same, "parking=%v workers=%d: fn did not run on its caller", k, workers)
				assert.True(t, index >= 0 && index < workers, "worker index %d", index)
				st := p.Stats()
				assert.EqualValues(t, 1, st.CallerRuns, "parking=%v workers=%d", k, workers)
				assert.Zero(t, st.Injected, "a call run on its caller was counted as submitted")
				// The worker went back to sleep and serves as before.
				assert.Equal(t, seqFib(12), doW(t, p, func(w *Worker) int { return fibArgs(w, 12) }))
				done := make(chan struct{})
				require.NoError(t, p.Go(func(*Worker) { close(done) }))
				within(t, "a Go task after a call on the caller", func() { <-done })
			})
		}
	}
	hook := func(int) {}
	var opts [][]Option
	for _, k := range off {
		opts = append(opts, []Option{WithParking(k)})
	}
	opts = append(opts, []Option{WithCallerRuns(false)}, []Option{WithWorkerStart(hook)}, []Option{WithWorkerExit(hook)})
	for _, o := range opts {
		withPool(t, append(o, WithWorkers(2)), func(p *Pool) {
			same, _ := onCaller(t, p)
			assert.False(t, same, "a pool made with %d options ran fn on its caller", len(o))
			assert.Zero(t, p.Stats().CallerRuns)
		})
	}
}

// TestCallerRunsRules: a call run on its caller keeps Run's and Do's
// rules. A panic comes back as a *PanicError with fn's stack, a Goexit
// ends the caller (and no worker goroutine: nothing is respawned), calls
// inside fn run inline on the borrowed worker, a Close from fn is refused
// as from a task, forks are exact, a Broadcast from a half stolen from fn
// reaches the caller while it waits for that half, and the worker is given
// back after each.
func TestCallerRunsRules(t *testing.T) {
	on, _ := callerRunParkings()
	for _, k := range on {
		for _, workers := range []int{1, 2} {
			withPool(t, []Option{WithWorkers(workers), WithParking(k)}, func(p *Pool) {
				borrowable(t, p)
				v := catchPanic(func() { p.Run(func(*Worker) { panicker("on the caller") }) })
				var pe *PanicError
				require.True(t, errors.As(asError(v), &pe), "Run re-panicked with %v", v)
				assert.Equal(t, "on the caller", pe.Value)
				assert.Contains(t, string(pe.Stack), "panicker")

				borrowable(t, p)
				assert.True(t, exitsGoroutine(t, func() { p.Run(func(*Worker) { runtime.Goexit() }) }))

				borrowable(t, p)
				caller := goroutine.Self()
				nested := Do(p, func(w *Worker) bool {
					return Do(p, func(w2 *Worker) bool {
						return w2 == w && goroutine.Self() == caller && p.Close() == ErrCloseInTask
					})
				})
				assert.True(t, nested, "a call inside a call on the caller did not run inline on its worker")

				borrowable(t, p)
				var ran atomic.Int64
				assert.Equal(t, seqFib(18), Do(p, func(w *Worker) int {
					w.Scope(func(s *Scope) {
						for range 8 {
							s.Spawn(func(*Worker, *Scope) { ran.Add(1) })
						}
					})
					return fibArgs(w, 18)
				}))
				assert.EqualValues(t, 8, ran.Load())

				calls := 4
				if workers > 1 {
					borrowable(t, p)
					var got []int
					same := false
					within(t, "a Broadcast from a half stolen from a call on its caller", func() {
						caller := goroutine.Self()
						Do(p, func(w *Worker) int {
							same = goroutine.Self() == caller
							stolenPair(w, func(*Worker) {}, func(w *Worker) {
								got = Broadcast(w, func(w *Worker) int { return w.Index() })
							})
							return 0
						})
					})
					assert.True(t, same, "the call did not run on its caller")
					assert.Equal(t, []int{0, 1}, got, "Broadcast results")
					calls++
				}

				st := p.Stats()
				assert.EqualValues(t, calls, st.CallerRuns, "parking=%v workers=%d", k, workers)
				assert.Zero(t, st.Respawns, "a Goexit on the caller replaced a worker goroutine")
			})
		}
	}
}

//go:noinline
func panicker(v any) { panic(v) }

// TestCallerRunsStorm: goroutines calling Do and Run (forking, panicking,
// calling Goexit) beside Go tasks and Broadcasts: every call's result is
// exact, nothing is lost, and the functions running at once never
// outnumber the workers (a borrowed worker's goroutine stays parked). The
// callers start each burst together once a worker sleeps, so that the
// first calls of a burst race to borrow the sleepers and the rest find
// none: the storm must have run calls both on their callers and on
// workers.
func TestCallerRunsStorm(t *testing.T) {
	callers, bursts, burst := 4, 40, 10
	if testing.Short() {
		bursts = 8
	}
	on, _ := callerRunParkings()
	for _, k := range on {
		for _, workers := range []int{1, 2, 4} {
			// Capped at its size: the test counts the functions running
			// at once against the workers, and a loaded machine can make
			// the monitor add one.
			withPool(t, []Option{WithWorkers(workers), WithParking(k), WithMaxWorkers(workers)}, func(p *Pool) {
				var active, peak, wrong, tasks atomic.Int64
				enter := func() {
					n := active.Add(1)
					for {
						m := peak.Load()
						if n <= m || peak.CompareAndSwap(m, n) {
							break
						}
					}
				}
				var tasksDone sync.WaitGroup
				for b := range bursts {
					eventually(t, "a worker asleep", p.sleep.HasSleepers)
					together(t, "callers", callers, func(c int) {
						for j := range burst {
							i := b*burst + j
							switch (i + c) % 5 {
							case 0, 1:
								got := Do(p, func(w *Worker) int {
									enter()
									defer active.Add(-1)
									return fibArgs(w, 10+i%4)
								})
								if got != seqFib(10+i%4) {
									wrong.Add(1)
								}
							case 2:
								v := catchPanic(func() {
									p.Run(func(*Worker) { enter(); defer active.Add(-1); panic(i) })
								})
								var pe *PanicError
								if !errors.As(asError(v), &pe) || pe.Value != i {
									wrong.Add(1)
								}
							case 3:
								if !exitsGoroutine(t, func() {
									p.Run(func(*Worker) { enter(); defer active.Add(-1); runtime.Goexit() })
								}) {
									wrong.Add(1)
								}
							case 4:
								tasksDone.Add(1)
								if err := p.Go(func(*Worker) { enter(); defer active.Add(-1); tasks.Add(1); tasksDone.Done() }); err != nil {
									tasksDone.Done()
									wrong.Add(1)
								}
								if c == 0 && j == 4 {
									if got := Broadcast(p, func(w *Worker) int { return w.Index() }); len(got) != workers {
										wrong.Add(1)
									}
								}
							}
						}
					})
				}
				within(t, "Go tasks", tasksDone.Wait)
				assert.Zero(t, wrong.Load(), "wrong results")
				assert.LessOrEqual(t, peak.Load(), int64(workers), "more functions ran at once than the pool has workers")
				total := callers * bursts * burst
				assert.EqualValues(t, total/5, tasks.Load())
				st := p.Stats()
				assert.Positive(t, st.CallerRuns, "parking=%v workers=%d: no call ran on its caller", k, workers)
				assert.Greater(t, st.Injected, uint64(total/5), "parking=%v workers=%d: no call was handed to a worker", k, workers)
				assert.EqualValues(t, total, st.CallerRuns+st.Injected, "calls and tasks counted once each")
			})
		}
	}
}

// TestCallerRunsAcrossClose: calls that borrowed every worker are running
// when Close begins. They see the pool closing, finish whole, and Close
// returns only after they did; a call after Close panics with ErrClosed.
func TestCallerRunsAcrossClose(t *testing.T) {
	rounds := 50
	if testing.Short() {
		rounds = 10
	}
	const workers = 2
	for range rounds {
		p, err := New(WithWorkers(workers))
		require.NoError(t, err)
		eventually(t, "every worker asleep", func() bool {
			return p.sleep.HasSleepers() && len(p.workerList()) == workers && sleepingWorkers(p) == workers
		})
		var started, finished, sawClosing atomic.Int64
		release := make(chan struct{})
		var calls sync.WaitGroup
		for range workers {
			calls.Add(1)
			go func() {
				defer calls.Done()
				caller := goroutine.Self()
				Do(p, func(w *Worker) int {
					if goroutine.Self() != caller {
						t.Error("a call did not run on its caller with every worker asleep")
					}
					started.Add(1)
					defer finished.Add(1)
					<-release
					if p.closing.Load() {
						sawClosing.Add(1)
					}
					return fibArgs(w, 10)
				})
			}()
		}
		for started.Load() < workers {
			runtime.Gosched()
		}
		closed := make(chan int64)
		go func() {
			assert.NoError(t, p.Close())
			closed <- finished.Load()
		}()
		eventually(t, "Close to begin", p.closing.Load)
		close(release)
		within(t, "Close", func() {
			assert.EqualValues(t, workers, <-closed, "Close returned before the calls on their callers finished")
		})
		within(t, "callers", calls.Wait)
		assert.EqualValues(t, workers, sawClosing.Load())
		v := catchPanic(func() { Do(p, func(*Worker) int { return 1 }) })
		assert.True(t, errors.Is(asError(v), ErrClosed), "Do after Close panicked with %v", v)
		assert.EqualValues(t, workers, p.Stats().CallerRuns)
	}
}

// borrowable waits until a call could borrow a worker: one is asleep and
// done with its way to sleep. The counters show a worker asleep while it
// still holds its sleep lock for its last injector check, and a Borrow in
// that instant gives up (the call is handed off instead): a test that
// needs the call on its caller waits for this, not for HasSleepers.
func borrowable(t *testing.T, p *Pool) {
	t.Helper()
	eventually(t, "a worker asleep", func() bool { return sleepingWorkers(p) > 0 })
}

// sleepingWorkers counts the workers that a Borrow takes now (and gives
// back at once): those asleep and done with their way to sleep.
func sleepingWorkers(p *Pool) int {
	n := 0
	for i, w := range p.workerList() {
		if p.sleep.Borrow(i, &w.terminate, w.guest) {
			p.sleep.Return(i, p.hasInjectedJobs)
			n++
		}
	}
	return n
}

// TestCallerRunsAcrossResize: a call that borrows a sleeping worker races
// a Resize that shrinks or grows the pool (kicking the workers it retires,
// starting those it adds), round after round: every call returns its exact
// result, and the pool ends at the size asked last.
func TestCallerRunsAcrossResize(t *testing.T) {
	rounds := 200
	if testing.Short() {
		rounds = 40
	}
	withPool(t, []Option{WithWorkers(4)}, func(p *Pool) {
		var wrong atomic.Int64
		for i := range rounds {
			eventually(t, "a worker asleep", p.sleep.HasSleepers)
			together(t, "a call and a resize", 2, func(j int) {
				if j == 1 {
					if err := p.Resize(1 + i%4); err != nil {
						wrong.Add(1)
					}
					return
				}
				if Do(p, func(w *Worker) int { return fibArgs(w, 12) }) != seqFib(12) {
					wrong.Add(1)
				}
			})
		}
		require.NoError(t, p.Resize(3))
		assert.Zero(t, wrong.Load())
		assert.Equal(t, 3, p.Workers())
		assert.Positive(t, p.Stats().CallerRuns, "no call ran on its caller")
	})
}

// TestCallerRunsAllocatesNothing: a Do that runs on its caller allocates
// nothing (the submission path allocates its job: TestCallJobSize). Each
// call gives the worker back asleep, so every call borrows it.
func TestCallerRunsAllocatesNothing(t *testing.T) {
	p, err := New(WithWorkers(1))
	require.NoError(t, err)
	defer p.Close()
	fn := func(*Worker) int { return 1 }
	borrowable(t, p)
	before := p.Stats().CallerRuns
	want := 0.0
	if unsafe.Sizeof(uintptr(0)) != 8 {
		want = 3 // 32-bit builds allocate in Do's generic path, as TestCallJobSize notes
	}
	assert.LessOrEqual(t, testing.AllocsPerRun(100, func() { Do(p, fn) }), want, "allocations per Do on the caller")
	assert.EqualValues(t, 101, p.Stats().CallerRuns-before, "calls that ran on the caller")
}
