package sleep

import (
	"strings"
	"testing"
)

// TestCountersLayout pins the bit layout documented in counters.go.
func TestCountersLayout(t *testing.T) {
	if oneSleeping != 1 || oneInactive != 1<<16 || oneJEC != 1<<32 {
		t.Fatalf("one-units moved: sleeping %#x inactive %#x jec %#x", oneSleeping, oneInactive, oneJEC)
	}
	if MaxWorkers != 0xFFFF || jecMask != 0xFFFF_FFFF {
		t.Fatalf("MaxWorkers %#x jecMask %#x", uint64(MaxWorkers), uint64(jecMask))
	}
	w := packCounters(0x1234, 0x5678, 0x9ABC_DEF0)
	if uint64(w) != 0x9ABC_DEF0_5678_1234 {
		t.Fatalf("packCounters = %#x", uint64(w))
	}
	if w.sleepingThreads() != 0x1234 || w.inactiveThreads() != 0x5678 || w.jec() != 0x9ABC_DEF0 {
		t.Fatalf("unpack %#x: sleeping %#x inactive %#x jec %#x", uint64(w), w.sleepingThreads(), w.inactiveThreads(), w.jec())
	}
	if got := packCounters(3, 5, 0).awakeButIdleThreads(); got != 2 {
		t.Fatalf("awakeButIdle(3 sleeping, 5 inactive) = %d", got)
	}
	if got := packCounters(5, 3, 0).awakeButIdleThreads(); got != 0 {
		t.Fatalf("awakeButIdle must saturate at 0, got %d", got)
	}
}

// TestCountersJECWraps: incrementing the JEC at its top value wraps it to 0
// (even) and leaves the thread counts alone.
func TestCountersJECWraps(t *testing.T) {
	var c counters
	c.word.Store(uint64(packCounters(7, 9, jecMask)))
	w := c.incrementJECIf(jecIsActive)
	if w.jec() != 0 || w.sleepingThreads() != 7 || w.inactiveThreads() != 9 {
		t.Fatalf("after wrap: jec %d sleeping %d inactive %d", w.jec(), w.sleepingThreads(), w.inactiveThreads())
	}
	if w != c.load() {
		t.Fatal("incrementJECIf must return the stored word")
	}
	if got := c.incrementJECIf(jecIsActive); got != w {
		t.Fatal("incrementJECIf changed an even JEC with the odd predicate")
	}
	if got := c.incrementJECIf(jecIsSleepy); got.jec() != 1 {
		t.Fatalf("even -> odd gave %d", got.jec())
	}
}

func TestCountersThreads(t *testing.T) {
	var c counters
	c.addInactiveThread()
	c.addInactiveThread()
	if !c.tryAddSleepingThread(c.load()) {
		t.Fatal("tryAddSleepingThread failed on an unchanged word")
	}
	if c.tryAddSleepingThread(packCounters(0, 2, 0)) {
		t.Fatal("tryAddSleepingThread succeeded on a stale word")
	}
	if got := c.subInactiveThread(); got != 1 {
		t.Fatalf("subInactiveThread with one sleeper = %d, want 1", got)
	}
	c.subSleepingThread()
	if w := c.load(); w.sleepingThreads() != 0 || w.inactiveThreads() != 1 {
		t.Fatalf("sleeping %d inactive %d", w.sleepingThreads(), w.inactiveThreads())
	}
}

type nopParker struct{}

func (nopParker) Park()   {}
func (nopParker) Unpark() {}

func TestNewErrors(t *testing.T) {
	for _, tc := range []struct {
		n    int
		nils bool
		want string
	}{
		{0, false, "no workers"},
		{MaxWorkers + 1, false, "more than MaxWorkers"},
		{3, true, "Parkers[0] is nil"},
	} {
		ps := make([]Parker, tc.n)
		if !tc.nils {
			for i := range ps {
				ps[i] = nopParker{}
			}
		}
		s, err := New(Config{Parkers: ps})
		if err == nil || s != nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%d parkers) = %v, %v; want error containing %q", tc.n, s, err, tc.want)
		}
	}
	ps := make([]Parker, MaxWorkers)
	for i := range ps {
		ps[i] = nopParker{}
	}
	if _, err := New(Config{Parkers: ps}); err != nil {
		t.Errorf("New(MaxWorkers parkers): %v", err)
	}
}
