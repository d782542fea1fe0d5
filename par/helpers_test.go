package par

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/blitz-go/blitz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// The package's test helpers: the subset of the root package's that its
// tests need, on the root's exported API.

// verifyNone fails t if goroutines leaked.
func verifyNone(t *testing.T) {
	t.Helper()
	goleak.VerifyNone(t)
}

// watchdogTimeout bounds every wait in the tests. It is generous (race
// detector, qemu, a loaded 2-vCPU machine): it exists to turn a deadlock into
// a failure with a goroutine dump, never to measure time.
const watchdogTimeout = 60 * time.Second

// within runs f on a new goroutine and fails the test with a goroutine dump
// if it does not return within watchdogTimeout. f must not call t.FailNow.
func within(t testing.TB, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(watchdogTimeout):
		buf := make([]byte, 1<<20)
		t.Fatalf("%s: still running after %v\n%s", what, watchdogTimeout, buf[:runtime.Stack(buf, true)])
	}
}

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
				withPool(t, []blitz.Option{blitz.WithParking(k), blitz.WithWorkers(n)}, func(p *blitz.Pool) { f(t, p) })
			})
		}
	}
}

// catchPanic runs f and returns what it panicked with (nil if it returned).
func catchPanic(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// exitsGoroutine runs f on a new goroutine and reports whether f ended it
// with runtime.Goexit (rather than returning).
func exitsGoroutine(t testing.TB, f func()) bool {
	t.Helper()
	returned := false
	within(t, "goroutine", func() {
		done := make(chan struct{})
		go func() {
			defer close(done)
			f()
			returned = true
		}()
		<-done
	})
	return !returned
}

// runChild runs the test binary again with -test.run=^name$ and env added,
// for the tests that need a fresh process (GODEBUG). It skips the test where
// the binary cannot run itself: under user-mode emulation (go test -exec
// qemu-aarch64) exec finds a foreign binary.
func runChild(t *testing.T, name string, env ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if errors.Is(err, syscall.ENOEXEC) {
		t.Skipf("the test binary cannot run itself here: %v", err)
	}
	require.NoError(t, err, "child test failed:\n%s", out)
	require.Contains(t, string(out), "--- PASS: "+name)
	return string(out)
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

func fibArgs(w *blitz.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := blitz.JoinArgs(w, fibArgs, n-1, fibArgs, n-2)
	return a + b
}

func seqFib(n int) int {
	if n < 2 {
		return n
	}
	return seqFib(n-1) + seqFib(n-2)
}
