package sleep

import "testing"

func TestCoreLatchTransitions(t *testing.T) {
	var l CoreLatch
	if l.Probe() {
		t.Fatal("zero latch is Set")
	}
	if !l.GetSleepy() || l.GetSleepy() {
		t.Fatal("GetSleepy: Unset -> Sleepy once")
	}
	if !l.FallAsleep() || l.FallAsleep() {
		t.Fatal("FallAsleep: Sleepy -> Sleeping once")
	}
	l.WakeUp()
	if l.state.Load() != latchUnset {
		t.Fatal("WakeUp: Sleeping -> Unset")
	}
	// Set on each state reports whether the owner was sleeping.
	for _, st := range []uint32{latchUnset, latchSleepy, latchSleeping, latchSet} {
		l.state.Store(st)
		if got := l.Set(); got != (st == latchSleeping) {
			t.Errorf("Set from %d returned %v", st, got)
		}
		if !l.Probe() {
			t.Errorf("Set from %d: Probe false", st)
		}
		if l.GetSleepy() || l.FallAsleep() {
			t.Errorf("a Set latch let the owner get sleepy or fall asleep")
		}
		l.WakeUp()
		if !l.Probe() {
			t.Errorf("WakeUp cleared a Set latch")
		}
	}
	l.Reset()
	if l.Probe() || !l.GetSleepy() {
		t.Fatal("Reset: Set -> Unset")
	}
}
