package loadgen

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blitz-go/blitz"
)

// The mixed workload: two endpoints on one pool, one of them bursting.
//
// The quiet endpoint receives an open-loop Poisson stream (Run) at a steady
// share of the pool's capacity; the bursting one receives, every period, a
// burst of requests all sent at once, at an average share of its own. Both
// submit with TryDo-style calls in the process itself, without HTTP: the
// figure is what the pool's scheduling does to the quiet endpoint, and
// HTTP would add the same to every mode. The modes:
//
//   - shared: both endpoints TryDo on the pool, bounded by its capacity
//     (WithCapacity). A burst fills the pool's queue: the quiet requests
//     that arrive meanwhile wait behind it, or are refused.
//   - sub: the bursting endpoint goes through a Sub of the pool (Pool.Sub:
//     at most Limit of its requests under way, Capacity more waiting in
//     its own queue); the quiet one TryDoes on the pool as before.

// MixedMode is how the bursting endpoint is bounded.
type MixedMode string

// The mixed workload's modes.
const (
	MixedShared MixedMode = "shared"
	MixedSub    MixedMode = "sub"
)

// MixedConfig is one run of the mixed workload.
type MixedConfig struct {
	Mode MixedMode
	// Workers is the pool's size (0: GOMAXPROCS); Capacity bounds its
	// queue, and the Sub's in sub mode; Limit is the Sub's limit (0:
	// half the workers, at least 1).
	Workers, Capacity, Limit int
	// Work is one request's work.
	Work func(seed uint64)
	// CapacityRPS is the pool's capacity in requests per second (100%).
	CapacityRPS float64
	// QuietPct and BurstPct are the endpoints' average offered loads, in
	// % of CapacityRPS; BurstSize is the number of requests per burst.
	QuietPct, BurstPct, BurstSize int
	// Duration, Warmup, Timeout, MaxInFlight and Seed are the quiet
	// endpoint's Run's.
	Duration, Warmup, Timeout time.Duration
	MaxInFlight               int
	Seed                      uint64
}

// MixedResult is what a mixed run measured: the quiet endpoint's Run, and
// the bursting endpoint's counts.
type MixedResult struct {
	Quiet                    *Result
	BurstOK, BurstRejected   int64
	BurstErrors, BurstBursts int64
}

// Mixed runs the mixed workload once on a new pool, closed before it
// returns.
func Mixed(ctx context.Context, cfg MixedConfig) (*MixedResult, error) {
	if cfg.Work == nil || cfg.CapacityRPS <= 0 || cfg.BurstSize < 1 || cfg.Capacity < 1 {
		return nil, errors.New("loadgen: Mixed: need Work, CapacityRPS > 0, BurstSize >= 1 and Capacity >= 1")
	}
	workers := cfg.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	p, err := blitz.New(blitz.WithWorkers(workers), blitz.WithCapacity(cfg.Capacity), blitz.WithName("mixed"))
	if err != nil {
		return nil, err
	}
	defer p.Close()
	status := func(err error) (int, error) {
		switch {
		case err == nil:
			return 200, nil
		case errors.Is(err, blitz.ErrQueueFull):
			return 503, nil
		}
		return 0, err
	}
	var seq atomic.Uint64
	work := func(*blitz.Worker) struct{} { cfg.Work(seq.Add(1)); return struct{}{} }
	quiet := func(ctx context.Context) (int, error) {
		_, err := blitz.TryDo(ctx, p, work)
		return status(err)
	}
	burst := quiet
	switch cfg.Mode {
	case MixedShared:
	case MixedSub:
		limit := cfg.Limit
		if limit == 0 {
			limit = max(1, workers/2)
		}
		s, err := p.Sub(limit, cfg.Capacity)
		if err != nil {
			return nil, err
		}
		defer s.Close()
		burst = func(ctx context.Context) (int, error) {
			_, err := blitz.TryDo(ctx, s, work)
			return status(err)
		}
	default:
		return nil, fmt.Errorf("loadgen: Mixed: unknown mode %q", cfg.Mode)
	}

	res := &MixedResult{}
	bctx, stopBursts := context.WithCancel(ctx)
	var bwg sync.WaitGroup
	bwg.Add(1)
	go func() {
		defer bwg.Done()
		res.BurstBursts = bursts(bctx, cfg, burst, res)
	}()
	q, err := Run(ctx, Config{
		Rate: cfg.CapacityRPS * float64(cfg.QuietPct) / 100, Count: 1 << 30, Duration: cfg.Duration,
		Warmup: cfg.Warmup, Timeout: cfg.Timeout, MaxInFlight: cfg.MaxInFlight, Seed: cfg.Seed,
	}, quiet, RealClock{})
	stopBursts()
	bwg.Wait()
	if err != nil {
		return nil, err
	}
	res.Quiet = q
	return res, nil
}

// bursts sends a burst of cfg.BurstSize requests at once every period (so
// that they average cfg.BurstPct of the capacity) until ctx ends, counts
// their outcomes in res, and returns the number of bursts.
func bursts(ctx context.Context, cfg MixedConfig, do Doer, res *MixedResult) int64 {
	rate := cfg.CapacityRPS * float64(cfg.BurstPct) / 100
	if rate <= 0 {
		return 0
	}
	period := time.Duration(float64(cfg.BurstSize) / rate * float64(time.Second))
	var n int64
	var wg sync.WaitGroup
	var ok, rejected, failed atomic.Int64
	next := time.Now().Add(period / 2)
	for {
		RealClock{}.SleepUntil(ctx, next)
		if ctx.Err() != nil {
			break
		}
		n++
		for range cfg.BurstSize {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout)
				st, err := do(rctx)
				cancel()
				switch {
				case err == nil && st == 200:
					ok.Add(1)
				case err == nil && st == 503:
					rejected.Add(1)
				default:
					failed.Add(1)
				}
			}()
		}
		next = next.Add(period)
	}
	wg.Wait()
	res.BurstOK, res.BurstRejected, res.BurstErrors = ok.Load(), rejected.Load(), failed.Load()
	return n
}
