package blitz

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestParkingCondResolves(t *testing.T) {
	assert.Equal(t, "cond", ParkingCond.String())
	b, err := resolveBackend(ParkingCond)
	require.NoError(t, err)
	assert.Equal(t, ParkingCond, b.kind)
	assert.False(t, b.lockThread, "cond parking runs plain goroutines")
	require.NotNil(t, b.yield)
	require.NotNil(t, b.newParker)
	assert.IsType(t, &condParker{}, b.newParker())
}

// TestCondParkerToken: Unpark before Park leaves a token that Park consumes
// without waiting; two Unparks leave one token, not two.
func TestCondParkerToken(t *testing.T) {
	defer goleak.VerifyNone(t)
	p := newCondParker()
	tok, _ := p.state()
	require.False(t, tok, "a new parker has a token")
	p.Unpark()
	tok, _ = p.state()
	require.True(t, tok, "no token after Unpark")
	p.Park()
	tok, waits := p.state()
	require.False(t, tok, "Park did not consume the token")
	require.Zero(t, waits, "Park waited although a token was there")

	p.Unpark()
	p.Unpark()
	p.Park()
	tok, _ = p.state()
	require.False(t, tok, "two Unparks left two tokens")
}

// TestCondParkerWakesWaiter: an owner blocked in Park (its wait counted) is
// woken by an Unpark from another goroutine.
func TestCondParkerWakesWaiter(t *testing.T) {
	defer goleak.VerifyNone(t)
	rounds := 2000
	if testing.Short() {
		rounds = 200
	}
	p := newCondParker()
	for r := 0; r < rounds; r++ {
		_, before := p.state()
		done := make(chan struct{})
		go func() { p.Park(); close(done) }()
		// Unpark only once the owner waits, so the blocking path is the
		// one under test in every round.
		for {
			if _, w := p.state(); w > before {
				break
			}
			runtime.Gosched()
		}
		p.Unpark()
		waitOrDump(t, done, "woken Park")
	}
	tok, waits := p.state()
	assert.False(t, tok)
	assert.GreaterOrEqual(t, waits, rounds, "every round must have waited")
}

// TestCondParkerPingPong passes the turn between two goroutines through two
// parkers; every wake is delivered, none is lost.
func TestCondParkerPingPong(t *testing.T) {
	defer goleak.VerifyNone(t)
	rounds := 20000
	if testing.Short() {
		rounds = 2000
	}
	ping, pong := newCondParker(), newCondParker()
	var turn atomic.Int64 // even: ping's holder runs; odd: pong's
	var wg sync.WaitGroup
	wg.Add(2)
	player := func(me, other *condParker, parity int64) {
		defer wg.Done()
		for i := 0; i < rounds; i++ {
			for turn.Load()%2 != parity {
				me.Park()
			}
			turn.Add(1)
			other.Unpark()
		}
	}
	go player(ping, pong, 0)
	go player(pong, ping, 1)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	waitOrDump(t, done, "ping-pong")
	require.Equal(t, int64(2*rounds), turn.Load())
	_, w1 := ping.state()
	_, w2 := pong.state()
	t.Logf("waits: ping %d, pong %d", w1, w2)
}

// TestCondParkerUnparkRace: several goroutines Unpark at once while the owner
// parks; every Park returns and at most one token is left behind.
func TestCondParkerUnparkRace(t *testing.T) {
	defer goleak.VerifyNone(t)
	rounds, unparkers := 2000, 4
	if testing.Short() {
		rounds = 200
	}
	p := newCondParker()
	for r := 0; r < rounds; r++ {
		var start, wg sync.WaitGroup
		start.Add(1)
		wg.Add(unparkers)
		for u := 0; u < unparkers; u++ {
			go func() {
				defer wg.Done()
				start.Wait()
				p.Unpark()
			}()
		}
		start.Done()
		done := make(chan struct{})
		go func() { p.Park(); close(done) }()
		waitOrDump(t, done, "Park among racing Unparks")
		wg.Wait()
		if tok, _ := p.state(); tok {
			p.Park() // consumes it without waiting
		}
		tok, _ := p.state()
		require.False(t, tok, "round %d: a second token survived one Park", r)
	}
}

// TestPoolWithParkingCond runs joins and submissions on pools with the cond
// backend, including after the workers have gone to sleep.
func TestPoolWithParkingCond(t *testing.T) {
	for _, n := range testWorkerCounts {
		withPool(t, []Option{WithParking(ParkingCond), WithWorkers(n)}, func(p *Pool) {
			require.Equal(t, ParkingCond, p.Parking())
			require.Equal(t, seqFib(20), doW(t, p, func(w *Worker) int { return condFib(w, 20) }))
			// A worker is asleep once the work is gone (parked, or given
			// back asleep by a Do that ran on its caller); then wake the
			// pool with new work.
			eventually(t, "a worker asleep", p.sleep.HasSleepers)
			var ran atomic.Int64
			var wg sync.WaitGroup
			for i := 0; i < 100; i++ {
				wg.Add(1)
				require.NoError(t, p.Go(func(*Worker) { ran.Add(1); wg.Done() }))
			}
			within(t, "submitted tasks", wg.Wait)
			require.Equal(t, int64(100), ran.Load())
		})
	}
}

// condFib is fib with a join at every level.
func condFib(w *Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := Join(w, func(w *Worker) int { return condFib(w, n-1) }, func(w *Worker) int { return condFib(w, n-2) })
	return a + b
}
