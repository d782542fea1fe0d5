package atomics

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// watchdog bounds every wait in these tests: a wait that has not finished
// after this long fails the test with every goroutine's stack instead of
// hanging the run.
const watchdog = 30 * time.Second

// spinUntil spins (with SpinHint, yielding now and then so that GOMAXPROCS=1
// makes progress) until cond holds, failing the test with a full goroutine
// dump if the watchdog expires first. It is safe to call from any goroutine:
// it reports through t.Errorf and returns false instead of calling FailNow.
func spinUntil(t *testing.T, what string, cond func() bool) bool {
	deadline := time.Now().Add(watchdog)
	for i := 1; !cond(); i++ {
		SpinHint()
		if i%64 == 0 {
			runtime.Gosched()
		}
		if i%(1<<14) == 0 && time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Errorf("watchdog: still waiting for %s after %v\n%s", what, watchdog, buf)
			return false
		}
	}
	return true
}

func TestLoadStoreRoundTrip(t *testing.T) {
	for _, v := range []uint64{0, 1, 1 << 31, 1<<32 + 7, 1<<63 | 5, ^uint64(0)} {
		var x uint64
		StoreRelease64(&x, v)
		if got := LoadAcquire64(&x); got != v {
			t.Errorf("LoadAcquire64 after StoreRelease64(%#x) = %#x", v, got)
		}
		// The neighbours of a 32-bit word must not be touched.
		var w [3]uint32
		StoreRelease32(&w[1], uint32(v))
		if got := atomic.LoadUint32(&w[1]); got != uint32(v) || w[0] != 0 || w[2] != 0 {
			t.Errorf("StoreRelease32(%#x): got %#x, neighbours %#x %#x", uint32(v), got, w[0], w[2])
		}
	}
}

func TestFencesAndHintReturn(t *testing.T) {
	// Nothing to observe beyond "executes and returns" on one goroutine; the
	// ordering they provide is what TestStoreBuffering checks.
	SeqCstFence()
	SpinHint()
}

// TestMessagePassing checks release/acquire: a writer fills a payload with
// plain stores and publishes it with StoreRelease64; a reader that sees the
// flag with LoadAcquire64 must see the whole payload. Under -race this is the
// check that the twin gives the detector a happens-before edge (the payload
// accesses are plain and would be reported otherwise).
func TestMessagePassing(t *testing.T) {
	rounds := 20000
	if testing.Short() {
		rounds = 2000
	}
	var (
		payload [4]uint64
		flag    uint64 // round number of the published payload
		ack     uint64 // round number the reader has checked
	)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for r := uint64(1); r <= uint64(rounds); r++ {
			if !spinUntil(t, "the reader's ack", func() bool { return LoadAcquire64(&ack) == r-1 }) {
				return
			}
			for i := range payload {
				payload[i] = r*10 + uint64(i)
			}
			StoreRelease64(&flag, r) // publishes payload; pairs with the reader's LoadAcquire64(&flag)
		}
	}()
	for r := uint64(1); r <= uint64(rounds); r++ {
		if !spinUntil(t, "the writer's flag", func() bool { return LoadAcquire64(&flag) == r }) {
			break
		}
		for i := range payload {
			if want := r*10 + uint64(i); payload[i] != want {
				t.Fatalf("round %d: payload[%d] = %d, want %d", r, i, payload[i], want)
			}
		}
		StoreRelease64(&ack, r)
	}
	wg.Wait()
}

// TestStoreBuffering is the store-buffering litmus test (Dekker): two
// goroutines each store 1 to their own flag, fence, and load the other's.
// Without a full fence x86 and arm64 both allow each load to miss the other's
// store (r0 == r1 == 0: each store still sat in its core's store buffer); a
// full fence forbids it. Each fence is checked on its own.
func TestStoreBuffering(t *testing.T) {
	rounds := 20000
	if testing.Short() {
		rounds = 2000
	}
	for _, f := range []struct {
		name  string
		fence func()
	}{
		{"SeqCstFence", SeqCstFence},
	} {
		t.Run(f.name, func(t *testing.T) {
			var (
				x, y   [2]uint32 // x[0], y[0]: the flags; padded apart by the arrays below
				_      Pad
				go0    uint32 // round the first goroutine may start
				done1  uint32 // round the second goroutine has finished
				r1Seen uint32
			)
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := uint32(1); r <= uint32(rounds); r++ {
					if !spinUntil(t, "round start", func() bool { return atomic.LoadUint32(&go0) == r }) {
						return
					}
					StoreRelease32(&y[0], r)
					f.fence()
					r1Seen = atomic.LoadUint32(&x[0])
					StoreRelease32(&done1, r)
				}
			}()
			both := 0
			for r := uint32(1); r <= uint32(rounds); r++ {
				StoreRelease32(&go0, r)
				StoreRelease32(&x[0], r)
				f.fence()
				r0 := atomic.LoadUint32(&y[0])
				if !spinUntil(t, "round end", func() bool { return atomic.LoadUint32(&done1) == r }) {
					break
				}
				// Each side stores the round number, so "missed the other's
				// store" is "read a value older than this round".
				if r0 < r && r1Seen < r {
					both++
				}
			}
			wg.Wait()
			if both != 0 {
				t.Errorf("%s: both loads missed the other store in %d of %d rounds", f.name, both, rounds)
			}
		})
	}
}
