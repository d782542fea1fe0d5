package par

import (
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The package's test helpers: those shared with the root package's tests
// live in internal/testkit; these wrap them, and add the pool helpers on the
// root's exported API.

// verifyNone fails t if goroutines leaked.
func verifyNone(t *testing.T) { t.Helper(); testkit.VerifyNone(t) }

func within(t testing.TB, what string, f func()) { t.Helper(); testkit.Within(t, what, f) }

// withPool creates a pool with opts, runs f, closes the pool (under the
// watchdog) and checks that no goroutine leaked.
func withPool(t *testing.T, opts []blitz.Option, f func(p *blitz.Pool)) {
	t.Helper()
	defer verifyNone(t)
	p, err := blitz.New(opts...)
	require.NoError(t, err, "New")
	defer within(t, "Close", func() { assert.NoError(t, p.Close(), "Close") })
	f(p)
}

// doW is blitz.Do under the watchdog.
func doW[T any](t testing.TB, p *blitz.Pool, fn func(w *blitz.Worker) T) T {
	t.Helper()
	var r T
	within(t, "Do", func() { r = blitz.Do(p, fn) })
	return r
}

// testParkings lists the backends this system has.
func testParkings() []blitz.Parking {
	ks := []blitz.Parking{blitz.ParkingPortable, blitz.ParkingSpin}
	if runtime.GOOS == "linux" {
		ks = append(ks, blitz.ParkingFutex)
	}
	return ks
}

// testWorkerCounts are the pool sizes every function is checked at.
var testWorkerCounts = []int{1, 2, 8}

// eachConfig runs f as a subtest for every backend and worker count.
func eachConfig(t *testing.T, f func(t *testing.T, p *blitz.Pool)) {
	for _, k := range testParkings() {
		for _, n := range testWorkerCounts {
			t.Run(fmt.Sprintf("parking=%v/workers=%d", k, n), func(t *testing.T) {
				// Capped at n: the tests pin the pieces and orders of an
				// n-worker pool, which a worker added for one taken as
				// blocked (a CPU-bound worker caught in a GC assist or a
				// system call on a loaded machine) would change.
				opts := []blitz.Option{blitz.WithParking(k), blitz.WithWorkers(n), blitz.WithMaxWorkers(n)}
				withPool(t, opts, func(p *blitz.Pool) { f(t, p) })
			})
		}
	}
}

func catchPanic(f func()) any { return testkit.CatchPanic(f) }

func exitsGoroutine(t testing.TB, f func()) bool { t.Helper(); return testkit.ExitsGoroutine(t, f) }

func runChild(t *testing.T, name string, env ...string) string {
	t.Helper()
	return testkit.RunChild(t, name, env...)
}

// requirePanicMessage asserts that f panics with exactly msg.
func requirePanicMessage(t *testing.T, msg string, f func()) {
	t.Helper()
	assert.PanicsWithValue(t, msg, f)
}

// requireTaskPanics runs f on a worker of p and requires it to panic with
// msg, which reaches the caller as the Value of a *blitz.PanicError.
func requireTaskPanics(t *testing.T, p *blitz.Pool, msg string, f func(w *blitz.Worker)) {
	t.Helper()
	v := catchPanic(func() { p.Run(f) })
	pe, ok := v.(*blitz.PanicError)
	require.True(t, ok, "panic %v (%T), want a *PanicError", v, v)
	assert.Equal(t, msg, pe.Value)
}

// hugeSize is a window or minimum that would take the machine's memory if
// it set it: 1<<40 on 64-bit machines (1<<8 on 32-bit ones, where 1<<24 and
// MaxInt stand for it).
const hugeSize = math.MaxInt>>23 + 1
