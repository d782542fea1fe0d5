package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/examples/internal/server"
	"github.com/blitz-go/blitz/examples/internal/work"
)

// A Target is what one column of a sweep measures: a server mode and, in
// the blitz mode, the pool's parking backend (blitz.ParkingAuto, the
// zero value, is the pool's default).
type Target struct {
	Mode    server.Mode
	Parking blitz.Parking
}

// String returns the target's name in flags and reports: the mode's name,
// with the parking backend appended when the blitz mode names one
// ("blitz-futex", "blitz-portable"; "blitz" is the default backend).
func (t Target) String() string {
	if t.Mode == server.Blitz && t.Parking != blitz.ParkingAuto {
		return t.Mode.String() + "-" + t.Parking.String()
	}
	return t.Mode.String()
}

// ParseTarget parses a target name: a mode (inline, ants, blitz), or
// blitz-PARKING for the blitz mode with a parking backend (auto, futex,
// portable, spin).
func ParseTarget(s string) (Target, error) {
	name, parking, named := strings.Cut(s, "-")
	m, err := server.ParseMode(name)
	if err != nil {
		return Target{}, err
	}
	t := Target{Mode: m}
	if !named {
		return t, nil
	}
	if m != server.Blitz {
		return Target{}, fmt.Errorf("loadgen: target %q: only the blitz mode takes a parking backend", s)
	}
	if t.Parking, err = ParseParking(parking); err != nil {
		return Target{}, fmt.Errorf("loadgen: target %q: %w", s, err)
	}
	return t, nil
}

// ParseParking parses a blitz parking backend's name (Parking.String):
// auto, futex, portable, cond or spin.
func ParseParking(s string) (blitz.Parking, error) {
	for _, k := range []blitz.Parking{blitz.ParkingAuto, blitz.ParkingFutex, blitz.ParkingPortable, blitz.ParkingCond, blitz.ParkingSpin} {
		if k.String() == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown parking backend %q (want auto, futex, portable, cond or spin)", s)
}

// A Starter starts a server for the given target and returns its /work URL
// and a function that shuts it down.
type Starter func(t Target) (url string, stop func() error, err error)

// InProcess returns a Starter that runs the server in this process, with
// the given work size and capacity, and the pool's default worker count
// (GOMAXPROCS). Tests use it; the sweep command prefers a child process,
// so that generator and server do not share one Go scheduler.
func InProcess(workSize, capacity int) (Starter, error) {
	h, err := work.New(workSize)
	if err != nil {
		return nil, err
	}
	return func(t Target) (string, func() error, error) {
		s, err := server.Start(server.Config{Mode: t.Mode, Capacity: capacity, Parking: t.Parking, Work: h.Do})
		if err != nil {
			return "", nil, err
		}
		stop := func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			return s.Shutdown(ctx)
		}
		return "http://" + s.Addr() + "/work", stop, nil
	}, nil
}

// SweepConfig configures Sweep.
type SweepConfig struct {
	// Start starts a server per point.
	Start Starter
	// Targets to compare, in report order.
	Targets []Target
	// Loads are offered loads in percent of the measured capacity.
	Loads []int
	// Point is each point's measured schedule length; Warmup its
	// unmeasured lead-in (see Config.Warmup).
	Point, Warmup time.Duration
	// Calibration is how long each closed-loop capacity probe runs.
	Calibration time.Duration
	// Capacity, when > 0, skips the calibration and uses this many
	// requests per second as 100%.
	Capacity float64
	// MaxInFlight and Timeout are passed to each Run.
	MaxInFlight int
	Timeout     time.Duration
	// Conns bounds the generator's connections to the server (HTTPDoer);
	// 0 means MaxInFlight.
	Conns int
	// Seed seeds every point's schedule (the same schedule per load for
	// every mode).
	Seed uint64
	// Log receives progress lines; nil discards them.
	Log io.Writer
}

// Row is one point of a sweep: one mode at one offered load.
type Row struct {
	Mode        string
	LoadPct     int
	OfferedRPS  float64
	Throughput  float64
	P50, P99    float64 // milliseconds
	P999, Max   float64 // milliseconds
	OK          int
	Rejected    int
	Errors      int // errors + dropped sends
	RejectedPct float64
	// SendLag is the run's MaxSendLag in milliseconds: how far the
	// generator fell behind its own schedule. It is in the Markdown table
	// (a point where it is large measured the generator as much as the
	// server) but not in the CSV, whose columns are fixed.
	SendLag float64
}

// RowOf turns a run's result into a row.
func RowOf(mode string, loadPct int, r *Result) Row {
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	row := Row{
		Mode: mode, LoadPct: loadPct, OfferedRPS: r.Offered, Throughput: r.Throughput(),
		P50: ms(r.Percentile(0.50)), P99: ms(r.Percentile(0.99)), P999: ms(r.Percentile(0.999)), Max: ms(r.Max()),
		OK: r.OK, Rejected: r.Rejected, Errors: r.Errors + r.Dropped, SendLag: ms(r.MaxSendLag),
	}
	// Of every request the schedule tried to send (dropped ones included),
	// the same way ReadCSV recomputes it.
	if all := row.OK + row.Rejected + row.Errors; all > 0 {
		row.RejectedPct = 100 * float64(row.Rejected) / float64(all)
	}
	return row
}

// Calibrate measures the capacity (200s per second) of the server that
// start gives for server.Inline: the best closed-loop throughput at
// concurrency GOMAXPROCS x1, x2, x4 and x8, each for d.
func Calibrate(ctx context.Context, start Starter, maxConns int, d time.Duration) (float64, error) {
	url, stop, err := start(Target{Mode: server.Inline})
	if err != nil {
		return 0, err
	}
	do, closeConns, err := HTTPDoer(url, maxConns)
	if err != nil {
		stop()
		return 0, err
	}
	p := runtime.GOMAXPROCS(0)
	best, err := BestClosedLoop(ctx, do, []int{p, 2 * p, 4 * p, 8 * p}, d)
	closeConns()
	if serr := stop(); err == nil {
		err = serr
	}
	if err != nil {
		return 0, err
	}
	return best, nil
}

// Sweep runs every mode at every load and returns the capacity used as
// 100% and one row per point, loads outer, modes inner.
func Sweep(ctx context.Context, cfg SweepConfig) (float64, []Row, error) {
	logf := func(format string, a ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, format+"\n", a...)
		}
	}
	if cfg.Start == nil || len(cfg.Targets) == 0 || len(cfg.Loads) == 0 {
		return 0, nil, errors.New("loadgen: Sweep needs a Starter, targets and loads")
	}
	for _, l := range cfg.Loads {
		if l <= 0 {
			return 0, nil, fmt.Errorf("loadgen: load %d%% is not positive", l)
		}
	}
	conns := cfg.Conns
	if conns <= 0 {
		conns = cfg.MaxInFlight
	}
	capacity := cfg.Capacity
	if capacity <= 0 {
		var err error
		capacity, err = Calibrate(ctx, cfg.Start, conns, cfg.Calibration)
		if err != nil {
			return 0, nil, fmt.Errorf("loadgen: calibration: %w", err)
		}
		logf("capacity (inline, closed loop, best of GOMAXPROCS x1/x2/x4/x8): %.0f req/s", capacity)
	}
	var rows []Row
	for _, pct := range cfg.Loads {
		rate := capacity * float64(pct) / 100
		for _, m := range cfg.Targets {
			if err := ctx.Err(); err != nil {
				return capacity, rows, err
			}
			url, stop, err := cfg.Start(m)
			if err != nil {
				return capacity, rows, fmt.Errorf("loadgen: start %v: %w", m, err)
			}
			do, closeConns, err := HTTPDoer(url, conns)
			if err != nil {
				stop()
				return capacity, rows, err
			}
			res, err := Run(ctx, Config{
				Rate: rate, Count: int(rate*cfg.Point.Seconds()*2) + 100, Duration: cfg.Point, Warmup: cfg.Warmup,
				Timeout: cfg.Timeout, MaxInFlight: cfg.MaxInFlight, Seed: cfg.Seed + uint64(pct),
			}, do, RealClock{})
			closeConns()
			if serr := stop(); err == nil && serr != nil {
				err = fmt.Errorf("loadgen: stop %v: %w", m, serr)
			}
			if err != nil {
				return capacity, rows, err
			}
			logf("%-6v %3d%%: %v", m, pct, res)
			rows = append(rows, RowOf(m.String(), pct, res))
		}
	}
	return capacity, rows, nil
}
