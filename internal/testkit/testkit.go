// Package testkit holds the test helpers that the module's packages share:
// the watchdog that turns a deadlock into a failure with a goroutine dump,
// panic and Goexit probes, and re-running the test binary in a fresh
// process. It imports nothing of the module, so that the root package's own
// tests can use it.
package testkit

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// WatchdogTimeout bounds every wait in the tests. It is generous (race
// detector, qemu, a loaded 2-vCPU machine): it exists to turn a deadlock into
// a failure with a goroutine dump, never to measure time.
const WatchdogTimeout = 60 * time.Second

// VerifyNone fails t if goroutines leaked.
func VerifyNone(t testing.TB) {
	t.Helper()
	goleak.VerifyNone(t)
}

// DumpAll returns every goroutine's stack.
func DumpAll() string {
	buf := make([]byte, 1<<20)
	return string(buf[:runtime.Stack(buf, true)])
}

// Within runs f on a new goroutine and fails the test with a goroutine dump
// if it does not return within WatchdogTimeout. f must not call t.FailNow.
func Within(t testing.TB, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	WaitOrDump(t, done, what)
}

// WaitOrDump waits for done and fails the test with a goroutine dump if it
// is not closed within WatchdogTimeout.
func WaitOrDump(t testing.TB, done <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(WatchdogTimeout):
		t.Fatalf("%s: still running after %v\n%s", what, WatchdogTimeout, DumpAll())
	}
}

// CatchPanic runs f and returns what it panicked with (nil if it returned).
func CatchPanic(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// ExitsGoroutine runs f on a new goroutine and reports whether f ended it
// with runtime.Goexit (rather than returning).
func ExitsGoroutine(t testing.TB, f func()) bool {
	t.Helper()
	returned := false
	Within(t, "goroutine", func() {
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

// EmulatedEnv names the variable that says the tests run under user-mode
// emulation (CI sets it for go test -exec qemu-aarch64). There, a process
// that starts another one can hang: qemu-user forks its whole multi-threaded
// emulator, and a child that inherits a lock another thread held never
// reaches exec, while the parent waits for it in os.StartProcess.
const EmulatedEnv = "BLITZ_TEST_EMULATED"

// SkipIfEmulated skips t when EmulatedEnv is set. Every test that starts a
// process (the test binary again, the go command) calls it first: what those
// tests check does not depend on the architecture, and the native runs cover
// it.
func SkipIfEmulated(t testing.TB) {
	t.Helper()
	if os.Getenv(EmulatedEnv) != "" {
		t.Skipf("starts a process, which can hang under user-mode emulation (%s is set)", EmulatedEnv)
	}
}

// RunChild runs the test binary again with -test.run=^name$ and env added,
// for the tests that need a fresh process (the default pool, GODEBUG). It
// skips the test under emulation (SkipIfEmulated), and where the binary
// cannot run itself: without a binfmt handler, exec of the test binary under
// qemu-aarch64 finds a foreign binary.
func RunChild(t testing.TB, name string, env ...string) string {
	t.Helper()
	SkipIfEmulated(t)
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

// SeqFib is the sequential Fibonacci number, the answer every fork-join
// fib is checked against.
func SeqFib(n int) int {
	if n < 2 {
		return n
	}
	return SeqFib(n-1) + SeqFib(n-2)
}
