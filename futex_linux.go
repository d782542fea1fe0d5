//go:build linux

package blitz

import (
	"runtime"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/blitz-go/blitz/atomics"
	"github.com/blitz-go/blitz/sleep"
)

// futexBackend parks workers locked to OS threads on a futex word. Their idle
// rounds yield with sched_yield: runtime.Gosched on a locked thread makes the
// M hand its P to another M and sleep until the goroutine is scheduled again,
// two thread hand-offs per round instead of one cheap syscall
// (BenchmarkYield in park_bench_test.go; bench/results/sleep-amd64.txt).
// Gosched-yielding locked workers at GOMAXPROCS=1 can also starve the GC's
// mark termination.
func futexBackend() (backend, error) {
	return backend{
		kind:       ParkingFutex,
		lockThread: true,
		newParker:  func() sleep.Parker { return new(futexParker) },
		yield:      schedYield,
	}, nil
}

// Linux futex operations (linux/futex.h); x/sys/unix defines SYS_FUTEX but
// not these.
const (
	futexWaitPrivate = 128 // FUTEX_WAIT | FUTEX_PRIVATE_FLAG
	futexWakePrivate = 129 // FUTEX_WAKE | FUTEX_PRIVATE_FLAG
)

// futexParker states, as in the Go runtime's lock_futex.go: Unpark makes a
// wake syscall only when Park announced a waiter.
const (
	futexEmpty  uint32 = iota // no token, nobody waiting
	futexToken                // a token is available
	futexWaiter               // the owner is in (or about to enter) FUTEX_WAIT
)

// futexParker is a Parker on one 32-bit futex word.
type futexParker struct {
	// state is written by Park (the owning worker only: Empty -> Waiter and
	// Token -> Empty, by CAS) and by Unpark (any goroutine: any -> Token, by
	// swap). The kernel reads it in FUTEX_WAIT, comparing it with Waiter.
	// All accesses are sequentially consistent atomics.
	state uint32
	_     atomics.Pad // keep neighbouring parkers off this cache line
}

// Park blocks until it consumes the token. It never returns spuriously: an
// EINTR, an EAGAIN (the word changed before the kernel looked) or a spurious
// wake-up just re-checks the word.
func (p *futexParker) Park() {
	if atomic.CompareAndSwapUint32(&p.state, futexToken, futexEmpty) {
		return
	}
	if !atomic.CompareAndSwapUint32(&p.state, futexEmpty, futexWaiter) {
		// Only Unpark changes an Empty word: the token arrived.
		atomic.StoreUint32(&p.state, futexEmpty)
		return
	}
	// About to block. A locked worker in a futex wait keeps its P until
	// sysmon retakes it (20 µs to 10 ms later), so goroutines its tasks
	// made runnable on that P (a Do caller, a WaitGroup waiter) would wait
	// that long: hand them the P first. The word already says Waiter, so an
	// Unpark meanwhile leaves the token and the wait below returns at once.
	// BenchmarkDo/workers=2 measures what it saves a Do caller.
	runtime.Gosched()
	for !atomic.CompareAndSwapUint32(&p.state, futexToken, futexEmpty) {
		futexWait(&p.state, futexWaiter)
	}
}

// Unpark leaves the token and wakes the owner if it announced itself waiting.
// With nobody waiting it is one atomic swap and no syscall.
func (p *futexParker) Unpark() {
	if atomic.SwapUint32(&p.state, futexToken) == futexWaiter {
		futexWake(&p.state)
	}
}

// futexWakes counts FUTEX_WAKE calls, for the test that no wake syscall is
// made when nobody waits. It is only touched on the syscall path.
var futexWakes atomic.Uint64

// futexWait sleeps while *addr == val. It goes through unix.Syscall6 (the
// runtime's syscall entry, as syscall.Syscall6), which tells the scheduler
// the thread is blocked so that sysmon can hand its P to another thread;
// RawSyscall6 would keep the P for as long as the thread sleeps (two
// sleepers at GOMAXPROCS=2 would stop the program). Errors (EINTR, EAGAIN)
// are ignored: the caller re-checks the word.
func futexWait(addr *uint32, val uint32) {
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWaitPrivate, uintptr(val), 0, 0, 0)
}

// futexWake wakes one thread sleeping on addr.
func futexWake(addr *uint32) {
	futexWakes.Add(1)
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWakePrivate, 1, 0, 0, 0)
}

// schedYield gives the thread's CPU to another runnable thread, through
// unix.Syscall (not RawSyscall) so that the Go scheduler accounts for it.
func schedYield() {
	unix.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0)
}
