package sleep

import (
	"runtime"
	"testing"
	"time"
)

// signalParker reports each Park on parked, then blocks until Unpark.
type signalParker struct {
	parked chan struct{}
	token  chan struct{}
}

func newSignalParker() *signalParker {
	return &signalParker{parked: make(chan struct{}, 1), token: make(chan struct{}, 1)}
}

func (p *signalParker) Park() {
	select {
	case p.parked <- struct{}{}:
	default:
	}
	<-p.token
}

func (p *signalParker) Unpark() {
	select {
	case p.token <- struct{}{}:
	default:
	}
}

func dumpAndFail(t *testing.T, what string) {
	t.Helper()
	buf := make([]byte, 1<<20)
	t.Fatalf("%s: no progress after 30s; goroutines:\n%s", what, buf[:runtime.Stack(buf, true)])
}

// sleepsThroughPost drives one worker to the brink of sleep: idle rounds, then
// sleepy, then its one more search (which finds nothing). Then a job is
// posted to an internal queue, and the worker takes its final step. It
// reports whether the worker went to sleep anyway, with the job waiting and
// no wake coming: the poster saw no sleeper.
func sleepsThroughPost(t *testing.T, blitzParity bool) bool {
	p := newSignalParker()
	s, err := New(Config{Parkers: []Parker{p}, Yield: func() {}, RoundsUntilSleepy: 3})
	if err != nil {
		t.Fatal(err)
	}
	var latch CoreLatch
	noInjected := func() bool { return false }

	idle := s.StartLooking(0)
	for i := 0; i < 3; i++ { // the yield rounds
		s.NoWorkFound(&idle, &latch, noInjected)
	}
	if blitzParity {
		// The sleepy round of NoWorkFound (rounds == roundsUntilSleepy) under
		// the mutant rule: increment "if even", the same rule as posters.
		// After it, a poster finds the JEC odd and leaves it alone.
		idle.jec = s.counters.incrementJECIf(jecIsSleepy).jec()
		idle.rounds++
	} else {
		s.NoWorkFound(&idle, &latch, noInjected) // gets sleepy
	}
	if idle.jec == jecDummy {
		t.Fatal("worker did not get sleepy")
	}
	// The worker searches once more and finds nothing; now the job comes.
	s.NewInternalJobs(1, true)

	done := make(chan struct{})
	go func() {
		s.NoWorkFound(&idle, &latch, noInjected) // tries to sleep
		close(done)
	}()
	select {
	case <-done:
		if sl, _, _ := s.CounterValues(); sl != 0 {
			t.Fatalf("worker stayed awake but the sleeping count is %d", sl)
		}
		if idle.rounds != s.roundsUntilSleepy || latch.state.Load() != latchUnset {
			t.Fatalf("after seeing the JEC move: rounds %d (want %d), latch %d",
				idle.rounds, s.roundsUntilSleepy, latch.state.Load())
		}
		return false
	case <-p.parked:
		if sl, _, _ := s.CounterValues(); sl != 1 {
			t.Fatalf("worker parked but the sleeping count is %d", sl)
		}
		// Unblock it the way a stopping pool would.
		if !latch.Set() {
			t.Fatal("parked worker's latch was not Sleeping")
		}
		s.NotifyWorkerLatchIsSet(0)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			dumpAndFail(t, "waking the parked worker")
		}
		return true
	case <-time.After(30 * time.Second):
		dumpAndFail(t, "worker trying to sleep")
	}
	return false
}

// TestJECParitySeesPostBetweenSleepyAndSleeping: with Rayon's parity (posters
// turn even to odd, a sleepy worker turns odd to even and remembers the
// value) a job posted between "sleepy" and "sleeping" keeps the worker awake.
func TestJECParitySeesPostBetweenSleepyAndSleeping(t *testing.T) {
	if sleepsThroughPost(t, false) {
		t.Fatal("the worker slept through a job posted while it was sleepy")
	}
}

// TestJECParityMutantMissesPost: the same scenario under the rule of
// the protocol text Blitz follows (a sleepy worker increments "if even", like a
// poster) loses the job: the worker sleeps and nobody wakes it. This is
// the check that the test above can fail.
func TestJECParityMutantMissesPost(t *testing.T) {
	if !sleepsThroughPost(t, true) {
		t.Fatal("the mutant parity rule saw the post; the parity test would pass vacuously")
	}
}
