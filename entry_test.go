package blitz

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func TestRunDoGo(t *testing.T) {
	eachConfig(t, func(t *testing.T, p *Pool) {
		var ran atomic.Bool
		within(t, "Run", func() { p.Run(func(w *Worker) { ran.Store(w.Pool() == p) }) })
		if !ran.Load() {
			t.Error("Run did not run fn on a worker of the pool")
		}
		if got := doW(t, p, func(w *Worker) string { return "ok" }); got != "ok" {
			t.Errorf("Do = %q", got)
		}
		const n = 500
		var wg sync.WaitGroup
		var count atomic.Int64
		wg.Add(n)
		for i := 0; i < n; i++ {
			if err := p.Go(func(w *Worker) { count.Add(int64(fibArgs(w, 5))); wg.Done() }); err != nil {
				t.Fatalf("Go: %v", err)
			}
		}
		within(t, "Go tasks", wg.Wait)
		if got := count.Load(); got != n*5 {
			t.Errorf("Go tasks summed %d, want %d", got, n*5)
		}
	})
}

// TestGoFIFO checks that injected tasks start in submission order on a
// one-worker pool.
func TestGoFIFO(t *testing.T) {
	withPool(t, []Option{WithWorkers(1)}, func(p *Pool) {
		const n = 1000
		var mu sync.Mutex
		order := make([]int, 0, n)
		var wg sync.WaitGroup
		wg.Add(n)
		for i := 0; i < n; i++ {
			if err := p.Go(func(*Worker) { mu.Lock(); order = append(order, i); mu.Unlock(); wg.Done() }); err != nil {
				t.Fatal(err)
			}
		}
		within(t, "tasks", wg.Wait)
		for i, v := range order {
			if v != i {
				t.Fatalf("task %d ran at position %d: injection is not FIFO", v, i)
			}
		}
	})
}

func TestManyOutsideCallers(t *testing.T) {
	callers := 64
	if testing.Short() {
		callers = 16
	}
	for _, workers := range testWorkerCounts {
		withPool(t, []Option{WithWorkers(workers)}, func(p *Pool) {
			start := make(chan struct{})
			var wg sync.WaitGroup
			var bad atomic.Int64
			for c := 0; c < callers; c++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					for i := 0; i < 20; i++ {
						n := 10 + (c+i)%8
						if Do(p, func(w *Worker) int { return fibArgs(w, n) }) != seqFib(n) {
							bad.Add(1)
						}
					}
				}()
			}
			close(start)
			within(t, "callers", wg.Wait)
			if bad.Load() != 0 {
				t.Errorf("workers=%d: %d wrong results", workers, bad.Load())
			}
		})
	}
}

func TestRunFromSamePoolIsInline(t *testing.T) {
	withPool(t, []Option{WithWorkers(1)}, func(p *Pool) {
		// On a one-worker pool, a blocking Run from the task would
		// deadlock; RunFrom runs inline.
		got := doW(t, p, func(w *Worker) int {
			return DoFrom(w, p, func(w2 *Worker) int {
				if w2 != w {
					t.Error("DoFrom on the same pool did not run inline")
				}
				return fibArgs(w2, 10)
			})
		})
		if got != 55 {
			t.Errorf("DoFrom = %d", got)
		}
		v := catchPanic(func() { Do(p, func(w *Worker) int { return DoFrom(w, p, func(*Worker) int { panic("inline") }) }) })
		if pe, ok := v.(*PanicError); !ok || pe.Value != "inline" {
			t.Errorf("inline DoFrom panic = %v", v)
		}
	})
}

// TestCrossPool calls between two pools in both directions, nested, from
// one-worker pools (where a blocked worker would deadlock at once), and
// checks that the waiting worker served its own pool meanwhile.
func TestCrossPool(t *testing.T) {
	defer leakCheck(t)()
	a, err := New(WithWorkers(1), WithName("a"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(WithWorkers(1), WithName("b"))
	if err != nil {
		t.Fatal(err)
	}
	defer within(t, "Close", func() { a.Close(); b.Close() })

	// a's only worker calls into b, whose task submits to a and waits for
	// it: a's worker must run that task while it waits for b.
	got := doW(t, a, func(w *Worker) int {
		return DoFrom(w, b, func(wb *Worker) int {
			x := DoFrom(wb, a, func(wa *Worker) int { return fibArgs(wa, 12) })
			return x + fibArgs(wb, 10)
		})
	})
	if want := seqFib(12) + seqFib(10); got != want {
		t.Errorf("nested cross-pool = %d, want %d", got, want)
	}
	// Many concurrent cross calls in both directions.
	var wg sync.WaitGroup
	var bad atomic.Int64
	for i := 0; i < 16; i++ {
		from, to := a, b
		if i%2 == 1 {
			from, to = b, a
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := Do(from, func(w *Worker) int {
				return DoFrom(w, to, func(w *Worker) int { return fibArgs(w, 14) })
			})
			if r != seqFib(14) {
				bad.Add(1)
			}
		}()
	}
	within(t, "cross calls", wg.Wait)
	if bad.Load() != 0 {
		t.Errorf("%d wrong cross-pool results", bad.Load())
	}
	// Panics and Goexit cross pools too.
	v := catchPanic(func() {
		Do(a, func(w *Worker) int { return DoFrom(w, b, func(*Worker) int { panic("in b") }) })
	})
	if pe, ok := v.(*PanicError); !ok || pe.Value != "in b" {
		t.Errorf("cross-pool panic = %v", v)
	}
	if !exitsGoroutine(t, func() {
		Do(a, func(w *Worker) int { b.RunFrom(w, func(*Worker) { runtime.Goexit() }); return 0 })
	}) {
		t.Error("cross-pool Goexit did not reach the caller")
	}
	if got := doW(t, a, func(w *Worker) int { return fibArgs(w, 10) }); got != 55 {
		t.Errorf("a after cross-pool panic = %d", got)
	}
}

// leakCheck adapts goleak.VerifyNone to a deferred call with a leading
// function, for tests that manage their pools by hand.
func leakCheck(t *testing.T) func() {
	return func() { verifyNone(t) }
}

func TestDoPanicAndGoexit(t *testing.T) {
	withPool(t, []Option{WithWorkers(2)}, func(p *Pool) {
		v := catchPanic(func() { Do(p, func(*Worker) int { panic("boom") }) })
		if pe, ok := v.(*PanicError); !ok || pe.Value != "boom" || !strings.Contains(string(pe.Stack), "TestDoPanicAndGoexit") {
			t.Errorf("Do panic = %#v", v)
		}
		if !exitsGoroutine(t, func() { p.Run(func(*Worker) { runtime.Goexit() }) }) {
			t.Error("Run with a Goexit returned")
		}
		if got := doW(t, p, func(w *Worker) int { return fibArgs(w, 10) }); got != 55 {
			t.Errorf("after: %d", got)
		}
	})
}

func TestGoPanicHandler(t *testing.T) {
	type report struct {
		v     any
		stack string
	}
	reports := make(chan report, 10)
	opts := []Option{WithWorkers(2), WithPanicHandler(func(v any, stack []byte) { reports <- report{v, string(stack)} })}
	withPool(t, opts, func(p *Pool) {
		p.Go(func(*Worker) { panic("fire and forget") })
		var r report
		within(t, "handler", func() { r = <-reports })
		if r.v != "fire and forget" || !strings.Contains(r.stack, "TestGoPanicHandler") {
			t.Errorf("handler got %v with stack\n%s", r.v, r.stack)
		}
		// Goexit ends the task only; the worker is replaced.
		done := make(chan struct{})
		p.Go(func(*Worker) { defer close(done); runtime.Goexit() })
		within(t, "Goexit task", func() { <-done })
		if got := doW(t, p, func(w *Worker) int { return fibArgs(w, 10) }); got != 55 {
			t.Errorf("after: %d", got)
		}
	})
}

// TestGoPanicCrashes checks the default: a panic in a Go task without a
// handler crashes the program and reports the task's stack. The crash runs in
// a child process.
func TestGoPanicCrashes(t *testing.T) {
	if os.Getenv("BLITZ_CRASH_CHILD") == "1" {
		p, _ := New(WithWorkers(1))
		p.Go(func(*Worker) { crashingTask() })
		select {} // the crash ends the process
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestGoPanicCrashes$")
	cmd.Env = append(os.Environ(), "BLITZ_CRASH_CHILD=1")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Skipf("cannot run the test binary as a child (emulated?): %v", err)
	}
	if ee == nil || ee.ExitCode() != 2 {
		t.Fatalf("child: err %v, want exit status 2; output:\n%s", err, out)
	}
	if !strings.Contains(string(out), "crash me") || !strings.Contains(string(out), "crashingTask") {
		t.Errorf("crash report lacks the value or the task's stack:\n%s", out)
	}
}

func crashingTask() { panic("crash me") }

func TestClosedPool(t *testing.T) {
	withPool(t, []Option{WithWorkers(2)}, func(p *Pool) {
		within(t, "Close", func() {
			if err := p.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if err := p.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
		})
		if err := p.Go(func(*Worker) {}); !errors.Is(err, ErrClosed) {
			t.Errorf("Go after Close = %v, want ErrClosed", err)
		}
		v := catchPanic(func() { p.Run(func(*Worker) {}) })
		if err, ok := v.(error); !ok || !errors.Is(err, ErrClosed) {
			t.Errorf("Run after Close panicked with %v, want ErrClosed", v)
		}
		if v := catchPanic(func() { Do(p, func(*Worker) int { return 1 }) }); v == nil {
			t.Error("Do after Close did not panic")
		}
	})
}

func TestCloseFromTask(t *testing.T) {
	withPool(t, []Option{WithWorkers(2)}, func(p *Pool) {
		err := doW(t, p, func(*Worker) error { return p.Close() })
		if !errors.Is(err, ErrCloseInTask) {
			t.Errorf("Close from a task = %v, want ErrCloseInTask", err)
		}
		// The pool is still open.
		if got := doW(t, p, func(w *Worker) int { return fibArgs(w, 10) }); got != 55 {
			t.Errorf("after refused Close: %d", got)
		}
		// Closing from a new goroutine started by a task works.
		done := make(chan error)
		if err := p.Go(func(*Worker) { go func() { done <- p.Close() }() }); err != nil {
			t.Fatal(err)
		}
		within(t, "async Close", func() {
			if err := <-done; err != nil {
				t.Errorf("async Close: %v", err)
			}
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
					if err := p.Close(); err != nil {
						t.Errorf("Close: %v", err)
					}
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
