package loadgen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/panjf2000/ants/v2"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// ants's package-level default pool runs two goroutines from init;
	// release it so goleak sees only what the tests leave behind.
	ants.Release()
	os.Exit(m.Run())
}

const watchdog = 30 * time.Second

func dumpFail(t *testing.T, what string) {
	t.Helper()
	buf := make([]byte, 1<<20)
	n := runtime.Stack(buf, true)
	t.Fatalf("timed out waiting for %s; goroutines:\n%s", what, buf[:n])
}

// TestArrivalsAreExponential checks the schedule's gaps against the
// exponential distribution with mean 1/rate: the sample mean, the
// coefficient of variation (1 for an exponential) and the share of gaps
// longer than the mean (1/e). n = 200000 makes the standard errors about
// 0.22%, 0.3% and 0.11 points; the bounds are several times wider, and the
// seed is fixed, so the test is deterministic.
func TestArrivalsAreExponential(t *testing.T) {
	const rate, n = 2000.0, 200_000
	offs, err := Arrivals(rand.New(rand.NewPCG(42, 7)), rate, n, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if len(offs) != n {
		t.Fatalf("got %d arrivals, want %d", len(offs), n)
	}
	mean := 1 / rate
	var sum, sumSq float64
	longer := 0
	prev := time.Duration(0)
	for i, o := range offs {
		if o < prev {
			t.Fatalf("offset %d (%v) before offset %d (%v)", i, o, i-1, prev)
		}
		g := (o - prev).Seconds()
		prev = o
		sum += g
		sumSq += g * g
		if g > mean {
			longer++
		}
	}
	m := sum / n
	sd := math.Sqrt(sumSq/n - m*m)
	if math.Abs(m/mean-1) > 0.02 {
		t.Errorf("mean gap %.3g s, want %.3g s within 2%%", m, mean)
	}
	if cv := sd / m; math.Abs(cv-1) > 0.03 {
		t.Errorf("coefficient of variation %.3f, want 1 within 0.03", cv)
	}
	if frac := float64(longer) / n; math.Abs(frac-1/math.E) > 0.01 {
		t.Errorf("share of gaps longer than the mean %.4f, want %.4f within 0.01", frac, 1/math.E)
	}
}

func TestArrivalsBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	offs, err := Arrivals(rng, 1000, 1_000_000, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range offs {
		if o >= time.Second {
			t.Fatalf("offset %v at or past the duration", o)
		}
	}
	// Poisson with mean 1000: standard deviation about 32.
	if len(offs) < 850 || len(offs) > 1150 {
		t.Errorf("%d arrivals in 1 s at 1000/s", len(offs))
	}
	if offs, _ := Arrivals(rng, 1000, 10, time.Hour); len(offs) != 10 {
		t.Errorf("count bound: %d arrivals, want 10", len(offs))
	}
	for _, bad := range []struct {
		rate  float64
		count int
		dur   time.Duration
	}{{0, 1, time.Second}, {-1, 1, time.Second}, {math.NaN(), 1, time.Second}, {math.Inf(1), 1, time.Second},
		{1, 0, time.Second}, {1, 1, 0}} {
		if _, err := Arrivals(rng, bad.rate, bad.count, bad.dur); err == nil {
			t.Errorf("Arrivals(%v, %d, %v): no error", bad.rate, bad.count, bad.dur)
		}
	}
}

// fakeClock is a Clock that only moves when told: SleepUntil jumps to its
// target (plus overSleep, to play a generator that wakes late), and Advance
// moves it forward.
type fakeClock struct {
	mu        sync.Mutex
	now       time.Time
	overSleep time.Duration
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Unix(1_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) SleepUntil(_ context.Context, t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.now) {
		c.now = t
	}
	c.now = c.now.Add(c.overSleep)
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func runWithWatchdog(t *testing.T, cfg Config, do Doer, clk Clock) *Result {
	t.Helper()
	type out struct {
		r   *Result
		err error
	}
	ch := make(chan out, 1)
	go func() {
		r, err := Run(context.Background(), cfg, do, clk)
		ch <- out{r, err}
	}()
	select {
	case o := <-ch:
		if o.err != nil {
			t.Fatal(o.err)
		}
		return o.r
	case <-time.After(watchdog):
		dumpFail(t, "Run")
	}
	return nil
}

// TestNoCoordinatedOmissionSlowServer plays a server that serves one
// request at a time, 10 ms each (of fake time), and does not answer
// anything until every request of the schedule has arrived. A generator
// that waited for responses before sending would never send them all (the
// watchdog fails it). An open-loop one sends all five; the k-th response
// then ends at least 10k ms after the last intended send, and the recorded
// latencies, taken from intended send times, must include that queueing.
func TestNoCoordinatedOmissionSlowServer(t *testing.T) {
	defer goleak.VerifyNone(t)
	const n = 5
	const service = 10 * time.Millisecond
	clk := newFakeClock()
	var (
		arrived    atomic.Int32
		allArrived = make(chan struct{})
		serve      sync.Mutex
	)
	do := func(ctx context.Context) (int, error) {
		if arrived.Add(1) == n {
			close(allArrived)
		}
		select {
		case <-allArrived:
		case <-time.After(watchdog):
			return 0, errors.New("not every request was sent while earlier ones were outstanding")
		}
		serve.Lock()
		defer serve.Unlock()
		clk.Advance(service)
		return 200, nil
	}
	res := runWithWatchdog(t, Config{Rate: 1000, Count: n, Duration: time.Hour, Timeout: time.Hour, MaxInFlight: 100}, do, clk)
	if res.OK != n || res.Errors != 0 || len(res.Latencies) != n {
		t.Fatalf("result %v; want %d ok", res, n)
	}
	for k, lat := range res.Latencies { // sorted
		if min := time.Duration(k+1) * service; lat < min {
			t.Errorf("latency %d = %v; want >= %v (queueing behind %d earlier requests)", k, lat, min, k)
		}
	}
}

// TestLatencyCountsSenderLag plays a generator that wakes 100 ms late for
// every send: the server answers at once, yet every latency must be at
// least 100 ms, because it is measured from when the request should have
// been sent.
func TestLatencyCountsSenderLag(t *testing.T) {
	defer goleak.VerifyNone(t)
	const lag = 100 * time.Millisecond
	clk := newFakeClock()
	clk.overSleep = lag
	do := func(context.Context) (int, error) { return 200, nil }
	res := runWithWatchdog(t, Config{Rate: 1000, Count: 20, Duration: time.Hour, Timeout: time.Hour, MaxInFlight: 100}, do, clk)
	if res.OK != 20 {
		t.Fatalf("result %v; want 20 ok", res)
	}
	if res.Latencies[0] < lag {
		t.Errorf("smallest latency %v; want >= %v (the sender's lag)", res.Latencies[0], lag)
	}
	if res.MaxSendLag < lag {
		t.Errorf("MaxSendLag %v; want >= %v", res.MaxSendLag, lag)
	}
	// The lag accumulates: the 20th request left about 20 lags late.
	if res.Max() < 19*lag {
		t.Errorf("largest latency %v; want >= %v", res.Max(), 19*lag)
	}
}

func TestRunStopsAtCount(t *testing.T) {
	defer goleak.VerifyNone(t)
	var calls atomic.Int32
	do := func(context.Context) (int, error) { calls.Add(1); return 200, nil }
	res := runWithWatchdog(t, Config{Rate: 1e6, Count: 50, Duration: time.Hour, Timeout: time.Hour, MaxInFlight: 100}, do, newFakeClock())
	if res.Sent != 50 || res.OK != 50 || calls.Load() != 50 {
		t.Errorf("sent %d, ok %d, calls %d; want 50 each", res.Sent, res.OK, calls.Load())
	}
}

func TestRunStopsAtDurationAndSkipsWarmup(t *testing.T) {
	defer goleak.VerifyNone(t)
	var calls atomic.Int32
	do := func(context.Context) (int, error) { calls.Add(1); return 200, nil }
	clk := newFakeClock()
	t0 := clk.Now()
	res := runWithWatchdog(t, Config{Rate: 1000, Count: 1 << 30, Duration: time.Second, Warmup: 500 * time.Millisecond,
		Timeout: time.Hour, MaxInFlight: 1 << 20}, do, clk)
	if res.Sent != res.Scheduled || res.OK != res.Sent {
		t.Errorf("scheduled %d, sent %d, ok %d", res.Scheduled, res.Sent, res.OK)
	}
	if res.Sent < 850 || res.Sent > 1150 {
		t.Errorf("%d measured requests in 1 s at 1000/s", res.Sent)
	}
	if warm := int(calls.Load()) - res.Sent; warm < 400 || warm > 600 {
		t.Errorf("%d warm-up requests in 0.5 s at 1000/s", warm)
	}
	if end := clk.Now().Sub(t0); end >= 1500*time.Millisecond {
		t.Errorf("the schedule ran to %v, past warm-up+duration", end)
	}
}

// TestRunDropsAtMaxInFlight: with one slot and a server that holds every
// request until the generator has given up on the rest, exactly one
// request is sent and the others are counted as dropped.
func TestRunDropsAtMaxInFlight(t *testing.T) {
	defer goleak.VerifyNone(t)
	const n = 5
	var calls atomic.Int32
	release := make(chan struct{})
	var drops int
	cfg := Config{Rate: 1000, Count: n, Duration: time.Hour, Timeout: time.Hour, MaxInFlight: 1}
	cfg.onDrop = func() { // runs on Run's goroutine
		if drops++; drops == n-1 {
			close(release)
		}
	}
	do := func(context.Context) (int, error) {
		calls.Add(1)
		select {
		case <-release:
		case <-time.After(watchdog):
			return 0, errors.New("never released")
		}
		return 200, nil
	}
	res := runWithWatchdog(t, cfg, do, newFakeClock())
	if res.Sent != 1 || res.Dropped != n-1 || res.OK != 1 || calls.Load() != 1 {
		t.Errorf("sent %d, dropped %d, ok %d, calls %d; want 1, %d, 1, 1", res.Sent, res.Dropped, res.OK, calls.Load(), n-1)
	}
}

// TestRunEndsHungRequests: a server that never answers cannot hold the run
// past the per-request timeout; the requests count as errors.
func TestRunEndsHungRequests(t *testing.T) {
	defer goleak.VerifyNone(t)
	do := func(ctx context.Context) (int, error) { <-ctx.Done(); return 0, ctx.Err() }
	res := runWithWatchdog(t, Config{Rate: 1e6, Count: 3, Duration: time.Hour, Timeout: time.Millisecond, MaxInFlight: 10}, do, RealClock{})
	if res.Errors != 3 || res.OK != 0 {
		t.Errorf("errors %d, ok %d; want 3, 0", res.Errors, res.OK)
	}
}

func TestRunRejectsBadConfig(t *testing.T) {
	do := func(context.Context) (int, error) { return 200, nil }
	good := Config{Rate: 1, Count: 1, Duration: time.Second, Timeout: time.Second, MaxInFlight: 1}
	for name, mut := range map[string]func(*Config){
		"rate":     func(c *Config) { c.Rate = 0 },
		"count":    func(c *Config) { c.Count = 0 },
		"duration": func(c *Config) { c.Duration = 0 },
		"timeout":  func(c *Config) { c.Timeout = 0 },
		"inflight": func(c *Config) { c.MaxInFlight = 0 },
		"warmup":   func(c *Config) { c.Warmup = -1 },
	} {
		c := good
		mut(&c)
		if _, err := Run(context.Background(), c, do, newFakeClock()); err == nil {
			t.Errorf("bad %s: no error", name)
		}
	}
	if _, err := Run(context.Background(), good, nil, newFakeClock()); err == nil {
		t.Error("nil Doer: no error")
	}
}

func TestStatusesAreCounted(t *testing.T) {
	statuses := []int{200, 503, 500, 0}
	var i atomic.Int32
	do := func(context.Context) (int, error) {
		s := statuses[int(i.Add(1)-1)%len(statuses)]
		if s == 0 {
			return 0, errors.New("connection refused")
		}
		return s, nil
	}
	res := runWithWatchdog(t, Config{Rate: 1000, Count: 400, Duration: time.Hour, Timeout: time.Hour, MaxInFlight: 1000}, do, newFakeClock())
	if res.OK != 100 || res.Rejected != 100 || res.Errors != 200 || len(res.Latencies) != 100 {
		t.Errorf("ok %d, 503 %d, errors %d, latencies %d; want 100, 100, 200, 100", res.OK, res.Rejected, res.Errors, len(res.Latencies))
	}
	if f := res.RejectedFraction(); f != 0.25 {
		t.Errorf("RejectedFraction = %v, want 0.25", f)
	}
}

func TestPercentilesAreNearestRank(t *testing.T) {
	r := &Result{}
	if r.Percentile(0.99) != 0 || r.Max() != 0 {
		t.Error("empty result: nonzero percentile")
	}
	for i := 1; i <= 1000; i++ {
		r.Latencies = append(r.Latencies, time.Duration(i))
	}
	for q, want := range map[float64]time.Duration{0.5: 500, 0.99: 990, 0.999: 999, 1: 1000, 0.0001: 1} {
		if got := r.Percentile(q); got != want {
			t.Errorf("Percentile(%v) = %v, want %v", q, got, want)
		}
	}
	if r.Max() != 1000 {
		t.Errorf("Max = %v", r.Max())
	}
}

func TestCheckTarget(t *testing.T) {
	for _, ok := range []string{"http://127.0.0.1:8080/work", "http://127.1.2.3/", "http://[::1]:1/work", "http://localhost:9/"} {
		if err := CheckTarget(ok); err != nil {
			t.Errorf("CheckTarget(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"http://10.0.0.1/work", "http://example.com/", "http://0.0.0.0:80/", "http://[::]:80/",
		"https://127.0.0.1/", "127.0.0.1:8080", "http://192.168.1.1:8080/", "http://%zz/"} {
		if err := CheckTarget(bad); err == nil {
			t.Errorf("CheckTarget(%q): no error", bad)
		}
	}
	if _, _, err := HTTPDoer("http://8.8.8.8/", 1); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("HTTPDoer to a public address: error %v, want a loopback refusal", err)
	}
	if _, _, err := HTTPDoer("http://127.0.0.1:1/", 0); err == nil {
		t.Error("HTTPDoer with 0 connections: no error")
	}
}

func TestCSVRoundTrip(t *testing.T) {
	rows := []Row{
		{Mode: "inline", LoadPct: 30, OfferedRPS: 1234.5, Throughput: 1230.1, P50: 0.1234, P99: 1.5, P999: 2.25, Max: 9.875, OK: 100, Rejected: 0, Errors: 1},
		{Mode: "blitz", LoadPct: 120, OfferedRPS: 5000, Throughput: 4000, P50: 0.5, P99: 3, P999: 4, Max: 5, OK: 300, Rejected: 100, Errors: 0},
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "mode,load_pct,offered_rps,throughput,p50_ms,p99_ms,p999_ms,max_ms,ok,rejected,errors\n") {
		t.Errorf("header: %q", strings.SplitN(buf.String(), "\n", 2)[0])
	}
	got, err := ReadCSV(&buf)
	if err != nil {
		t.Fatal(err)
	}
	rows[0].RejectedPct = 0
	rows[1].RejectedPct = 25
	if fmt.Sprint(got) != fmt.Sprint(rows) {
		t.Errorf("round trip:\n got %v\nwant %v", got, rows)
	}
	if _, err := ReadCSV(strings.NewReader("a,b\n1,2\n")); err == nil {
		t.Error("bad header: no error")
	}
	if _, err := ReadCSV(strings.NewReader(strings.Join(CSVHeader, ",") + "\nx,notanumber,1,1,1,1,1,1,1,1,1\n")); err == nil {
		t.Error("bad number: no error")
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, rows); err != nil || strings.Count(md.String(), "\n") != 4 {
		t.Errorf("Markdown: %v, %q", err, md.String())
	}
}
