package sleep

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGrow adds workers: they get the next indexes, the wakes meant for
// any sleeper reach them, and a nil Parker or too many workers add none.
func TestGrow(t *testing.T) {
	s, err := New(Config{Parkers: []Parker{newChanParker()}})
	require.NoError(t, err)
	first, err := s.Grow(newChanParker(), newChanParker())
	require.NoError(t, err)
	require.Equal(t, 1, first)
	require.Equal(t, 3, s.Workers())

	_, err = s.Grow(newChanParker(), nil)
	require.Error(t, err)
	require.Equal(t, 3, s.Workers(), "a failed Grow added workers")
	_, err = s.Grow(make([]Parker, MaxWorkers)...)
	require.Error(t, err)
	require.Equal(t, 3, s.Workers())

	// A new worker sleeps in the counters and a posted job wakes it.
	var l CoreLatch
	idle := s.StartLooking(2)
	idle.rounds = s.roundsUntilSleepy + 1 // straight to sleep
	idle.jec = s.counters.load().jec()
	slept := make(chan struct{})
	go func() {
		defer close(slept)
		s.NoWorkFound(&idle, &l, func() bool { return false })
	}()
	blockedOnLatch(s, 2)
	sleeping, _, _ := s.CounterValues()
	require.EqualValues(t, 1, sleeping)
	s.NewInjectedJobsLazy(1, func() bool { return false })
	<-slept
	require.False(t, s.state(2).isBlocked)
}

// TestPoke wakes a worker asleep in the counters and one asleep on its latch
// alone, and makes an awake worker's next sleep return at once.
func TestPoke(t *testing.T) {
	// On its latch alone.
	s, l, slept := latchSleeper(t)
	s.Poke(0)
	<-slept
	require.False(t, l.Probe(), "Poke Set the latch")
	require.False(t, s.state(0).isBlocked)

	// Awake: kept, and consumed by the next sleep, in the counters too.
	s.Poke(0)
	require.True(t, s.state(0).poked)
	s.sleepOnLatch(0, l) // would block for ever if it parked
	require.False(t, s.state(0).poked)
	s.Poke(1)
	var l1 CoreLatch
	idle := s.StartLooking(1)
	idle.rounds = s.roundsUntilSleepy + 1 // straight to sleep
	idle.jec = s.counters.load().jec()
	s.NoWorkFound(&idle, &l1, func() bool { return false }) // would block for ever if it parked
	require.False(t, s.state(1).poked)
	sleeping, _, _ := s.CounterValues()
	require.Zero(t, sleeping)

	// Asleep in the counters: woken and taken off the count.
	c, cps := newTestSleep(t, 2, 1, 0)
	c.Poke(0)
	require.Equal(t, 1, totalUnparks(cps))
	require.False(t, c.state(0).isBlocked)
	sleeping, _, _ = c.CounterValues()
	require.Zero(t, sleeping)
}

// TestSleepersBits checks the sleepers bits that wakeAnyThreads scans: a
// worker past the first word of bits, asleep in the counters, has its bit
// set, and the wake meant for any sleeper finds it, passing over busy
// workers whose locks it never takes. The bit stays set after the wake, and
// the next such wake that finds the worker awake clears it.
func TestSleepersBits(t *testing.T) {
	const n = 130
	ps := make([]Parker, n)
	for i := range ps {
		ps[i] = newChanParker()
	}
	s, err := New(Config{Parkers: ps})
	require.NoError(t, err)
	bit := func(i int) bool { return s.sleepers[i>>6].Load()&(1<<(i&63)) != 0 }

	var l CoreLatch
	idle := s.StartLooking(n - 1)
	idle.rounds = s.roundsUntilSleepy + 1 // straight to sleep
	idle.jec = s.counters.load().jec()
	slept := make(chan struct{})
	go func() {
		defer close(slept)
		s.NoWorkFound(&idle, &l, func() bool { return false })
	}()
	blockedOnLatch(s, n-1)
	require.True(t, bit(n-1), "a sleeper's bit")
	for i := range n - 1 {
		require.False(t, bit(i), "worker %d's bit", i)
		s.state(i).mu.Lock() // a waker that took these locks would hang
	}
	s.NewInjectedJobsLazy(1, func() bool { return false })
	<-slept
	require.True(t, bit(n-1), "a woken sleeper's bit, left for a later wake to clear")
	s.wakeAnyThreads(1)
	require.False(t, bit(n-1), "the bit of a worker found awake")
	for i := range n - 1 {
		s.state(i).mu.Unlock()
	}

	sleeping, _, _ := s.CounterValues()
	require.Zero(t, sleeping)
}

// TestWakeAnyOfStaleWorkers: a waker that loaded the workers before a Grow
// finds the bit of a worker the Grow added (it slept since): it passes it by
// instead of indexing past its workers (a crash seen under a storm of
// blocked workers being replaced, which grows pools often).
func TestWakeAnyOfStaleWorkers(t *testing.T) {
	const n = 70
	ps := make([]Parker, n)
	for i := range ps {
		ps[i] = newChanParker()
	}
	s, err := New(Config{Parkers: ps})
	require.NoError(t, err)
	stale := *s.workers.Load()
	_, err = s.Grow(newChanParker(), newChanParker())
	require.NoError(t, err)
	for _, i := range []int{n, n + 1} {
		s.sleepers[i>>6].Or(1 << (i & 63)) // as the new workers' sleep would
	}
	require.NotPanics(t, func() { s.wakeAnyOf(stale[:n-6], 1) }, "a bit beyond the workers in its word")
	require.NotPanics(t, func() { s.wakeAnyOf(stale, 1) }, "bits beyond the workers")
	s.wakeAnyThreads(2) // with the workers grown: the bits, found awake, are cleared
	require.Zero(t, s.sleepers[1].Load())
}
