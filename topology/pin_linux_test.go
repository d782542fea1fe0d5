//go:build linux

package topology

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// await waits for done, or fails the test with every goroutine's stack after
// a watchdog delay instead of hanging.
func await(t *testing.T, done <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		buf := make([]byte, 1<<20)
		t.Fatalf("%s: still waiting after 30s\n%s", what, buf[:runtime.Stack(buf, true)])
	}
}

// onLockedThread runs f on a fresh goroutine locked to its thread and waits.
func onLockedThread(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		f()
	}()
	await(t, done, "locked goroutine")
}

func processMask(t *testing.T) CPUSet {
	t.Helper()
	var m CPUSet
	var err error
	onLockedThread(t, func() { m, err = ThreadAffinity() })
	if err != nil {
		t.Fatal(err)
	}
	if m.IsEmpty() {
		t.Fatal("empty affinity mask")
	}
	return m
}

// TestPinEachAllowedCPU pins to every allowed CPU in turn, reads the mask
// back, then unpins and checks the thread got its old mask back.
func TestPinEachAllowedCPU(t *testing.T) {
	orig := processMask(t)
	allowed := Detect().Allowed
	if !allowed.Equal(orig) {
		t.Logf("allowed %s differs from the affinity mask %s (offline CPUs in the mask)", allowed, orig)
	}
	for _, c := range allowed.List() {
		var got, after CPUSet
		var pinErr, readErr error
		onLockedThread(t, func() {
			unpin, err := Pin(c)
			if pinErr = err; err != nil {
				return
			}
			got, readErr = ThreadAffinity()
			unpin()
			unpin() // a second call does nothing
			after, _ = ThreadAffinity()
		})
		if pinErr != nil {
			t.Fatalf("Pin(%d): %v", c, pinErr)
		}
		if readErr != nil {
			t.Fatal(readErr)
		}
		want(t, "mask while pinned", got.String(), NewCPUSet(c).String())
		want(t, "mask after unpin", after.String(), orig.String())
	}
}

// TestPinImpossible: CPUs that cannot be pinned give an error wrapping
// EINVAL, and leave the thread's mask as it was.
func TestPinImpossible(t *testing.T) {
	orig := processMask(t)
	missing := -1
	for c := 0; c < affinityCPUs; c++ {
		if !orig.Contains(c) {
			missing = c
			break
		}
	}
	for _, c := range []int{-1, affinityCPUs, 1 << 20, missing} {
		if c == missing && c < 0 {
			continue
		}
		var err error
		var after CPUSet
		onLockedThread(t, func() {
			var unpin func()
			unpin, err = Pin(c)
			if err == nil {
				unpin()
			}
			after, _ = ThreadAffinity()
		})
		if !errors.Is(err, unix.EINVAL) {
			t.Errorf("Pin(%d) = %v, want an error wrapping EINVAL", c, err)
		}
		want(t, "mask after a failed pin", after.String(), orig.String())
	}
}

// TestPinNoLeak: pinned threads never hand a narrowed mask to other
// goroutines. Goroutines pin and unpin (or exit still pinned) concurrently;
// then locked goroutines check that whatever thread they land on has the
// process mask. The rare path is landing on a thread that was pinned before:
// it must have happened at least once in full mode.
func TestPinNoLeak(t *testing.T) {
	orig := processMask(t)
	cpus := orig.List()
	rounds, workers := 50, 8
	if testing.Short() {
		rounds = 10
	}
	var mu sync.Mutex
	pinnedTIDs := map[int]bool{}
	var pins, reused, checked atomic.Int64
	for r := 0; r < rounds; r++ {
		start := make(chan struct{})
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				<-start
				c := cpus[(r+w)%len(cpus)]
				unpin, err := Pin(c)
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				pinnedTIDs[unix.Gettid()] = true
				mu.Unlock()
				if m, err := ThreadAffinity(); err != nil || !m.Equal(NewCPUSet(c)) {
					errs <- errors.New("pinned mask is " + m.String())
				}
				pins.Add(1)
				runtime.Gosched()
				if w%4 != 3 { // every fourth exits pinned: its thread must die
					unpin()
				}
			}(w)
		}
		close(start)
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		await(t, done, "pinning goroutines")
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		for k := 0; k < workers; k++ {
			onLockedThread(t, func() {
				m, err := ThreadAffinity()
				if err != nil || !m.Equal(orig) {
					t.Errorf("a later goroutine's thread has mask %s (%v), want %s", m, err, orig)
				}
				mu.Lock()
				if pinnedTIDs[unix.Gettid()] {
					reused.Add(1)
				}
				mu.Unlock()
				checked.Add(1)
			})
		}
	}
	want(t, "pins", pins.Load(), int64(rounds*workers))
	t.Logf("%d pins, %d later threads checked, %d of them had been pinned before", pins.Load(), checked.Load(), reused.Load())
	if !testing.Short() && reused.Load() == 0 {
		t.Error("no check ran on a formerly pinned thread: the test did not exercise the restore path")
	}
}

// liveHeap is the heap still reachable after a full collection.
func liveHeap() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestPinExitLeavesNothing: a goroutine that exits pinned (as a pool's
// worker does) leaves nothing behind in this package. Goroutines pin and
// exit without unpinning, in batches; after a warm-up batch the live heap
// must not grow with the number of pins, and a Detect on a pinned thread
// still answers with the process's CPUs.
func TestPinExitLeavesNothing(t *testing.T) {
	cpus := processMask(t).List()
	pins := 4000
	if testing.Short() {
		pins = 2000
	}
	const batch = 8
	churn := func(n int) {
		for done := 0; done < n; done += batch {
			var wg sync.WaitGroup
			errs := make(chan error, batch)
			for k := 0; k < batch; k++ {
				wg.Add(1)
				go func(cpu int) {
					defer wg.Done()
					if _, err := Pin(cpu); err != nil {
						errs <- err
					}
					// Exits pinned: the runtime ends the thread.
				}(cpus[(done+k)%len(cpus)])
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				require.NoError(t, err)
			}
		}
	}
	churn(pins / 4)
	before := liveHeap()
	churn(pins)
	after := liveHeap()
	grown := int64(after) - int64(before)
	t.Logf("live heap %d -> %d bytes over %d pins that exited pinned: %+d bytes (%.1f per pin)",
		before, after, pins, grown, float64(grown)/float64(pins))
	const perPin = 64 // bytes; a remembered thread costs several times more
	assert.Less(t, grown, int64(perPin*pins), "the live heap grew with the pins")

	var allowed CPUSet
	var err error
	onLockedThread(t, func() {
		if _, err = Pin(cpus[len(cpus)-1]); err == nil {
			allowed = Detect().Allowed // exits pinned afterwards
		}
	})
	require.NoError(t, err)
	assert.True(t, allowed.Equal(processMask(t).Intersect(Detect().Online)), "Detect on a pinned thread: allowed %s", allowed)
}
