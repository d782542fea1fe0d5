package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"expvar"
	"fmt"
	"log"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/blitzprom"
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
	// Workers is the worker count of the ants and blitz pools; 0 means
	// GOMAXPROCS. Ignored inline.
	Workers int
	// Parking is the blitz pool's parking backend. The zero value is
	// blitz.ParkingAuto, the pool's default (portable parking), which is
	// the server's choice: handlers are plain goroutines that block in
	// TryDo until their task is done, and a worker locked to an OS thread
	// (blitz.ParkingFutex) that wakes one pays for a thread hand-off
	// (bench/results/server-submit-and-wait-trydo.txt).
	Parking blitz.Parking
	// MaxWorkers caps the blitz pool's workers, those it adds while its
	// workers are blocked included (blitz.WithMaxWorkers); 0 means the
	// pool's default. A cap at or below Workers turns the additions off:
	// tests that hold every worker with a blocked task to fill the queue
	// set it, or the pool would run the queued tasks on added workers.
	MaxWorkers int
	// Capacity bounds the requests waiting for a worker in the ants and
	// blitz modes, the same way in both: at most Workers requests run and
	// Capacity more wait; the next one gets 503 at once. It must be at
	// least 1 in those modes and is ignored inline.
	Capacity int
	// Work is the per-request work. Required.
	Work WorkFunc
	// Request, when set, adds the request endpoints (GET /request,
	// /request/group, /request/par; see the package doc): a wait and CPU
	// work in parts, on the blitz pool with blitz.DoContext. Blitz mode
	// only.
	Request *RequestConfig
	// Name names the server's metrics: its entry in the expvar maps
	// "server" (request counts, every mode) and "blitz" (the pool's Stats,
	// blitz mode), served at /debug/vars, and the pool label of its
	// Prometheus series at /metrics. Empty means "server". Two servers
	// running at once in one process need different names.
	Name string
}

// A Server serves /work, and the request endpoints when configured, on a
// loopback address until Shutdown.
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

	// inExec counts requests inside exec.Execute now (handlers add 1 on
	// entry and -1 on return); peakExec is the largest value inExec has
	// had, raised by the handler that reached it with a CAS loop and read
	// by PeakInExecutor. Both atomic; only their final values matter.
	inExec, peakExec atomic.Int64

	// pool is the blitz executor's pool (blitz mode), which the request
	// endpoints submit to; backend is the server they call
	// (Config.Request.Backend), nil when they sleep or are not served.
	pool    *blitz.Pool
	backend *backend

	// reqOK and reqFailed count the request endpoints' responses by
	// Fork (atomic adds and loads, like ok and failed).
	reqOK, reqFailed [3]atomic.Uint64

	serveErr chan error // receives http.Server.Serve's result once
}

// The expvar maps every server publishes into, by Config.Name. Start claims
// a name under namesMu and Shutdown frees it: expvar names are global to the
// process, and expvar.Publish panics on a duplicate.
var (
	serverVars = expvar.NewMap("server")
	poolVars   = expvar.NewMap("blitz")
	namesMu    sync.Mutex
	names      = map[string]bool{}
)

// counts is a server's expvar entry.
type counts struct {
	Mode                     string
	OK, Busy, Failed, Panics uint64
	PeakInExecutor           int64
	// Request holds the request endpoints' counts by fork variant, when
	// they are served.
	Request map[string]requestCounts `json:",omitempty"`
}

// requestCounts is one request endpoint's entry in counts.
type requestCounts struct{ OK, Failed uint64 }

// stater is an executor with pool counters (the blitz executor).
type stater interface {
	Stats() blitz.Stats
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
	if cfg.Name == "" {
		cfg.Name = "server"
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
		if cfg.MaxWorkers < 0 {
			return nil, fmt.Errorf("server: MaxWorkers must be >= 0, got %d", cfg.MaxWorkers)
		}
	default:
		return nil, fmt.Errorf("server: unknown mode %v", cfg.Mode)
	}
	if cfg.Request != nil {
		if cfg.Mode != Blitz {
			return nil, fmt.Errorf("server: the request endpoints need mode %v, not %v", Blitz, cfg.Mode)
		}
		if err := cfg.Request.validate(); err != nil {
			return nil, err
		}
	}
	if !claimName(cfg.Name) {
		return nil, fmt.Errorf("server: the metrics name %q is in use by another running server (set Config.Name)", cfg.Name)
	}
	var err error
	switch cfg.Mode {
	case Ants:
		exec, err = newAntsExecutor(cfg.Workers, cfg.Capacity)
	case Blitz:
		exec, err = newBlitzExecutor(cfg.Workers, cfg.Capacity, cfg.MaxWorkers, cfg.Parking)
	}
	if err != nil {
		releaseName(cfg.Name)
		return nil, fmt.Errorf("server: mode %v: %w", cfg.Mode, err)
	}
	var bk *backend
	if cfg.Request != nil && cfg.Request.Backend {
		if bk, err = startBackend(cfg.Request.Wait); err != nil {
			exec.Shutdown(context.Background())
			releaseName(cfg.Name)
			return nil, fmt.Errorf("server: backend: %w", err)
		}
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		exec.Shutdown(context.Background())
		if bk != nil {
			bk.shutdown(context.Background())
		}
		releaseName(cfg.Name)
		return nil, err
	}
	s := &Server{cfg: cfg, ln: ln, exec: exec, backend: bk, serveErr: make(chan error, 1)}
	if e, ok := exec.(*blitzExecutor); ok {
		s.pool = e.pool
	}
	s.publish()
	mux := http.NewServeMux()
	mux.HandleFunc("/work", s.handleWork)
	if cfg.Request != nil {
		for _, f := range Forks {
			mux.HandleFunc(f.Path(), s.handleRequest(f))
		}
	}
	mux.Handle("/debug/vars", expvar.Handler())
	mux.Handle("/metrics", promhttp.HandlerFor(s.registry(), promhttp.HandlerOpts{}))
	s.http = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { s.serveErr <- s.http.Serve(ln) }()
	return s, nil
}

func claimName(name string) bool {
	namesMu.Lock()
	defer namesMu.Unlock()
	if names[name] {
		return false
	}
	names[name] = true
	return true
}

// releaseName frees a name and removes its expvar entries.
func releaseName(name string) {
	namesMu.Lock()
	defer namesMu.Unlock()
	serverVars.Delete(name)
	poolVars.Delete(name)
	delete(names, name)
}

// publish puts the server's counts, and its pool's Stats in blitz mode,
// into the expvar maps under its name.
func (s *Server) publish() {
	serverVars.Set(s.cfg.Name, expvar.Func(func() any {
		ok, busy, failed := s.Counts()
		c := counts{Mode: s.cfg.Mode.String(), OK: ok, Busy: busy, Failed: failed, Panics: s.Panics(), PeakInExecutor: s.PeakInExecutor()}
		if s.cfg.Request != nil {
			c.Request = map[string]requestCounts{}
			for _, f := range Forks {
				ok, failed := s.RequestCounts(f)
				c.Request[f.String()] = requestCounts{OK: ok, Failed: failed}
			}
		}
		return c
	}))
	if e, ok := s.exec.(*blitzExecutor); ok {
		poolVars.Set(s.cfg.Name, e.pool.Expvar())
	}
}

// registry returns the Prometheus registry that /metrics serves: the
// server's response counts in every mode and, in blitz mode, the pool's
// Stats (package blitzprom). One registry per server, so that servers in one
// process (the tests) do not collide in the global one.
func (s *Server) registry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	labels := prometheus.Labels{"server": s.cfg.Name, "mode": s.cfg.Mode.String()}
	for _, c := range []struct {
		code string
		n    *atomic.Uint64
	}{{"200", &s.ok}, {"503", &s.busy}, {"error", &s.failed}} {
		l := prometheus.Labels{"code": c.code}
		for k, v := range labels {
			l[k] = v
		}
		n := c.n
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "server_responses_total", Help: "Responses of /work by outcome (error: every failure but 503 for capacity).", ConstLabels: l,
		}, func() float64 { return float64(n.Load()) }))
	}
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "server_peak_in_executor", Help: "The most /work requests inside the executor at once since start.", ConstLabels: labels,
	}, func() float64 { return float64(s.PeakInExecutor()) }))
	if e, ok := s.exec.(stater); ok {
		reg.MustRegister(blitzprom.NewCollector(e, s.cfg.Name))
	}
	return reg
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

// PeakInExecutor returns the most handlers that were inside
// executor.Execute at once: running, waiting for a worker, being refused,
// or done and not yet scheduled to answer. In the bounded modes it can
// exceed Workers+Capacity (refusals and finished handlers count), but a
// peak below that bound says the bound never applied: the backlog of an
// overload built up somewhere else (runnable handler goroutines, sockets,
// the client's connection pool).
func (s *Server) PeakInExecutor() int64 { return s.peakExec.Load() }

// raiseTo sets *peak to n if n is larger, with a CAS loop that gives up as
// soon as another handler stored a value at least as large.
func raiseTo(peak *atomic.Int64, n int64) {
	for old := peak.Load(); n > old; old = peak.Load() {
		if peak.CompareAndSwap(old, n) {
			return
		}
	}
}

// Shutdown stops accepting connections, waits for in-flight requests
// (until ctx ends; then it closes the remaining connections), shuts the
// executor down — which waits for every accepted task, until ctx ends —
// then the request endpoints' backend, if any, and returns when the serving goroutine has exited. The first error wins.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.http.Shutdown(ctx)
	if err != nil {
		s.http.Close()
	}
	if cerr := s.exec.Shutdown(ctx); err == nil {
		err = cerr
	}
	if s.backend != nil {
		if berr := s.backend.shutdown(ctx); err == nil {
			err = berr
		}
	}
	if serr := <-s.serveErr; err == nil && !errors.Is(serr, http.ErrServerClosed) {
		err = serr
	}
	releaseName(s.cfg.Name)
	return err
}

func (s *Server) handleWork(w http.ResponseWriter, r *http.Request) {
	seed := s.seq.Add(1)
	var sum [sha256.Size]byte
	raiseTo(&s.peakExec, s.inExec.Add(1))
	err := s.exec.Execute(r.Context(), func() { sum = s.cfg.Work(seed) })
	s.inExec.Add(-1)
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
