package errgroup_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The Blocking tests give a group functions that block until other
// functions of the group run, as goroutines may. errgroup runs each on a
// goroutine of its own; this package needs the pool to add workers while
// its workers are blocked and work waits. They run against both
// implementations (see errgroup_test.go).

// TestBlockingWaitForLaterFunction: functions that wait on a channel that a
// function given after them closes all complete.
func TestBlockingWaitForLaterFunction(t *testing.T) {
	eachImpl(t, func(t *testing.T, im impl) {
		gs, _ := im.each()
		for _, g := range gs {
			const waiters = 8
			opened := make(chan struct{})
			var passed atomic.Int64
			for range waiters {
				g.Go(func() error { <-opened; passed.Add(1); return nil })
			}
			g.Go(func() error { close(opened); return nil })
			within(t, "Wait", func() { assert.NoError(t, g.Wait()) })
			assert.Equal(t, int64(waiters), passed.Load())
		}
	})
}

// barrier releases the functions that arrive at it in rounds of n: each
// waits until n are inside.
type barrier struct {
	mu     sync.Mutex
	cond   sync.Cond
	n, in  int
	rounds int // rounds released
}

func newBarrier(n int) *barrier {
	b := &barrier{n: n}
	b.cond.L = &b.mu
	return b
}

func (b *barrier) await() {
	b.mu.Lock()
	defer b.mu.Unlock()
	round := b.rounds
	b.in++
	if b.in == b.n {
		b.in = 0
		b.rounds++
		b.cond.Broadcast()
		return
	}
	for round == b.rounds {
		b.cond.Wait()
	}
}

// TestBlockingLimitRunsLimitAtOnce: with SetLimit(4), 8 functions that
// each wait at a barrier until 4 are inside complete (in two rounds), and
// never more than 4 run at once: the limit is reached, not only respected.
func TestBlockingLimitRunsLimitAtOnce(t *testing.T) {
	eachImpl(t, func(t *testing.T, im impl) {
		gs, _ := im.each()
		for _, g := range gs {
			const limit, tasks = 4, 8
			g.SetLimit(limit)
			b := newBarrier(limit)
			var ran gauge
			for range tasks {
				g.Go(func() error {
					ran.enter()
					defer ran.leave()
					b.await()
					return nil
				})
			}
			within(t, "Wait", func() { assert.NoError(t, g.Wait()) })
			assert.Equal(t, tasks/limit, b.rounds, "rounds of the barrier")
			assert.Equal(t, int64(limit), ran.peak.Load(), "functions running at once")
		}
	})
}
