package blitz

import (
	"fmt"
	"math"
	"runtime/debug"
	"sync"
)

// Workers locked to OS threads. A futex-parking worker, and any worker of a
// pool with a placement (it pins its thread), holds its goroutine locked to
// an OS thread for its whole life, so each such worker is a thread of its
// own. The runtime ends the program when it needs more threads than its
// limit (debug.SetMaxThreads, 10000 by default): "thread exhaustion". New
// therefore refuses a pool whose locked workers, added to those of the
// process's other open pools, would exceed half of that limit, with an error
// wrapping ErrThreadLimit, before it starts anything. The other half is left
// to the runtime's own threads (one per P running Go code, threads blocked
// in system calls and cgo, sysmon, the template thread) and to the rest of
// the program. Portable parking without a placement locks nothing and is
// not limited here (sleep.MaxWorkers still is).
//
// threadBudget counts the locked workers of every open pool: New reserves
// before it starts a worker, finishClose releases after every worker
// goroutine exited. A pool that is never closed keeps its threads, and its
// reservation. A futex worker without a placement or a start hook unlocks
// its thread when it exits (worker.go: run): the runtime keeps the thread
// idle, for any goroutine, as it does a plain goroutine's, and a next pool
// reuses it instead of making one. A pinned thread, or one a start hook may
// have set up, ends with its worker.
var threadBudget struct {
	mu     sync.Mutex
	locked int // reserved by the open pools
}

// runtimeMaxThreads reads debug.SetMaxThreads' current value. The only way
// to read it is to set it: first to the largest value (never below the
// threads in use, so it cannot end the program), then back. The caller holds
// threadBudget.mu, so that two pools starting at once do not restore each
// other's temporary value.
func runtimeMaxThreads() int {
	prev := debug.SetMaxThreads(math.MaxInt32)
	debug.SetMaxThreads(prev)
	return prev
}

// reserveThreads reserves n more locked threads, for a new pool or one
// that grows, or returns an error wrapping ErrThreadLimit. who names the
// function that asked (New, Pool.Resize), and kind and pinned say why the
// pool locks its threads, for the message.
func reserveThreads(who string, n int, kind Parking, pinned bool) error {
	threadBudget.mu.Lock()
	defer threadBudget.mu.Unlock()
	limit := runtimeMaxThreads()
	if held := threadBudget.locked; held+n > limit/2 {
		why := "futex parking"
		switch {
		case pinned && kind == ParkingFutex:
			why = "futex parking and placement"
		case pinned:
			why = "placement"
		}
		return fmt.Errorf("blitz: %s: %d workers locked to OS threads (%s) and %d already held by open pools exceed %d, half the runtime's thread limit of %d (debug.SetMaxThreads); use fewer workers, or portable parking without placement: %w",
			who, n, why, held, limit/2, limit, ErrThreadLimit)
	}
	threadBudget.locked += n
	return nil
}

// releaseThreads returns a closed pool's reservation.
func releaseThreads(n int) {
	if n == 0 {
		return
	}
	threadBudget.mu.Lock()
	threadBudget.locked -= n
	threadBudget.mu.Unlock()
}
