package blitz

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gateTestTask is an entry of a gate under test.
type gateTestTask struct {
	id    int
	entry gateEntry
}

func (t *gateTestTask) gateEntry() *gateEntry { return &t.entry }

func gateTestTasks(n int) []*gateTestTask {
	ts := make([]*gateTestTask, n)
	for i := range ts {
		ts[i] = &gateTestTask{id: i}
	}
	return ts
}

// woken reports whether the plain waiter wt was woken.
func woken(wt *waiter) bool {
	select {
	case <-wt.ch:
		return true
	default:
		return false
	}
}

// admitted returns the id of the entry admit or leave returned, -1 for none.
func admitted(t *gateTestTask, ok bool) int {
	if !ok {
		return -1
	}
	return t.id
}

// TestGateFIFO: a gate admits at most limit entries; the others are
// admitted in the order they came, one per slot freed, each waking its
// waiter when (and only when) it is admitted; a free slot is not taken past
// a waiting entry; a withdrawn entry is skipped and holds no slot; raising
// the limit admits what fits, removing it admits all.
func TestGateFIFO(t *testing.T) {
	var g slotGate[*gateTestTask]
	assert.True(t, g.enter(), "the zero gate has no limit")
	g.leave()
	g.setLimit(2)
	require.True(t, g.enter())
	require.True(t, g.enter())
	assert.False(t, g.enter(), "both slots are taken")
	ts := gateTestTasks(6)
	waiters := make([]*waiter, len(ts))
	for i, tk := range ts {
		waiters[i] = newWaiter(nil)
		g.wait(tk, waiters[i])
	}
	assert.Equal(t, 6, g.queued)
	for _, wt := range waiters {
		assert.False(t, woken(wt), "woken before admission")
	}
	assert.Equal(t, 0, admitted(g.leave()))
	assert.True(t, woken(waiters[0]))
	assert.False(t, woken(waiters[1]))
	assert.True(t, g.withdraw(ts[2]), "waiting: withdrawn")
	assert.False(t, g.withdraw(ts[2]), "withdrawn twice")
	assert.False(t, g.withdraw(ts[0]), "admitted: not withdrawn")
	assert.Equal(t, 1, admitted(g.leave()))
	assert.Equal(t, 3, admitted(g.leave()), "the withdrawn entry is skipped")
	assert.False(t, woken(waiters[2]), "a withdrawn entry's waiter is not woken")
	assert.Equal(t, 2, g.active)

	// A slot freed by a raised limit goes to the waiting entries first.
	g.setLimit(3)
	assert.False(t, g.enter(), "a free slot taken past a waiting entry")
	assert.Equal(t, 4, admitted(g.admit()))
	assert.Equal(t, -1, admitted(g.admit()), "no slot")
	g.setLimit(-1)
	assert.Equal(t, 5, admitted(g.admit()))
	assert.Equal(t, -1, admitted(g.admit()), "nobody waits")
	assert.Zero(t, g.queued)
	assert.True(t, g.enter(), "no limit, nobody waiting")
	assert.Equal(t, 5, g.active)
	for _, wt := range waiters[3:] {
		assert.True(t, woken(wt))
	}

	// Lowering the limit admits nothing until fewer are under way.
	g.setLimit(2)
	late := gateTestTasks(1)[0]
	g.wait(late, nil)
	for range 3 {
		assert.Equal(t, -1, admitted(g.leave()))
	}
	assert.Equal(t, 0, admitted(g.leave()), "the limit is met again")
	assert.Equal(t, 2, g.active)
}

// TestGateQueueCompacts: under a load that never empties the queue, the
// gate's array stays proportional to what waits, and the order holds.
func TestGateQueueCompacts(t *testing.T) {
	var g slotGate[*gateTestTask]
	g.setLimit(1)
	require.True(t, g.enter())
	ts := gateTestTasks(1000)
	next, in := 0, 0
	for range 20 {
		in++
		g.wait(ts[in-1], nil) // one in the queue at least
	}
	for in < len(ts) {
		g.wait(ts[in], nil)
		in++
		assert.Equal(t, next, admitted(g.leave()))
		next++
		assert.Equal(t, in-next, g.queued)
		assert.LessOrEqual(t, len(g.queue), max(128, 2*g.queued+1), "the array outgrew what waits")
	}
}

// TestWaitListCancelHandsOn: waiters are woken oldest first, once each; one
// that gives up after it was woken hands its wake to the next, one that was
// not woken just leaves; wakeAll wakes the rest.
func TestWaitListCancelHandsOn(t *testing.T) {
	var l waitList
	a, b, c, d := newWaiter(nil), newWaiter(nil), newWaiter(nil), newWaiter(nil)
	for _, wt := range []*waiter{a, b, c, d} {
		l.push(wt)
	}
	l.wakeOne()
	assert.True(t, woken(a))
	assert.False(t, woken(b))
	l.cancel(c) // not woken: leaves, wakes nobody
	assert.False(t, woken(b))
	assert.Equal(t, 2, l.len())
	l.cancel(a) // woken: the wake passes to b
	assert.True(t, woken(b))
	assert.False(t, woken(c))
	assert.False(t, woken(d))
	l.wakeAll()
	assert.True(t, woken(d))
	assert.False(t, woken(c))
	assert.Zero(t, l.len())
	l.cancel(b) // woken, nobody left to hand on to
}

// TestGateWorkerWaiterServes: a task of a pool of one worker waits at a
// gate whose only slot is freed by a task of that same pool: it can only be
// let in if its worker keeps serving its pool while it waits, whether the
// pool lends it (at its cap) or replaces it. Then it waits at a waitList, gives up after
// its wake and hands it on to the next waiter.
func TestGateWorkerWaiterServes(t *testing.T) {
	// At its cap of one worker the pool lends the waiting worker, and the
	// waiter is let in only through the loan; below it, the pool replaces
	// the worker (its monitor would too, later).
	for _, capped := range []bool{true, false} {
		for _, k := range serverParkings() {
			t.Run(fmt.Sprintf("capped=%v/parking=%v", capped, k), func(t *testing.T) {
				opts := []Option{WithParking(k), WithWorkers(1)}
				if capped {
					opts = append(opts, WithMaxWorkers(1))
				}
				withPool(t, opts, func(q *Pool) {
					var mu sync.Mutex
					var g slotGate[*gateTestTask]
					g.setLimit(1)
					require.True(t, g.enter(), "the slot is held by the test")
					waiting := make(chan struct{})
					tk := &gateTestTask{id: 7}
					admittedOK := make(chan bool, 1)
					require.NoError(t, q.Go(func(w *Worker) {
						wt := newWaiter(currentWorker())
						assert.Same(t, w, wt.w, "a worker waits as a worker")
						mu.Lock()
						assert.False(t, g.enter())
						g.wait(tk, wt)
						mu.Unlock()
						close(waiting)
						stopped := wt.wait(nil)
						mu.Lock()
						admittedOK <- !stopped && !tk.entry.inQueue && g.active == 1
						mu.Unlock()
					}))
					<-waiting
					// Only q's worker can run this, and it waits above.
					var next *gateTestTask
					within(t, "the slot freed by a task of the waiter's pool", func() {
						Do(q, func(*Worker) struct{} {
							mu.Lock()
							next, _ = g.leave()
							mu.Unlock()
							return struct{}{}
						})
						assert.True(t, <-admittedOK, "the waiter was not admitted")
					})
					assert.Same(t, tk, next)

					// A task of q and a plain goroutine wait at a list; the
					// task, woken, gives up and hands the wake on.
					var l waitList
					registered := make(chan struct{})
					results := make(chan string, 2)
					require.NoError(t, q.Go(func(*Worker) {
						wt := newWaiter(currentWorker())
						mu.Lock()
						l.push(wt)
						mu.Unlock()
						close(registered)
						wt.wait(nil)
						mu.Lock()
						l.cancel(wt) // as a waiter whose context ended with the wake
						mu.Unlock()
						results <- "task"
					}))
					<-registered
					plain := newWaiter(nil)
					mu.Lock()
					l.push(plain)
					l.wakeOne()
					mu.Unlock()
					within(t, "the wake handed on", func() {
						assert.Equal(t, "task", <-results)
						<-plain.ch
					})
					assert.Zero(t, l.len())
				})
			})
		}
	}
}
