package loadgen

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"
)

// A Doer sends one request and returns its HTTP status, or an error.
type Doer func(ctx context.Context) (status int, err error)

// Config bounds and paces one open-loop run.
type Config struct {
	// Rate is the offered load in requests per second.
	Rate float64
	// Count is the most requests the run sends.
	Count int
	// Duration is the length of the measured schedule: no request is
	// intended at or after Warmup+Duration. The run then waits for
	// outstanding requests.
	Duration time.Duration
	// Warmup is an unmeasured lead-in at the same rate, before the
	// measured schedule: it opens the connections and wakes the server so
	// that the measurement sees the steady state. Requests intended during
	// it are sent (they load the server) but not counted. 0 means none;
	// Count bounds the measured requests only.
	Warmup time.Duration
	// Timeout bounds each request (and so the wait at the end).
	Timeout time.Duration
	// MaxInFlight bounds outstanding requests; sends beyond it are
	// skipped and counted in Result.Dropped. It must be >= 1.
	MaxInFlight int
	// Seed seeds the schedule's RNG, so runs are repeatable.
	Seed uint64

	// onDrop, when set (by tests), is called after each dropped send.
	onDrop func()
}

func (c Config) validate() error {
	switch {
	case c.Timeout <= 0:
		return errors.New("loadgen: Timeout must be > 0")
	case c.MaxInFlight < 1:
		return errors.New("loadgen: MaxInFlight must be >= 1")
	case c.Warmup < 0:
		return errors.New("loadgen: Warmup must be >= 0")
	}
	return nil
}

// Result is what one run measured.
type Result struct {
	// Offered is the configured rate (requests per second).
	Offered float64
	// Scheduled is the length of the schedule; Sent how many were sent.
	Scheduled, Sent int
	// OK counts 200s; Rejected 503s; Errors other statuses, transport
	// errors and timeouts; Dropped sends skipped at MaxInFlight.
	OK, Rejected, Errors, Dropped int
	// Elapsed runs from the start of the measured schedule (after the
	// warm-up) to the last response.
	Elapsed time.Duration
	// MaxSendLag is the longest delay between a measured request's
	// intended send time and the moment its goroutine was started: how far
	// the generator itself fell behind its schedule. It is already part of
	// the latencies; a large value says the generator, not the server, was
	// short of CPU.
	MaxSendLag time.Duration
	// Latencies holds the latency of every 200, from its intended send
	// time to the end of its response, sorted ascending.
	Latencies []time.Duration
}

// Throughput is successful responses per second over Elapsed.
func (r *Result) Throughput() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.OK) / r.Elapsed.Seconds()
}

// RejectedFraction is the share of sent requests answered 503.
func (r *Result) RejectedFraction() float64 {
	if r.Sent == 0 {
		return 0
	}
	return float64(r.Rejected) / float64(r.Sent)
}

// Percentile returns the nearest-rank q-quantile (0 < q <= 1) of the
// successful requests' latencies: the smallest sample such that at least
// q of the samples are at or below it. It is 0 when there are none.
func (r *Result) Percentile(q float64) time.Duration {
	n := len(r.Latencies)
	if n == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(n))) - 1
	i = max(0, min(i, n-1))
	return r.Latencies[i]
}

// Max returns the largest successful latency (0 when none).
func (r *Result) Max() time.Duration {
	if len(r.Latencies) == 0 {
		return 0
	}
	return r.Latencies[len(r.Latencies)-1]
}

// String summarises the result on one line.
func (r *Result) String() string {
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	return fmt.Sprintf("offered %.0f/s, throughput %.0f/s (served/offered %.3f), sent %d: %d ok, %d 503 (%.1f%%), %d errors, %d dropped; "+
		"p50 %.3f ms, p99 %.3f ms, p99.9 %.3f ms, max %.3f ms; max send lag %.3f ms",
		r.Offered, r.Throughput(), r.Throughput()/r.Offered, r.Sent, r.OK, r.Rejected, 100*r.RejectedFraction(), r.Errors, r.Dropped,
		ms(r.Percentile(0.50)), ms(r.Percentile(0.99)), ms(r.Percentile(0.999)), ms(r.Max()), ms(r.MaxSendLag))
}

// Run sends requests with do on cfg's open-loop schedule and returns what
// it measured. Each request runs in its own goroutine, started at its
// intended time whatever earlier requests are doing; its latency is taken
// from the intended time (see the package doc). Run returns when the
// schedule is done and every request has ended, or early if ctx ends (then
// outstanding requests are cancelled and counted as errors).
func Run(ctx context.Context, cfg Config, do Doer, clk Clock) (*Result, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if do == nil || clk == nil {
		return nil, errors.New("loadgen: nil Doer or Clock")
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5EED))
	var warm []time.Duration
	if cfg.Warmup > 0 {
		w, err := Arrivals(rng, cfg.Rate, math.MaxInt, cfg.Warmup)
		if err != nil {
			return nil, err
		}
		warm = w
	}
	sched, err := Arrivals(rng, cfg.Rate, cfg.Count, cfg.Duration)
	if err != nil {
		return nil, err
	}
	res := &Result{Offered: cfg.Rate, Scheduled: len(sched), Latencies: make([]time.Duration, 0, len(sched))}

	var (
		mu       sync.Mutex // guards res's counters and Latencies, and inFlight
		inFlight int
		wg       sync.WaitGroup
	)
	record := func(intended time.Time, status int, err error) {
		end := clk.Now()
		mu.Lock()
		defer mu.Unlock()
		inFlight--
		switch {
		case err != nil:
			res.Errors++
		case status == 200:
			res.OK++
			res.Latencies = append(res.Latencies, end.Sub(intended))
		case status == 503:
			res.Rejected++
		default:
			res.Errors++
		}
	}

	t0 := clk.Now()
	var wwg sync.WaitGroup
	for _, off := range warm {
		clk.SleepUntil(ctx, t0.Add(off))
		if ctx.Err() != nil {
			break
		}
		mu.Lock()
		if inFlight >= cfg.MaxInFlight {
			mu.Unlock()
			continue
		}
		inFlight++
		mu.Unlock()
		wwg.Add(1)
		go func() {
			defer wwg.Done()
			rctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
			do(rctx)
			cancel()
			mu.Lock()
			inFlight--
			mu.Unlock()
		}()
	}

	start := t0.Add(cfg.Warmup)
	for _, off := range sched {
		intended := start.Add(off)
		clk.SleepUntil(ctx, intended)
		if ctx.Err() != nil {
			break
		}
		lag := clk.Now().Sub(intended)
		mu.Lock()
		res.MaxSendLag = max(res.MaxSendLag, lag)
		if inFlight >= cfg.MaxInFlight {
			res.Dropped++
			mu.Unlock()
			if cfg.onDrop != nil {
				cfg.onDrop()
			}
			continue
		}
		inFlight++
		res.Sent++
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			rctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
			status, err := do(rctx)
			cancel()
			record(intended, status, err)
		}()
	}
	wg.Wait()
	wwg.Wait()
	res.Elapsed = clk.Now().Sub(start)
	slices.Sort(res.Latencies)
	return res, nil
}
