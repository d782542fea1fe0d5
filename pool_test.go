package blitz

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// TestShutdownIdle checks Shutdown on an idle pool, twice, then Close.
func TestShutdownIdle(t *testing.T) {
	eachServer(t, []int{1, 2}, nil, func(t *testing.T, p *Pool, workers int) {
		assert.NoError(t, shutdownW(t, p, context.Background()), "Shutdown")
		assert.NoError(t, shutdownW(t, p, context.Background()), "second Shutdown")
		// A finished pool reports success even to an ended context.
		assert.NoError(t, shutdownW(t, p, cancelled()), "Shutdown(cancelled) after the pool closed")
		checkRefusesClosed(t, p)
		// withPool's Close follows: Close after Shutdown.
	})
}

// TestShutdownIdleEndedContext checks Shutdown with an ended context on a
// pool that has no task left to run: it returns nil if the workers have
// exited by then, and otherwise a *ShutdownError that counts them and no
// task; never one that says nothing was left. Close then waits for them.
func TestShutdownIdleEndedContext(t *testing.T) {
	eachServer(t, []int{1, 2}, nil, func(t *testing.T, p *Pool, workers int) {
		require.EqualValues(t, 55, doW(t, p, func(w *Worker) int { return fibArgs(w, 10) }), "Do")
		// Do returns as soon as the result is in; the worker counts the
		// task finished just after (unless it ran on its caller).
		eventually(t, "the Do task counted finished", func() bool { return p.completed()+p.Stats().CallerRuns == 1 })
		err := shutdownW(t, p, cancelled())
		if err != nil {
			var se *ShutdownError
			require.ErrorAs(t, err, &se, "Shutdown(cancelled) of an idle pool")
			assert.ErrorIs(t, err, context.Canceled)
			assert.Zero(t, se.Queued, "%v: tasks queued", err)
			assert.Zero(t, se.Running, "%v: tasks running", err)
			assert.Positive(t, se.Workers, "%v: an error with nothing left", err)
			assert.LessOrEqual(t, se.Workers, workers, "%v: workers not yet exited", err)
		}
		require.NoError(t, p.Close(), "Close after Shutdown(cancelled)")
		assert.Zero(t, p.live.Load(), "workers not yet exited after Close")
	})
}

// holdWorkerExit makes p wait for one more worker goroutine to exit, as if
// one of its workers were slow to leave, until release is called: a pool
// that has drained but not shut down, whatever the scheduling.
func holdWorkerExit(p *Pool) (release func()) {
	p.wg.Add(1)
	p.live.Add(1)
	return p.workerExited
}

// TestShutdownDrainedKeepsDeadline checks that Shutdown with an ended or
// ending context returns on a pool whose tasks have all finished but whose
// workers have not all exited, with a *ShutdownError that counts those
// workers and no task, instead of waiting for them. The pool has many
// workers, as a server's would, and one of them held back by the test; Close
// after the release waits for all of them.
func TestShutdownDrainedKeepsDeadline(t *testing.T) {
	workers := 512
	if testing.Short() {
		workers = 64
	}
	for _, k := range serverParkings() {
		t.Run(fmt.Sprintf("parking=%v/workers=%d", k, workers), func(t *testing.T) {
			defer verifyNone(t)
			p, err := New(WithParking(k), WithWorkers(workers))
			require.NoError(t, err)
			release := holdWorkerExit(p)
			short, cancel := context.WithTimeout(t.Context(), time.Millisecond)
			defer cancel()
			for _, ctx := range []context.Context{cancelled(), short} {
				err := shutdownW(t, p, ctx)
				var se *ShutdownError
				require.ErrorAs(t, err, &se)
				require.ErrorIs(t, err, ctx.Err())
				assert.Zero(t, se.Queued, "tasks queued")
				assert.Zero(t, se.Running, "tasks running")
				assert.GreaterOrEqual(t, se.Workers, 1, "workers not yet exited")
				assert.LessOrEqual(t, se.Workers, workers+1, "workers not yet exited")
				assert.Contains(t, err.Error(), "not yet exited")
			}
			checkRefusesClosed(t, p)
			release()
			require.NoError(t, shutdownW(t, p, context.Background()), "Shutdown after the release")
			require.NoError(t, shutdownW(t, p, cancelled()), "Shutdown(cancelled) of a closed pool")
		})
	}
}

// TestShutdownDrains checks that Shutdown stops accepting at once, then
// returns only after every accepted task ran.
func TestShutdownDrains(t *testing.T) {
	eachServer(t, testWorkerCounts, nil, func(t *testing.T, p *Pool, workers int) {
		g := newGate()
		defer g.open()
		g.occupy(t, p, workers)
		var ran, accepted atomic.Int64
		const queuedTasks = 20
		for i := 0; i < queuedTasks; i++ {
			if err := p.Go(func(*Worker) { ran.Add(1) }); err != nil {
				t.Fatal(err)
			}
		}
		accepted.Add(queuedTasks)
		type outcome struct {
			err       error
			ran, gate int64
		}
		done := make(chan outcome, 1)
		go func() {
			err := p.Shutdown(context.Background())
			done <- outcome{err, ran.Load(), g.done.Load()}
		}()
		waitClosed(t, p, &ran, &accepted)
		checkRefusesClosed(t, p)
		g.open()
		within(t, "Shutdown", func() {
			o := <-done
			if o.err != nil {
				t.Errorf("Shutdown: %v", o.err)
			}
			if o.ran != accepted.Load() || o.gate != int64(workers) {
				t.Errorf("Shutdown returned with %d of %d tasks and %d of %d gate tasks run",
					o.ran, accepted.Load(), o.gate, workers)
			}
		})
	})
}

// TestShutdownContextEnds checks Shutdown whose context ends before the pool
// drained: a *ShutdownError with the exact numbers of queued and running
// tasks, matching the context's error; then the pool goes on draining, runs
// every accepted task, and releases its goroutines, whether the test then
// waits for that with Shutdown, Close, or not at all.
func TestShutdownContextEnds(t *testing.T) {
	for _, then := range []string{"nothing", "shutdown", "close"} {
		t.Run("then="+then, func(t *testing.T) {
			eachServer(t, testWorkerCounts, nil, func(t *testing.T, p *Pool, workers int) {
				g := newGate()
				defer g.open()
				g.occupy(t, p, workers)
				var ran atomic.Int64
				var tasks sync.WaitGroup
				const queuedTasks = 7
				for i := 0; i < queuedTasks; i++ {
					tasks.Add(1)
					if err := p.Go(func(*Worker) { ran.Add(1); tasks.Done() }); err != nil {
						t.Fatal(err)
					}
				}
				check := func(what string, err error, want error) {
					t.Helper()
					var se *ShutdownError
					switch {
					case !errors.As(err, &se):
						t.Errorf("%s = %v, want a *ShutdownError", what, err)
					case se.Queued != queuedTasks || se.Running != workers:
						t.Errorf("%s: %d queued, %d running; want %d, %d", what, se.Queued, se.Running, queuedTasks, workers)
					case !errors.Is(err, want) || se.Err != want:
						t.Errorf("%s = %v, want it to match %v", what, err, want)
					case !strings.Contains(err.Error(), fmt.Sprint(queuedTasks)):
						t.Errorf("%s: the message %q does not give the queued count", what, err)
					}
				}
				ctx, cancel := pastDeadline()
				defer cancel()
				check("Shutdown(past deadline)", shutdownW(t, p, ctx), context.DeadlineExceeded)
				// A deadline that passes while Shutdown waits.
				ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Millisecond)
				defer cancel2()
				check("Shutdown(5ms)", shutdownW(t, p, ctx2), context.DeadlineExceeded)
				check("Shutdown(cancelled)", shutdownW(t, p, cancelled()), context.Canceled)
				checkRefusesClosed(t, p)

				g.open()
				switch then {
				case "nothing":
					within(t, "accepted tasks", tasks.Wait)
					// Nobody calls Close: the pool must let its workers
					// go by itself.
					eventually(t, "the workers exiting by themselves", func() bool { return goleak.Find() == nil })
				case "shutdown":
					assert.NoError(t, shutdownW(t, p, context.Background()), "Shutdown after the gate opened")
					if ran.Load() != queuedTasks {
						t.Errorf("Shutdown returned with %d of %d tasks run", ran.Load(), queuedTasks)
					}
				case "close":
					within(t, "Close", func() {
						assert.NoError(t, p.Close(), "Close after a Shutdown that timed out")
					})
					if ran.Load() != queuedTasks {
						t.Errorf("Close returned with %d of %d tasks run", ran.Load(), queuedTasks)
					}
				}
				if g.done.Load() != int64(workers) {
					t.Errorf("%d of %d gate tasks finished", g.done.Load(), workers)
				}
			})
		})
	}
}

// TestShutdownConcurrent starts Shutdown and Close from several goroutines at
// once: the ones without a deadline all return nil, each only after every
// accepted task ran; one with an ended context reports the exact counts.
func TestShutdownConcurrent(t *testing.T) {
	eachServer(t, testWorkerCounts, nil, func(t *testing.T, p *Pool, workers int) {
		g := newGate()
		defer g.open()
		g.occupy(t, p, workers)
		var ran atomic.Int64
		const queuedTasks = 5
		for i := 0; i < queuedTasks; i++ {
			if err := p.Go(func(*Worker) { ran.Add(1) }); err != nil {
				t.Fatal(err)
			}
		}
		start := make(chan struct{})
		type outcome struct {
			who  string
			err  error
			ran  int64
			gate int64
		}
		const waiters = 6
		outcomes := make(chan outcome, waiters)
		for i := 0; i < waiters; i++ {
			go func() {
				<-start
				var err error
				who := "Close"
				if i%2 == 0 {
					who = "Shutdown"
					err = p.Shutdown(context.Background())
				} else {
					err = p.Close()
				}
				outcomes <- outcome{who, err, ran.Load(), g.done.Load()}
			}()
		}
		ended := make(chan error, 1)
		go func() {
			<-start
			ended <- p.Shutdown(cancelled())
		}()
		close(start)
		within(t, "Shutdown(cancelled)", func() {
			err := <-ended
			var se *ShutdownError
			if !errors.As(err, &se) || se.Queued != queuedTasks || se.Running != workers || !errors.Is(err, context.Canceled) {
				t.Errorf("Shutdown(cancelled) racing the others = %v, want %d queued, %d running, Canceled", err, queuedTasks, workers)
			}
		})
		g.open()
		within(t, "Shutdown and Close callers", func() {
			for i := 0; i < waiters; i++ {
				o := <-outcomes
				if o.err != nil {
					t.Errorf("%s: %v", o.who, o.err)
				}
				if o.ran != queuedTasks || o.gate != int64(workers) {
					t.Errorf("%s returned with %d of %d tasks and %d of %d gate tasks run", o.who, o.ran, queuedTasks, o.gate, workers)
				}
			}
		})
	})
}

// TestShutdownFromTask checks that Shutdown from a task of the pool is
// refused (it would wait for itself) and leaves the pool open.
func TestShutdownFromTask(t *testing.T) {
	eachServer(t, []int{1, 2}, nil, func(t *testing.T, p *Pool, workers int) {
		err := doW(t, p, func(*Worker) error { return p.Shutdown(context.Background()) })
		if !errors.Is(err, ErrCloseInTask) {
			t.Errorf("Shutdown from a task = %v, want ErrCloseInTask", err)
		}
		assert.EqualValues(t, 55, doW(t, p, func(w *Worker) int { return fibArgs(w, 10) }), "after the refused Shutdown")
	})
}

// TestShutdownWakesRoomWaiters checks that submitters waiting for room in a
// full queue are refused with ErrClosed once Shutdown begins, while the
// queue is still full (the pool will accept nothing more, so waiting on
// would only delay them), and that their tasks never run.
func TestShutdownWakesRoomWaiters(t *testing.T) {
	eachServer(t, testWorkerCounts, []Option{WithCapacity(1)}, func(t *testing.T, p *Pool, workers int) {
		g := newGate()
		defer g.open()
		g.occupy(t, p, workers)
		var ran, waiterRan atomic.Int64
		fill(t, p, 1, &ran)
		const waiters = 4
		errs := make(chan error, waiters)
		for i := 0; i < waiters; i++ {
			wctx := watch(context.Background())
			task := func(*Worker) { waiterRan.Add(1) }
			go func() {
				var err error
				switch i {
				case 0:
					err = p.Go(task)
				case 1:
					err = p.GoContext(wctx, task)
				case 2:
					_, err = DoContext(wctx, p, func(w *Worker) int { task(w); return 0 })
				case 3:
					if v := catchPanic(func() { p.Run(task) }); v != nil {
						err, _ = v.(error)
						if err == nil {
							err = fmt.Errorf("Run panicked with %v", v)
						}
					}
				}
				errs <- err
			}()
			if i == 1 || i == 2 {
				wctx.waitWatched(t, "a submitter waiting for room")
			}
		}
		shut := make(chan error, 1)
		go func() { shut <- p.Shutdown(context.Background()) }()
		within(t, "room waiters refused by Shutdown", func() {
			for i := 0; i < waiters; i++ {
				if err := <-errs; !errors.Is(err, ErrClosed) {
					t.Errorf("a submitter waiting for room when Shutdown began = %v, want ErrClosed", err)
				}
			}
		})
		g.open()
		within(t, "Shutdown", func() {
			assert.NoError(t, <-shut, "Shutdown")
		})
		if waiterRan.Load() != 0 || ran.Load() != 1 {
			t.Errorf("%d refused waiters' tasks ran; the queued task ran %d times", waiterRan.Load(), ran.Load())
		}
	})
}

// TestShutdownLastTaskEndsOddly checks that Shutdown returns when the last
// accepted tasks end abnormally: a Goexit (the worker goroutine is replaced),
// a panic sent to the handler, a panic and a Goexit returned by DoContext.
// Drain detection must count each of them finished.
func TestShutdownLastTaskEndsOddly(t *testing.T) {
	handler := WithPanicHandler(func(any, []byte) {})
	for _, last := range []string{"goexit", "panic", "DoContext-panic", "DoContext-goexit"} {
		t.Run("last="+last, func(t *testing.T) {
			eachServer(t, testWorkerCounts, []Option{handler}, func(t *testing.T, p *Pool, workers int) {
				g := newGate()
				defer g.open()
				g.occupy(t, p, workers)
				errc := make(chan error, 1)
				switch last {
				case "goexit":
					if err := p.Go(func(*Worker) { runtime.Goexit() }); err != nil {
						t.Fatal(err)
					}
				case "panic":
					if err := p.Go(func(*Worker) { panic("last") }); err != nil {
						t.Fatal(err)
					}
				default:
					go func() {
						_, err := DoContext(context.Background(), p, func(*Worker) int {
							if last == "DoContext-panic" {
								panic("last")
							}
							runtime.Goexit()
							return 0
						})
						errc <- err
					}()
					eventually(t, "the DoContext task queued", func() bool { return queued(p) == 1 })
				}
				shut := make(chan error, 1)
				go func() { shut <- p.Shutdown(context.Background()) }()
				g.open()
				within(t, "Shutdown after an abnormal last task", func() {
					assert.NoError(t, <-shut, "Shutdown")
				})
				if strings.HasPrefix(last, "DoContext") {
					within(t, "DoContext", func() {
						want := ErrPanic
						if last == "DoContext-goexit" {
							want = ErrGoexit
						}
						if err := <-errc; !errors.Is(err, want) {
							t.Errorf("DoContext = %v, want %v", firstLine(err), want)
						}
					})
				}
				if st := p.Stats(); st.Completed != uint64(workers+1) || st.Running != 0 || st.Queued != 0 {
					t.Errorf("after Shutdown: %d completed (want %d), %d running, %d queued", st.Completed, workers+1, st.Running, st.Queued)
				}
			})
		})
	}
}

func TestCloseFromTask(t *testing.T) {
	withPool(t, []Option{WithWorkers(2)}, func(p *Pool) {
		err := doW(t, p, func(*Worker) error { return p.Close() })
		if !errors.Is(err, ErrCloseInTask) {
			t.Errorf("Close from a task = %v, want ErrCloseInTask", err)
		}
		// The pool is still open.
		assert.EqualValues(t, 55, doW(t, p, func(w *Worker) int { return fibArgs(w, 10) }), "after refused Close")
		// Closing from a new goroutine started by a task works.
		done := make(chan error)
		if err := p.Go(func(*Worker) { go func() { done <- p.Close() }() }); err != nil {
			t.Fatal(err)
		}
		within(t, "async Close", func() {
			assert.NoError(t, <-done, "async Close")
		})
	})
}

// TestCloseRacesSubmitters submits from many goroutines while Close runs:
// every accepted task runs exactly once before Close returns, every refused
// one gets ErrClosed, and the tally matches.
func TestCloseRacesSubmitters(t *testing.T) {
	rounds := 20
	if testing.Short() {
		rounds = 4
	}
	var acceptedDuringClose int64
	for r := 0; r < rounds; r++ {
		for _, workers := range []int{1, 4} {
			withPool(t, []Option{WithWorkers(workers)}, func(p *Pool) {
				const submitters, each = 8, 200
				var accepted, rejected, ran atomic.Int64
				var runs [submitters * each]atomic.Int32
				start := make(chan struct{})
				// Close waits for a first acceptance, so that a loaded
				// machine that starts the submitters late still gives
				// rounds where Close races them.
				firstAccepted := make(chan struct{})
				var once sync.Once
				var wg sync.WaitGroup
				for s := 0; s < submitters; s++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						for i := 0; i < each; i++ {
							id := s*each + i
							var err error
							if i%4 == 0 {
								// A Run that races Close: it either runs or panics ErrClosed.
								v := catchPanic(func() { p.Run(func(*Worker) { runs[id].Add(1); ran.Add(1) }) })
								if v != nil {
									err, _ = v.(error)
									if err == nil {
										err = errors.New("non-error panic")
									}
								}
							} else {
								err = p.Go(func(w *Worker) { fibArgs(w, 3); runs[id].Add(1); ran.Add(1) })
							}
							switch {
							case err == nil:
								accepted.Add(1)
								once.Do(func() { close(firstAccepted) })
							case errors.Is(err, ErrClosed):
								rejected.Add(1)
								runs[id].Add(100) // marks refused
							default:
								t.Errorf("submit: %v", err)
							}
						}
					}()
				}
				close(start)
				within(t, "Close", func() {
					<-firstAccepted
					assert.NoError(t, p.Close(), "Close")
				})
				ranAtClose := ran.Load()
				within(t, "submitters", wg.Wait)
				if accepted.Load()+rejected.Load() != submitters*each {
					t.Fatalf("accepted %d + rejected %d != %d", accepted.Load(), rejected.Load(), submitters*each)
				}
				if ranAtClose != accepted.Load() || ran.Load() != accepted.Load() {
					t.Errorf("ran %d by Close (%d in all), accepted %d", ranAtClose, ran.Load(), accepted.Load())
				}
				for id := range runs {
					if v := runs[id].Load(); v != 1 && v != 100 {
						t.Fatalf("task %d: run count/refusal mark %d", id, v)
					}
				}
				if rejected.Load() > 0 && accepted.Load() > 0 {
					acceptedDuringClose++
				}
			})
		}
	}
	// The rare path: a Close that really raced the submitters (some tasks
	// accepted, some refused in the same round).
	if testing.Short() {
		t.Logf("rounds with both accepted and refused tasks: %d", acceptedDuringClose)
	} else if acceptedDuringClose == 0 {
		t.Error("no round had Close racing the submitters")
	}
}

// TestDefaultPoolUnderServerLoad drives a pool made with no options the way
// a server does: many goroutines outside the pool submit and wait (TryDo,
// DoContext, Do) while other goroutines of the program run beside them.
// The default must not lock its workers to OS threads (so those goroutines
// never wait for a P that an idle worker holds), every call must get its
// own result, and the counters must add up.
func TestDefaultPoolUnderServerLoad(t *testing.T) {
	callers, calls := 64, 50
	if testing.Short() {
		callers, calls = 16, 20
	}
	withPool(t, nil, func(p *Pool) {
		require.Equal(t, ParkingPortable, p.Parking(), "the default backend")
		require.Zero(t, p.lockedThreads, "OS threads the default pool locks")
		var wrong, beside atomic.Int64
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { // a goroutine of the program, outside the pool
			defer wg.Done()
			c := make(chan int)
			for {
				select {
				case <-stop:
					return
				default:
				}
				go func() { c <- 1 }()
				beside.Add(int64(<-c))
			}
		}()
		together(t, "handlers", callers, func(i int) {
			for j := range calls {
				want := i*calls + j
				var got int
				var err error
				switch j % 3 {
				case 0:
					got, err = TryDo(withID(want), p, func(w *Worker) int { return ctxID(w) })
				case 1:
					got, err = DoContext(context.Background(), p, func(*Worker) int { return want })
				default:
					got = Do(p, func(*Worker) int { return want })
				}
				if err != nil || got != want {
					wrong.Add(1)
				}
			}
		})
		// The handlers may all be done before the goroutine beside them
		// was first scheduled; it must run while the pool's idle workers
		// are still there.
		eventually(t, "the goroutine beside the pool ran", func() bool { return beside.Load() > 0 })
		close(stop)
		wg.Wait()
		assert.Zero(t, wrong.Load(), "calls that failed or got another call's result")
		// A caller has its result before the worker counts the task done.
		eventually(t, "every task counted", func() bool {
			st := p.Stats()
			return st.Completed+st.CallerRuns == uint64(callers*calls)
		})
		st := p.Stats()
		assert.Zero(t, st.Rejected+st.Abandoned, "refused or abandoned submissions")
	})
}

// TestDefaultPoolUnderForkJoinLoad drives a pool made with no options with
// fork-join compute entered from several goroutines at once: every result is
// exact and every call is counted: as a root task, or as a call that ran on
// its caller (WithCallerRuns).
func TestDefaultPoolUnderForkJoinLoad(t *testing.T) {
	callers, n := 8, 20
	if testing.Short() {
		callers, n = 4, 16
	}
	withPool(t, nil, func(p *Pool) {
		var wrong atomic.Int64
		together(t, "callers", callers, func(int) {
			if got := Do(p, func(w *Worker) int { return fibArgs(w, n) }); got != seqFib(n) {
				wrong.Add(1)
			}
			var ran atomic.Int64
			p.Run(func(w *Worker) { scopeTree(w, 4, &ran) })
			if ran.Load() != (1<<4)*6 {
				wrong.Add(1)
			}
		})
		assert.Zero(t, wrong.Load(), "wrong results")
		eventually(t, "every call counted", func() bool {
			st := p.Stats()
			return st.Completed+st.CallerRuns == uint64(2*callers)
		})
	})
}

// TestNilReceivers checks that every exported method of Pool and Worker,
// the functions that take a *Pool to submit to and the joins that take a
// *Worker to fork on panic with a message naming the method for a nil
// *Pool or *Worker, instead of a nil dereference somewhere inside.
func TestNilReceivers(t *testing.T) {
	var p *Pool
	var w *Worker
	task := func(*Worker) {}
	call := func(*Worker) int { return 1 }
	inc := func(_ *Worker, x int) int { return x + 1 }
	ctx := context.Background()
	for _, c := range []struct {
		msg string
		f   func()
	}{
		{"blitz: Pool.Workers: nil *Pool", func() { p.Workers() }},
		{"blitz: Pool.Name: nil *Pool", func() { p.Name() }},
		{"blitz: Pool.Parking: nil *Pool", func() { p.Parking() }},
		{"blitz: Pool.Stats: nil *Pool", func() { p.Stats() }},
		{"blitz: Pool.Expvar: nil *Pool", func() { p.Expvar() }},
		{"blitz: Pool.PlacementNotes: nil *Pool", func() { p.PlacementNotes() }},
		{"blitz: Pool.Close: nil *Pool", func() { p.Close() }},
		{"blitz: Pool.Shutdown: nil *Pool", func() { p.Shutdown(ctx) }},
		{"blitz: Pool.Go: nil *Pool", func() { p.Go(task) }},
		{"blitz: Pool.TryGo: nil *Pool", func() { p.TryGo(task) }},
		{"blitz: Pool.GoContext: nil *Pool", func() { p.GoContext(ctx, task) }},
		{"blitz: Pool.Run: nil *Pool", func() { p.Run(task) }},
		{"blitz: Do: nil Runner", func() { Do(p, call) }},
		{"blitz: DoContext: nil Runner", func() { DoContext(ctx, p, call) }},
		{"blitz: TryDo: nil Runner", func() { TryDo(ctx, p, call) }},
		{"blitz: Worker.Index: nil *Worker", func() { w.Index() }},
		{"blitz: Worker.Pool: nil *Worker", func() { w.Pool() }},
		{"blitz: Worker.Context: nil *Worker", func() { w.Context() }},
		{"blitz: Worker.Join: nil *Worker", func() { w.Join(task, task) }},
		{"blitz: Worker.Scope: nil *Worker", func() { w.Scope(func(*Scope) {}) }},
		{"blitz: Pool.Closed: nil *Pool", func() { p.Closed() }},
		{"blitz: Join: nil *Worker", func() { Join(w, call, call) }},
		{"blitz: JoinArgs: nil *Worker", func() { JoinArgs(w, inc, 1, inc, 2) }},
	} {
		requirePanicMessage(t, c.msg, c.f)
	}
}

// retainedBytes is the memory that p's workers and queue keep for running
// work, which a closed pool no longer needs: the deques' rings, the frames,
// the run queues' rings, the spawn slots, the scope and context records,
// and the injector's blocks. (The batch buffers and the owner's pointer to
// the first frames, read by the workers alone while they run, are checked
// after Close.)
func retainedBytes(p *Pool) int {
	n := 0
	for _, w := range p.workerList() {
		if w.deque != nil {
			n += w.deque.Cap() * 8
		}
		if r := w.runq.ring.Load(); r != nil {
			n += int(unsafe.Sizeof(*r))
		}
		for k := range maxChunks {
			if c := w.frames.chunks[k].Load(); c != nil {
				n += len(*c) * int(unsafe.Sizeof(paddedFrame{}))
			}
		}
		for k := range w.spawns.chunks {
			if c := w.spawns.chunks[k].Load(); c != nil {
				n += len(*c) * int(unsafe.Sizeof(refSlot{}))
			}
		}
		if w.lastScope != nil {
			n += int(unsafe.Sizeof(Scope{}))
		}
		if w.origin != nil || w.ctxs.Load() != nil {
			n += int(unsafe.Sizeof(taskCtx{}))
		}
	}
	for r := p.inj.headRing.Load(); r != nil; r = r.next.Load() {
		n += len(r.slots) * int(unsafe.Sizeof(injSlot{}))
	}
	return n
}

// deepJoin forks d nested joins on w's own stack of frames.
func deepJoin(w *Worker, d int) {
	if d > 0 {
		w.Join(func(w *Worker) { deepJoin(w, d-1) }, func(*Worker) {})
	}
}

// TestCloseReleasesWorkerMemory grows every per-worker structure with a
// storm (joins deeper than the first chunk of frames, a scope whose spawns
// pile up in one deque while its thieves are held, fire-and-forget tasks,
// three injector rings' worth), closes the pool, and checks that the
// closed pool holds none of it any more, while Stats, Shutdown, Close and
// the submission paths still answer as documented.
func TestCloseReleasesWorkerMemory(t *testing.T) {
	const workers = 4
	spawns, tasks := 5000, 3*injRingMin
	if testing.Short() {
		spawns = 1000
	}
	defer verifyNone(t)
	p, err := New(WithWorkers(workers), WithLatencySampling(1))
	require.NoError(t, err)
	doW(t, p, func(w *Worker) int { deepJoin(w, 4*chunkBase); return 0 })
	doW(t, p, func(w *Worker) int {
		gate := make(chan struct{})
		w.Scope(func(s *Scope) {
			for range spawns {
				// Thieves block on the gate: all but workers-1 refs stay
				// in w's deque until the loop ends.
				s.Spawn(func(*Worker, *Scope) { <-gate })
			}
			close(gate)
		})
		return 0
	})
	var ran atomic.Int64
	for range tasks {
		require.NoError(t, p.Go(func(*Worker) { ran.Add(1) }))
	}
	before := retainedBytes(p)
	grown := false
	for _, w := range p.workerList() {
		grown = grown || w.deque.Cap() > dequeCapacity
	}
	require.True(t, grown, "the storm grew no deque")
	require.Greater(t, before, 64<<10, "the storm grew little")

	require.NoError(t, shutdownW(t, p, context.Background()))
	assert.Zero(t, retainedBytes(p), "bytes a closed pool still holds (%d before Close)", before)
	for _, w := range p.workerList() {
		assert.Nil(t, w.batch, "worker %d's batch buffer after Close", w.index)
		assert.Nil(t, w.frames.first, "worker %d's first frames after Close", w.index)
	}

	// What a closed pool still answers.
	assert.EqualValues(t, tasks, ran.Load())
	st := p.Stats()
	assert.Equal(t, workers, st.Workers)
	assert.EqualValues(t, tasks+2, st.Completed+st.CallerRuns, "the calls and tasks counted")
	assert.EqualValues(t, st.Completed, st.RunTime.Count, "latency samples kept")
	assert.Positive(t, st.Executed)
	assert.Equal(t, workers, p.Workers())
	require.NoError(t, shutdownW(t, p, cancelled()), "Shutdown of a closed pool")
	require.NoError(t, p.Close(), "Close of a closed pool")
	checkRefusesClosed(t, p)
	v := catchPanic(func() { treeSum(p, []int{1, 2}) })
	err, _ = v.(error)
	require.ErrorIs(t, err, ErrClosed, "Sum on a closed pool")
	assert.Equal(t, st, p.Stats(), "Stats changed after Close")
}

// TestWorkerKeptPastClose keeps a task's *Worker, closes its pool, and uses
// the Worker: what would touch the queues the closed pool released panics
// with a message saying that the Worker was used after its pool closed
// (Join, JoinArgs and Scope leave the Worker as they found it, so a second
// call panics alike), and the rest answers (see Worker).
func TestWorkerKeptPastClose(t *testing.T) {
	for _, k := range testParkings() {
		t.Run(k.String(), func(t *testing.T) {
			t.Cleanup(func() { verifyNone(t) }) // after other's Close
			p, err := New(WithParking(k), WithWorkers(2))
			require.NoError(t, err)
			other := newPoolT(t, WithParking(k), WithWorkers(1))
			var kept *Worker
			p.Run(func(w *Worker) { kept = w })
			var res context.Context
			p.Run(func(w *Worker) { res = w.Context() })
			within(t, "Close", func() { require.NoError(t, p.Close()) })

			one := func(*Worker) int { return 1 }
			inc := func(_ *Worker, x int) int { return x + 1 }
			noop := func(*Worker) {}
			msg := func(name string) string {
				return "blitz: " + name + ": *Worker used after its pool was closed (a Worker belongs to the task it was handed to, until that task returns)"
			}
			for range 2 {
				requirePanicMessage(t, msg("Join"), func() { Join(kept, one, one) })
				requirePanicMessage(t, msg("JoinArgs"), func() { JoinArgs(kept, inc, 1, inc, 2) })
				requirePanicMessage(t, msg("JoinArgs"), func() { kept.Join(noop, noop) })
				requirePanicMessage(t, msg("Worker.Scope"), func() { kept.Scope(func(*Scope) {}) })
				requirePanicMessage(t, msg("Do"), func() { Do(kept, one) })
				requirePanicMessage(t, msg("DoContext"), func() { _, _ = DoContext(context.Background(), kept, one) })
				requirePanicMessage(t, msg("JoinArgs"), func() { JoinAll(kept, noop, noop) })
				requirePanicMessage(t, msg("Join"), func() { Join3(kept, one, one, one) })
				assert.Zero(t, kept.depth, "the depth a refused join left")
			}
			assert.Equal(t, p, kept.Pool())
			assert.Less(t, kept.Index(), 2)
			assert.Equal(t, res, kept.Context())
			ran := false
			kept.Block(func() { ran = true })
			assert.True(t, ran, "Block on a kept Worker")
			assert.Equal(t, 3, Do(other, func(*Worker) int { return 3 }), "the other pool")
		})
	}
}
