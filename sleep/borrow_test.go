package sleep

import (
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// parkCounter is a chanParker that counts its Parks.
type parkCounter struct {
	chanParker
	parks atomic.Int32
}

func newParkCounter() *parkCounter { return &parkCounter{chanParker: *newChanParker()} }

func (p *parkCounter) Park() { p.parks.Add(1); p.chanParker.Park() }

// counterSleeper returns a Sleep of two workers whose worker 0 has gone
// through NoWorkFound until it parked in the counters, on latch l, on
// another goroutine; woke is closed when its NoWorkFound returns after that
// park. queued is what its final injector check (and Return's) reads.
func counterSleeper(t *testing.T) (s *Sleep, l *CoreLatch, own *parkCounter, queued *atomic.Bool, woke chan struct{}) {
	t.Helper()
	own = newParkCounter()
	s, err := New(Config{Parkers: []Parker{own, newChanParker()}, RoundsUntilSleepy: 2})
	require.NoError(t, err)
	l, queued, woke = new(CoreLatch), new(atomic.Bool), make(chan struct{})
	go func() {
		defer close(woke)
		idle := s.StartLooking(0)
		for own.parks.Load() == 0 {
			s.NoWorkFound(&idle, l, queued.Load)
		}
	}()
	blockedOnLatch(s, 0)
	for own.parks.Load() == 0 {
		runtime.Gosched()
	}
	return s, l, own, queued, woke
}

// awake reports whether ch is closed now.
func awake(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// TestBorrowTakesOnlyACountedSleeper: Borrow refuses a worker that is
// awake, one asleep on another latch, and one already borrowed; it takes a
// worker asleep in the counters off both counts, and Return with nothing
// to see puts it back asleep, where a post wakes it as before.
func TestBorrowTakesOnlyACountedSleeper(t *testing.T) {
	s, l, own, queued, woke := counterSleeper(t)
	guest := newChanParker()
	require.False(t, s.Borrow(1, l, guest), "borrowed a worker that never slept")
	require.False(t, s.Borrow(0, new(CoreLatch), guest), "borrowed a worker asleep on another latch")
	require.True(t, s.HasSleepers())
	require.True(t, s.Borrow(0, l, guest))
	require.False(t, s.Borrow(0, l, guest), "borrowed a worker twice")
	sleeping, inactive, _ := s.CounterValues()
	require.Zero(t, sleeping, "a borrowed worker still counts as sleeping")
	require.Zero(t, inactive, "a borrowed worker still counts as inactive")
	require.False(t, s.HasSleepers())

	s.Return(0, queued.Load)
	sleeping, inactive, _ = s.CounterValues()
	require.EqualValues(t, 1, sleeping)
	require.EqualValues(t, 1, inactive)
	require.False(t, awake(woke), "Return with nothing to see woke the worker")
	require.EqualValues(t, 1, own.parks.Load())

	queued.Store(true)
	s.NewInjectedJobsLazy(1, func() bool { return true })
	<-woke
	sleeping, _, _ = s.CounterValues()
	require.Zero(t, sleeping)
}

// TestReturnWakesForWhatCameMeanwhile: a Set of the worker's latch, a Poke,
// or a job on the shared queue while it is borrowed reach nobody (the
// worker's goroutine stays parked, nobody Unparks it); Return sees each and
// wakes the worker, counted awake and inactive.
func TestReturnWakesForWhatCameMeanwhile(t *testing.T) {
	for _, what := range []string{"set", "poke", "queued"} {
		t.Run(what, func(t *testing.T) {
			s, l, own, queued, woke := counterSleeper(t)
			require.True(t, s.Borrow(0, l, newChanParker()))
			switch what {
			case "set":
				require.True(t, l.Set(), "the borrowed worker's latch was not Sleeping")
				s.NotifyWorkerLatchIsSet(0)
			case "poke":
				s.Poke(0)
			case "queued":
				queued.Store(true)
				s.NewInjectedJobsLazy(1, func() bool { return true })
			}
			require.False(t, awake(woke), "a %s woke the borrowed worker's goroutine", what)
			require.Empty(t, own.tok, "a %s Unparked the borrowed worker's goroutine", what)
			s.Return(0, queued.Load)
			<-woke
			sleeping, inactive, _ := s.CounterValues()
			require.Zero(t, sleeping)
			require.EqualValues(t, 1, inactive, "the woken worker is idle, not active")
			require.False(t, s.state(0).poked, "the Poke's mark outlived the wake")
		})
	}
}

// TestBorrowedWorkerParksAgain: a token left on the worker's own parker
// (a late Unpark) makes its Park return while it is borrowed; its park
// loop parks again instead of running beside the guest.
func TestBorrowedWorkerParksAgain(t *testing.T) {
	s, l, own, queued, woke := counterSleeper(t)
	require.True(t, s.Borrow(0, l, newChanParker()))
	own.Unpark()
	for own.parks.Load() < 2 {
		runtime.Gosched()
	}
	require.False(t, awake(woke), "the borrowed worker's goroutine left its sleep")
	s.Return(0, queued.Load)
	require.True(t, l.Set())
	s.NotifyWorkerLatchIsSet(0)
	<-woke
}

// TestGuestSleepsOnItsParker: the guest's own latch sleeps (isolated
// waits) park on the guest's Parker. Their latch's Set wakes the guest and
// not the worker's goroutine. A Poke wakes the guest too (it may be the
// worker the poker waits for) and is kept for the worker's goroutine, which
// Return wakes.
func TestGuestSleepsOnItsParker(t *testing.T) {
	s, l, own, queued, woke := counterSleeper(t)
	guest := newParkCounter()
	require.True(t, s.Borrow(0, l, guest))
	guestSleep := func(gl *CoreLatch) chan struct{} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.sleepOnLatch(0, gl)
		}()
		blockedOnLatch(s, 0)
		return done
	}
	gl := new(CoreLatch)
	guestWoke := guestSleep(gl)
	require.True(t, gl.Set())
	s.NotifyWorkerLatchIsSet(0)
	<-guestWoke
	require.EqualValues(t, 1, guest.parks.Load())
	require.EqualValues(t, 1, own.parks.Load(), "the guest's wake reached the worker's goroutine")

	gl2 := new(CoreLatch)
	guestWoke = guestSleep(gl2)
	s.Poke(0)
	<-guestWoke
	require.False(t, gl2.Probe())
	require.False(t, awake(woke), "a Poke of a borrowed worker woke its goroutine before Return")
	s.Return(0, queued.Load)
	<-woke
}

// TestReturnProbesTheWorkersLatch: the guest's own latch sleep overwrote
// the latch the worker sleeps on in its sleep state; a Set of the worker's
// latch meanwhile must still make Return wake the worker, not put it back
// to sleep on a Set latch.
func TestReturnProbesTheWorkersLatch(t *testing.T) {
	s, l, _, queued, woke := counterSleeper(t)
	require.True(t, s.Borrow(0, l, newChanParker()))
	gl := new(CoreLatch)
	guestWoke := make(chan struct{})
	go func() {
		defer close(guestWoke)
		s.sleepOnLatch(0, gl)
	}()
	blockedOnLatch(s, 0)
	s.Nudge(0) // wakes the guest with its latch unset
	<-guestWoke
	require.False(t, gl.Probe())
	require.True(t, l.Set())
	s.NotifyWorkerLatchIsSet(0)
	s.Return(0, queued.Load)
	w := s.state(0)
	w.mu.Lock()
	blocked := w.isBlocked
	w.mu.Unlock()
	require.False(t, blocked, "Return put the worker back to sleep on its Set latch")
	<-woke
}
