package blitz

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The outcome of one submission in TestSubmitRacesShutdown, as its
// submitter saw it.
const (
	outNone      int32 = iota // not submitted (a bug in the test)
	outAccepted               // nil: the task must have run exactly once
	outClosed                 // ErrClosed: the task must never run
	outFull                   // ErrQueueFull: the task must never run
	outCtx                    // the context ended before the task was accepted or started: never runs
	outAbandoned              // DoContext/TryDo's context ended: the task ran at most once
)

// submitPaths are the submission paths the stress test cycles through.
var submitPaths = []string{"Go", "TryGo", "GoContext", "DoContext", "TryDo", "Run", "Do"}

// submitOne submits task id on path and classifies what its submitter got.
// ctx is the round's context, cancelled while the round races Close.
func submitOne(t *testing.T, p *Pool, ctx context.Context, path string, task func(*Worker)) int32 {
	var err error
	abandonable := false
	switch path {
	case "Go":
		err = p.Go(task)
	case "TryGo":
		err = p.TryGo(task)
	case "GoContext":
		err = p.GoContext(ctx, task)
	case "DoContext", "TryDo":
		f := DoContext[int]
		if path == "TryDo" {
			f = TryDo[int]
		}
		var v int
		v, err = f(ctx, p, func(w *Worker) int { task(w); return 42 })
		if err == nil && v != 42 {
			t.Errorf("%s result %d, want 42", path, v)
		}
		abandonable = true
	case "Run", "Do":
		v := catchPanic(func() {
			if path == "Run" {
				p.Run(task)
			} else if r := Do(p, func(w *Worker) int { task(w); return 42 }); r != 42 {
				t.Errorf("Do result %d, want 42", r)
			}
		})
		if v != nil {
			var ok bool
			if err, ok = v.(error); !ok {
				err = fmt.Errorf("%s panicked with %v", path, v)
			}
		}
	}
	switch {
	case err == nil:
		return outAccepted
	case errors.Is(err, ErrClosed):
		return outClosed
	case errors.Is(err, ErrQueueFull):
		return outFull
	case errors.Is(err, context.Canceled) && abandonable:
		return outAbandoned
	case errors.Is(err, context.Canceled):
		return outCtx
	}
	t.Errorf("%s: unexpected error %v", path, err)
	return outNone
}

// TestSubmitRacesShutdown races submitters on every submission path
// (Go, TryGo, GoContext, DoContext, TryDo, Run, Do) against Close or
// Shutdown and against the cancellation of their context, on every backend,
// with and without a capacity. The invariant, checked per task: a task whose
// submitter got nil ran exactly once, and before Close returned; one refused
// with ErrClosed, ErrQueueFull, or a context error before it was accepted
// never ran; one whose DoContext gave up on it ran at most once; so ran +
// refused == submitted, and nothing runs after Close returned. Some tasks
// submit a follow-up with Go from inside the pool (let in over a full
// queue): accepted, it runs exactly once before Close returns; refused, it
// got ErrClosed and never runs. The rare path it must reach is a submission
// refused because the pool had closed (with others of the same round
// accepted).
func TestSubmitRacesShutdown(t *testing.T) {
	rounds, submitters, each := 3, 8, 150
	if testing.Short() {
		rounds, submitters, each = 1, 4, 35
	}
	var c stressCounts
	for _, k := range serverParkings() {
		for _, workers := range testWorkerCounts {
			for _, capacity := range []int{0, 2} {
				name := fmt.Sprintf("parking=%v/workers=%d/capacity=%d", k, workers, capacity)
				t.Run(name, func(t *testing.T) {
					for r := 0; r < rounds; r++ {
						withPool(t, []Option{WithParking(k), WithWorkers(workers), WithCapacity(capacity)}, func(p *Pool) {
							stressRound(t, p, r, submitters, each, &c)
						})
					}
				})
			}
		}
	}
	t.Logf("rounds with accepted and closed-refused tasks: %d; refusals: %d closed, %d full, %d context; "+
		"%d given up by DoContext/TryDo, %d of them ran; follow-ups from tasks: %d accepted, %d refused",
		c.closedRounds.Load(), c.closedRefusals.Load(), c.fullRefusals.Load(), c.ctxRefusals.Load(),
		c.abandoned.Load(), c.abandonedRan.Load(), c.children.Load(), c.childrenRefused.Load())
	if c.closedRounds.Load() == 0 {
		if testing.Short() {
			t.Log("no round had a submission refused after Close began (-short)")
		} else {
			t.Error("no round had a submission refused after Close began: the race with Close did not happen")
		}
	}
}

// stressCounts are TestSubmitRacesShutdown's tallies over all rounds.
type stressCounts struct {
	closedRounds                              atomic.Int64 // rounds with tasks accepted and tasks refused for Close
	closedRefusals, fullRefusals, ctxRefusals atomic.Int64
	abandoned, abandonedRan                   atomic.Int64 // given up by DoContext/TryDo; those that ran anyway
	children, childrenRefused                 atomic.Int64 // follow-ups submitted from tasks
}

// stressRound is one round of TestSubmitRacesShutdown on pool p.
func stressRound(t *testing.T, p *Pool, round, submitters, each int, c *stressCounts) {
	total := submitters * each
	runs := make([]atomic.Int32, total)
	outcomes := make([]atomic.Int32, total)
	childRuns := make([]atomic.Int32, total)     // follow-ups submitted by task id
	childOutcomes := make([]atomic.Int32, total) // outNone: the task submitted none
	var ran atomic.Int64                         // tasks and follow-ups
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	start := make(chan struct{})
	var halfway, done sync.WaitGroup
	halfway.Add(submitters)
	done.Add(submitters)
	for s := 0; s < submitters; s++ {
		go func() {
			defer done.Done()
			<-start
			for i := 0; i < each; i++ {
				if i == each/2 {
					halfway.Done()
				}
				id := s*each + i
				path := submitPaths[(s+i)%len(submitPaths)]
				task := func(w *Worker) {
					fibArgs(w, 4)
					runs[id].Add(1)
					ran.Add(1)
					if id%5 == 0 {
						// A follow-up submitted from the task: let in
						// over a full queue, refused once Close began.
						err := p.Go(func(*Worker) { childRuns[id].Add(1); ran.Add(1) })
						switch {
						case err == nil:
							childOutcomes[id].Store(outAccepted)
						case errors.Is(err, ErrClosed):
							childOutcomes[id].Store(outClosed)
						default:
							t.Errorf("Go from a task: %v", err)
						}
					}
				}
				outcomes[id].Store(submitOne(t, p, ctx, path, task))
			}
		}()
	}

	stopStats := make(chan struct{})
	snapshots := watchStats(t, p, stopStats)

	// The closer: once every submitter is halfway, it shuts the pool
	// down (Close, Shutdown without a deadline, or Shutdown with an ended
	// context and then Close) while another goroutine cancels the
	// submitters' context.
	var ranAtClose int64
	close(start)
	within(t, "submitters halfway", halfway.Wait)
	cancelDone := make(chan struct{})
	go func() { defer close(cancelDone); cancel() }()
	within(t, "shutting down", func() {
		switch round % 3 {
		case 0:
			assert.NoError(t, p.Close(), "Close")
		case 1:
			assert.NoError(t, p.Shutdown(context.Background()), "Shutdown")
		case 2:
			var se *ShutdownError
			if err := p.Shutdown(cancelled()); err != nil && !errors.As(err, &se) {
				t.Errorf("Shutdown(cancelled) = %v, want nil or a *ShutdownError", err)
			}
			assert.NoError(t, p.Close(), "Close after Shutdown(cancelled)")
		}
		ranAtClose = ran.Load()
	})
	within(t, "submitters", done.Wait)
	within(t, "cancel", func() { <-cancelDone })
	close(stopStats)
	within(t, "the Stats reader", func() { <-snapshots })

	var accepted, refused, abandonedRan, closedHere, fullHere, children int64
	for id := 0; id < total; id++ {
		switch cr, co := childRuns[id].Load(), childOutcomes[id].Load(); {
		case co == outAccepted && cr != 1:
			t.Errorf("the follow-up of task %d was accepted and ran %d times", id, cr)
		case co == outClosed && cr != 0:
			t.Errorf("the follow-up of task %d was refused and ran %d times", id, cr)
		case co == outNone && cr != 0:
			t.Errorf("task %d submitted no follow-up, yet one ran %d times", id, cr)
		case co == outAccepted:
			children++
		case co == outClosed:
			closedHere++
			c.childrenRefused.Add(1)
		}
	}
	for id := 0; id < total; id++ {
		r, o := runs[id].Load(), outcomes[id].Load()
		switch {
		case r > 1:
			t.Fatalf("task %d (%s) ran %d times", id, submitPaths[(id/each+id%each)%len(submitPaths)], r)
		case o == outAccepted:
			accepted++
			if r != 1 {
				t.Errorf("task %d was accepted and ran %d times", id, r)
			}
		case o == outAbandoned:
			c.abandoned.Add(1)
			abandonedRan += int64(r)
		case o == outClosed || o == outFull || o == outCtx:
			refused++
			if r != 0 {
				t.Errorf("task %d was refused (outcome %d) and ran", id, o)
			}
			switch o {
			case outClosed:
				closedHere++
			case outFull:
				fullHere++
			case outCtx:
				c.ctxRefusals.Add(1)
			}
		default:
			t.Errorf("task %d has no outcome (%d)", id, o)
		}
	}
	c.closedRefusals.Add(closedHere)
	c.fullRefusals.Add(fullHere)
	c.children.Add(children)
	// After Close: the gauges are empty, everything accepted completed,
	// and Rejected counts exactly the ErrQueueFull answers.
	st := p.Stats()
	if st.Queued != 0 || st.Running != 0 || st.Completed != st.Injected || st.Rejected != uint64(fullHere) {
		t.Errorf("Stats after Close: %d queued, %d running, %d of %d completed, %d rejected (%d ErrQueueFull answers)",
			st.Queued, st.Running, st.Completed, st.Injected, st.Rejected, fullHere)
	}
	// Calls that ran on their callers (WithCallerRuns) were accepted
	// without being submitted.
	if lo := uint64(accepted+children) - st.CallerRuns; st.Injected < lo || st.Injected > lo+uint64(abandonedHere(outcomes)) {
		t.Errorf("Stats.Injected %d after Close; %d tasks and %d follow-ups accepted, %d given up", st.Injected, accepted, children, abandonedHere(outcomes))
	}
	c.abandonedRan.Add(abandonedRan)
	if closedHere > 0 && accepted > 0 {
		c.closedRounds.Add(1)
	}
	if got := ran.Load(); got != accepted+abandonedRan+children || got != ranAtClose {
		t.Errorf("ran %d (%d by the time Close returned); accepted %d + abandoned that ran %d + follow-ups %d",
			got, ranAtClose, accepted, abandonedRan, children)
	}
	if ran.Load()-children+refused+int64(outcomesAbandonedNotRun(runs, outcomes)) != int64(total) {
		t.Errorf("ran %d - follow-ups %d + refused %d + abandoned unrun != submitted %d", ran.Load(), children, refused, total)
	}
}

// abandonedHere counts the tasks DoContext or TryDo gave up on (accepted or
// not).
func abandonedHere(outcomes []atomic.Int32) int {
	n := 0
	for id := range outcomes {
		if outcomes[id].Load() == outAbandoned {
			n++
		}
	}
	return n
}

// outcomesAbandonedNotRun counts the tasks DoContext gave up on that never
// ran (withdrawn from the queue).
func outcomesAbandonedNotRun(runs, outcomes []atomic.Int32) int {
	n := 0
	for id := range runs {
		if outcomes[id].Load() == outAbandoned && runs[id].Load() == 0 {
			n++
		}
	}
	return n
}

// TestSubmitRoomWaitersStress keeps a queue of one or two slots full with
// many submitters waiting for room (Go, GoContext, DoContext), while a
// canceller goroutine cancels a third of their contexts at random moments,
// some of them while their submitter waits, some just as room is handed to
// it. A waiter that is cancelled after it was chosen for the room must pass
// the room on: a lost hand-off leaves the others waiting forever (the
// watchdog fails the test). Invariant, per task: accepted ran exactly once,
// refused for its context never ran, given up by DoContext ran at most once;
// ran + refused == submitted. The rare path it must reach: a GoContext
// cancelled after it began to wait for room (it had watched its context).
func TestSubmitRoomWaitersStress(t *testing.T) {
	rounds, submitters, each := 1, 8, 90
	if testing.Short() {
		rounds, submitters, each = 1, 4, 40
	}
	var ctxRefusals, waitCancelled, abandoned atomic.Int64
	for _, k := range serverParkings() {
		for _, workers := range testWorkerCounts {
			for _, capacity := range []int{1, 2} {
				t.Run(fmt.Sprintf("parking=%v/workers=%d/capacity=%d", k, workers, capacity), func(t *testing.T) {
					for r := 0; r < rounds; r++ {
						withPool(t, []Option{WithParking(k), WithWorkers(workers), WithCapacity(capacity)}, func(p *Pool) {
							waitersRound(t, p, submitters, each, &ctxRefusals, &waitCancelled, &abandoned)
						})
					}
				})
			}
		}
	}
	t.Logf("refused for their context: %d, of which GoContext cancelled while waiting for room: %d; given up by DoContext: %d",
		ctxRefusals.Load(), waitCancelled.Load(), abandoned.Load())
	if waitCancelled.Load() == 0 {
		if testing.Short() {
			t.Log("no GoContext was cancelled while it waited for room (-short)")
		} else {
			t.Error("no GoContext was cancelled while it waited for room: the rare path did not run")
		}
	}
}

func waitersRound(t *testing.T, p *Pool, submitters, each int, ctxRefusals, waitCancelled, abandoned *atomic.Int64) {
	total := submitters * each
	runs := make([]atomic.Int32, total)
	outcomes := make([]atomic.Int32, total)
	var ran atomic.Int64
	cancels := make(chan context.CancelFunc, total)
	cancellerDone := make(chan struct{})
	go func() {
		defer close(cancellerDone)
		for c := range cancels {
			runtime.Gosched() // let the submitter get into its wait
			c()
		}
	}()
	start := make(chan struct{})
	var wg sync.WaitGroup
	paths := []string{"Go", "GoContext", "DoContext"}
	for s := 0; s < submitters; s++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for i := 0; i < each; i++ {
				id := s*each + i
				ctx, cancel := context.WithCancel(context.Background())
				if i%3 == 0 {
					cancels <- cancel
				}
				task := func(w *Worker) {
					fibArgs(w, 3)
					runs[id].Add(1)
					ran.Add(1)
				}
				path := paths[(s+i)%len(paths)]
				wctx := watch(ctx)
				o := submitOne(t, p, wctx, path, task)
				outcomes[id].Store(o)
				cancel()
				if path == "GoContext" && o == outCtx {
					select {
					case <-wctx.watched: // it got as far as waiting for room
						waitCancelled.Add(1)
					default:
					}
				}
			}
		}()
	}
	stopStats := make(chan struct{})
	snapshots := watchStats(t, p, stopStats)
	close(start)
	within(t, "submitters waiting for room", wg.Wait)
	close(cancels)
	within(t, "canceller", func() { <-cancellerDone })
	within(t, "Shutdown", func() {
		assert.NoError(t, p.Shutdown(context.Background()), "Shutdown")
	})
	close(stopStats)
	within(t, "the Stats reader", func() { <-snapshots })
	if st := p.Stats(); st.Queued != 0 || st.Running != 0 || st.Completed != st.Injected || st.Rejected != 0 {
		t.Errorf("Stats after Shutdown: %d queued, %d running, %d of %d completed, %d rejected (no TryGo)",
			st.Queued, st.Running, st.Completed, st.Injected, st.Rejected)
	}
	var accepted, refused, abandonedHere int64
	for id := 0; id < total; id++ {
		r, o := runs[id].Load(), outcomes[id].Load()
		switch {
		case r > 1:
			t.Fatalf("task %d ran %d times", id, r)
		case o == outAccepted:
			accepted++
			if r != 1 {
				t.Errorf("task %d was accepted and ran %d times", id, r)
			}
		case o == outCtx:
			refused++
			if r != 0 {
				t.Errorf("task %d was refused for its context and ran", id)
			}
		case o == outAbandoned:
			abandonedHere++
			if r == 0 {
				refused++ // withdrawn before it started
			}
		default:
			t.Errorf("task %d: outcome %d (nothing closes the pool and TryGo is not used)", id, o)
		}
	}
	ctxRefusals.Add(refused)
	abandoned.Add(abandonedHere)
	if got := ran.Load(); got+refused != int64(total) {
		t.Errorf("ran %d + refused %d != submitted %d (accepted %d)", got, refused, total, accepted)
	}
}

// watchStats reads p.Stats in a loop until stop is closed, and checks every
// snapshot: Injected == Queued + Running + Completed, neither gauge
// negative, and no counter smaller than in the snapshot before (exporters
// such as Prometheus read a counter that went down as a reset). The
// returned channel yields the number of snapshots taken.
func watchStats(t *testing.T, p *Pool, stop <-chan struct{}) <-chan int {
	n := make(chan int, 1)
	go func() {
		var prev Stats
		count, bad := 0, 0
		for {
			select {
			case <-stop:
				n <- count
				return
			default:
			}
			st := p.Stats()
			count++
			var why string
			switch {
			case st.Queued < 0 || st.Running < 0:
				why = "a negative gauge"
			case st.Injected != uint64(st.Queued+st.Running)+st.Completed:
				why = "Injected != Queued + Running + Completed"
			case st.Injected < prev.Injected || st.Completed < prev.Completed || st.Rejected < prev.Rejected || st.Panics < prev.Panics:
				why = "a counter went down"
			}
			if why != "" && bad < 3 {
				bad++
				t.Errorf("Stats snapshot %d: %s: %d queued, %d running, %d completed, %d injected, %d rejected (before: %d, %d, %d, %d, %d)",
					count, why, st.Queued, st.Running, st.Completed, st.Injected, st.Rejected,
					prev.Queued, prev.Running, prev.Completed, prev.Injected, prev.Rejected)
			}
			prev = st
			runtime.Gosched()
		}
	}()
	return n
}

// TestTryGoNeverFullBelowCapacity checks that TryGo and TryDo refuse only a
// queue that is really full. Each submitter keeps at most one task
// outstanding (TryDo waits for its result; a TryGo is waited for before the
// next), so the queue never holds more than submitters < capacity tasks and
// ErrQueueFull is always wrong. The race it targets: a submitter's capacity
// check that reads the queue's head after a consumer moved it past the tail
// the submitter read, which must not look like a full queue. The rare path
// counted: submissions made while another was in flight.
func TestTryGoNeverFullBelowCapacity(t *testing.T) {
	const submitters, capacity = 8, 16
	each := 2000
	if testing.Short() {
		each = 500
	}
	var contended atomic.Int64
	for _, k := range serverParkings() {
		for _, workers := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("parking=%v/workers=%d", k, workers), func(t *testing.T) {
				withPool(t, []Option{WithParking(k), WithWorkers(workers), WithCapacity(capacity)}, func(p *Pool) {
					var full, inflight atomic.Int64
					together(t, "submitters", submitters, func(s int) {
						for i := 0; i < each; i++ {
							if inflight.Add(1) > 1 {
								contended.Add(1)
							}
							var err error
							if i%2 == 0 {
								var v int
								v, err = TryDo(context.Background(), p, func(*Worker) int { return i })
								if err == nil && v != i {
									t.Errorf("TryDo = %d, want %d", v, i)
								}
							} else {
								done := make(chan struct{})
								if err = p.TryGo(func(*Worker) { close(done) }); err == nil {
									<-done
								}
							}
							inflight.Add(-1)
							switch {
							case errors.Is(err, ErrQueueFull):
								full.Add(1)
							case err != nil:
								t.Errorf("submit: %v", err)
							}
						}
					})
					if n := full.Load(); n != 0 {
						t.Errorf("%d of %d submissions refused with ErrQueueFull; the queue never held more than %d of its %d slots",
							n, submitters*each, submitters, capacity)
					}
					if r := p.Stats().Rejected; r != uint64(full.Load()) {
						t.Errorf("Stats.Rejected = %d, want %d", r, full.Load())
					}
				})
			})
		}
	}
	if contended.Load() == 0 {
		if testing.Short() {
			t.Log("no submission overlapped another (-short)")
		} else {
			t.Error("no submission overlapped another: the race did not happen")
		}
	} else {
		t.Logf("submissions made while another was in flight: %d", contended.Load())
	}
}
