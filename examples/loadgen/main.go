// Command loadgen is an open-loop load generator for the example server
// (../server), and the sweep that compares its modes.
//
// One run against a running server:
//
//	go run ./loadgen -url http://127.0.0.1:8080/work -rate 2000 -duration 10s
//
// The same run with vegeta (github.com/tsenart/vegeta/v12, as a library)
// instead of this generator: constant rate, its own timing and quantiles,
// so that a figure does not rest on our client alone:
//
//	go run ./loadgen -vegeta -url http://127.0.0.1:8080/request/group -rate 2000 -duration 10s
//
// The closed-loop capacity of one endpoint, and the rate at -load percent
// of it (the server's request endpoints wait, so the probe's concurrency
// goes up to 32 x GOMAXPROCS):
//
//	go run ./loadgen -calibrate -url http://127.0.0.1:8080/request -load 95
//
// The sweep starts the server itself (a child process per point, running
// this same binary with -child-server), measures the inline mode's
// capacity, runs every mode at loads from 30% to 120% of it, and writes a
// CSV, a Markdown table and the chart:
//
//	go run ./loadgen -sweep -point 10s -csv sweep.csv -md sweep.md -chart sweep.png,sweep.svg
//
// The mixed workload (package loadgen: Mixed) runs two endpoints on one
// pool in this process, one of them bursting, with and without a limit on
// the bursting one (a Sub of the pool), and prints the quiet endpoint's
// latency:
//
//	go run ./loadgen -mixed -point 10s -md mixed.md
//
// Targets must be loopback addresses; see package loadgen for the method.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/blitz-go/blitz/examples/internal/chart"
	"github.com/blitz-go/blitz/examples/internal/loadgen"
	"github.com/blitz-go/blitz/examples/internal/server"
	"github.com/blitz-go/blitz/examples/internal/work"
)

type flags struct {
	url         string
	rate        float64
	duration    time.Duration
	count       int
	timeout     time.Duration
	maxInFlight int
	conns       int
	seed        uint64
	vegeta      bool
	calibrate   bool
	load        float64

	sweep       bool
	modes       string
	loads       string
	point       time.Duration
	warmup      time.Duration
	calibration time.Duration
	capRPS      float64
	workSize    int
	capacity    int
	parking     string
	inProcess   bool
	csvPath     string
	mdPath      string
	chartPaths  string
	title       string
	note        string

	childServer bool
	mode        string

	mixed      bool
	mixedModes string
	quietLoads string
	burstLoad  int
	burstSize  int
	limit      int
}

func main() {
	var f flags
	flag.StringVar(&f.url, "url", "", "target URL for a single run (loopback only)")
	flag.Float64Var(&f.rate, "rate", 1000, "single run: offered load, requests per second")
	flag.DurationVar(&f.duration, "duration", 10*time.Second, "single run: length of the schedule")
	flag.IntVar(&f.count, "count", 1_000_000, "single run: most requests sent")
	flag.DurationVar(&f.timeout, "timeout", 10*time.Second, "per-request timeout")
	flag.IntVar(&f.maxInFlight, "max-inflight", 8192, "most outstanding requests (more are dropped and counted as errors)")
	flag.IntVar(&f.conns, "conns", 512, "most connections to the server; requests beyond wait for one (the wait counts in their latency)")
	flag.Uint64Var(&f.seed, "seed", 1, "schedule RNG seed")

	flag.BoolVar(&f.vegeta, "vegeta", false, "single run: send with vegeta (constant rate) instead of this generator (Poisson, open loop)")
	flag.BoolVar(&f.calibrate, "calibrate", false, "measure -url's closed-loop capacity (best of GOMAXPROCS x1..x32 clients, each for -calibration) and print the rate at -load percent of it")
	flag.Float64Var(&f.load, "load", 95, "calibrate: the load to print a rate for, in percent of the capacity")
	flag.BoolVar(&f.sweep, "sweep", false, "run the sweep over modes and loads")
	flag.StringVar(&f.modes, "modes", "inline,ants,blitz,blitz-futex,blitz-portable", "sweep: targets: inline, ants, blitz (the pool's default parking) or blitz-PARKING (auto, futex, portable, spin)")
	flag.StringVar(&f.loads, "loads", "30,50,70,80,90,100,110,120", "sweep: offered loads in % of inline capacity")
	flag.DurationVar(&f.point, "point", 10*time.Second, "sweep: schedule length per point")
	flag.DurationVar(&f.warmup, "warmup", time.Second, "unmeasured lead-in at the same rate before each run or point")
	flag.DurationVar(&f.calibration, "calibration", 2*time.Second, "sweep: length of each closed-loop capacity probe")
	flag.Float64Var(&f.capRPS, "capacity-rps", 0, "sweep: use this as 100% instead of calibrating")
	flag.IntVar(&f.workSize, "work", work.DefaultSize, "sweep: bytes hashed per request by the server")
	flag.IntVar(&f.capacity, "capacity", 64, "sweep: server capacity (requests waiting for a worker in the ants and blitz modes)")
	flag.StringVar(&f.parking, "parking", "auto", "internal: the child server's blitz parking backend (auto, futex, portable, spin)")
	flag.BoolVar(&f.inProcess, "inprocess", false, "sweep: run the server in this process instead of a child")
	flag.StringVar(&f.csvPath, "csv", "", "sweep: CSV output path")
	flag.StringVar(&f.mdPath, "md", "", "sweep: Markdown output path")
	flag.StringVar(&f.chartPaths, "chart", "", "sweep: comma-separated chart paths (.png, .svg)")
	flag.StringVar(&f.title, "title", "p99 latency against offered load", "sweep: chart title")
	flag.StringVar(&f.note, "note", "", "sweep: a line put at the top of the Markdown output")

	flag.BoolVar(&f.mixed, "mixed", false, "run the mixed workload: two endpoints on one pool, one bursting")
	flag.StringVar(&f.mixedModes, "mixed-modes", "shared,sub", "mixed: shared (both on the pool) and sub (the bursting endpoint in a Sub of the pool)")
	flag.StringVar(&f.quietLoads, "quiet-loads", "30,50", "mixed: the quiet endpoint's offered loads, in % of capacity")
	flag.IntVar(&f.burstLoad, "burst-load", 40, "mixed: the bursting endpoint's average offered load, in % of capacity")
	flag.IntVar(&f.burstSize, "burst-size", 0, "mixed: requests per burst (0: twice -capacity)")
	flag.IntVar(&f.limit, "limit", 0, "mixed: the Sub's limit in sub mode (0: half the workers, at least 1)")

	flag.BoolVar(&f.childServer, "child-server", false, "internal: serve until stdin closes (the sweep's child)")
	flag.StringVar(&f.mode, "mode", "blitz", "internal: the child server's mode")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch {
	case f.childServer:
		err = childServer(f)
	case f.mixed:
		err = mixed(ctx, f)
	case f.sweep:
		err = sweep(ctx, f)
	case f.calibrate && f.url != "":
		err = calibrate(ctx, f)
	case f.vegeta && f.url != "":
		err = vegetaRun(ctx, f)
	case f.url != "":
		err = single(ctx, f)
	default:
		err = errors.New("give -url for a single run (-vegeta: with vegeta; -calibrate: the capacity), or -sweep")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

func single(ctx context.Context, f flags) error {
	do, closeConns, err := loadgen.HTTPDoer(f.url, f.conns)
	if err != nil {
		return err
	}
	defer closeConns()
	res, err := loadgen.Run(ctx, loadgen.Config{
		Rate: f.rate, Count: f.count, Duration: f.duration, Warmup: f.warmup, Timeout: f.timeout,
		MaxInFlight: f.maxInFlight, Seed: f.seed,
	}, do, loadgen.RealClock{})
	if err != nil {
		return err
	}
	fmt.Println(res)
	return nil
}

// vegetaRun is single with vegeta as the generator.
func vegetaRun(ctx context.Context, f flags) error {
	res, err := loadgen.Vegeta(ctx, loadgen.VegetaConfig{
		URL: f.url, Rate: f.rate, Duration: f.duration, Timeout: f.timeout, Conns: f.conns,
	})
	if err != nil {
		return err
	}
	fmt.Println(res)
	return nil
}

// calibrate prints -url's closed-loop capacity and the rate at -load
// percent of it.
func calibrate(ctx context.Context, f flags) error {
	do, closeConns, err := loadgen.HTTPDoer(f.url, f.conns)
	if err != nil {
		return err
	}
	defer closeConns()
	p := runtime.GOMAXPROCS(0)
	concs := []int{p, 2 * p, 4 * p, 8 * p, 16 * p, 32 * p}
	capRPS, err := loadgen.BestClosedLoop(ctx, do, concs, f.calibration)
	if err != nil {
		return err
	}
	fmt.Printf("capacity %.0f req/s (closed loop, best of %v clients, %v each); %.0f%%: -rate %.0f\n",
		capRPS, concs, f.calibration, f.load, capRPS*f.load/100)
	return nil
}

func parseTargets(s string) ([]loadgen.Target, error) {
	var ms []loadgen.Target
	for _, name := range strings.Split(s, ",") {
		m, err := loadgen.ParseTarget(strings.TrimSpace(name))
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	return ms, nil
}

func parseLoads(s string) ([]int, error) {
	var ls []int
	for _, v := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("bad load %q: want positive integers (percent)", v)
		}
		ls = append(ls, n)
	}
	return ls, nil
}

func sweep(ctx context.Context, f flags) error {
	targets, err := parseTargets(f.modes)
	if err != nil {
		return err
	}
	loads, err := parseLoads(f.loads)
	if err != nil {
		return err
	}
	h, err := work.New(f.workSize)
	if err != nil {
		return err
	}
	per, err := h.Calibrate(200)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "work: SHA-256 over %d bytes, %v per request; GOMAXPROCS=%d; server capacity %d\n",
		f.workSize, per.Round(time.Microsecond), runtime.GOMAXPROCS(0), f.capacity)
	var start loadgen.Starter
	if f.inProcess {
		if start, err = loadgen.InProcess(f.workSize, f.capacity); err != nil {
			return err
		}
	} else {
		if start, err = childStarter(f.workSize, f.capacity); err != nil {
			return err
		}
	}
	capacity, rows, err := loadgen.Sweep(ctx, loadgen.SweepConfig{
		Start: start, Targets: targets, Loads: loads, Point: f.point, Warmup: f.warmup, Calibration: f.calibration,
		Capacity: f.capRPS, MaxInFlight: f.maxInFlight, Timeout: f.timeout, Conns: f.conns, Seed: f.seed, Log: os.Stderr,
	})
	if err != nil {
		return err
	}
	var table bytes.Buffer
	if err := loadgen.WriteMarkdown(&table, rows); err != nil {
		return err
	}
	fmt.Print(table.String())
	if f.csvPath != "" {
		if err := writeFile(f.csvPath, func(w io.Writer) error { return loadgen.WriteCSV(w, rows) }); err != nil {
			return err
		}
	}
	if f.mdPath != "" {
		err := writeFile(f.mdPath, func(w io.Writer) error {
			if f.note != "" {
				fmt.Fprintf(w, "%s\n\n", f.note)
			}
			host, _ := os.Hostname()
			fmt.Fprintf(w, "- date: %s\n- machine: %s, %d CPUs visible, GOMAXPROCS=%d (%s)\n- go: %s %s/%s\n",
				time.Now().UTC().Format(time.RFC3339), cpuModel(), runtime.NumCPU(), runtime.GOMAXPROCS(0), host,
				runtime.Version(), runtime.GOOS, runtime.GOARCH)
			args := []string{"loadgen"}
			for _, a := range os.Args[1:] {
				if strings.ContainsAny(a, " '\"*()") {
					a = strconv.Quote(a)
				}
				args = append(args, a)
			}
			fmt.Fprintf(w, "- command: `%s`\n", strings.Join(args, " "))
			fmt.Fprintf(w, "- work: SHA-256 over %d bytes, %v per request (mean of 200, one goroutine, measured at start)\n",
				f.workSize, per.Round(time.Microsecond))
			fmt.Fprintf(w, "- capacity (100%%): %.0f req/s (inline mode, closed loop, best of GOMAXPROCS x1/x2/x4/x8)\n", capacity)
			fmt.Fprintf(w, "- server bound (ants and blitz alike: GOMAXPROCS workers, at most this many requests waiting, 503 beyond): %d; blitz = the pool's default parking (portable), blitz-X = parking X; server in a %s\n",
				f.capacity, map[bool]string{true: "the generator's process", false: "child process"}[f.inProcess])
			fmt.Fprintf(w, "- generator: open loop, Poisson arrivals, at most %d requests in flight and %d connections (a request waiting for a connection is late, and that counts), %v warm-up per point\n",
				f.maxInFlight, f.conns, f.warmup)
			fmt.Fprintf(w, "- latency: from each request's intended (scheduled) send time to the end of its response, 200s only; exact nearest-rank percentiles over all samples\n\n")
			_, err := w.Write(table.Bytes())
			return err
		})
		if err != nil {
			return err
		}
	}
	if f.chartPaths != "" {
		if err := chart.Draw(rows, f.title, strings.Split(f.chartPaths, ",")...); err != nil {
			return err
		}
	}
	return nil
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "model name") {
			if _, v, ok := strings.Cut(line, ":"); ok {
				return strings.TrimSpace(v)
			}
		}
	}
	return runtime.GOARCH
}

func writeFile(path string, fn func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// childStarter starts each server as a child process running this binary
// with -child-server, so that the generator and the server have separate
// Go runtimes, as a client and a server would. The child prints its
// address on stdout and shuts down gracefully when its stdin closes (so it
// also goes away if the generator dies).
func childStarter(workSize, capacity int) (loadgen.Starter, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return func(t loadgen.Target) (string, func() error, error) {
		cmd := exec.Command(self, "-child-server", "-mode", t.Mode.String(),
			"-work", strconv.Itoa(workSize), "-capacity", strconv.Itoa(capacity), "-parking", t.Parking.String())
		cmd.Stderr = os.Stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return "", nil, err
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return "", nil, err
		}
		if err := cmd.Start(); err != nil {
			return "", nil, err
		}
		line, err := bufio.NewReader(stdout).ReadString('\n')
		addr, ok := strings.CutPrefix(strings.TrimSpace(line), "ADDR ")
		if err != nil || !ok {
			stdin.Close()
			cmd.Wait()
			return "", nil, fmt.Errorf("child server: no address (read %q: %v)", line, err)
		}
		stop := func() error {
			stdin.Close()
			return cmd.Wait()
		}
		return "http://" + addr + "/work", stop, nil
	}, nil
}

func childServer(f flags) error {
	m, err := server.ParseMode(f.mode)
	if err != nil {
		return err
	}
	h, err := work.New(f.workSize)
	if err != nil {
		return err
	}
	parking, err := loadgen.ParseParking(f.parking)
	if err != nil {
		return err
	}
	s, err := server.Start(server.Config{Mode: m, Capacity: f.capacity, Parking: parking, Work: h.Do})
	if err != nil {
		return err
	}
	fmt.Printf("ADDR %s\n", s.Addr())
	io.Copy(io.Discard, os.Stdin) // until the parent closes it
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = s.Shutdown(ctx)
	ok, busy, failed := s.Counts()
	fmt.Fprintf(os.Stderr, "  server %v: %d ok, %d 503, %d failed; at most %d handlers in the executor at once, refused ones included (bound: %s)\n",
		m, ok, busy, failed, s.PeakInExecutor(), bound(m, f.capacity))
	return err
}

// bound describes a mode's in-flight bound, for the child server's line.
func bound(m server.Mode, capacity int) string {
	if m == server.Inline {
		return "none"
	}
	return fmt.Sprintf("%d running + %d waiting", runtime.GOMAXPROCS(0), capacity)
}

// mixed runs the mixed workload for every mode and quiet load, and prints
// (and writes, with -md) a table of the quiet endpoint's latency.
func mixed(ctx context.Context, f flags) error {
	loads, err := parseLoads(f.quietLoads)
	if err != nil {
		return err
	}
	h, err := work.New(f.workSize)
	if err != nil {
		return err
	}
	per, err := h.Calibrate(200)
	if err != nil {
		return err
	}
	workers := runtime.GOMAXPROCS(0)
	capRPS := f.capRPS
	if capRPS == 0 {
		capRPS = float64(workers) / per.Seconds()
	}
	burstSize := f.burstSize
	if burstSize == 0 {
		burstSize = 2 * f.capacity
	}
	fmt.Fprintf(os.Stderr, "work: SHA-256 over %d bytes, %v per request; %d workers; capacity %.0f req/s; queue bound %d; bursts of %d at %d%%\n",
		f.workSize, per.Round(time.Microsecond), workers, capRPS, f.capacity, burstSize, f.burstLoad)
	var table bytes.Buffer
	fmt.Fprintf(&table, "| mode | quiet load | quiet p50 ms | quiet p99 ms | quiet p99.9 ms | quiet max ms | quiet ok | quiet 503 | burst ok | burst 503 |\n")
	fmt.Fprintf(&table, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	for _, load := range loads {
		for _, m := range strings.Split(f.mixedModes, ",") {
			mode := loadgen.MixedMode(strings.TrimSpace(m))
			res, err := loadgen.Mixed(ctx, loadgen.MixedConfig{
				Mode: mode, Workers: workers, Capacity: f.capacity, Limit: f.limit,
				Work: func(seed uint64) { h.Do(seed) }, CapacityRPS: capRPS,
				QuietPct: load, BurstPct: f.burstLoad, BurstSize: burstSize,
				Duration: f.point, Warmup: f.warmup, Timeout: f.timeout, MaxInFlight: f.maxInFlight, Seed: f.seed,
			})
			if err != nil {
				return err
			}
			q := res.Quiet
			fmt.Fprintf(os.Stderr, "  %s at %d%%: quiet %v; burst %d ok, %d 503, %d errors in %d bursts\n",
				mode, load, q, res.BurstOK, res.BurstRejected, res.BurstErrors, res.BurstBursts)
			fmt.Fprintf(&table, "| %s | %d%% | %.3f | %.3f | %.3f | %.3f | %d | %d | %d | %d |\n", mode, load,
				ms(q.Percentile(0.50)), ms(q.Percentile(0.99)), ms(q.Percentile(0.999)), ms(q.Max()),
				q.OK, q.Rejected, res.BurstOK, res.BurstRejected)
		}
	}
	fmt.Print(table.String())
	if f.mdPath == "" {
		return nil
	}
	return writeFile(f.mdPath, func(w io.Writer) error {
		if f.note != "" {
			fmt.Fprintf(w, "%s\n\n", f.note)
		}
		fmt.Fprintf(w, "- date: %s\n- machine: %s, %d CPUs visible, GOMAXPROCS=%d\n- go: %s %s/%s\n",
			time.Now().UTC().Format(time.RFC3339), cpuModel(), runtime.NumCPU(), runtime.GOMAXPROCS(0),
			runtime.Version(), runtime.GOOS, runtime.GOARCH)
		fmt.Fprintf(w, "- command: `loadgen %s`\n", strings.Join(os.Args[1:], " "))
		fmt.Fprintf(w, "- work: SHA-256 over %d bytes, %v per request; capacity (100%%) %.0f req/s = workers / per-request time\n",
			f.workSize, per.Round(time.Microsecond), capRPS)
		fmt.Fprintf(w, "- one pool of %d workers, queue bound %d (WithCapacity; the Sub's queue too); quiet endpoint: open-loop Poisson, TryDo on the pool; "+
			"bursting endpoint: %d requests at once, averaging %d%% of capacity, TryDo on the pool (shared) or TryDo on a Sub of limit %s (sub); in process, no HTTP\n",
			workers, f.capacity, burstSize, f.burstLoad, map[bool]string{true: "workers/2", false: strconv.Itoa(f.limit)}[f.limit == 0])
		fmt.Fprintf(w, "- latency: from each quiet request's intended send time to its return, 200s only; nearest-rank percentiles\n\n")
		_, err := w.Write(table.Bytes())
		return err
	})
}
