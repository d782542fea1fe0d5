package sleep

import "testing"

func TestCoreLatchTransitions(t *testing.T) {
	var l CoreLatch
	if l.Probe() {
		t.Fatal("zero latch is Set")
	}
	if !l.getSleepy() || l.getSleepy() {
		t.Fatal("getSleepy: Unset -> Sleepy once")
	}
	if !l.fallAsleep() || l.fallAsleep() {
		t.Fatal("fallAsleep: Sleepy -> Sleeping once")
	}
	l.wakeUp()
	if l.state.Load() != latchUnset {
		t.Fatal("wakeUp: Sleeping -> Unset")
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
		if l.getSleepy() || l.fallAsleep() {
			t.Errorf("a Set latch let the owner get sleepy or fall asleep")
		}
		l.wakeUp()
		if !l.Probe() {
			t.Errorf("wakeUp cleared a Set latch")
		}
	}
	l.Reset()
	if l.Probe() || !l.getSleepy() {
		t.Fatal("Reset: Set -> Unset")
	}
}
