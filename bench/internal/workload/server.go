package workload

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alitto/pond/v2"
	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
	"github.com/panjf2000/ants/v2"
	"golang.org/x/sync/errgroup"
)

// The blocking-server workload is a server under open-loop load: requests
// arrive on a fixed schedule, independent of completions, each handled on
// its own goroutine as net/http handles them; a request waits ServerSizes.Wait
// (a sleep standing in for a database call), then runs ServerSizes.CPU of
// CPU work (an integer hash loop calibrated at start, spinUnits). The load
// is a share of the CPU capacity, GOMAXPROCS / CPU requests per second.
//
// Latency runs from each request's scheduled arrival to its end, not from
// when the generator got round to it, so a stalled generator or a
// saturated server cannot hide the requests it delays (coordinated
// omission). The generator sleeps between arrivals with Go's timers, about
// 1 ms granular on an idle machine (the project's design notes, section 3): at rates above
// 1,000 per second arrivals leave in small bursts, a few hundred
// microseconds late, and that lag is in every implementation's latency
// alike (the rows report its maximum).
//
// A request not finished Drain after the end of the arrival window is not
// served; it enters the percentiles with its lower bound (the deadline
// minus its scheduled arrival), so a percentile above the served share is
// a lower bound too, and the report marks it so. The context the handlers
// pass on (DoContext) is cancelled at that deadline:
// the pool withdraws what is still queued.
//
// The implementations are how the handler runs the request: inline (in
// the handler's goroutine: no pool), go (a goroutine per request, the
// handler waits for it), errgroup without a limit, ants and pond pools
// without a size limit, the handler waiting for the task each time; and
// the pool, a blitz.New() pool with no option but the parking, through
// blitz.DoContext. blitz-fork-group and blitz-fork-par fork the CPU part
// inside the task into Forks pieces, with a blitz Group and with par.For.

// ServerSizes are the blocking-server workload's parameters.
type ServerSizes struct {
	Loads  []int         // offered loads, percent of the CPU capacity (GOMAXPROCS / CPU requests per second)
	Window time.Duration // requests arrive during this window
	Drain  time.Duration // a request not finished this long after the window is not served
	Wait   time.Duration // each request first waits this long (time.Sleep)
	CPU    time.Duration // then computes this long (spinUnits)
	Forks  int           // the fork variants split the CPU part into this many pieces
}

// The server's metrics (b.ReportMetric units): latency percentiles over
// every offered request, the share served, completions per second during
// the window, the offered rate, and the generator's largest lag behind its
// schedule.
const (
	MetricP50     = "p50-ns"
	MetricP99     = "p99-ns"
	MetricP999    = "p99.9-ns"
	MetricServed  = "served-%"
	MetricDone    = "done/s"
	MetricOffered = "offered/s"
	MetricLag     = "maxlag-ns"
)

// A clock tells the time and waits: the open loop takes one so that its
// tests can drive the schedule; realClock is the wall clock.
type clock interface {
	Now() time.Time
	// SleepUntil returns at or after t.
	SleepUntil(t time.Time)
	// After returns a channel that receives at or after t.
	After(t time.Time) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) SleepUntil(t time.Time) {
	if d := time.Until(t); d > 0 {
		time.Sleep(d)
	}
}

func (realClock) After(t time.Time) <-chan time.Time { return time.After(time.Until(t)) }

// loadResult is one open-loop run.
type loadResult struct {
	Offered  int
	Served   int             // finished, successfully, by the deadline (the end of the window plus the drain)
	InWindow int             // finished, successfully, within the window
	Lat      []time.Duration // one per offered request, sorted; an unserved one counts as the deadline minus its schedule
	MaxLag   time.Duration   // the largest delay of a dispatch behind its schedule
}

// openLoop offers n requests, request i scheduled at start + i*gap, from
// the calling goroutine: it sleeps until each scheduled time (or not at
// all when it is late) and calls dispatch(i, finish), which must start the
// request and return without waiting for it; the request calls finish(ok)
// once when it ends. openLoop returns at the deadline, window + drain after
// the start, or as soon as every request finished; allDone is closed when
// every request has called finish, which may be later.
func openLoop(clk clock, n int, gap, window, drain time.Duration, dispatch func(i int, finish func(ok bool))) (res loadResult, allDone <-chan struct{}) {
	ends := make([]atomic.Int64, n) // end - start in ns, +1 so that 0 means not finished (or failed)
	var pending atomic.Int64
	pending.Store(int64(n))
	done := make(chan struct{})
	if n == 0 {
		close(done)
	}
	start := clk.Now()
	for i := range n {
		at := start.Add(time.Duration(i) * gap)
		clk.SleepUntil(at)
		if lag := clk.Now().Sub(at); lag > res.MaxLag {
			res.MaxLag = lag
		}
		dispatch(i, func(ok bool) {
			if ok {
				ends[i].Store(int64(clk.Now().Sub(start)) + 1)
			}
			if pending.Add(-1) == 0 {
				close(done)
			}
		})
	}
	deadline := start.Add(window + drain)
	select {
	case <-done:
	case <-clk.After(deadline):
	}
	res.Offered = n
	res.Lat = make([]time.Duration, n)
	for i := range n {
		sched := time.Duration(i) * gap
		end := time.Duration(ends[i].Load() - 1)
		if end < 0 || end > window+drain {
			res.Lat[i] = max(window+drain-sched, 0) // not served: a lower bound
			continue
		}
		res.Served++
		if end <= window {
			res.InWindow++
		}
		res.Lat[i] = end - sched
	}
	slices.Sort(res.Lat)
	return res, done
}

// quantile is the nearest-rank q-quantile of sorted xs (0 when empty).
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// spinWork burns CPU for units iterations of an integer hash, with no
// memory traffic: the CPU part of a request.
func spinWork(units int) uint64 {
	x := uint64(88172645463325252)
	for range units {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// spinCal is the calibration of spinWork on this machine: ns per unit,
// measured once per process.
var spinCal struct {
	once      sync.Once
	nsPerUnit float64
}

// spinUnits returns the spinWork units that take d of CPU here: the
// calibration doubles the units until one run takes 2 ms, then keeps the
// fastest of five runs of that size (the machine's speed when nothing
// else runs).
func spinUnits(d time.Duration) int {
	spinCal.once.Do(func() {
		units := 1 << 12
		for {
			best := time.Duration(math.MaxInt64)
			for range 5 {
				t0 := time.Now()
				keep(spinWork(units))
				best = min(best, time.Since(t0))
			}
			if best >= 2*time.Millisecond || units >= 1<<30 {
				spinCal.nsPerUnit = float64(best) / float64(units)
				return
			}
			units *= 2
		}
	})
	return max(int(float64(d)/spinCal.nsPerUnit), 1)
}

// request is one request's work: wait, then compute units of spinWork, as
// a whole or in forks pieces.
type request struct {
	wait  time.Duration
	units int
	forks int
	// trace, if not nil, is called with -1 at the end of every unforked
	// run and with k at the end of the k-th piece of a forked one: the
	// tests count runs with it.
	trace func(piece int)
}

// run is the request in the calling goroutine.
func (r request) run() {
	time.Sleep(r.wait)
	keep(spinWork(r.units))
	if r.trace != nil {
		r.trace(-1)
	}
}

// piece is the k-th of the forks pieces of the CPU part.
func (r request) piece(k int) {
	lo, hi := r.units*k/r.forks, r.units*(k+1)/r.forks
	keep(spinWork(hi - lo))
	if r.trace != nil {
		r.trace(k)
	}
}

// runForkGroup is the request on a worker with its CPU part forked in a
// blitz Group.
func (r request) runForkGroup(w *blitz.Worker) {
	time.Sleep(r.wait)
	g, _ := blitz.NewGroup(w.Context(), w)
	for k := range r.forks {
		g.Go(func(*blitz.Worker) error { r.piece(k); return nil })
	}
	_ = g.Wait()
}

// runForkPar is the request on a worker with its CPU part forked by
// par.For, one piece per index.
func (r request) runForkPar(w *blitz.Worker) {
	time.Sleep(r.wait)
	par.For(w, 0, r.forks, 1, func(_ *blitz.Worker, lo, hi int) {
		for k := lo; k < hi; k++ {
			r.piece(k)
		}
	})
}

// A server is one way for a handler to run its request: serve runs r and
// returns when it is done (an error when it was not run).
type server struct {
	impl string
	kind Kind
	open func(parking string, r request) (serve func(ctx context.Context) error, closeFn func() error, err error)
}

// servers are the implementations of the server workload, peers first.
func servers() []server {
	return []server{
		{"inline", KindPeer, openServeInline},
		{"go", KindPeer, openServeGo},
		{"errgroup", KindPeer, openServeErrgroup},
		{"ants", KindPeer, openServeAnts},
		{"pond", KindPeer, openServePond},
		{"blitz", KindBlitz, openServeBlitz(func(r request) func(*blitz.Worker) { return func(*blitz.Worker) { r.run() } })},
		{"blitz-fork-group", KindBlitz, openServeBlitz(func(r request) func(*blitz.Worker) { return r.runForkGroup })},
		{"blitz-fork-par", KindBlitz, openServeBlitz(func(r request) func(*blitz.Worker) { return r.runForkPar })},
	}
}

func openServeInline(_ string, r request) (func(context.Context) error, func() error, error) {
	return func(context.Context) error { r.run(); return nil }, noClose, nil
}

func openServeGo(_ string, r request) (func(context.Context) error, func() error, error) {
	return func(context.Context) error {
		done := make(chan struct{})
		go func() { r.run(); close(done) }()
		<-done
		return nil
	}, noClose, nil
}

// openServeErrgroup shares one errgroup without a limit (SetLimit(-1))
// between the handlers of a row; its Wait runs when the row closes.
func openServeErrgroup(_ string, r request) (func(context.Context) error, func() error, error) {
	g := new(errgroup.Group)
	g.SetLimit(-1)
	return func(context.Context) error {
		done := make(chan struct{})
		g.Go(func() error { r.run(); close(done); return nil })
		<-done
		return nil
	}, g.Wait, nil
}

func openServeAnts(_ string, r request) (func(context.Context) error, func() error, error) {
	p, err := ants.NewPool(0)
	if err != nil {
		return nil, nil, err
	}
	return func(context.Context) error {
		done := make(chan struct{})
		if err := p.Submit(func() { r.run(); close(done) }); err != nil {
			return err
		}
		<-done
		return nil
	}, func() error { return p.ReleaseTimeout(time.Minute) }, nil
}

func openServePond(_ string, r request) (func(context.Context) error, func() error, error) {
	p := pond.NewPool(0)
	return func(context.Context) error { return p.Submit(r.run).Wait() }, func() error { p.StopAndWait(); return nil }, nil
}

// openServeBlitz runs the request body fn(r) through blitz.DoContext on a
// pool of the default size.
func openServeBlitz(fn func(r request) func(*blitz.Worker)) func(string, request) (func(context.Context) error, func() error, error) {
	return func(parking string, r request) (func(context.Context) error, func() error, error) {
		p, err := openBlockingPool(parking)
		if err != nil {
			return nil, nil, err
		}
		body := fn(r)
		task := func(w *blitz.Worker) struct{} { body(w); return struct{}{} }
		return func(ctx context.Context) error {
			_, err := blitz.DoContext(ctx, p, task)
			return err
		}, p.Close, nil
	}
}

// serverRun offers one open-loop run of n requests gap apart to serve, a
// goroutine per request. It cancels the handlers' context at the deadline
// and waits, at most guardGrace, for every handler to return; hung says it
// had to give up.
func serverRun(serve func(context.Context) error, n int, gap, window, drain time.Duration) (res loadResult, hung bool) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, allDone := openLoop(realClock{}, n, gap, window, drain, func(_ int, finish func(bool)) {
		go func() { finish(serve(ctx) == nil) }()
	})
	cancel()
	t := time.NewTimer(guardGrace)
	defer t.Stop()
	select {
	case <-allDone:
		return res, false
	case <-t.C:
		return res, true
	}
}

// serverPlan is the schedule of one load level: n requests gap apart over
// the window, at load percent of the capacity of procs CPUs.
func serverPlan(s *ServerSizes, load, procs int) (n int, gap time.Duration) {
	rate := float64(load) / 100 * float64(procs) / s.CPU.Seconds()
	n = max(int(rate*s.Window.Seconds()), 1)
	return n, s.Window / time.Duration(n)
}

// serverRow binds a server to a row at one load level.
func serverRow(c Case, sv server, s *ServerSizes, load int) Case {
	return bind(c, func(b *testing.B, c *Case) {
		r := request{wait: s.Wait, units: spinUnits(s.CPU), forks: max(s.Forks, 1)}
		serve, closeFn, err := sv.open(c.Parking, r)
		if err != nil {
			Fail(b, c, "open: %v", err)
		}
		stuck := false
		defer func() {
			if stuck {
				return
			}
			if err := closeFn(); err != nil {
				Fail(b, c, "close: %v", err)
			}
		}()
		n, gap := serverPlan(s, load, c.Workers)
		var all []time.Duration
		var offered, served, inWindow, runs int
		var maxLag time.Duration
		measure(b, c, nil, func() {
			res, hung := serverRun(serve, n, gap, s.Window, s.Drain)
			if hung {
				stuck = true
				TimedOut(b, c, "hung: requests still running %v after the deadline", guardGrace)
			}
			all = append(all, res.Lat...)
			offered += res.Offered
			served += res.Served
			inWindow += res.InWindow
			maxLag = max(maxLag, res.MaxLag)
			runs++
		})
		slices.Sort(all)
		b.ReportMetric(float64(quantile(all, 0.5)), MetricP50)
		b.ReportMetric(float64(quantile(all, 0.99)), MetricP99)
		b.ReportMetric(float64(quantile(all, 0.999)), MetricP999)
		b.ReportMetric(100*float64(served)/float64(max(offered, 1)), MetricServed)
		b.ReportMetric(float64(inWindow)/(float64(runs)*s.Window.Seconds()), MetricDone)
		b.ReportMetric(float64(n)/s.Window.Seconds(), MetricOffered)
		b.ReportMetric(float64(maxLag), MetricLag)
	})
}

// blockingServerCases are the server rows: at every load, every server at
// the largest worker count (the peers under GOMAXPROCS = that count), the
// pool's per backend.
func blockingServerCases(cfg Config) []Case {
	s := cfg.Sizes.Server
	if s == nil {
		return nil
	}
	w := slices.Max(cfg.Workers)
	var out []Case
	for _, load := range s.Loads {
		for _, sv := range servers() {
			parks := []string{""}
			if sv.kind == KindBlitz {
				parks = cfg.Parkings
			}
			for _, parking := range parks {
				c := Case{Workload: BlockingServer, Params: fmt.Sprintf("load=%d", load), Impl: sv.impl, Workers: w,
					Parking: parking, Unit: MetricP99, Kind: sv.kind}
				out = append(out, procsRow(serverRow(c, sv, s, load), w))
			}
		}
	}
	return out
}

// serverNote says what one op of the server rows is, for Note.
func serverNote(s Sizes) string {
	sv := s.Server
	if sv == nil {
		return ""
	}
	return fmt.Sprintf("one op = an open-loop run: requests arrive on a fixed schedule for %v at load%% of the CPU capacity "+
		"(GOMAXPROCS / %v requests per second), each on its own goroutine; a request sleeps %v, then computes %v (a hash loop calibrated at start); "+
		"latency from the scheduled arrival to the end (no coordinated omission; the generator's ~1 ms timer bursts count in it for every impl); a request not done %v after the window is not served "+
		"and counts as its lower bound; peers unbounded, blitz = DoContext on blitz.New(), the fork variants split the CPU part in %d inside the task",
		sv.Window, sv.CPU, sv.Wait, sv.CPU, sv.Drain, sv.Forks)
}
