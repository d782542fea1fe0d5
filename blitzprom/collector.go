package blitzprom

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/blitz-go/blitz"
)

// A Source hands out a pool's counters; *blitz.Pool is one.
type Source interface {
	Stats() blitz.Stats
}

// Collector is a prometheus.Collector for one pool. It is safe for
// concurrent scrapes: each Collect takes its own snapshot.
type Collector struct {
	src Source

	workers, queued, running    *prometheus.Desc
	completed, rejected, panics *prometheus.Desc
	abandoned, handlerPanics    *prometheus.Desc
	callerRuns                  *prometheus.Desc
	active, blockedSeen         *prometheus.Desc
	added, retired              *prometheus.Desc
	queueWait, runTime          *prometheus.Desc
}

// NewCollector returns a Collector for src whose series carry the label
// pool=name. Register one per pool; two pools need two names. It panics if
// src is nil (a programmer error).
func NewCollector(src Source, name string) *Collector {
	if src == nil {
		panic("blitzprom: NewCollector with a nil Source")
	}
	labels := prometheus.Labels{"pool": name}
	desc := func(metric, help string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName("blitz", "", metric), help, nil, labels)
	}
	return &Collector{
		src:       src,
		workers:   desc("workers", "Number of workers of the pool."),
		queued:    desc("tasks_queued", "Submitted tasks accepted and not started yet."),
		running:   desc("tasks_running", "Submitted tasks running now."),
		completed: desc("tasks_completed_total", "Submitted tasks finished, panicked ones included."),
		rejected:  desc("tasks_rejected_total", "Submissions refused because the queue was full (ErrQueueFull)."),
		abandoned: desc("tasks_abandoned_total", "Submissions that gave up waiting for room in the full queue when their context ended."),
		panics:    desc("task_panics_total", "Submitted tasks that panicked."),
		handlerPanics: desc("handler_panics_total",
			"Panics of the panic handler itself, recovered by the pool (Stats.HandlerPanics)."),
		callerRuns: desc("caller_runs_total",
			"Run and Do calls that ran on their calling goroutine as a sleeping worker, never queued (Stats.CallerRuns)."),
		active: desc("workers_active", "Workers serving now: the pool's size plus those added while workers were blocked (Stats.Active)."),
		blockedSeen: desc("blocked_workers_seen_total",
			"Blocked workers seen while work waited, summed over the monitor's ticks (Stats.BlockedSeen)."),
		added:     desc("workers_added_total", "Workers added for blocked ones (Stats.WorkersAdded)."),
		retired:   desc("workers_retired_total", "Added workers retired once idle (Stats.WorkersRetired)."),
		queueWait: desc("task_queue_wait_seconds", "Time from submission to start, of the sampled submitted tasks."),
		runTime:   desc("task_run_seconds", "Time from start to end, of the sampled submitted tasks."),
	}
}

// Describe sends the descriptors of every metric Collect sends.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.workers, c.queued, c.running, c.completed, c.rejected, c.abandoned, c.panics, c.handlerPanics, c.callerRuns, c.active, c.blockedSeen, c.added, c.retired, c.queueWait, c.runTime} {
		ch <- d
	}
}

// Collect takes one snapshot of the pool's Stats and sends it as metrics.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	s := snapshotOf(c.src.Stats())
	gauge := func(d *prometheus.Desc, v int) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v))
	}
	counter := func(d *prometheus.Desc, v uint64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v))
	}
	gauge(c.workers, s.workers)
	gauge(c.queued, s.queued)
	gauge(c.running, s.running)
	counter(c.completed, s.completed)
	counter(c.rejected, s.rejected)
	counter(c.abandoned, s.abandoned)
	counter(c.panics, s.panics)
	counter(c.handlerPanics, s.handlerPanics)
	counter(c.callerRuns, s.callerRuns)
	gauge(c.active, s.active)
	counter(c.blockedSeen, s.blockedSeen)
	counter(c.added, s.added)
	counter(c.retired, s.retired)
	for _, h := range []struct {
		d *prometheus.Desc
		h histogram
	}{{c.queueWait, s.queueWait}, {c.runTime, s.runTime}} {
		ch <- prometheus.MustNewConstHistogram(h.d, h.h.count, h.h.sum, h.h.cumulative())
	}
}
