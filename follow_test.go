package blitz

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFollowGOMAXPROCS changes GOMAXPROCS under a pool made without
// WithWorkers and waits, on the follower's tick hook, until the pool's size
// matches; a pool made WithWorkers keeps its count. Work submitted after
// each change wakes the parked workers, which arms the follower.
func TestFollowGOMAXPROCS(t *testing.T) {
	prev := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prev)
	for _, k := range testParkings() {
		t.Run(k.String(), func(t *testing.T) {
			t.Cleanup(func() { verifyNone(t) })
			ticks := make(chan int, 64)
			fixed := newPoolT(t, WithParking(k), WithWorkers(2))
			p := newPoolT(t, WithParking(k), withFollowHook(followTestPeriod, func(size int) {
				select {
				case ticks <- size:
				default:
				}
			}))
			require.NotNil(t, p.follower)
			require.Nil(t, fixed.follower, "a WithWorkers pool follows GOMAXPROCS")
			assert.Equal(t, prev, p.Workers())
			for _, want := range []int{prev + 2, 1, prev + 1, prev} {
				runtime.GOMAXPROCS(want)
				waitOrDump(t, converged(p, ticks, want), "the pool following GOMAXPROCS")
				assert.Equal(t, want, p.Workers())
				assert.Equal(t, want, len(Broadcast(p, func(*Worker) int { return 0 })))
			}
			assert.Equal(t, 2, fixed.Workers())
		})
	}
}

// followTestPeriod is the follower's period in the tests: a shorter period
// only makes them quicker; nothing waits for a time.
const followTestPeriod = 5 * time.Millisecond

// converged returns a channel closed once a tick reported size want. It
// submits a small job whenever a tick reports another size, so that a
// parked pool wakes (and arms its follower) even if the change came while it
// was idle.
func converged(p *Pool, ticks chan int, want int) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.Run(func(*Worker) {})
		for size := range ticks {
			if size == want {
				return
			}
			p.Run(func(*Worker) {})
		}
	}()
	return done
}

// TestResizeHoldsUntilGOMAXPROCSChanges drives the follower's ticks by hand
// (its timer is an hour away): a Resize of a following pool survives every
// tick while GOMAXPROCS stays, a change of GOMAXPROCS after it is followed,
// and a change made before the Resize (which no tick had seen yet) does not
// undo the Resize.
func TestResizeHoldsUntilGOMAXPROCSChanges(t *testing.T) {
	prev := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prev)
	// Two GOMAXPROCS values other than the current one and the Resize's.
	const resized = 5
	var other []int
	for g := 3; len(other) < 2; g++ {
		if g != prev && g != resized {
			other = append(other, g)
		}
	}
	for _, k := range testParkings() {
		t.Run(k.String(), func(t *testing.T) {
			t.Cleanup(func() { runtime.GOMAXPROCS(prev); verifyNone(t) })
			p := newPoolT(t, WithParking(k), withFollowHook(time.Hour, nil))
			require.NotNil(t, p.follower)
			require.NoError(t, p.Resize(resized))
			for range 3 {
				p.tickFollower()
				p.Run(func(*Worker) {})
				require.Equal(t, resized, p.Workers(), "a tick undid Resize while GOMAXPROCS stayed %d", prev)
			}
			runtime.GOMAXPROCS(other[0])
			p.tickFollower()
			require.Equal(t, other[0], p.Workers(), "GOMAXPROCS changed after the Resize")
			assert.Equal(t, other[0], len(Broadcast(p, func(*Worker) int { return 0 })))

			// A change that no tick saw before a Resize is the Resize's
			// GOMAXPROCS: only the next change undoes it.
			runtime.GOMAXPROCS(other[1])
			require.NoError(t, p.Resize(resized))
			p.tickFollower()
			require.Equal(t, resized, p.Workers(), "a tick undid Resize for a GOMAXPROCS change made before it")
			runtime.GOMAXPROCS(other[0])
			p.tickFollower()
			require.Equal(t, other[0], p.Workers())
		})
	}
}
