package workload

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeClock is a clock whose time moves only when told: SleepUntil and
// After jump to their time (never back), advance moves it on.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) SleepUntil(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.now) {
		c.now = t
	}
}

func (c *fakeClock) After(t time.Time) <-chan time.Time {
	c.SleepUntil(t)
	ch := make(chan time.Time, 1)
	ch <- t
	return ch
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// A dispatch that stalls the generator (a server that makes its caller
// wait) must not hide the stall: the requests scheduled meanwhile count it
// from their scheduled arrival.
func TestOpenLoopCountsLatencyFromTheSchedule(t *testing.T) {
	clk := newFakeClock()
	var dispatched []time.Duration
	start := clk.Now()
	res, allDone := openLoop(clk, 6, ms(10), ms(100), ms(50), func(i int, finish func(bool)) {
		dispatched = append(dispatched, clk.Now().Sub(start))
		if i == 1 {
			clk.advance(ms(50)) // request 1 takes 50 ms, and holds the generator meanwhile
		}
		finish(true)
	})
	<-allDone
	assert.Equal(t, []time.Duration{0, ms(10), ms(60), ms(60), ms(60), ms(60)}, dispatched)
	// Request 0: 0; 1: 50; 2..5, scheduled at 20..50 and done at 60: 40, 30, 20, 10.
	assert.Equal(t, []time.Duration{0, ms(10), ms(20), ms(30), ms(40), ms(50)}, res.Lat)
	assert.Equal(t, 6, res.Offered)
	assert.Equal(t, 6, res.Served)
	assert.Equal(t, 6, res.InWindow)
	assert.Equal(t, ms(40), res.MaxLag)
}

// Requests that fail, never finish, or finish after the deadline are not
// served, and count as their lower bound: the deadline minus their
// schedule. One done between the window's end and the deadline is served,
// not in the window.
func TestOpenLoopUnservedRequests(t *testing.T) {
	clk := newFakeClock()
	var late func(bool)
	var pending func(bool)
	res, allDone := openLoop(clk, 5, ms(10), ms(50), ms(20), func(i int, finish func(bool)) {
		switch i {
		case 0:
			clk.advance(ms(5))
			finish(true) // 5 ms
		case 1:
			finish(false) // failed (a withdrawn request)
		case 2:
			pending = finish // never done before the deadline
		case 3:
			late = finish
		case 4:
			clk.advance(ms(25)) // done at 65: after the window (50), before the deadline (70)
			finish(true)
		}
	})
	select {
	case <-allDone:
		t.Fatal("allDone closed with requests still running")
	default:
	}
	// 0: 5 ms; 1: 70-10 = 60; 2: 70-20 = 50; 3: 70-30 = 40; 4: 65-40 = 25.
	assert.Equal(t, []time.Duration{ms(5), ms(25), ms(40), ms(50), ms(60)}, res.Lat)
	assert.Equal(t, 2, res.Served)
	assert.Equal(t, 1, res.InWindow)
	clk.advance(ms(100))
	late(true) // after the deadline: already counted as unserved
	pending(false)
	<-allDone
}

func TestOpenLoopNoRequests(t *testing.T) {
	res, allDone := openLoop(newFakeClock(), 0, ms(1), ms(10), ms(10), func(int, func(bool)) { t.Fatal("dispatched") })
	<-allDone
	assert.Zero(t, res.Offered)
	assert.Empty(t, res.Lat)
}

func TestQuantileNearestRank(t *testing.T) {
	xs := make([]time.Duration, 1000)
	for i := range xs {
		xs[i] = time.Duration(i + 1)
	}
	assert.Equal(t, time.Duration(500), quantile(xs, 0.5))
	assert.Equal(t, time.Duration(990), quantile(xs, 0.99))
	assert.Equal(t, time.Duration(999), quantile(xs, 0.999))
	assert.Equal(t, time.Duration(1000), quantile(xs, 1))
	assert.Equal(t, time.Duration(1), quantile(xs, 0))
	assert.Equal(t, time.Duration(7), quantile([]time.Duration{7}, 0.99))
	assert.Zero(t, quantile(nil, 0.5))
}

func TestServerPlan(t *testing.T) {
	s := &ServerSizes{Window: time.Second, CPU: 200 * time.Microsecond}
	n, gap := serverPlan(s, 50, 2) // capacity 2 / 200 µs = 10,000/s
	assert.Equal(t, 5000, n)
	assert.Equal(t, 200*time.Microsecond, gap)
	n, _ = serverPlan(s, 110, 2)
	assert.Equal(t, 11000, n)
}

func TestSpinUnitsPositive(t *testing.T) {
	assert.Positive(t, spinUnits(200*time.Microsecond))
	assert.Positive(t, spinUnits(time.Nanosecond))
}

// Every server runs each request once, and the fork variants each piece
// once per request.
func TestServersRunEveryRequestOnce(t *testing.T) {
	const n, forks = 40, 4
	for _, sv := range servers() {
		t.Run(sv.impl, func(t *testing.T) {
			var whole atomic.Int64
			pieces := make([]atomic.Int64, forks)
			r := request{wait: 10 * time.Microsecond, units: 1000, forks: forks, trace: func(k int) {
				if k < 0 {
					whole.Add(1)
				} else {
					pieces[k].Add(1)
				}
			}}
			serve, closeFn, err := sv.open("auto", r)
			require.NoError(t, err)
			watchdog(t, time.Minute, func() {
				var wg sync.WaitGroup
				for range n {
					wg.Add(1)
					go func() {
						defer wg.Done()
						assert.NoError(t, serve(context.Background()))
					}()
				}
				wg.Wait()
			})
			require.NoError(t, closeFn())
			if sv.impl == "blitz-fork-group" || sv.impl == "blitz-fork-par" {
				assert.Zero(t, whole.Load())
				for k := range pieces {
					assert.Equal(t, int64(n), pieces[k].Load(), "piece %d", k)
				}
				return
			}
			assert.Equal(t, int64(n), whole.Load())
			for k := range pieces {
				assert.Zero(t, pieces[k].Load())
			}
		})
	}
}

// serverRun on a real clock: a short run at low load serves every request
// and accounts for each once.
func TestServerRunServesEveryRequest(t *testing.T) {
	var runs atomic.Int64
	serve := func(context.Context) error { runs.Add(1); return nil }
	var res loadResult
	var hung bool
	watchdog(t, time.Minute, func() {
		res, hung = serverRun(serve, 20, time.Millisecond, 20*time.Millisecond, 10*time.Second)
	})
	assert.False(t, hung)
	assert.Equal(t, int64(20), runs.Load())
	assert.Equal(t, 20, res.Offered)
	assert.Equal(t, 20, res.Served)
	assert.Len(t, res.Lat, 20)
}

// A server whose requests outlive the deadline by more than the grace is
// reported hung; a context-aware one is released by the cancellation at
// the deadline.
func TestServerRunCancelsAtTheDeadline(t *testing.T) {
	shortGrace(t, 10*time.Second)
	serve := func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
	var res loadResult
	var hung bool
	watchdog(t, time.Minute, func() {
		res, hung = serverRun(serve, 5, time.Millisecond, 5*time.Millisecond, 5*time.Millisecond)
	})
	assert.False(t, hung)
	assert.Equal(t, 5, res.Offered)
	assert.Zero(t, res.Served)

	shortGrace(t, time.Millisecond)
	release := make(chan struct{})
	defer close(release)
	watchdog(t, time.Minute, func() {
		_, hung = serverRun(func(context.Context) error { <-release; return nil }, 2, time.Millisecond, time.Millisecond, time.Millisecond)
	})
	assert.True(t, hung)
}
