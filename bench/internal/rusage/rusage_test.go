package rusage

import (
	"runtime"
	"testing"
	"time"
)

// TestRead: the figures only grow, and CPU time grows with work done.
func TestRead(t *testing.T) {
	u0 := Read()
	if !u0.OK {
		t.Skipf("no getrusage on %s", runtime.GOOS)
	}
	x := uint64(1)
	for start := time.Now(); time.Since(start) < 20*time.Millisecond; {
		x = x*6364136223846793005 + 1442695040888963407
	}
	time.Sleep(time.Millisecond) // at least one voluntary switch, on most systems
	u1 := Read()
	if x == 0 {
		t.Log("unreachable: keeps the loop")
	}
	if u1.CPU <= u0.CPU {
		t.Errorf("CPU time did not grow over 20 ms of work: %v -> %v", u0.CPU, u1.CPU)
	}
	if u1.VCSW < u0.VCSW || u1.IVCSW < u0.IVCSW {
		t.Errorf("context switches went down: %+v -> %+v", u0, u1)
	}
	if u1.MaxRSS <= 0 || u1.MaxRSS < u0.MaxRSS {
		t.Errorf("peak RSS %d -> %d", u0.MaxRSS, u1.MaxRSS)
	}
}
