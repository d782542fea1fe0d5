package blitz

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHolderSet(t *testing.T) {
	var h holderSet
	assert.Equal(t, -1, h.next(0, 200))
	for _, i := range []int{3, 64, 130, 199} {
		h.announce(i)
		h.announce(i) // a second announce changes nothing
	}
	assert.EqualValues(t, 4, h.count.Load())
	var got []int
	for i := h.next(0, 200); i >= 0; i = h.next(i+1, 200) {
		got = append(got, i)
	}
	assert.Equal(t, []int{3, 64, 130, 199}, got)
	assert.Equal(t, 64, h.next(4, 200), "from inside a word")
	assert.Equal(t, -1, h.next(131, 199), "bits at or past n are not found")
	assert.Equal(t, -1, h.next(200, 200))
	h.clear(64)
	h.clear(64)
	h.clear(5) // never set
	assert.EqualValues(t, 3, h.count.Load())
	assert.Equal(t, 130, h.next(4, 200))
}

// TestGrownPoolThievesFindHolders: in a pool grown past its sweep, a
// worker that forks announces itself (holders.go), and a thief takes the
// half it offered while the worker waits for it: the first half waits
// until the second has started elsewhere, which it can only do on a thief.
func TestGrownPoolThievesFindHolders(t *testing.T) {
	const size = 2
	p, err := New(WithWorkers(size), WithParking(ParkingPortable))
	require.NoError(t, err)
	defer p.Close()
	// Grow the pool past its sweep with tasks that block.
	blocked := int(p.sweep.Load()) + 8
	release := make(chan struct{})
	var started, done sync.WaitGroup
	started.Add(blocked)
	done.Add(blocked)
	for range blocked {
		require.NoError(t, p.Go(func(*Worker) { defer done.Done(); started.Done(); <-release }))
	}
	within(t, "the blocking tasks starting", started.Wait)
	defer func() { close(release); within(t, "the blocking tasks", done.Wait) }()
	// And a few more that return, leaving idle workers to be thieves.
	const idle = 4
	var idleDone sync.WaitGroup
	idleDone.Add(idle)
	idleStarted := make(chan struct{}, idle)
	idleRelease := make(chan struct{})
	for range idle {
		require.NoError(t, p.Go(func(*Worker) { defer idleDone.Done(); idleStarted <- struct{}{}; <-idleRelease }))
	}
	for range idle {
		within(t, "the other tasks starting", func() { <-idleStarted })
	}
	close(idleRelease)
	within(t, "the other tasks", idleDone.Wait)
	require.True(t, p.grown(), "%d active, sweep %d", p.active.Load(), p.sweep.Load())

	found := p.holders.found.Load()
	rounds := 20
	if testing.Short() {
		rounds = 5
	}
	for range rounds {
		var forker, thief int
		// The monitor names a worker stuck with work behind it
		// (Pool.stuck) for the thieves, who try it before holders:
		// held off here (its ticks take resizeMu), so that only
		// holders lead a thief to the half.
		p.resizeMu.Lock()
		p.stuck.Store(0)
		within(t, "a join whose halves wait for each other", func() {
			Do(p, func(w *Worker) struct{} {
				bStarted := make(chan struct{})
				Join(w, func(w *Worker) struct{} {
					forker = w.index
					<-bStarted
					return struct{}{}
				}, func(w *Worker) struct{} {
					thief = w.index
					close(bStarted)
					return struct{}{}
				})
				return struct{}{}
			})
		})
		p.resizeMu.Unlock()
		assert.NotEqual(t, forker, thief, "the second half ran on a thief")
	}
	assert.Greater(t, p.holders.found.Load(), found, "thieves took halves through holders")
}
