package blitzprom

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/blitz-go/blitz"
)

// A SubSource hands out a Sub's counters; *blitz.Sub is one.
type SubSource interface {
	Stats() blitz.SubStats
}

// SubCollector is a prometheus.Collector for one Sub of a pool. It is safe
// for concurrent scrapes: each Collect takes its own snapshot.
//
// Its series are named blitz_sub_*, apart from the pool's: the parent's
// Stats, and so a Collector of the parent, already count the Sub's tasks
// that entered its queue, and a sum over the two would count them twice.
type SubCollector struct {
	src     SubSource
	metrics []subMetric
}

// A subMetric is one series of a SubCollector: its descriptor, its type,
// and the field of SubStats it reads.
type subMetric struct {
	desc  *prometheus.Desc
	kind  prometheus.ValueType
	value func(*blitz.SubStats) float64
}

// NewSubCollector returns a SubCollector for src whose series carry the
// label sub=name. Register one per Sub; two Subs in one registry need two
// names, unless each is registered through prometheus.WrapRegistererWith
// with a label that tells them apart (the package doc shows one naming the
// pool). It panics if src is nil (a programmer error).
func NewSubCollector(src SubSource, name string) *SubCollector {
	if src == nil {
		panic("blitzprom: NewSubCollector with a nil SubSource")
	}
	labels := prometheus.Labels{"sub": name}
	m := func(metric string, kind prometheus.ValueType, help string, value func(*blitz.SubStats) float64) subMetric {
		return subMetric{
			desc:  prometheus.NewDesc(prometheus.BuildFQName("blitz", "sub", metric), help, nil, labels),
			kind:  kind,
			value: value,
		}
	}
	gauge, counter := prometheus.GaugeValue, prometheus.CounterValue
	return &SubCollector{src: src, metrics: []subMetric{
		m("limit", gauge, "Tasks of the Sub under way at once, at most (SubStats.Limit).",
			func(s *blitz.SubStats) float64 { return float64(s.Limit) }),
		m("capacity", gauge, "Tasks of the Sub waiting for a slot, at most (SubStats.Capacity).",
			func(s *blitz.SubStats) float64 { return float64(s.Capacity) }),
		m("tasks_queued", gauge, "Tasks of the Sub accepted and not started yet (SubStats.Queued).",
			func(s *blitz.SubStats) float64 { return float64(s.Queued) }),
		m("tasks_running", gauge, "Tasks of the Sub running now (SubStats.Running).",
			func(s *blitz.SubStats) float64 { return float64(s.Running) }),
		m("tasks_submitted_total", counter, "Tasks the Sub accepted (SubStats.Submitted).",
			func(s *blitz.SubStats) float64 { return float64(s.Submitted) }),
		m("tasks_completed_total", counter, "Tasks of the Sub finished, panicked and withdrawn ones included (SubStats.Completed).",
			func(s *blitz.SubStats) float64 { return float64(s.Completed) }),
		m("task_panics_total", counter, "Tasks of the Sub that panicked (SubStats.Panics).",
			func(s *blitz.SubStats) float64 { return float64(s.Panics) }),
		m("tasks_rejected_total", counter, "Submissions the Sub refused because its queue was full (SubStats.Rejected).",
			func(s *blitz.SubStats) float64 { return float64(s.Rejected) }),
		m("tasks_abandoned_total", counter, "Submissions that gave up waiting for room in the Sub's full queue when their context ended (SubStats.Abandoned).",
			func(s *blitz.SubStats) float64 { return float64(s.Abandoned) }),
		m("inline_calls_total", counter, "Run, Do, DoContext and TryDo calls that ran without a slot of their own: from tasks of the parent pool, or from work a task of the Sub waits for (SubStats.Inline).",
			func(s *blitz.SubStats) float64 { return float64(s.Inline) }),
	}}
}

// Describe sends the descriptors of every metric Collect sends.
func (c *SubCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, m := range c.metrics {
		ch <- m.desc
	}
}

// Collect takes one snapshot of the Sub's Stats and sends it as metrics.
func (c *SubCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.src.Stats()
	for _, m := range c.metrics {
		ch <- prometheus.MustNewConstMetric(m.desc, m.kind, m.value(&st))
	}
}
