//go:build amd64 && !race

package deque

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestFastPathsInline pins what the owner's fast paths exist for: the
// compiler inlines TryPush, PopFenced and PopUnshared into their callers
// (deque.go, "The owner's fast paths"). Their bodies sit close to the inlining
// budget (PopFenced at 78 of 80 with Go 1.26), so an innocent-looking edit
// could push one over and silently cost the pool's join a call; this test
// makes that edit fail instead. It compiles this package's test binary with
// -gcflags=-m (the test files instantiate Deque[uint64], without which the
// generic bodies are not reported) and reads the compiler's decisions.
// amd64 only: on arm64 PopFenced's fence is an assembly DMB, a call, and is
// not meant to inline. Skipped in -short mode (it runs the compiler) and
// where no go command is found.
func TestFastPathsInline(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the compiler")
	}
	// go test puts its own GOROOT/bin first on the test's PATH.
	gocmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(gocmd, "test", "-c", "-o", os.DevNull, "-gcflags=-m", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go test -c -gcflags=-m: %v\n%s", err, out)
	}
	for _, fn := range []string{"TryPush", "PopFenced", "PopUnshared"} {
		if want := "can inline (*Deque[go.shape.uint64])." + fn + "\n"; !strings.Contains(string(out), want) {
			t.Errorf("the compiler no longer inlines Deque.%s (look for it in go test -c -gcflags=-m=2 ./deque)", fn)
		}
	}
}
