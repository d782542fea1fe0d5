// Command server is the example HTTP server of Blitz for Go: GET /work does
// a slice of CPU work (SHA-256 over a generated payload) inline, on an ants
// pool, or on a blitz pool, so that the load generator (../loadgen) can
// compare the three. GET /debug/vars shows its counters and its pool's Stats
// (expvar), GET /metrics the same for Prometheus. It listens on loopback
// only and shuts down gracefully on SIGINT or SIGTERM.
//
//	go run ./server -mode blitz -addr 127.0.0.1:8080 -capacity 64
//	curl http://127.0.0.1:8080/work
//	curl http://127.0.0.1:8080/metrics
//
// In blitz mode it also serves the request endpoints, a more realistic
// request: each waits (-wait, 2 ms: a call to a second HTTP server on
// loopback that the command starts itself, or a sleep, -wait-by) and then
// computes (-request-work bytes hashed, about 200 µs, cut into -parts
// parts) in a pool task submitted with blitz.DoContext. GET /request
// computes the parts one after the other; GET /request/group forks them
// with a blitz.Group on the task's *Worker, GET /request/par with
// par.For(w, ...). -wait-in says whether the wait happens in the handler,
// before the task (the default), or inside the task, blocking its worker:
//
//	go run ./server -mode blitz -wait-by backend -wait-in handler
//	curl http://127.0.0.1:8080/request/group
//
// -cpuprofile and -trace record a CPU profile and an execution trace from
// start to shutdown, to see where a load (go run ./loadgen -url ... -rate
// ...) spends the server's time: go tool pprof, go tool trace.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"syscall"
	"time"

	"github.com/blitz-go/blitz/examples/internal/loadgen"
	"github.com/blitz-go/blitz/examples/internal/server"
	"github.com/blitz-go/blitz/examples/internal/work"
)

func main() {
	var (
		addr     = flag.String("addr", "127.0.0.1:8080", "listen address (loopback only; port 0 picks a free one)")
		mode     = flag.String("mode", "blitz", "where the work runs: inline, ants or blitz")
		size     = flag.Int("work", work.DefaultSize, "bytes hashed per request (sets the CPU cost per request)")
		capacity = flag.Int("capacity", 64, "requests waiting for a worker before 503 (ants and blitz modes)")
		workers  = flag.Int("workers", 0, "ants and blitz pool workers (0: GOMAXPROCS)")
		maxW     = flag.Int("max-workers", 0, "blitz pool: most workers at once, those added while workers are blocked included (0: the pool's default; -workers or less: no additions)")
		parking  = flag.String("parking", "auto", "blitz pool parking backend: auto (the default, portable), futex, portable, cond or spin (see server.Config.Parking)")
		grace    = flag.Duration("grace", 10*time.Second, "how long shutdown waits for in-flight requests")
		cpuprof  = flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
		traceOut = flag.String("trace", "", "write an execution trace of the whole run to this file")
		req      requestFlags
	)
	flag.IntVar(&req.size, "request-work", DefaultRequestSize, "request endpoints (blitz mode): bytes hashed per request (about 200 µs at the default)")
	flag.IntVar(&req.parts, "parts", 4, "request endpoints: parts the CPU work is cut into (forked by /request/group and /request/par)")
	flag.DurationVar(&req.wait, "wait", 2*time.Millisecond, "request endpoints: how long each request waits")
	flag.StringVar(&req.waitBy, "wait-by", "backend", "request endpoints: backend (a call to a second HTTP server on loopback that answers after -wait) or sleep")
	flag.StringVar(&req.waitIn, "wait-in", "handler", "request endpoints: where the wait happens: handler (before the pool task) or task (inside it, blocking the worker)")
	flag.Parse()
	stop, err := record(*cpuprof, *traceOut)
	if err == nil {
		err = run(*addr, *mode, *size, *capacity, *workers, *maxW, *parking, *grace, req)
		if serr := stop(); err == nil {
			err = serr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}

// record starts the CPU profile and the execution trace asked for (an empty
// path: none) and returns the function that stops them and closes their
// files.
func record(cpuPath, tracePath string) (stop func() error, err error) {
	var stops []func() error
	stop = func() error {
		var first error
		for i := len(stops) - 1; i >= 0; i-- {
			if err := stops[i](); err != nil && first == nil {
				first = err
			}
		}
		return first
	}
	if cpuPath != "" {
		f, err := os.Create(cpuPath)
		if err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return nil, err
		}
		stops = append(stops, func() error { pprof.StopCPUProfile(); return f.Close() })
	}
	if tracePath != "" {
		f, err := os.Create(tracePath)
		if err != nil {
			stop()
			return nil, err
		}
		if err := trace.Start(f); err != nil {
			f.Close()
			stop()
			return nil, err
		}
		stops = append(stops, func() error { trace.Stop(); return f.Close() })
	}
	return stop, nil
}

// DefaultRequestSize is the request endpoints' default work: about 200 µs
// of hashing on the development VM (twice the /work default and a bit).
const DefaultRequestSize = 384 << 10

// requestFlags are the request endpoints' flags.
type requestFlags struct {
	size, parts    int
	wait           time.Duration
	waitBy, waitIn string
}

// config returns the request endpoints' configuration, and prints what a
// request does.
func (f requestFlags) config() (*server.RequestConfig, error) {
	in, err := server.ParseWaitIn(f.waitIn)
	if err != nil {
		return nil, err
	}
	if f.waitBy != "backend" && f.waitBy != "sleep" {
		return nil, fmt.Errorf("unknown -wait-by %q (want backend or sleep)", f.waitBy)
	}
	h, err := work.New(f.size)
	if err != nil {
		return nil, err
	}
	if f.parts < 1 || f.parts > f.size {
		return nil, fmt.Errorf("-parts %d out of range [1, %d]", f.parts, f.size)
	}
	per, err := calibrateParts(h, f.parts, 100)
	if err != nil {
		return nil, err
	}
	fmt.Printf("request: wait %v (%s) in the %s, then SHA-256 over %d bytes in %d parts, %v of CPU per request (mean of 100, one goroutine)\n",
		f.wait, f.waitBy, in, f.size, f.parts, per.Round(time.Microsecond))
	return &server.RequestConfig{Wait: f.wait, Backend: f.waitBy == "backend", WaitIn: in, Parts: f.parts, Work: h.DoPart}, nil
}

// calibrateParts returns the mean time of one request's parts, computed
// one after the other on this goroutine, over n requests.
func calibrateParts(h *work.Hasher, parts, n int) (time.Duration, error) {
	if n < 1 {
		return 0, errors.New("calibrateParts needs n >= 1")
	}
	h.DoPart(0, 0, parts) // warm up
	start := time.Now()
	for seed := range n {
		for i := range parts {
			h.DoPart(uint64(seed), i, parts)
		}
	}
	return time.Since(start) / time.Duration(n), nil
}

func run(addr, modeName string, size, capacity, workers, maxWorkers int, parkingName string, grace time.Duration, req requestFlags) error {
	m, err := server.ParseMode(modeName)
	if err != nil {
		return err
	}
	parking, err := loadgen.ParseParking(parkingName)
	if err != nil {
		return err
	}
	h, err := work.New(size)
	if err != nil {
		return err
	}
	per, err := h.Calibrate(200)
	if err != nil {
		return err
	}
	fmt.Printf("work: SHA-256 over %d bytes, %v per request (mean of 200 on one goroutine), GOMAXPROCS=%d\n",
		size, per.Round(time.Microsecond), runtime.GOMAXPROCS(0))
	var rc *server.RequestConfig
	if m == server.Blitz {
		if rc, err = req.config(); err != nil {
			return err
		}
	}
	s, err := server.Start(server.Config{Mode: m, Addr: addr, Workers: workers, MaxWorkers: maxWorkers, Capacity: capacity, Parking: parking, Work: h.Do, Request: rc})
	if err != nil {
		return err
	}
	fmt.Printf("mode %v, capacity %d: listening on http://%s/work (metrics: /debug/vars, /metrics)\n", m, capacity, s.Addr())
	if rc != nil {
		for _, f := range server.Forks {
			fmt.Printf("request endpoint, fork %s: http://%s%s\n", f, s.Addr(), f.Path())
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	stop()
	fmt.Println("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err = s.Shutdown(sctx)
	ok, busy, failed := s.Counts()
	fmt.Printf("served: %d ok, %d rejected (503), %d failed; at most %d requests in the executor at once\n",
		ok, busy, failed, s.PeakInExecutor())
	if rc != nil {
		for _, f := range server.Forks {
			ok, failed := s.RequestCounts(f)
			fmt.Printf("%s: %d ok, %d failed\n", f.Path(), ok, failed)
		}
	}
	return err
}
