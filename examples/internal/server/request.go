package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

// The request endpoints: a realistic server request, which waits for
// something (a call to another service) and computes, on the pool with
// blitz.DoContext, with its computation run serially or forked inside the
// pool task. See the package doc, "Request endpoints".

// PartFunc computes part i of n of a request's CPU work and returns its
// digest. It must be safe for concurrent use. work.Hasher.DoPart is the
// real one; tests inject functions that count their calls.
type PartFunc func(seed uint64, i, n int) [sha256.Size]byte

// Fork is how a request endpoint runs its CPU parts inside its pool task.
type Fork int

const (
	// ForkNone runs the parts one after the other on the task's worker
	// (GET /request).
	ForkNone Fork = iota
	// ForkGroup runs each part as a task of a blitz.Group made on the
	// task's *Worker (NewGroup(ctx, w), Go, Wait) (GET /request/group).
	ForkGroup
	// ForkPar runs the parts with par.For(w, 0, parts, 1, ...) on the
	// task's *Worker (GET /request/par).
	ForkPar
)

// Forks lists every fork variant, in the order reports use.
var Forks = []Fork{ForkNone, ForkGroup, ForkPar}

// String returns the variant's name: none, group or par.
func (f Fork) String() string {
	switch f {
	case ForkNone:
		return "none"
	case ForkGroup:
		return "group"
	case ForkPar:
		return "par"
	}
	return fmt.Sprintf("Fork(%d)", int(f))
}

// Path returns the variant's endpoint: /request, /request/group or
// /request/par.
func (f Fork) Path() string {
	if f == ForkNone {
		return "/request"
	}
	return "/request/" + f.String()
}

// WaitIn is where a request waits for its backend or its sleep.
type WaitIn int

const (
	// WaitInHandler waits in the handler goroutine, before the pool task:
	// the pool only computes, and the only waits on its workers are the
	// fork variants' joins.
	WaitInHandler WaitIn = iota
	// WaitInTask waits inside the pool task, before the computation: the
	// worker is blocked for the whole wait, as in a server whose tasks
	// call other services.
	WaitInTask
)

// String returns the place's name: handler or task.
func (p WaitIn) String() string {
	switch p {
	case WaitInHandler:
		return "handler"
	case WaitInTask:
		return "task"
	}
	return fmt.Sprintf("WaitIn(%d)", int(p))
}

// ParseWaitIn parses a place's name (handler, task).
func ParseWaitIn(s string) (WaitIn, error) {
	for _, p := range []WaitIn{WaitInHandler, WaitInTask} {
		if p.String() == s {
			return p, nil
		}
	}
	return 0, fmt.Errorf("server: unknown wait place %q (want handler or task)", s)
}

// RequestConfig configures the request endpoints (Config.Request).
type RequestConfig struct {
	// Wait is how long each request waits; 0 means no wait.
	Wait time.Duration
	// Backend makes the wait a call to a second HTTP server on loopback,
	// started by Start and stopped by Shutdown, which answers after Wait;
	// false makes it a sleep of Wait.
	Backend bool
	// WaitIn says where the request waits: in the handler, before the
	// pool task, or inside it.
	WaitIn WaitIn
	// Parts is how many parts the CPU work is cut into, in every variant
	// (the serial one computes the same parts one after the other, so
	// every variant answers the same digest). It must be at least 1.
	Parts int
	// Work computes one part. Required.
	Work PartFunc
}

func (rc *RequestConfig) validate() error {
	switch {
	case rc.Work == nil:
		return errors.New("server: RequestConfig.Work is nil")
	case rc.Parts < 1:
		return fmt.Errorf("server: RequestConfig.Parts must be >= 1, got %d", rc.Parts)
	case rc.Wait < 0:
		return fmt.Errorf("server: RequestConfig.Wait must be >= 0, got %v", rc.Wait)
	case rc.WaitIn != WaitInHandler && rc.WaitIn != WaitInTask:
		return fmt.Errorf("server: unknown RequestConfig.WaitIn %v", rc.WaitIn)
	}
	return nil
}

// errBackend wraps a failed backend call; the handler answers 502.
var errBackend = errors.New("server: backend call failed")

// backend is the second HTTP server the request endpoints call, and the
// client that calls it over keep-alive connections.
type backend struct {
	url      string
	http     *http.Server
	tr       *http.Transport
	client   *http.Client
	serveErr chan error
}

// startBackend listens on a free loopback port and serves GET /wait, which
// answers after d (or when its client goes away).
func startBackend(d time.Duration) (*backend, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/wait", func(w http.ResponseWriter, r *http.Request) {
		if err := sleep(r.Context(), d); err != nil {
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "ok\n")
	})
	tr := &http.Transport{
		Proxy:               nil, // loopback: never through a proxy
		MaxIdleConns:        1024,
		MaxIdleConnsPerHost: 1024,
		DisableCompression:  true,
	}
	b := &backend{
		url:      "http://" + ln.Addr().String() + "/wait",
		http:     &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second},
		tr:       tr,
		client:   &http.Client{Transport: tr},
		serveErr: make(chan error, 1),
	}
	go func() { b.serveErr <- b.http.Serve(ln) }()
	return b, nil
}

// call GETs the backend and reads its answer.
func (b *backend) call(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.url, nil)
	if err != nil {
		return err
	}
	resp, err := b.client.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %w", errBackend, err)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		return fmt.Errorf("%w: %w", errBackend, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%w: status %s", errBackend, resp.Status)
	}
	return nil
}

// shutdown closes the client's connections and stops the backend server.
func (b *backend) shutdown(ctx context.Context) error {
	b.tr.CloseIdleConnections()
	err := b.http.Shutdown(ctx)
	if err != nil {
		b.http.Close()
	}
	if serr := <-b.serveErr; err == nil && !errors.Is(serr, http.ErrServerClosed) {
		err = serr
	}
	return err
}

// sleep waits for d or until ctx ends, and returns ctx's error then.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// wait is a request's wait: the backend call, or the sleep.
func (s *Server) wait(ctx context.Context) error {
	if s.backend != nil {
		return s.backend.call(ctx)
	}
	return sleep(ctx, s.cfg.Request.Wait)
}

// compute runs the request's parts on w as f says and returns the digest
// of their digests, in part order.
func (s *Server) compute(w *blitz.Worker, f Fork, seed uint64) ([sha256.Size]byte, error) {
	rc := s.cfg.Request
	n := rc.Parts
	parts := make([][sha256.Size]byte, n)
	switch f {
	case ForkNone:
		for i := range parts {
			parts[i] = rc.Work(seed, i, n)
		}
	case ForkGroup:
		g, _ := blitz.NewGroup(w.Context(), w)
		for i := range parts {
			g.Go(func(*blitz.Worker) error {
				parts[i] = rc.Work(seed, i, n)
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return [sha256.Size]byte{}, err
		}
	case ForkPar:
		par.For(w, 0, n, 1, func(_ *blitz.Worker, lo, hi int) {
			for i := lo; i < hi; i++ {
				parts[i] = rc.Work(seed, i, n)
			}
		})
	default:
		return [sha256.Size]byte{}, fmt.Errorf("server: unknown fork %v", f)
	}
	return Combine(parts), nil
}

// Combine returns a request's digest from its parts' digests, in order:
// SHA-256 over their concatenation.
func Combine(parts [][sha256.Size]byte) [sha256.Size]byte {
	d := sha256.New()
	for _, p := range parts {
		d.Write(p[:])
	}
	var out [sha256.Size]byte
	d.Sum(out[:0])
	return out
}

// outcome is what a request's pool task returns.
type outcome struct {
	sum [sha256.Size]byte
	err error
}

// handleRequest serves the fork variant f: the wait (in the handler or in
// the task), then the CPU parts in a task of the pool, submitted with
// blitz.DoContext, which waits for room when the queue is full.
func (s *Server) handleRequest(f Fork) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		seed := s.seq.Add(1)
		ctx := r.Context()
		var err error
		var res outcome
		if s.cfg.Request.WaitIn == WaitInHandler {
			err = s.wait(ctx)
		}
		if err == nil {
			res, err = blitz.DoContext(ctx, s.pool, func(w *blitz.Worker) outcome {
				if s.cfg.Request.WaitIn == WaitInTask {
					if err := s.wait(w.Context()); err != nil {
						return outcome{err: err}
					}
				}
				sum, err := s.compute(w, f, seed)
				return outcome{sum: sum, err: err}
			})
		}
		if err == nil {
			err = res.err
		}
		switch {
		case err == nil:
			s.reqOK[f].Add(1)
			w.Header().Set("Content-Type", "text/plain")
			var buf [2*sha256.Size + 1]byte
			hex.Encode(buf[:], res.sum[:])
			buf[len(buf)-1] = '\n'
			w.Write(buf[:])
		case errors.Is(err, blitz.ErrPanic):
			s.reqFailed[f].Add(1)
			log.Printf("server: request %d (%v): %v", seed, f, err)
			http.Error(w, "internal error", http.StatusInternalServerError)
		case errors.Is(err, errBackend):
			s.reqFailed[f].Add(1)
			http.Error(w, err.Error(), http.StatusBadGateway)
		default:
			// Pool closed, or the client went away (then nobody reads this).
			s.reqFailed[f].Add(1)
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
		}
	}
}

// RequestCounts returns how many requests of the fork variant f got 200,
// and how many failed, so far.
func (s *Server) RequestCounts(f Fork) (ok, failed uint64) {
	if f < 0 || int(f) >= len(s.reqOK) {
		return 0, 0
	}
	return s.reqOK[f].Load(), s.reqFailed[f].Load()
}
