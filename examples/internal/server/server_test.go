package server

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/blitz-go/blitz"
)

const watchdog = 30 * time.Second

// dumpFail fails the test with every goroutine's stack.
func dumpFail(t *testing.T, what string) {
	t.Helper()
	buf := make([]byte, 1<<20)
	n := runtime.Stack(buf, true)
	t.Fatalf("timed out waiting for %s; goroutines:\n%s", what, buf[:n])
}

func digest(seed uint64) [sha256.Size]byte {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	return sha256.Sum256(b[:])
}

// gate is a work function that reports each start and blocks until released.
type gate struct {
	started chan uint64
	release chan struct{}
}

func newGate() *gate {
	return &gate{started: make(chan uint64, 64), release: make(chan struct{})}
}

func (g *gate) work(seed uint64) [sha256.Size]byte {
	g.started <- seed
	<-g.release
	return digest(seed)
}

func (g *gate) waitStarted(t *testing.T, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		select {
		case <-g.started:
		case <-time.After(watchdog):
			dumpFail(t, fmt.Sprintf("task %d of %d to start", i+1, n))
		}
	}
}

// testClient returns a client whose connections the cleanup closes, so
// goleak sees no transport goroutines.
func testClient(t *testing.T) *http.Client {
	tr := &http.Transport{MaxIdleConnsPerHost: 16}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: watchdog}
}

func get(t *testing.T, c *http.Client, s *Server) (int, string) {
	t.Helper()
	resp, err := c.Get("http://" + s.Addr() + "/work")
	if err != nil {
		t.Errorf("GET: %v", err)
		return 0, ""
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Errorf("read body: %v", err)
	}
	return resp.StatusCode, string(b)
}

func start(t *testing.T, cfg Config) *Server {
	t.Helper()
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func shutdown(t *testing.T, s *Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}

func TestEveryModeServes200WithTheWorkResult(t *testing.T) {
	for _, m := range Modes {
		t.Run("mode="+m.String(), func(t *testing.T) {
			defer goleak.VerifyNone(t)
			s := start(t, Config{Mode: m, Workers: 2, Capacity: 4, Work: digest})
			c := testClient(t)
			for i := 0; i < 5; i++ {
				code, body := get(t, c, s)
				if code != http.StatusOK {
					t.Fatalf("request %d: status %d, body %q", i, code, body)
				}
				// Seeds are 1, 2, ... in arrival order.
				want := fmt.Sprintf("%x\n", digest(uint64(i+1)))
				if body != want {
					t.Fatalf("request %d: body %q, want %q", i, body, want)
				}
			}
			c.Transport.(*http.Transport).CloseIdleConnections()
			shutdown(t, s)
			if ok, busy, failed := s.Counts(); ok != 5 || busy != 0 || failed != 0 {
				t.Errorf("Counts = %d, %d, %d; want 5, 0, 0", ok, busy, failed)
			}
		})
	}
}

// TestBoundedModesReject503AtCapacity fills every slot with work that
// blocks, checks that the next request is refused with 503 at once, then
// releases the work and checks that the admitted requests complete and a
// slot is free again.
func TestBoundedModesReject503AtCapacity(t *testing.T) {
	cases := []struct {
		mode              Mode
		workers, capacity int
		parking           blitz.Parking
	}{
		{Ants, 0, 1, 0}, {Ants, 0, 3, 0},
		{Blitz, 1, 1, blitz.ParkingAuto}, {Blitz, 2, 2, blitz.ParkingAuto},
		{Blitz, 1, 1, blitz.ParkingPortable}, {Blitz, 2, 2, blitz.ParkingPortable},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("mode=%v/capacity=%d/parking=%v", tc.mode, tc.capacity, tc.parking), func(t *testing.T) {
			defer goleak.VerifyNone(t)
			g := newGate()
			s := start(t, Config{Mode: tc.mode, Workers: tc.workers, Capacity: tc.capacity, Parking: tc.parking, Work: g.work})
			c := testClient(t)
			codes := make(chan int, tc.capacity)
			for i := 0; i < tc.capacity; i++ {
				go func() { code, _ := get(t, c, s); codes <- code }()
			}
			g.waitStarted(t, tc.capacity) // every slot holds a running task
			if code, body := get(t, c, s); code != http.StatusServiceUnavailable {
				t.Errorf("request beyond capacity: status %d (%q), want 503", code, body)
			}
			close(g.release)
			for i := 0; i < tc.capacity; i++ {
				select {
				case code := <-codes:
					if code != http.StatusOK {
						t.Errorf("admitted request: status %d, want 200", code)
					}
				case <-time.After(watchdog):
					dumpFail(t, "admitted requests")
				}
			}
			if code, _ := get(t, c, s); code != http.StatusOK {
				t.Errorf("request after the slots freed: status %d, want 200", code)
			}
			c.Transport.(*http.Transport).CloseIdleConnections()
			shutdown(t, s)
			ok, busy, failed := s.Counts()
			if ok != uint64(tc.capacity)+1 || busy != 1 || failed != 0 {
				t.Errorf("Counts = %d, %d, %d; want %d, 1, 0", ok, busy, failed, tc.capacity+1)
			}
		})
	}
}

// TestInlineNeverRejects: inline mode has no bound; requests beyond any
// "capacity" are all admitted.
func TestInlineNeverRejects(t *testing.T) {
	defer goleak.VerifyNone(t)
	g := newGate()
	s := start(t, Config{Mode: Inline, Capacity: 1, Work: g.work})
	c := testClient(t)
	const n = 4
	codes := make(chan int, n)
	for i := 0; i < n; i++ {
		go func() { code, _ := get(t, c, s); codes <- code }()
	}
	g.waitStarted(t, n) // all n run at once: nothing refused any
	close(g.release)
	for i := 0; i < n; i++ {
		select {
		case code := <-codes:
			if code != http.StatusOK {
				t.Errorf("status %d, want 200", code)
			}
		case <-time.After(watchdog):
			dumpFail(t, "inline requests")
		}
	}
	c.Transport.(*http.Transport).CloseIdleConnections()
	shutdown(t, s)
}

// TestShutdownFinishesAcceptedRequests shuts down while a request's work
// is blocked: the request still gets its 200 and Shutdown returns nil.
func TestShutdownFinishesAcceptedRequests(t *testing.T) {
	for _, m := range Modes {
		t.Run("mode="+m.String(), func(t *testing.T) {
			defer goleak.VerifyNone(t)
			g := newGate()
			s := start(t, Config{Mode: m, Workers: 1, Capacity: 2, Work: g.work})
			c := testClient(t)
			code := make(chan int, 1)
			go func() { cd, _ := get(t, c, s); code <- cd }()
			g.waitStarted(t, 1)
			done := make(chan error, 1)
			go func() { done <- s.Shutdown(context.Background()) }()
			close(g.release)
			select {
			case cd := <-code:
				if cd != http.StatusOK {
					t.Errorf("in-flight request: status %d, want 200", cd)
				}
			case <-time.After(watchdog):
				dumpFail(t, "the in-flight request")
			}
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Shutdown: %v", err)
				}
			case <-time.After(watchdog):
				dumpFail(t, "Shutdown")
			}
			c.Transport.(*http.Transport).CloseIdleConnections()
		})
	}
}

// TestPanickingWorkFailsOnlyItsRequest: in every mode, work that panics
// gets that request a 500, and the server (and its pool) keeps serving.
func TestPanickingWorkFailsOnlyItsRequest(t *testing.T) {
	for _, m := range Modes {
		t.Run("mode="+m.String(), func(t *testing.T) {
			defer goleak.VerifyNone(t)
			log.SetOutput(io.Discard) // the server logs the panic and its stack
			defer log.SetOutput(os.Stderr)
			work := func(seed uint64) [sha256.Size]byte {
				if seed%2 == 1 {
					panic(fmt.Sprintf("boom %d", seed))
				}
				return digest(seed)
			}
			s := start(t, Config{Mode: m, Workers: 1, Capacity: 2, Work: work})
			c := testClient(t)
			for i := 1; i <= 4; i++ {
				want := http.StatusOK
				if i%2 == 1 {
					want = http.StatusInternalServerError
				}
				if code, body := get(t, c, s); code != want {
					t.Errorf("request %d: status %d (%q), want %d", i, code, body, want)
				}
			}
			c.Transport.(*http.Transport).CloseIdleConnections()
			shutdown(t, s)
			if ok, _, failed := s.Counts(); ok != 2 || failed != 2 || s.Panics() != 2 {
				t.Errorf("ok %d, failed %d, panics %d; want 2, 2, 2", ok, failed, s.Panics())
			}
		})
	}
}

func TestStartRejectsBadConfig(t *testing.T) {
	defer goleak.VerifyNone(t)
	bad := []struct {
		name string
		cfg  Config
		want string
	}{
		{"nil work", Config{Mode: Inline}, "Work is nil"},
		{"public addr", Config{Mode: Inline, Addr: "0.0.0.0:0", Work: digest}, "not a loopback"},
		{"hostname", Config{Mode: Inline, Addr: "example.com:80", Work: digest}, "not a loopback"},
		{"no port", Config{Mode: Inline, Addr: "127.0.0.1", Work: digest}, "bad address"},
		{"ants capacity 0", Config{Mode: Ants, Work: digest}, "Capacity >= 1"},
		{"blitz capacity 0", Config{Mode: Blitz, Work: digest}, "Capacity >= 1"},
		{"blitz negative workers", Config{Mode: Blitz, Capacity: 1, Workers: -1, Work: digest}, "Workers"},
		{"unknown mode", Config{Mode: Mode(9), Work: digest}, "unknown mode"},
	}
	for _, b := range bad {
		s, err := Start(b.cfg)
		if err == nil {
			s.Shutdown(context.Background())
			t.Errorf("%s: no error", b.name)
		} else if !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: error %q does not mention %q", b.name, err, b.want)
		}
	}
	for _, ok := range []string{"127.0.0.1:0", "[::1]:0", "localhost:0"} {
		if err := CheckLoopback(ok); err != nil {
			t.Errorf("CheckLoopback(%q) = %v", ok, err)
		}
	}
}

func TestParseMode(t *testing.T) {
	for _, m := range Modes {
		got, err := ParseMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v", m.String(), got, err)
		}
	}
	if _, err := ParseMode("goroutine"); err == nil {
		t.Error("ParseMode(goroutine): no error")
	}
}
