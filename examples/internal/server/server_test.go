package server

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"expvar"
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

// queuedIn returns how many tasks wait for a worker in a bounded mode's
// executor: queued in the blitz pool, or blocked in ants' Submit.
func queuedIn(t *testing.T, s *Server) int {
	switch e := s.exec.(type) {
	case *blitzExecutor:
		return e.pool.Stats().Queued
	case *antsExecutor:
		return e.pool.Waiting()
	}
	t.Fatalf("mode %v has no queue", s.Mode())
	return 0
}

// waitQueued polls until n tasks wait in s's executor. The requests were
// sent by other goroutines; nothing else tells when they reached the queue.
// The loop yields and has a watchdog; it is a wait for a state, not a
// timed sleep.
func waitQueued(t *testing.T, s *Server, n int) {
	t.Helper()
	deadline := time.After(watchdog)
	for queuedIn(t, s) < n {
		select {
		case <-deadline:
			dumpFail(t, fmt.Sprintf("%d tasks to queue (have %d)", n, queuedIn(t, s)))
		default:
			runtime.Gosched()
		}
	}
}

// TestBoundedModesReject503AtCapacity fills every worker with work that
// blocks and the queue behind them with Capacity more requests, checks that
// the next request is refused with 503 at once, then releases the work and
// checks that every admitted request completes and there is room again.
func TestBoundedModesReject503AtCapacity(t *testing.T) {
	cases := []struct {
		mode              Mode
		workers, capacity int
		parking           blitz.Parking
	}{
		{Ants, 1, 1, 0}, {Ants, 2, 3, 0},
		{Blitz, 1, 1, blitz.ParkingAuto}, {Blitz, 2, 3, blitz.ParkingAuto},
		{Blitz, 1, 1, blitz.ParkingPortable}, {Blitz, 2, 3, blitz.ParkingPortable},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("mode=%v/workers=%d/capacity=%d/parking=%v", tc.mode, tc.workers, tc.capacity, tc.parking), func(t *testing.T) {
			defer goleak.VerifyNone(t)
			g := newGate()
			// MaxWorkers = Workers: the pool must not add workers for
			// the blocked ones, or it would run the queue it should fill.
			s := start(t, Config{Mode: tc.mode, Workers: tc.workers, MaxWorkers: tc.workers, Capacity: tc.capacity, Parking: tc.parking, Work: g.work})
			c := testClient(t)
			admitted := tc.workers + tc.capacity
			codes := make(chan int, admitted)
			for i := 0; i < tc.workers; i++ {
				go func() { code, _ := get(t, c, s); codes <- code }()
			}
			g.waitStarted(t, tc.workers) // every worker holds a blocked task
			for i := 0; i < tc.capacity; i++ {
				go func() { code, _ := get(t, c, s); codes <- code }()
			}
			waitQueued(t, s, tc.capacity) // and the queue is full
			if code, body := get(t, c, s); code != http.StatusServiceUnavailable {
				t.Errorf("request beyond capacity: status %d (%q), want 503", code, body)
			}
			close(g.release)
			for i := 0; i < admitted; i++ {
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
				t.Errorf("request after the queue drained: status %d, want 200", code)
			}
			c.Transport.(*http.Transport).CloseIdleConnections()
			shutdown(t, s)
			ok, busy, failed := s.Counts()
			if ok != uint64(admitted)+1 || busy != 1 || failed != 0 {
				t.Errorf("Counts = %d, %d, %d; want %d, 1, 0", ok, busy, failed, admitted+1)
			}
			if peak := s.PeakInExecutor(); peak != int64(admitted)+1 {
				t.Errorf("PeakInExecutor = %d, want %d (every admitted request and the refused one)", peak, admitted+1)
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

func getPath(t *testing.T, c *http.Client, s *Server, path string) string {
	t.Helper()
	resp, err := c.Get("http://" + s.Addr() + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d, %v", path, resp.StatusCode, err)
	}
	return string(b)
}

// TestMetricsEndpoints: /debug/vars has the server's counts and, in blitz
// mode, the pool's Stats under the server's name; /metrics has the same in
// the Prometheus format. Both show what two requests did.
func TestMetricsEndpoints(t *testing.T) {
	defer goleak.VerifyNone(t)
	s := start(t, Config{Mode: Blitz, Workers: 1, Capacity: 4, Parking: blitz.ParkingPortable, Work: digest, Name: "metrics-test"})
	c := testClient(t)
	for i := 0; i < 2; i++ {
		if code, _ := get(t, c, s); code != http.StatusOK {
			t.Fatalf("GET /work: %d", code)
		}
	}
	var vars struct {
		Server map[string]counts `json:"server"`
		Blitz  map[string]struct {
			Workers  int
			Injected uint64
		} `json:"blitz"`
	}
	if err := json.Unmarshal([]byte(getPath(t, c, s, "/debug/vars")), &vars); err != nil {
		t.Fatalf("/debug/vars: %v", err)
	}
	if got := vars.Server["metrics-test"]; got.Mode != "blitz" || got.OK != 2 || got.Busy != 0 {
		t.Errorf("/debug/vars server[metrics-test] = %+v; want mode blitz, 2 ok, 0 busy", got)
	}
	if got := vars.Blitz["metrics-test"]; got.Workers != 1 || got.Injected != 2 {
		t.Errorf("/debug/vars blitz[metrics-test] = %+v; want 1 worker, 2 injected", got)
	}
	metrics := getPath(t, c, s, "/metrics")
	for _, want := range []string{
		`server_responses_total{code="200",mode="blitz",server="metrics-test"} 2`,
		`server_responses_total{code="503",mode="blitz",server="metrics-test"} 0`,
		`blitz_workers{pool="metrics-test"} 1`,
		`blitz_tasks_rejected_total{pool="metrics-test"} 0`,
		`blitz_task_run_seconds_bucket{pool="metrics-test",le="+Inf"}`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s; got:\n%s", want, metrics)
		}
	}
	c.Transport.(*http.Transport).CloseIdleConnections()
	shutdown(t, s)
	var after struct {
		Blitz map[string]json.RawMessage `json:"blitz"`
	}
	if err := json.Unmarshal([]byte(expvar.Get("blitz").String()), &after); err != nil {
		t.Fatal(err)
	}
	if _, ok := after.Blitz["metrics-test"]; ok {
		t.Error("the pool's expvar entry outlived Shutdown")
	}
}

// TestMetricsNameIsClaimedUntilShutdown: a second server with a running
// server's name is refused with an error (expvar names are global); after
// Shutdown the name is free again.
func TestMetricsNameIsClaimedUntilShutdown(t *testing.T) {
	defer goleak.VerifyNone(t)
	a := start(t, Config{Mode: Inline, Work: digest, Name: "dup"})
	if b, err := Start(Config{Mode: Blitz, Capacity: 1, Work: digest, Name: "dup"}); err == nil {
		b.Shutdown(context.Background())
		t.Error("a second server named dup started")
	} else if !strings.Contains(err.Error(), "in use") {
		t.Errorf("error %q does not say the name is in use", err)
	}
	shutdown(t, a)
	b := start(t, Config{Mode: Blitz, Capacity: 1, Work: digest, Name: "dup"})
	shutdown(t, b)
}
