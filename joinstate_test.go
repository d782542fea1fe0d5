package blitz

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestJoinRestoresDepth pins the depth protocol of join.go: whatever way a
// join ends (normally, a half panicking inline or stolen, caught by the
// task), the worker's depth is the one it had before, so the next join uses
// the same frame, and the second half ran.
func TestJoinRestoresDepth(t *testing.T) {
	errA, errB := errors.New("a"), errors.New("b")
	nop := func() {}
	cases := []struct {
		name   string
		stolen bool
		fa, fb func()
		want   error
	}{
		{"normal/inline", false, nop, nop, nil},
		{"a/inline", false, panicWith(errA), nop, errA},
		{"b/inline", false, nop, panicWith(errB), errB},
		{"normal/stolen", true, nop, nop, nil},
		{"a/stolen", true, panicWith(errA), nop, errA},
		{"b/stolen", true, nop, panicWith(errB), errB},
	}
	for _, workers := range []int{1, 2} {
		withPool(t, []Option{WithWorkers(workers)}, func(p *Pool) {
			for _, c := range cases {
				if c.stolen && workers == 1 {
					continue
				}
				var ranB atomic.Bool
				doW(t, p, func(w *Worker) int {
					// Nest inside a join of our own, so the depth under
					// test is not 0.
					w.Join(func(w *Worker) {
						before := w.depth
						v := catchPanic(func() {
							fa := func(*Worker) { c.fa() }
							fb := func(*Worker) { ranB.Store(true); c.fb() }
							if c.stolen {
								stolenPair(w, fa, fb)
							} else {
								w.Join(fa, fb)
							}
						})
						if c.want == nil && v != nil || c.want != nil && !errors.Is(asError(v), c.want) {
							t.Errorf("workers=%d %s: recovered %v, want %v", workers, c.name, v, c.want)
						}
						if w.depth != before || before == 0 {
							t.Errorf("workers=%d %s: depth %d after the join, %d before (want equal, > 0)", workers, c.name, w.depth, before)
						}
					}, func(*Worker) {})
					return 0
				})
				if !ranB.Load() {
					t.Errorf("workers=%d %s: b did not run", workers, c.name)
				}
			}
		})
	}
}

func asError(v any) error {
	err, _ := v.(error)
	return err
}

// TestJoinGoexitWhileAwaitingStolenHalf drives the joinDepthAwait case of
// unwindJoin: the joiner's second half b is stolen and still running, the
// joiner helps meanwhile by stealing from its thief, and the job it takes (a
// half forked inside b) calls runtime.Goexit, which unwinds the joiner's
// wait. The join must still wait for the thief before the Goexit goes on
// (the thief writes into the frame until its Set), the Goexit then reaches
// the caller (b ended with it too), and the pool must keep working. The
// joiner may be asleep on its latch by the time the thief pushes the half:
// the push nudges it (TestJoinWaiterNudgedByThiefsPush).
func TestJoinGoexitWhileAwaitingStolenHalf(t *testing.T) {
	withPool(t, []Option{WithWorkers(2)}, func(p *Pool) {
		var (
			joiner, helper atomic.Int64 // worker indexes
			bDone          atomic.Bool
			bStarted       = make(chan struct{})
			helping        = make(chan struct{}) // the Goexit half started
			release        = make(chan struct{}) // lets the stolen half finish
			callerEnd      = make(chan bool, 1)  // b was done when the caller ended
		)
		goexitHalf := func(w *Worker) {
			helper.Store(int64(w.Index()))
			close(helping)
			runtime.Goexit()
		}
		go func() {
			defer func() { callerEnd <- bDone.Load() }() // runs on Goexit too
			Do(p, func(w *Worker) int {
				joiner.Store(int64(w.Index()))
				w.Join(func(*Worker) {
					<-bStarted // b is running on the other worker: it was stolen
				}, func(w *Worker) {
					defer bDone.Store(true) // b ends with the Goexit of its half
					close(bStarted)
					// The joiner, waiting, steals goexitHalf from this worker.
					w.Join(func(*Worker) { <-helping; <-release }, goexitHalf)
				})
				return 0
			})
		}()
		within(t, "the Goexit half starting", func() { <-helping })
		// The thief is blocked until release, so only the joiner can have
		// run the half, and its join cannot have finished.
		if h, j := helper.Load(), joiner.Load(); h != j {
			t.Errorf("the Goexit half ran on worker %d, the joiner is %d", h, j)
		}
		select {
		case <-callerEnd:
			t.Error("the joiner's caller ended while the stolen half was still running")
		default:
		}
		close(release)
		var done bool
		within(t, "the joiner finishing after the stolen half was released", func() { done = <-callerEnd })
		if !done {
			t.Error("the joiner's caller ended before the stolen half finished")
		}
		if got := doW(t, p, func(w *Worker) int { return fibArgs(w, 15) }); got != seqFib(15) {
			t.Errorf("fib after Goexit = %d", got)
		}
	})
}

// TestJoinWaiterNudgedByThiefsPush: a joiner whose half was stolen asks its
// thief for work, finds none, and falls asleep on its latch, where the
// counters' wakes do not reach it. When the thief then pushes a job (a fork
// inside the stolen half), the push must nudge the joiner awake to take it:
// here the job's first half waits for its second, which only the joiner
// can run, so without the nudge the pool would wait for ever.
func TestJoinWaiterNudgedByThiefsPush(t *testing.T) {
	for _, k := range testParkings() {
		t.Run(fmt.Sprintf("parking=%v", k), func(t *testing.T) {
			// Capped at two: a worker added for the blocked thief could
			// take the pushed half before the nudged joiner does.
			withPool(t, []Option{WithWorkers(2), WithMaxWorkers(2), WithParking(k)}, func(p *Pool) {
				var joiner, helper atomic.Int64
				bStarted := make(chan struct{})
				fork := make(chan struct{}) // lets the thief fork once the joiner sleeps
				done := make(chan struct{})
				go func() {
					defer close(done)
					Do(p, func(w *Worker) int {
						joiner.Store(int64(w.Index()))
						w.Join(func(*Worker) { <-bStarted }, func(w *Worker) {
							close(bStarted)
							<-fork
							ran := make(chan struct{})
							w.Join(func(*Worker) { <-ran }, func(w *Worker) {
								helper.Store(int64(w.Index()))
								close(ran)
							})
						})
						return 0
					})
				}()
				within(t, "the joiner asleep on its latch", func() {
					for p.Stats().JoinSleeps == 0 {
						runtime.Gosched()
					}
				})
				close(fork)
				waitOrDump(t, done, "the joiner nudged by its thief's push")
				assert.Equal(t, joiner.Load(), helper.Load(), "the pushed half ran elsewhere than on the joiner")
			})
		})
	}
}
