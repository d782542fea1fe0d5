package loadgen

import (
	"context"
	"time"
)

// A Clock tells the time and sleeps. Run takes one so that tests can drive
// the schedule with a fake clock; RealClock is the wall clock.
type Clock interface {
	Now() time.Time
	// SleepUntil returns at or after t, or when ctx ends.
	SleepUntil(ctx context.Context, t time.Time)
}

// RealClock is the system clock (monotonic readings).
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// SleepUntil sleeps until t or until ctx ends.
func (RealClock) SleepUntil(ctx context.Context, t time.Time) {
	d := time.Until(t)
	if d <= 0 {
		return
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
	case <-ctx.Done():
	}
}
