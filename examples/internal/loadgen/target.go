package loadgen

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
)

// CheckTarget returns an error unless target is an http URL whose host is
// a loopback IP literal or "localhost". The generator is a tool for
// measuring a server on this machine; it refuses to point load at a network.
func CheckTarget(target string) error {
	u, err := url.Parse(target)
	if err != nil {
		return fmt.Errorf("loadgen: bad target %q: %w", target, err)
	}
	if u.Scheme != "http" {
		return fmt.Errorf("loadgen: target %q: only http:// is supported", target)
	}
	host := u.Hostname()
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("loadgen: target %q is not a loopback address (use 127.0.0.1, [::1] or localhost): refusing to send load over a network", target)
	}
	return nil
}

// HTTPDoer returns a Doer that GETs target (which must pass CheckTarget)
// over at most maxConns keep-alive connections, and a function that closes
// them. Connections are reused rather than opened per request; when all
// are busy, a request waits in the transport for one, and since Run
// measures latency from the intended send time, that wait counts (as it
// would behind a client's or a proxy's connection pool). Bounding the
// connections keeps the generator from spending the CPUs it shares with
// the server on dialing thousands of sockets once a backlog forms.
// maxConns must be >= 1.
func HTTPDoer(target string, maxConns int) (Doer, func(), error) {
	if err := CheckTarget(target); err != nil {
		return nil, nil, err
	}
	if maxConns < 1 {
		return nil, nil, fmt.Errorf("loadgen: maxConns must be >= 1, got %d", maxConns)
	}
	tr := &http.Transport{
		Proxy:               nil, // loopback: never through a proxy
		MaxConnsPerHost:     maxConns,
		MaxIdleConns:        maxConns,
		MaxIdleConnsPerHost: maxConns,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
	}
	client := &http.Client{Transport: tr}
	do := func(ctx context.Context) (int, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
		if err != nil {
			return 0, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		// Read the body so the connection goes back to the pool.
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			return 0, err
		}
		return resp.StatusCode, nil
	}
	return do, tr.CloseIdleConnections, nil
}
