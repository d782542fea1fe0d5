// Command user gets the published modules as a user's program does: by
// version, from a module proxy, with no replace and no go.work. CI copies
// it out of the repository and builds it against the modules published
// from HEAD (.ci/published.sh).
package main

import (
	"fmt"
	"log"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/blitzprom"
	"github.com/blitz-go/blitz/par"
)

func main() {
	out, err := report()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(out)
}

// report sums on a pool with par, runs tasks in a Sub of it, and returns
// the sum and the series blitzprom exports of the Sub, one a line.
func report() (string, error) {
	p, err := blitz.New(blitz.WithWorkers(2))
	if err != nil {
		return "", err
	}
	defer p.Close()
	s, err := p.Sub(1, 8)
	if err != nil {
		return "", err
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(blitzprom.NewCollector(p, "main"), blitzprom.NewSubCollector(s, "thumbs"))

	nums := make([]int, 1000)
	for i := range nums {
		nums[i] = i + 1
	}
	var b strings.Builder
	fmt.Fprintf(&b, "sum %d\n", par.Sum(p, nums))
	for i := 0; i < 3; i++ {
		if err := s.Go(func(*blitz.Worker) {}); err != nil {
			return "", err
		}
	}
	if err := s.Close(); err != nil { // waits for the three tasks
		return "", err
	}
	mfs, err := reg.Gather()
	if err != nil {
		return "", err
	}
	for _, mf := range mfs {
		if !strings.HasPrefix(mf.GetName(), "blitz_sub_tasks_") {
			continue
		}
		m := mf.GetMetric()[0]
		v := m.GetGauge().GetValue()
		if mf.GetType() == dto.MetricType_COUNTER {
			v = m.GetCounter().GetValue()
		}
		fmt.Fprintf(&b, "%s %v\n", mf.GetName(), v)
	}
	return b.String(), nil
}
