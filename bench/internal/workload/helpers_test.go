package workload

import (
	"runtime"
	"testing"
	"time"
)

// watchdog runs f and fails the test with every goroutine's stack if f does
// not return within d, instead of hanging the test binary.
func watchdog(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		t.Fatalf("no result after %v; goroutines:\n%s", d, buf[:n])
	}
}
