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

// Export a Sub's counters beside its pool's: one Collector for the pool
// and one SubCollector for each Sub, in the same registry.
func ExampleNewSubCollector() {
	p, err := blitz.New(blitz.WithWorkers(2), blitz.WithParking(blitz.ParkingPortable))
	if err != nil {
		fmt.Println(err)
		return
	}
	thumbs, err := p.Sub(1, 16) // one thumbnail at a time, 16 waiting
	if err != nil {
		fmt.Println(err)
		return
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(blitzprom.NewCollector(p, "images"), blitzprom.NewSubCollector(thumbs, "thumbs"))
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))

	for i := 0; i < 3; i++ {
		thumbs.Go(func(*blitz.Worker) {})
	}
	p.Close() // closes thumbs too, after its three tasks

	// Scrape /metrics and show two of the Sub's series.
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		if strings.HasPrefix(line, "blitz_sub_tasks_completed_total{") || strings.HasPrefix(line, "blitz_sub_limit{") {
			fmt.Println(line)
		}
	}
	// Output:
	// blitz_sub_limit{sub="thumbs"} 1
	// blitz_sub_tasks_completed_total{sub="thumbs"} 3
}
