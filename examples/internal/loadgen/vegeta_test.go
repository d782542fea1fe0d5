package loadgen

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestVegetaCountsWhatTheServerAnswered: a tiny bounded attack against an
// httptest server stops by itself, and vegeta's counts are the server's:
// every request it reports reached the handler, and each got the status the
// handler gave (200 from one server, 503 from the other).
func TestVegetaCountsWhatTheServerAnswered(t *testing.T) {
	for _, tc := range []struct {
		name        string
		status      int
		wantSuccess float64
	}{{"ok", http.StatusOK, 1}, {"busy", http.StatusServiceUnavailable, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			defer goleak.VerifyNone(t)
			var served atomic.Int64
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				served.Add(1)
				w.WriteHeader(tc.status)
			}))
			defer ts.Close()
			res, err := Vegeta(context.Background(), VegetaConfig{
				URL: ts.URL, Rate: 200, Duration: 50 * time.Millisecond, Timeout: watchdog, Conns: 4,
			})
			if err != nil {
				t.Fatal(err)
			}
			m := res.Metrics
			if m.Requests == 0 {
				t.Fatal("the attack sent nothing")
			}
			if got := served.Load(); uint64(got) != m.Requests {
				t.Errorf("the server answered %d requests, vegeta reports %d", got, m.Requests)
			}
			wantOK := 0
			if tc.status == http.StatusOK {
				wantOK = int(m.Requests)
			}
			if res.OK() != wantOK || m.Success != tc.wantSuccess {
				t.Errorf("OK() = %d, Success = %v; want %d, %v (codes %v)", res.OK(), m.Success, wantOK, tc.wantSuccess, m.StatusCodes)
			}
			if s := res.String(); !strings.Contains(s, "p99.9") || !strings.Contains(s, "success") {
				t.Errorf("String() = %q: no p99.9 or success ratio", s)
			}
		})
	}
}

// TestVegetaStopsWithItsContext: an attack whose context is already over
// sends little or nothing, returns the context's error, and leaves no
// goroutine behind.
func TestVegetaStopsWithItsContext(t *testing.T) {
	defer goleak.VerifyNone(t)
	ts := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer ts.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Vegeta(ctx, VegetaConfig{URL: ts.URL, Rate: 100, Duration: time.Hour, Timeout: watchdog})
	if err != context.Canceled {
		t.Errorf("Vegeta with an ended context: %v, want context.Canceled", err)
	}
}

// TestVegetaRefusesBadConfigs: non-loopback targets and unbounded or empty
// attacks are refused before anything is sent.
func TestVegetaRefusesBadConfigs(t *testing.T) {
	ok := VegetaConfig{URL: "http://127.0.0.1:1/", Rate: 10, Duration: time.Second, Timeout: time.Second}
	for name, mod := range map[string]func(*VegetaConfig){
		"network target": func(c *VegetaConfig) { c.URL = "http://192.0.2.1/" },
		"https":          func(c *VegetaConfig) { c.URL = "https://127.0.0.1/" },
		"zero rate":      func(c *VegetaConfig) { c.Rate = 0 },
		"no duration":    func(c *VegetaConfig) { c.Duration = 0 },
		"no timeout":     func(c *VegetaConfig) { c.Timeout = 0 },
		"negative conns": func(c *VegetaConfig) { c.Conns = -1 },
	} {
		cfg := ok
		mod(&cfg)
		if _, err := Vegeta(context.Background(), cfg); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
