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
// -cpuprofile and -trace record a CPU profile and an execution trace from
// start to shutdown, to see where a load (go run ./loadgen -url ... -rate
// ...) spends the server's time: go tool pprof, go tool trace.
package main

import (
	"context"
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
		parking  = flag.String("parking", "auto", "blitz pool parking backend: auto (the default, portable), futex, portable, cond or spin (see server.Config.Parking)")
		grace    = flag.Duration("grace", 10*time.Second, "how long shutdown waits for in-flight requests")
		cpuprof  = flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
		traceOut = flag.String("trace", "", "write an execution trace of the whole run to this file")
	)
	flag.Parse()
	stop, err := record(*cpuprof, *traceOut)
	if err == nil {
		err = run(*addr, *mode, *size, *capacity, *workers, *parking, *grace)
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

func run(addr, modeName string, size, capacity, workers int, parkingName string, grace time.Duration) error {
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
	s, err := server.Start(server.Config{Mode: m, Addr: addr, Workers: workers, Capacity: capacity, Parking: parking, Work: h.Do})
	if err != nil {
		return err
	}
	fmt.Printf("mode %v, capacity %d: listening on http://%s/work (metrics: /debug/vars, /metrics)\n", m, capacity, s.Addr())

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
	return err
}
