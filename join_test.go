package blitz

import (
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

func fibArgs(w *Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := JoinArgs(w, fibArgs, n-1, fibArgs, n-2)
	return a + b
}

func fibClosure(w *Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := Join(w, func(w *Worker) int { return fibClosure(w, n-1) }, func(w *Worker) int { return fibClosure(w, n-2) })
	return a + b
}

// countVoid counts the leaves of a binary tree of depth n with Worker.Join.
func countVoid(w *Worker, n int, leaves *atomic.Int64) {
	if n == 0 {
		leaves.Add(1)
		return
	}
	w.Join(func(w *Worker) { countVoid(w, n-1, leaves) }, func(w *Worker) { countVoid(w, n-1, leaves) })
}

func TestJoinResults(t *testing.T) {
	eachConfig(t, func(t *testing.T, p *Pool) {
		if got, want := doW(t, p, func(w *Worker) int { return fibArgs(w, 20) }), seqFib(20); got != want {
			t.Errorf("JoinArgs fib(20) = %d, want %d", got, want)
		}
		if got, want := doW(t, p, func(w *Worker) int { return fibClosure(w, 18) }), seqFib(18); got != want {
			t.Errorf("Join fib(18) = %d, want %d", got, want)
		}
		var leaves atomic.Int64
		doW(t, p, func(w *Worker) int { countVoid(w, 12, &leaves); return 0 })
		assert.EqualValues(t, 1<<12, leaves.Load(), "Worker.Join leaves")
		// Different result types at the same depth (a frame's job changes type).
		s, n := Do(p, func(w *Worker) string {
			s, n := Join(w, func(*Worker) string { return "x" }, func(*Worker) int { return 7 })
			return s + strings.Repeat("y", n)
		}), 0
		if s != "xyyyyyyy" || n != 0 {
			t.Errorf("mixed Join = %q", s)
		}
	})
}

// deepChain joins a deep recursion with a leaf at every level; the big local
// array makes each level's goroutine frame large, so the owner's stack grows
// (and is copied) many times while thieves hold its leaves.
func deepChain(w *Worker, n int) int {
	var pad [512]byte
	pad[n%len(pad)] = byte(n)
	if n == 0 {
		return int(pad[0])
	}
	a, b := JoinArgs(w, deepChain, n-1, deepLeaf, n)
	return a + b + int(pad[n%len(pad)]) - int(byte(n))
}

func deepLeaf(w *Worker, n int) int { return n }

func TestJoinDeepRecursion(t *testing.T) {
	depth := 10000
	if testing.Short() {
		depth = 2000
	}
	want := depth * (depth + 1) / 2
	for _, workers := range testWorkerCounts {
		withPool(t, []Option{WithWorkers(workers)}, func(p *Pool) {
			if got := doW(t, p, func(w *Worker) int { return deepChain(w, depth) }); got != want {
				t.Errorf("workers=%d: deep chain = %d, want %d", workers, got, want)
			}
			// The frames of the deep chain are reused by the next one.
			if got := doW(t, p, func(w *Worker) int { return deepChain(w, depth) }); got != want {
				t.Errorf("workers=%d: second deep chain = %d, want %d", workers, got, want)
			}
		})
	}
}

func TestJoinZeroAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for _, workers := range []int{1, 2} {
		withPool(t, []Option{WithWorkers(workers)}, func(p *Pool) {
			allocs := doW(t, p, func(w *Worker) float64 {
				fibArgs(w, 15) // warm up: frames get their argFrame
				return testing.AllocsPerRun(50, func() { fibArgs(w, 15) })
			})
			if allocs != 0 {
				t.Errorf("workers=%d: JoinArgs allocates %v times per fib(15)", workers, allocs)
			}
		})
	}
}

// stolenPair runs a join whose second half is certainly stolen: the first
// half waits until the second has started on another worker. It needs at
// least two workers. fa and fb run after that handshake, each with the
// worker running it (a Worker must not be used from another goroutine).
// The first half waits by forking, so that the second half is offered
// even where forks are lazy (offer.go): a request is seen at a fork.
func stolenPair(w *Worker, fa, fb func(w *Worker)) {
	var started atomic.Bool
	w.Join(func(w *Worker) {
		for !started.Load() {
			w.Join(nopW, nopW)
			runtime.Gosched()
		}
		fa(w)
	}, func(w *Worker) { started.Store(true); fb(w) })
}

func panicWith(v any) func() { return func() { panic(v) } }

// doJoinCase joins fa and fb in a Do on p, at the depth that name asks for
// (atDepthOf), with the second half stolen or not.
func doJoinCase(p *Pool, name string, stolen bool, fa, fb func(*Worker)) {
	Do(p, func(w *Worker) int {
		atDepthOf(name, w, func(w *Worker) {
			if stolen {
				stolenPair(w, fa, fb)
			} else {
				w.Join(fa, fb)
			}
		})
		return 0
	})
}

type joinPanicCase struct {
	name   string
	stolen bool
	fa, fb func()
	want   error
}

// lazyVariants returns cases followed by a copy of each whose name ends in
// "/lazy": atDepthOf runs those at a depth where forks are lazy.
func lazyVariants[C any](cases []C, name func(*C) *string) []C {
	out := append([]C(nil), cases...)
	for _, c := range cases {
		*name(&c) += "/lazy"
		out = append(out, c)
	}
	return out
}

// atDepthOf runs f on w directly, or at a lazy depth (atLazyDepth) for a
// case named by lazyVariants.
func atDepthOf(name string, w *Worker, f func(w *Worker)) {
	if strings.HasSuffix(name, "/lazy") {
		atLazyDepth(w, f)
		return
	}
	f(w)
}

func TestJoinPanics(t *testing.T) {
	errA, errB := errors.New("a"), errors.New("b")
	nop := func() {}
	cases := []joinPanicCase{
		{"a/inline", false, panicWith(errA), nop, errA},
		{"b/inline", false, nop, panicWith(errB), errB},
		{"both/inline", false, panicWith(errA), panicWith(errB), errA},
		{"a/stolen", true, panicWith(errA), nop, errA},
		{"b/stolen", true, nop, panicWith(errB), errB},
		{"both/stolen", true, panicWith(errA), panicWith(errB), errA},
	}
	for _, workers := range []int{1, 2, 8} {
		withPool(t, []Option{WithWorkers(workers)}, func(p *Pool) {
			for _, c := range lazyVariants(cases, func(c *joinPanicCase) *string { return &c.name }) {
				if c.stolen && workers == 1 {
					continue
				}
				var ranA, ranB atomic.Bool
				var v any
				within(t, "join", func() {
					v = catchPanic(func() {
						doJoinCase(p, c.name, c.stolen,
							func(*Worker) { ranA.Store(true); c.fa() },
							func(*Worker) { ranB.Store(true); c.fb() })
					})
				})
				pe, ok := v.(*PanicError)
				if !ok {
					t.Errorf("workers=%d %s: recovered %T %v, want *PanicError", workers, c.name, v, v)
					continue
				}
				if !errors.Is(pe, c.want) {
					t.Errorf("workers=%d %s: panic value %v, want %v", workers, c.name, pe.Value, c.want)
				}
				if !strings.Contains(string(pe.Stack), "panicWith") {
					t.Errorf("workers=%d %s: stack does not show the panicking function:\n%s", workers, c.name, pe.Stack)
				}
				if !ranA.Load() || !ranB.Load() {
					t.Errorf("workers=%d %s: ran a=%v b=%v, want both", workers, c.name, ranA.Load(), ranB.Load())
				}
				// The pool is intact.
				if got := doW(t, p, func(w *Worker) int { return fibArgs(w, 15) }); got != seqFib(15) {
					t.Errorf("workers=%d %s: fib after panic = %d", workers, c.name, got)
				}
			}
		})
	}
}

type joinGoexitCase struct {
	name   string
	stolen bool
	fa, fb func()
}

func TestJoinGoexit(t *testing.T) {
	cases := []joinGoexitCase{
		{"a/inline", false, runtime.Goexit, func() {}},
		{"b/inline", false, func() {}, runtime.Goexit},
		{"a/stolen", true, runtime.Goexit, func() {}},
		{"b/stolen", true, func() {}, runtime.Goexit},
	}
	for _, workers := range []int{1, 2} {
		// With calls on their callers (WithCallerRuns) the Goexit ends the
		// caller's goroutine, which was running as the worker; without,
		// a worker goroutine, which the pool replaces.
		for _, onCaller := range []bool{true, false} {
			withPool(t, []Option{WithWorkers(workers), WithCallerRuns(onCaller)}, func(p *Pool) {
				for _, c := range lazyVariants(cases, func(c *joinGoexitCase) *string { return &c.name }) {
					if c.stolen && workers == 1 {
						continue
					}
					var ranA, ranB atomic.Bool
					exited := exitsGoroutine(t, func() {
						doJoinCase(p, c.name, c.stolen,
							func(*Worker) { ranA.Store(true); c.fa() },
							func(*Worker) { ranB.Store(true); c.fb() })
					})
					if !exited {
						t.Errorf("workers=%d %s: Do returned; want the caller to Goexit", workers, c.name)
					}
					if !ranA.Load() || !ranB.Load() {
						t.Errorf("workers=%d %s: ran a=%v b=%v, want both", workers, c.name, ranA.Load(), ranB.Load())
					}
					if got := doW(t, p, func(w *Worker) int { return fibArgs(w, 15) }); got != seqFib(15) {
						t.Errorf("workers=%d %s: fib after Goexit = %d", workers, c.name, got)
					}
				}
				if !onCaller && p.Stats().Respawns == 0 {
					t.Errorf("workers=%d: no worker goroutine was replaced after Goexit", workers)
				}
			})
		}
	}
}

// TestJoinOwnerSleepsOnStolenHalf drives the rare path of Join: the second
// half is stolen, the owner runs out of other work and parks on the frame's
// latch, and the thief's Set wakes it.
func TestJoinOwnerSleepsOnStolenHalf(t *testing.T) {
	for _, k := range testParkings() {
		withPool(t, []Option{WithWorkers(2), WithParking(k)}, func(p *Pool) {
			release := make(chan struct{})
			var got int
			done := make(chan struct{})
			go func() {
				defer close(done)
				got = Do(p, func(w *Worker) int {
					started := make(chan struct{})
					a, b := Join(w, func(*Worker) int { <-started; return 1 },
						func(*Worker) int { close(started); <-release; return 2 })
					return a + b
				})
			}()
			within(t, "owner to park on the latch", func() {
				for p.Stats().JoinSleeps == 0 {
					runtime.Gosched()
				}
			})
			close(release)
			within(t, "join", func() { <-done })
			if got != 3 {
				t.Errorf("parking=%v: join = %d, want 3", k, got)
			}
			if st := p.Stats(); st.JoinsStolen == 0 || st.JoinSleeps == 0 {
				t.Errorf("parking=%v: stats %+v: want a stolen join and a sleep on it", k, st)
			}
		})
	}
}

// TestJoinNil checks that each join form panics naming itself, and that
// the worker goes on joining afterwards.
func TestJoinNil(t *testing.T) {
	withPool(t, []Option{WithWorkers(2)}, func(p *Pool) {
		requireTaskPanics(t, p, "blitz: JoinArgs: nil function", func(w *Worker) {
			JoinArgs[int, int, int, int](w, nil, 1, fibArgs, 2)
		})
		requireTaskPanics(t, p, "blitz: Worker.Join: nil function", func(w *Worker) { w.Join(nil, func(*Worker) {}) })
		requireTaskPanics(t, p, "blitz: Join: nil function", func(w *Worker) {
			Join[int, int](w, func(*Worker) int { return 0 }, nil)
		})
		assert.Equal(t, 55, doW(t, p, func(w *Worker) int { return fibArgs(w, 10) }), "fib after nil joins")
	})
}
