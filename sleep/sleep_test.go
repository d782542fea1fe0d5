package sleep

import (
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// countParker counts Unparks and never blocks.
type countParker struct{ unparks atomic.Int32 }

func (p *countParker) Park()   {}
func (p *countParker) Unpark() { p.unparks.Add(1) }

// newTestSleep returns a Sleep over n counting parkers, with workers
// [0, sleepers) registered as sleeping and [sleepers, sleepers+idle) idle.
func newTestSleep(t *testing.T, n, sleepers, idle int) (*Sleep, []*countParker) {
	t.Helper()
	cps := make([]*countParker, n)
	ps := make([]Parker, n)
	for i := range ps {
		cps[i] = new(countParker)
		ps[i] = cps[i]
	}
	s, err := New(Config{Parkers: ps})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < sleepers+idle; i++ {
		s.StartLooking(i)
	}
	for i := 0; i < sleepers; i++ {
		s.markSleeper(s.state(i)) // as sleep's S5 does
		if !s.counters.tryAddSleepingThread(s.counters.load()) {
			t.Fatal("tryAddSleepingThread")
		}
		s.state(i).isBlocked = true
	}
	return s, cps
}

func totalUnparks(cps []*countParker) (n int) {
	for _, p := range cps {
		n += int(p.unparks.Load())
	}
	return n
}

// TestNoWakeWithoutSleepers: posting with nobody asleep wakes nobody and
// only turns the JEC odd.
func TestNoWakeWithoutSleepers(t *testing.T) {
	s, cps := newTestSleep(t, 4, 0, 2)
	s.NewInjectedJobs(3, false)
	s.NewInternalJobs(3, true)
	if n := totalUnparks(cps); n != 0 {
		t.Fatalf("%d Unparks with nobody asleep", n)
	}
	if w := s.counters.load(); w != packCounters(0, 2, 1) {
		t.Fatalf("counters %#x, want JEC 1 and 2 inactive", uint64(w))
	}
}

// TestWakeDecisions pins newJobs' arithmetic: wake only as many sleepers as
// the awake-but-idle workers cannot absorb, one per job if the queue already
// held work, never more than sleep; the waker decrements sleeping.
func TestWakeDecisions(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		sleepers, idle, jobs int
		queueWasEmpty        bool
		want                 int
	}{
		{"idle worker absorbs one job", 2, 1, 1, true, 0},
		{"idle worker absorbs one of two", 2, 1, 2, true, 1},
		{"no idle worker", 2, 0, 1, true, 1},
		{"queue had work", 2, 1, 1, false, 1},
		{"capped by sleepers", 2, 0, 5, false, 2},
		{"capped by sleepers, empty queue", 3, 1, 9, true, 3},
		{"zero jobs", 2, 0, 0, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, cps := newTestSleep(t, 4, tc.sleepers, tc.idle)
			s.NewInternalJobs(tc.jobs, tc.queueWasEmpty)
			if got := totalUnparks(cps); got != tc.want {
				t.Fatalf("woke %d, want %d", got, tc.want)
			}
			if sl := s.counters.load().sleepingThreads(); int(sl) != tc.sleepers-tc.want {
				t.Fatalf("sleeping %d after waking %d of %d", sl, tc.want, tc.sleepers)
			}
			blocked := 0
			for i := range s.Workers() {
				if s.state(i).isBlocked {
					blocked++
				}
			}
			if blocked != tc.sleepers-tc.want {
				t.Fatalf("%d workers still blocked, want %d", blocked, tc.sleepers-tc.want)
			}
		})
	}
}

// TestNewInjectedJobsLazy: the lazy form asks whether the queue was empty
// only when someone sleeps, and then decides as for a known answer.
func TestNewInjectedJobsLazy(t *testing.T) {
	asked := 0
	empty := func(v bool) func() bool { return func() bool { asked++; return v } }
	s, cps := newTestSleep(t, 4, 0, 2)
	s.NewInjectedJobsLazy(1, empty(true))
	if asked != 0 || totalUnparks(cps) != 0 {
		t.Fatalf("nobody asleep: asked %d times, woke %d", asked, totalUnparks(cps))
	}
	for _, tc := range []struct {
		wasEmpty bool
		want     int
	}{{true, 0}, {false, 1}} { // one idle worker absorbs a job into an empty queue
		s, cps := newTestSleep(t, 4, 2, 1)
		asked = 0
		s.NewInjectedJobsLazy(1, empty(tc.wasEmpty))
		if asked != 1 || totalUnparks(cps) != tc.want {
			t.Fatalf("wasEmpty %v: asked %d times, woke %d, want once and %d", tc.wasEmpty, asked, totalUnparks(cps), tc.want)
		}
	}
}

// TestWorkFoundWakesUpToTwo: a worker that found work wakes min(sleeping, 2)
// sleepers.
func TestWorkFoundWakesUpToTwo(t *testing.T) {
	for sleepers, want := range []int{0, 1, 2, 2} {
		s, cps := newTestSleep(t, 4, sleepers, 1)
		s.WorkFound()
		if got := totalUnparks(cps); got != want {
			t.Errorf("%d sleepers: WorkFound woke %d, want %d", sleepers, got, want)
		}
	}
}

// TestNotifyWorkerLatchIsSet wakes exactly the named worker, once.
func TestNotifyWorkerLatchIsSet(t *testing.T) {
	s, cps := newTestSleep(t, 3, 3, 0)
	s.NotifyWorkerLatchIsSet(1)
	s.NotifyWorkerLatchIsSet(1)
	if cps[0].unparks.Load() != 0 || cps[1].unparks.Load() != 1 || cps[2].unparks.Load() != 0 {
		t.Fatalf("unparks %d %d %d, want 0 1 0", cps[0].unparks.Load(), cps[1].unparks.Load(), cps[2].unparks.Load())
	}
	if sl := s.counters.load().sleepingThreads(); sl != 2 {
		t.Fatalf("sleeping %d, want 2", sl)
	}
}

// TestFinalInjectorCheck: a worker that registered as sleeping and then sees
// an injected job takes itself off the sleeping count and does not park.
func TestFinalInjectorCheck(t *testing.T) {
	p := newSignalParker()
	s, err := New(Config{Parkers: []Parker{p}, Yield: func() {}, RoundsUntilSleepy: -1})
	if err != nil {
		t.Fatal(err)
	}
	var latch CoreLatch
	idle := s.StartLooking(0)
	s.NoWorkFound(&idle, &latch, func() bool { return false }) // sleepy
	checks := 0
	s.NoWorkFound(&idle, &latch, func() bool { checks++; return true })
	if checks != 1 {
		t.Fatalf("final check ran %d times", checks)
	}
	select {
	case <-p.parked:
		t.Fatal("parked with an injected job waiting")
	default:
	}
	if w := s.counters.load(); w.sleepingThreads() != 0 || w.inactiveThreads() != 1 {
		t.Fatalf("sleeping %d inactive %d", w.sleepingThreads(), w.inactiveThreads())
	}
	if idle.rounds != 0 || latch.state.Load() != latchUnset {
		t.Fatalf("rounds %d latch %d after the final check", idle.rounds, latch.state.Load())
	}
}

// TestLatchSetStopsSleep: a latch Set before the worker falls asleep makes
// it skip sleeping.
func TestLatchSetStopsSleep(t *testing.T) {
	p := newSignalParker()
	s, err := New(Config{Parkers: []Parker{p}, Yield: func() {}, RoundsUntilSleepy: -1})
	if err != nil {
		t.Fatal(err)
	}
	var latch CoreLatch
	idle := s.StartLooking(0)
	s.NoWorkFound(&idle, &latch, func() bool { return false }) // sleepy
	if latch.Set() {
		t.Fatal("latch reported Sleeping before the worker slept")
	}
	s.NoWorkFound(&idle, &latch, func() bool { return false })
	select {
	case <-p.parked:
		t.Fatal("parked with its latch Set")
	default:
	}
	if sl := s.counters.load().sleepingThreads(); sl != 0 {
		t.Fatalf("sleeping %d", sl)
	}
}

// chanParker is a Parker whose Park blocks until Unpark (a one-token
// channel).
type chanParker struct{ tok chan struct{} }

func newChanParker() *chanParker { return &chanParker{tok: make(chan struct{}, 1)} }

func (p *chanParker) Park() { <-p.tok }
func (p *chanParker) Unpark() {
	select {
	case p.tok <- struct{}{}:
	default:
	}
}

// latchSleeper returns a Sleep of two workers whose worker 0 sleeps on
// latch l alone (sleepOnLatch) on another goroutine, committed to park;
// slept is closed when that sleep returns.
func latchSleeper(t *testing.T) (s *Sleep, l *CoreLatch, slept chan struct{}) {
	t.Helper()
	s, err := New(Config{Parkers: []Parker{newChanParker(), newChanParker()}})
	require.NoError(t, err)
	l = new(CoreLatch)
	slept = make(chan struct{})
	go func() {
		defer close(slept)
		s.sleepOnLatch(0, l)
	}()
	blockedOnLatch(s, 0)
	return s, l, slept
}

// TestSleepOnLatch: a worker sleeping on its latch alone stays out of the
// counters, is passed by wakes meant for any sleeper (a posted job), and is
// woken by its latch's Set, which leaves the counters untouched.
func TestSleepOnLatch(t *testing.T) {
	s, l, slept := latchSleeper(t)
	sleeping, inactive, _ := s.CounterValues()
	require.Zero(t, sleeping, "a latch sleeper joined the sleeping count")
	require.Zero(t, inactive)
	// A posted job, as many as there are workers: nobody counted to wake.
	s.wakeAnyThreads(2)
	select {
	case <-slept:
		t.Fatal("a wake meant for any sleeper woke the latch sleeper")
	default:
	}
	require.True(t, l.Set(), "Set did not find the sleeper Sleeping")
	s.NotifyWorkerLatchIsSet(0)
	<-slept
	require.True(t, l.Probe())
	sleeping, inactive, _ = s.CounterValues()
	require.Zero(t, sleeping, "waking a latch sleeper changed the sleeping count")
	require.Zero(t, inactive)
}

// TestSleepOnLatchAlreadySet returns at once, from Set and from Sleepy.
func TestSleepOnLatchAlreadySet(t *testing.T) {
	s, err := New(Config{Parkers: []Parker{newChanParker()}})
	require.NoError(t, err)
	var l CoreLatch
	l.Set()
	s.sleepOnLatch(0, &l) // would block for ever if it parked
	require.True(t, l.Probe())
	require.False(t, s.state(0).isBlocked)
}

// TestIsolatedNoWork yields for the idle rounds, then sleeps on the latch.
func TestIsolatedNoWork(t *testing.T) {
	yields := 0
	s, err := New(Config{Parkers: []Parker{newChanParker()}, Yield: func() { yields++ }, RoundsUntilSleepy: 3})
	require.NoError(t, err)
	var l CoreLatch
	rounds := 0
	for i := 0; i < 3; i++ {
		s.IsolatedNoWork(&rounds, 0, &l)
	}
	require.Equal(t, 3, yields)
	require.Equal(t, 3, rounds)
	l.Set() // the next call sleeps, and returns at once on a Set latch
	s.IsolatedNoWork(&rounds, 0, &l)
	require.Equal(t, 3, yields)
	require.Zero(t, rounds)
}

// blockedOnLatch waits until worker i of s has committed to park (the
// state no channel announces).
func blockedOnLatch(s *Sleep, i int) {
	for {
		w := s.state(i)
		w.mu.Lock()
		blocked := w.isBlocked
		w.mu.Unlock()
		if blocked {
			return
		}
		runtime.Gosched()
	}
}

// TestNudge wakes a latch sleeper without Setting its latch: it returns
// with the latch Unset (the early return its caller handles), and the
// counters are untouched. A Nudge of an awake worker makes its next latch
// sleep return at once; of a worker asleep in the counters, nothing.
func TestNudge(t *testing.T) {
	s, l, slept := latchSleeper(t)
	s.Nudge(0)
	<-slept
	require.False(t, l.Probe(), "Nudge Set the latch")
	require.Equal(t, latchUnset, l.state.Load(), "the woken sleeper left its latch Sleeping")
	require.False(t, s.state(0).isBlocked)
	sleeping, inactive, _ := s.CounterValues()
	require.Zero(t, sleeping)
	require.Zero(t, inactive)

	// Awake: the Nudge is kept, and the next sleep on the latch returns
	// without parking (it would block for ever here), once.
	s.Nudge(0)
	require.True(t, s.state(0).nudged)
	s.sleepOnLatch(0, l)
	require.False(t, s.state(0).nudged, "the kept Nudge was not consumed")
	require.False(t, s.state(0).isBlocked)
	require.Equal(t, latchUnset, l.state.Load())

	// Asleep in the counters: left alone.
	c, cps := newTestSleep(t, 2, 1, 0)
	c.Nudge(0)
	require.Zero(t, totalUnparks(cps), "Nudge woke a counted sleeper")
	require.True(t, c.state(0).isBlocked)
	sleeping, _, _ = c.CounterValues()
	require.EqualValues(t, 1, sleeping)
}

// TestNudgeRacesLatchSet: a Nudge and a Set with its NotifyWorkerLatchIsSet
// at once wake the sleeper exactly once, and it sees its latch Set. The two
// are started in either order on alternate rounds, and the test checks that
// both outcomes happened: the Nudge first (the sleeper returns with its
// latch Unset and sleeps again or finds the Set) and the Set first.
func TestNudgeRacesLatchSet(t *testing.T) {
	rounds := 2000
	if testing.Short() {
		rounds = 200
	}
	var nudgeFirst, setFirst int
	for r := 0; r < rounds; r++ {
		s, err := New(Config{Parkers: []Parker{newChanParker()}})
		require.NoError(t, err)
		var l CoreLatch
		early := false // a return from the sleep with the latch not Set
		woke := make(chan struct{})
		go func() {
			defer close(woke)
			for !l.Probe() {
				s.sleepOnLatch(0, &l)
				if !l.Probe() {
					early = true
				}
			}
		}()
		blockedOnLatch(s, 0)
		nudge := func() { s.Nudge(0) }
		set := func() {
			if l.Set() {
				s.NotifyWorkerLatchIsSet(0)
			}
		}
		first, second := nudge, set
		if r%2 == 1 {
			first, second = set, nudge
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			second()
		}()
		first()
		<-done
		<-woke
		require.True(t, l.Probe())
		require.False(t, s.state(0).isBlocked)
		if early {
			nudgeFirst++
		} else {
			setFirst++
		}
	}
	require.NotZero(t, nudgeFirst, "the Nudge never woke the sleeper before the Set")
	require.NotZero(t, setFirst, "the Set never came first")
}

// TestShortenRounds: ShortenRounds leaves at most n yielding rounds, never
// lengthens them, and leaves a sleepy worker sleepy.
func TestShortenRounds(t *testing.T) {
	yields := 0
	s, err := New(Config{Parkers: []Parker{newSignalParker()}, Yield: func() { yields++ }, RoundsUntilSleepy: 10})
	if err != nil {
		t.Fatal(err)
	}
	var latch CoreLatch
	idle := s.StartLooking(0)
	s.ShortenRounds(&idle, 3)
	s.ShortenRounds(&idle, 5) // longer: no change
	for idle.jec == jecDummy {
		s.NoWorkFound(&idle, &latch, func() bool { return false })
	}
	if yields != 4 { // three rounds, and the round that got sleepy
		t.Fatalf("%d yields before getting sleepy, want 4", yields)
	}
	rounds := idle.rounds
	s.ShortenRounds(&idle, 0)
	if idle.rounds != rounds || idle.jec == jecDummy {
		t.Fatalf("ShortenRounds on a sleepy worker: rounds %d -> %d, jec %#x", rounds, idle.rounds, idle.jec)
	}

	// n = 0: sleepy at the next NoWorkFound, with no yield at all; after a
	// wake the rounds are the configured ones again.
	yields = 0
	idle = s.StartLooking(0)
	s.ShortenRounds(&idle, 0)
	s.NoWorkFound(&idle, &latch, func() bool { return false })
	if yields != 0 || idle.jec == jecDummy {
		t.Fatalf("ShortenRounds(0): %d yields, jec %#x; want sleepy with no yield", yields, idle.jec)
	}
	idle.wakeFully()
	for idle.jec == jecDummy {
		s.NoWorkFound(&idle, &latch, func() bool { return false })
	}
	if yields != 11 {
		t.Fatalf("%d yields before getting sleepy after a wake, want 11", yields)
	}
}

// TestWorkFoundAloneWakesOneForMore: WorkFoundAlone leaves the inactive
// count as WorkFound does; it wakes no sleeper while the shared queue is
// empty or another worker is awake and idle, and one (not WorkFound's two)
// when it was the last idle worker and the queue holds a job.
func TestWorkFoundAloneWakesOneForMore(t *testing.T) {
	s, cps := newTestSleep(t, 4, 2, 2) // workers 2 and 3 awake and idle
	s.WorkFoundAlone(func() bool { return false })
	if got := totalUnparks(cps); got != 0 {
		t.Fatalf("WorkFoundAlone with nothing queued woke %d", got)
	}
	if w := s.counters.load(); w.inactiveThreads() != 3 || w.sleepingThreads() != 2 {
		t.Fatalf("inactive %d sleeping %d, want 3 and 2", w.inactiveThreads(), w.sleepingThreads())
	}
	s.counters.addInactiveThread() // awake and idle again: two of them
	s.WorkFoundAlone(func() bool { return true })
	if got := totalUnparks(cps); got != 0 {
		t.Fatalf("WorkFoundAlone with another worker awake and idle woke %d", got)
	}
	s.WorkFoundAlone(func() bool { return true }) // the last idle one
	if got := totalUnparks(cps); got != 1 {
		t.Fatalf("the last idle worker's WorkFoundAlone with a job queued woke %d, want 1", got)
	}
}

// TestSleepyNow: SleepyNow announces the worker sleepy at once, with no
// yield; the next NoWorkFound then puts it to sleep, unless work was posted
// in between, which it searches for once more. On a sleepy worker it
// changes nothing and reports so.
func TestSleepyNow(t *testing.T) {
	yields := 0
	p := newSignalParker()
	s, err := New(Config{Parkers: []Parker{p}, Yield: func() { yields++ }, RoundsUntilSleepy: 10})
	if err != nil {
		t.Fatal(err)
	}
	var latch CoreLatch
	none := func() bool { return false }

	// A post between the announcement and NoWorkFound: no sleep, one
	// more search before sleepy again.
	idle := s.StartLooking(0)
	if !s.SleepyNow(&idle) || idle.jec == jecDummy || yields != 0 {
		t.Fatalf("SleepyNow: jec %#x, %d yields; want sleepy with no yield", idle.jec, yields)
	}
	jec, rounds := idle.jec, idle.rounds
	if s.SleepyNow(&idle) || idle.jec != jec || idle.rounds != rounds {
		t.Fatal("SleepyNow on a sleepy worker changed it, or reported it did")
	}
	s.NewInjectedJobs(1, true)
	s.NoWorkFound(&idle, &latch, none)
	select {
	case <-p.parked:
		t.Fatal("parked although work was posted after it got sleepy")
	default:
	}
	if idle.jec != jecDummy || idle.rounds != s.roundsUntilSleepy {
		t.Fatalf("after a missed post: rounds %d jec %#x, want %d and not sleepy", idle.rounds, idle.jec, s.roundsUntilSleepy)
	}

	// No post: the next NoWorkFound sleeps, until woken.
	if !s.SleepyNow(&idle) {
		t.Fatal("SleepyNow after a missed post did not announce")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.NoWorkFound(&idle, &latch, none)
	}()
	<-p.parked
	s.NewInjectedJobs(1, false)
	<-done
	if yields != 0 {
		t.Fatalf("%d yields on the way to sleep, want none", yields)
	}
}
