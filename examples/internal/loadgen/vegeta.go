package loadgen

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// A second opinion: the same kind of run with a load generator nobody here
// wrote, github.com/tsenart/vegeta/v12 used as a library, so that a figure
// does not rest on Run alone. Vegeta sends at a constant rate (not Poisson),
// from a pool of workers that grows when all are busy, and times each
// request from the moment a worker takes it (not from its intended time:
// while the attacker keeps up, the two agree); its percentiles come from its
// own quantile estimator.

// VegetaConfig is one vegeta attack.
type VegetaConfig struct {
	// URL is the target; it must pass CheckTarget (loopback only).
	URL string
	// Rate is the constant rate, requests per second (rounded to an
	// integer: vegeta paces whole hits per second).
	Rate float64
	// Duration is the attack's length: no request is sent after it. The
	// attack then waits for outstanding requests, each bounded by Timeout.
	Duration time.Duration
	// Timeout bounds each request.
	Timeout time.Duration
	// Conns bounds the connections to the target (vegeta's MaxConnections
	// and its idle pool), as HTTPDoer's maxConns does; 0 means vegeta's
	// default (no bound).
	Conns int
}

// VegetaResult is what an attack measured: vegeta's own metrics, and the
// rate it was asked for.
type VegetaResult struct {
	Offered float64
	Metrics vegeta.Metrics
}

// OK returns how many requests got 200.
func (r *VegetaResult) OK() int { return r.Metrics.StatusCodes["200"] }

// String summarises the attack on one line, in Result.String's order.
func (r *VegetaResult) String() string {
	m := &r.Metrics
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	return fmt.Sprintf("vegeta: offered %.0f/s (sent %.0f/s), throughput %.0f/s (served/offered %.3f), sent %d: %d ok, success %.4f, codes %v; "+
		"p50 %.3f ms, p99 %.3f ms, p99.9 %.3f ms, max %.3f ms",
		r.Offered, m.Rate, m.Throughput, m.Throughput/r.Offered, m.Requests, r.OK(), m.Success, m.StatusCodes,
		ms(m.Latencies.P50), ms(m.Latencies.P99), ms(m.Latencies.Quantile(0.999)), ms(m.Latencies.Max))
}

// Vegeta attacks cfg.URL with GETs at cfg.Rate for cfg.Duration and returns
// vegeta's metrics. It stops by itself; if ctx ends first it stops the
// attack and returns what it measured so far with ctx's error.
func Vegeta(ctx context.Context, cfg VegetaConfig) (*VegetaResult, error) {
	if err := CheckTarget(cfg.URL); err != nil {
		return nil, err
	}
	switch {
	case !(cfg.Rate >= 1) || math.IsInf(cfg.Rate, 0):
		return nil, errors.New("loadgen: Vegeta: Rate must be at least 1 request per second")
	case cfg.Duration <= 0:
		return nil, errors.New("loadgen: Vegeta: Duration must be > 0")
	case cfg.Timeout <= 0:
		return nil, errors.New("loadgen: Vegeta: Timeout must be > 0")
	case cfg.Conns < 0:
		return nil, errors.New("loadgen: Vegeta: Conns must be >= 0")
	}
	// Our own transport, so that the connections are bounded as HTTPDoer's
	// are and closed when the attack is over (vegeta has no Close).
	tr := &http.Transport{
		Proxy:               nil, // loopback: never through a proxy
		MaxConnsPerHost:     cfg.Conns,
		MaxIdleConns:        cfg.Conns,
		MaxIdleConnsPerHost: cfg.Conns,
		DisableCompression:  true,
	}
	if cfg.Conns == 0 {
		tr.MaxIdleConnsPerHost = vegeta.DefaultConnections
	}
	defer tr.CloseIdleConnections()
	opts := []func(*vegeta.Attacker){
		vegeta.Client(&http.Client{Transport: tr, Timeout: cfg.Timeout}), // first: it replaces the client
		vegeta.Redirects(vegeta.NoFollow),
	}
	atk := vegeta.NewAttacker(opts...)
	targeter := vegeta.NewStaticTargeter(vegeta.Target{Method: http.MethodGet, URL: cfg.URL})
	pacer := vegeta.ConstantPacer{Freq: int(math.Round(cfg.Rate)), Per: time.Second}
	res := &VegetaResult{Offered: float64(pacer.Freq)}
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-ctx.Done():
			atk.Stop()
		case <-stopped:
		}
	}()
	for r := range atk.Attack(targeter, pacer, cfg.Duration, "blitz-examples") {
		r.Body = nil // only the status matters; do not keep every body
		res.Metrics.Add(r)
	}
	res.Metrics.Close()
	return res, ctx.Err()
}
