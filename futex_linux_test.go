//go:build linux

package blitz

import (
	"runtime"
	"runtime/pprof"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// hasFutexToken peeks at a futex parker's token; known is false for other
// parkers.
func hasFutexToken(p any) (ok, known bool) {
	fp, isFutex := p.(*futexParker)
	if !isFutex {
		return false, false
	}
	return atomic.LoadUint32(&fp.state) == futexToken, true
}

// TestFutexNoWakeWithoutWaiter: Unpark makes a FUTEX_WAKE syscall only when
// the owner announced itself waiting.
func TestFutexNoWakeWithoutWaiter(t *testing.T) {
	p := new(futexParker)
	before := futexWakes.Load()
	for i := 0; i < 1000; i++ {
		p.Unpark()
		p.Unpark()
		p.Park()
	}
	if d := futexWakes.Load() - before; d != 0 {
		t.Fatalf("%d FUTEX_WAKE syscalls with nobody waiting, want 0", d)
	}

	// Control: with the owner parked, Unpark does wake it, once.
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		p.Park()
		close(done)
	}()
	for atomic.LoadUint32(&p.state) != futexWaiter {
		runtime.Gosched()
	}
	before = futexWakes.Load()
	p.Unpark()
	waitOrDump(t, done, "futex Park")
	if d := futexWakes.Load() - before; d != 1 {
		t.Fatalf("%d FUTEX_WAKE syscalls to wake one waiter, want 1", d)
	}
}

// TestFutexWaitTolerance: a FUTEX_WAIT on a word that no longer holds the
// expected value returns at once (EAGAIN), and Park's loop copes with it.
func TestFutexWaitTolerance(t *testing.T) {
	var w uint32 = futexToken
	futexWait(&w, futexWaiter) // EAGAIN: must not block
	p := new(futexParker)
	atomic.StoreUint32(&p.state, futexToken)
	p.Park() // token present: returns without a syscall
	if s := atomic.LoadUint32(&p.state); s != futexEmpty {
		t.Fatalf("state after Park = %d, want empty", s)
	}
}

// TestFutexWorkersHandBackTheirThreads: a futex pool's workers lock their
// OS threads, and without a placement hand them back to the runtime when
// they exit: the runtime keeps them (its threads, live or idle, are what
// the threadcreate profile counts), and a second pool of the same size
// reuses them instead of making as many again. Left locked, each thread
// ended with its worker, and that exit made Close cost 0.15-0.45 ms per
// worker. A pinned worker's thread, or one its start hook may have set up,
// is never handed back: it ends with its goroutine, so that what was set
// reaches no other goroutine (the second half).
func TestFutexWorkersHandBackTheirThreads(t *testing.T) {
	const n = 128
	threads := pprof.Lookup("threadcreate")
	run := func(opts ...Option) int {
		before := threads.Count()
		p, err := New(append([]Option{WithWorkers(n), WithParking(ParkingFutex), WithMaxWorkers(n)}, opts...)...)
		require.NoError(t, err)
		Do(p, func(*Worker) int { return 1 })
		// Every worker asleep in a futex wait holds a thread of its own.
		eventually(t, "every worker asleep", func() bool { return p.sleep.Sleeping() == n })
		require.NoError(t, p.Close())
		return threads.Count() - before
	}
	first := run()
	require.GreaterOrEqual(t, threads.Count(), n, "the runtime's threads after a pool of %d futex workers closed", n)
	second := run()
	require.Less(t, second, n/2, "threads the second pool of %d futex workers added (the first added %d)", n, first)

	// With a start hook the threads end with their workers: the pool
	// takes the idle threads the others left, and they end with it.
	before := threads.Count()
	run(WithWorkerStart(func(int) {}))
	require.LessOrEqual(t, threads.Count(), before-n/2, "the runtime's threads after a futex pool with a start hook closed (%d before)", before)
}
