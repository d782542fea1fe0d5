package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/blitz-go/blitz"
)

// WorkFunc is the per-request work: it must be safe for concurrent use and
// return a digest of its result. work.Hasher.Do is the real one; tests
// inject functions that block.
type WorkFunc func(seed uint64) [sha256.Size]byte

// Config configures a Server.
type Config struct {
	// Mode selects where the work runs.
	Mode Mode
	// Addr is the listen address; it must be a loopback address
	// ("127.0.0.1:0", "[::1]:8080", "localhost:0"). Empty means
	// "127.0.0.1:0" (any free port).
	Addr string
	// Workers is the blitz pool's worker count; 0 means GOMAXPROCS.
	// Ignored by the other modes.
	Workers int
	// Parking is the blitz pool's parking backend. The zero value is
	// blitz.ParkingAuto (futex with locked worker threads on Linux), but
	// handlers are plain goroutines that block on a channel until their
	// task is done, and waking a plain goroutine from a locked thread costs
	// tens of microseconds per request (golang/go#21827; see
	// BenchmarkSubmitAndWait): servers want blitz.ParkingPortable, which
	// the command-line tools default to.
	Parking blitz.Parking
	// Capacity bounds the requests in flight in the ants mode (the ants
	// pool size) and the blitz mode (queued plus running). It must be at
	// least 1 in those modes and is ignored inline.
	Capacity int
	// Work is the per-request work. Required.
	Work WorkFunc
}

// A Server serves /work on a loopback address until Shutdown.
type Server struct {
	cfg  Config
	ln   net.Listener
	http *http.Server
	exec executor
	seq  atomic.Uint64

	// served counts responses by outcome (written by handlers, read by
	// Counts; atomic adds and loads, no ordering needed between them).
	// panicked is part of failed.
	ok, busy, failed, panicked atomic.Uint64

	serveErr chan error // receives http.Server.Serve's result once
}

// Start validates cfg, listens on cfg.Addr and serves in a new goroutine.
func Start(cfg Config) (*Server, error) {
	if cfg.Work == nil {
		return nil, errors.New("server: Config.Work is nil")
	}
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	if err := CheckLoopback(cfg.Addr); err != nil {
		return nil, err
	}
	var exec executor
	switch cfg.Mode {
	case Inline:
		exec = inlineExecutor{}
	case Ants, Blitz:
		if cfg.Capacity < 1 {
			return nil, fmt.Errorf("server: mode %v needs Capacity >= 1, got %d", cfg.Mode, cfg.Capacity)
		}
		if cfg.Workers < 0 {
			return nil, fmt.Errorf("server: Workers must be >= 0, got %d", cfg.Workers)
		}
		var err error
		if cfg.Mode == Ants {
			exec, err = newAntsExecutor(cfg.Capacity)
		} else {
			exec, err = newBlitzExecutor(cfg.Workers, cfg.Capacity, cfg.Parking)
		}
		if err != nil {
			return nil, fmt.Errorf("server: mode %v: %w", cfg.Mode, err)
		}
	default:
		return nil, fmt.Errorf("server: unknown mode %v", cfg.Mode)
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		exec.Close()
		return nil, err
	}
	s := &Server{cfg: cfg, ln: ln, exec: exec, serveErr: make(chan error, 1)}
	mux := http.NewServeMux()
	mux.HandleFunc("/work", s.handleWork)
	s.http = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { s.serveErr <- s.http.Serve(ln) }()
	return s, nil
}

// CheckLoopback returns an error unless addr's host is a loopback IP
// literal or "localhost". The example burns CPU per request on purpose and
// has no business listening on a network.
func CheckLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("server: bad address %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("server: address %q is not a loopback address (use 127.0.0.1, ::1 or localhost)", addr)
	}
	return nil
}

// Addr returns the address the server listens on ("127.0.0.1:PORT").
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Mode returns the server's mode.
func (s *Server) Mode() Mode { return s.cfg.Mode }

// Panics returns how many requests' work panicked (answered 500, and
// included in the failed count of Counts).
func (s *Server) Panics() uint64 { return s.panicked.Load() }

// Counts returns how many requests got 200, 503 for capacity, and any
// other failure, so far.
func (s *Server) Counts() (ok, busy, failed uint64) {
	return s.ok.Load(), s.busy.Load(), s.failed.Load()
}

// Shutdown stops accepting connections, waits for in-flight requests
// (until ctx ends; then it closes the remaining connections), closes the
// executor — which waits for every accepted task — and returns when the
// serving goroutine has exited. The first error wins.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.http.Shutdown(ctx)
	if err != nil {
		s.http.Close()
	}
	if cerr := s.exec.Close(); err == nil {
		err = cerr
	}
	if serr := <-s.serveErr; err == nil && !errors.Is(serr, http.ErrServerClosed) {
		err = serr
	}
	return err
}

func (s *Server) handleWork(w http.ResponseWriter, r *http.Request) {
	seed := s.seq.Add(1)
	var sum [sha256.Size]byte
	err := s.exec.Execute(r.Context(), func() { sum = s.cfg.Work(seed) })
	switch {
	case err == nil:
		s.ok.Add(1)
		w.Header().Set("Content-Type", "text/plain")
		var buf [2*sha256.Size + 1]byte
		hex.Encode(buf[:], sum[:])
		buf[len(buf)-1] = '\n'
		w.Write(buf[:])
	case errors.Is(err, ErrBusy):
		s.busy.Add(1)
		w.Header().Set("Retry-After", "1")
		http.Error(w, "busy", http.StatusServiceUnavailable)
	case errors.Is(err, ErrWorkPanicked):
		s.failed.Add(1)
		s.panicked.Add(1)
		log.Printf("server: request %d: %v", seed, err)
		http.Error(w, "internal error", http.StatusInternalServerError)
	default:
		// Pool closed, or the client went away (then nobody reads this).
		s.failed.Add(1)
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
	}
}
