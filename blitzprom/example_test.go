package blitzprom_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/blitzprom"
)

// Export a pool's Stats at /metrics: register a Collector for the pool in a
// registry and serve the registry with promhttp.
func ExampleNewCollector() {
	p, err := blitz.New(blitz.WithWorkers(2), blitz.WithCapacity(64), blitz.WithParking(blitz.ParkingPortable))
	if err != nil {
		fmt.Println(err)
		return
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(blitzprom.NewCollector(p, "images"))
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))

	for i := 0; i < 3; i++ {
		p.Go(func(*blitz.Worker) {})
	}
	p.Close() // waits for the three tasks

	// Scrape /metrics and show two of its series.
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		if strings.HasPrefix(line, "blitz_tasks_completed_total{") || strings.HasPrefix(line, "blitz_workers{") {
			fmt.Println(line)
		}
	}
	// Output:
	// blitz_tasks_completed_total{pool="images"} 3
	// blitz_workers{pool="images"} 2
}
