package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// partCounter is a PartFunc that counts its calls by seed and part.
type partCounter struct {
	mu    sync.Mutex
	calls map[[2]uint64]int // {seed, part} -> calls
	n     int               // the n every call passed
	bad   []string          // calls with another n
}

func newPartCounter(n int) *partCounter {
	return &partCounter{calls: map[[2]uint64]int{}, n: n}
}

func partDigest(seed uint64, i int) [sha256.Size]byte {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	binary.LittleEndian.PutUint64(b[8:], uint64(i))
	return sha256.Sum256(b[:])
}

func (c *partCounter) work(seed uint64, i, n int) [sha256.Size]byte {
	c.mu.Lock()
	c.calls[[2]uint64{seed, uint64(i)}]++
	if n != c.n {
		c.bad = append(c.bad, fmt.Sprintf("seed %d part %d: n=%d, want %d", seed, i, n, c.n))
	}
	c.mu.Unlock()
	return partDigest(seed, i)
}

// check fails unless every part of every seed in 1..requests ran exactly
// once, and nothing else ran.
func (c *partCounter) check(t *testing.T, requests int) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range c.bad {
		t.Error(b)
	}
	for seed := 1; seed <= requests; seed++ {
		for i := 0; i < c.n; i++ {
			if got := c.calls[[2]uint64{uint64(seed), uint64(i)}]; got != 1 {
				t.Errorf("seed %d part %d ran %d times, want 1", seed, i, got)
			}
		}
	}
	if len(c.calls) != requests*c.n {
		t.Errorf("%d (seed, part) pairs ran, want %d", len(c.calls), requests*c.n)
	}
}

// wantBody is the answer to the request of the given seed: the digest of
// its parts' digests, in hex.
func wantBody(seed uint64, n int) string {
	parts := make([][sha256.Size]byte, n)
	for i := range parts {
		parts[i] = partDigest(seed, i)
	}
	return fmt.Sprintf("%x\n", Combine(parts))
}

func getRequest(t *testing.T, c *http.Client, s *Server, path string) (int, string) {
	t.Helper()
	resp, err := c.Get("http://" + s.Addr() + path)
	if err != nil {
		t.Errorf("GET %s: %v", path, err)
		return 0, ""
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Errorf("read body: %v", err)
	}
	return resp.StatusCode, string(b)
}

// TestRequestEndpointsAnswerTheirDigest: every fork variant, waiting by a
// sleep or by a call to the backend, in the handler or in the task, answers
// 200 with the digest of its parts, runs each part of each request exactly
// once, and counts the responses; Shutdown leaves no goroutine behind (the
// backend's included).
func TestRequestEndpointsAnswerTheirDigest(t *testing.T) {
	const requests = 4
	for _, backend := range []bool{false, true} {
		for _, in := range []WaitIn{WaitInHandler, WaitInTask} {
			for _, f := range Forks {
				for _, parts := range []int{1, 7} {
					name := fmt.Sprintf("backend=%v/wait-in=%v/fork=%v/parts=%d", backend, in, f, parts)
					t.Run(name, func(t *testing.T) {
						defer goleak.VerifyNone(t)
						pc := newPartCounter(parts)
						s := start(t, Config{Mode: Blitz, Workers: 2, Capacity: 4, Work: digest, Request: &RequestConfig{
							Wait: time.Millisecond, Backend: backend, WaitIn: in, Parts: parts, Work: pc.work,
						}})
						c := testClient(t)
						for i := 1; i <= requests; i++ {
							code, body := getRequest(t, c, s, f.Path())
							if code != http.StatusOK {
								t.Fatalf("request %d: status %d, body %q", i, code, body)
							}
							// Seeds are 1, 2, ... in arrival order.
							if want := wantBody(uint64(i), parts); body != want {
								t.Fatalf("request %d: body %q, want %q", i, body, want)
							}
						}
						c.Transport.(*http.Transport).CloseIdleConnections()
						shutdown(t, s)
						pc.check(t, requests)
						for _, g := range Forks {
							ok, failed := s.RequestCounts(g)
							want := uint64(0)
							if g == f {
								want = requests
							}
							if ok != want || failed != 0 {
								t.Errorf("RequestCounts(%v) = %d, %d; want %d, 0", g, ok, failed, want)
							}
						}
					})
				}
			}
		}
	}
}

// TestRequestVariantsAgree: the three variants answer the same digest for
// the same seed, so forking changes where the parts run and nothing else.
func TestRequestVariantsAgree(t *testing.T) {
	defer goleak.VerifyNone(t)
	const parts = 5
	var bodies []string
	for _, f := range Forks {
		s := start(t, Config{Mode: Blitz, Workers: 2, Capacity: 4, Work: digest, Request: &RequestConfig{Parts: parts, Work: newPartCounter(parts).work}})
		c := testClient(t)
		code, body := getRequest(t, c, s, f.Path())
		if code != http.StatusOK {
			t.Errorf("%v: status %d, body %q", f, code, body)
		}
		bodies = append(bodies, body)
		// /debug/vars counts the response under its variant.
		var vars struct {
			Server map[string]struct {
				Request map[string]struct{ OK, Failed uint64 }
			} `json:"server"`
		}
		if err := json.Unmarshal([]byte(getPath(t, c, s, "/debug/vars")), &vars); err != nil {
			t.Fatalf("/debug/vars: %v", err)
		}
		for _, g := range Forks {
			got, want := vars.Server["server"].Request[g.String()], uint64(0)
			if g == f {
				want = 1
			}
			if got.OK != want || got.Failed != 0 {
				t.Errorf("%v: /debug/vars server[server].Request[%v] = %+v, want %d ok", f, g, got, want)
			}
		}
		c.Transport.(*http.Transport).CloseIdleConnections()
		shutdown(t, s)
	}
	for i, b := range bodies {
		if b != bodies[0] || b != wantBody(1, parts) {
			t.Errorf("%v answered %q; none answered %q, want %q", Forks[i], b, bodies[0], wantBody(1, parts))
		}
	}
}

// TestRequestPartPanicIs500: a part that panics fails its request with 500
// in every variant, and the server goes on answering.
func TestRequestPartPanicIs500(t *testing.T) {
	var logged bytes.Buffer
	var logMu sync.Mutex
	log.SetOutput(lockedWriter{&logMu, &logged}) // the server logs the panic and its stack
	defer log.SetOutput(os.Stderr)
	for _, f := range Forks {
		t.Run("fork="+f.String(), func(t *testing.T) {
			defer goleak.VerifyNone(t)
			work := func(seed uint64, i, n int) [sha256.Size]byte {
				if seed == 1 && i == n-1 {
					panic("part boom")
				}
				return partDigest(seed, i)
			}
			s := start(t, Config{Mode: Blitz, Workers: 2, Capacity: 4, Work: digest, Request: &RequestConfig{Parts: 3, Work: work}})
			c := testClient(t)
			if code, body := getRequest(t, c, s, f.Path()); code != http.StatusInternalServerError {
				t.Errorf("panicking request: status %d (%q), want 500", code, body)
			}
			if code, body := getRequest(t, c, s, f.Path()); code != http.StatusOK || body != wantBody(2, 3) {
				t.Errorf("next request: status %d, body %q; want 200, %q", code, body, wantBody(2, 3))
			}
			c.Transport.(*http.Transport).CloseIdleConnections()
			shutdown(t, s)
			if ok, failed := s.RequestCounts(f); ok != 1 || failed != 1 {
				t.Errorf("RequestCounts = %d, %d; want 1, 1", ok, failed)
			}
		})
	}
	logMu.Lock()
	defer logMu.Unlock()
	if got := strings.Count(logged.String(), "part boom"); got != len(Forks) {
		t.Errorf("the panic was logged %d times, want %d; log:\n%s", got, len(Forks), logged.String())
	}
}

// TestRequestConfigIsChecked: the request endpoints need the blitz mode,
// a part function and at least one part.
func TestRequestConfigIsChecked(t *testing.T) {
	defer goleak.VerifyNone(t)
	w := newPartCounter(1).work
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"inline", Config{Mode: Inline, Work: digest, Request: &RequestConfig{Parts: 1, Work: w}}},
		{"ants", Config{Mode: Ants, Capacity: 1, Work: digest, Request: &RequestConfig{Parts: 1, Work: w}}},
		{"no work", Config{Mode: Blitz, Capacity: 1, Work: digest, Request: &RequestConfig{Parts: 1}}},
		{"no parts", Config{Mode: Blitz, Capacity: 1, Work: digest, Request: &RequestConfig{Work: w}}},
		{"negative wait", Config{Mode: Blitz, Capacity: 1, Work: digest, Request: &RequestConfig{Parts: 1, Work: w, Wait: -1}}},
		{"bad place", Config{Mode: Blitz, Capacity: 1, Work: digest, Request: &RequestConfig{Parts: 1, Work: w, WaitIn: 7}}},
	} {
		if s, err := Start(tc.cfg); err == nil {
			t.Errorf("%s: Start succeeded", tc.name)
			shutdown(t, s)
		}
	}
}

func TestForkAndWaitInNames(t *testing.T) {
	for f, want := range map[Fork]string{ForkNone: "/request", ForkGroup: "/request/group", ForkPar: "/request/par"} {
		if f.Path() != want {
			t.Errorf("%v.Path() = %q, want %q", f, f.Path(), want)
		}
	}
	for _, p := range []WaitIn{WaitInHandler, WaitInTask} {
		if got, err := ParseWaitIn(p.String()); err != nil || got != p {
			t.Errorf("ParseWaitIn(%q) = %v, %v", p.String(), got, err)
		}
	}
	if _, err := ParseWaitIn("elsewhere"); err == nil {
		t.Error("ParseWaitIn(elsewhere): no error")
	}
}

// lockedWriter serialises writes to w (the log package locks its own
// writes; the test reads the buffer while no request runs, under mu too).
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
