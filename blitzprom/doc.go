// Package blitzprom exports the counters of a blitz Pool (Stats) and of its
// Subs (SubStats) to Prometheus.
//
// The library keeps its counters itself (per-worker, fixed buckets, no
// metrics dependency) and hands out a snapshot, blitz.Stats. This package is
// the bridge, and short enough to copy: a prometheus.Collector that takes a
// snapshot on every scrape and turns it into const metrics. Nothing is
// counted twice and nothing runs between scrapes.
//
//	reg := prometheus.NewRegistry()
//	reg.MustRegister(blitzprom.NewCollector(pool, "images"))
//	http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
//
// # Metrics
//
// Every series carries the constant label pool="NAME".
//
//	blitz_workers                        gauge      the pool's worker count
//	blitz_tasks_queued                   gauge      submitted tasks not started yet (Stats.Queued)
//	blitz_tasks_running                  gauge      submitted tasks running now (Stats.Running)
//	blitz_tasks_completed_total          counter    submitted tasks finished, panicked ones included (Stats.Completed)
//	blitz_tasks_rejected_total           counter    submissions refused with ErrQueueFull (Stats.Rejected)
//	blitz_tasks_abandoned_total          counter    submissions that gave up waiting for room (Stats.Abandoned)
//	blitz_task_panics_total              counter    submitted tasks that panicked (Stats.Panics)
//	blitz_handler_panics_total           counter    panics of the panic handler itself (Stats.HandlerPanics)
//	blitz_caller_runs_total              counter    Run and Do calls that ran on their caller, never queued (Stats.CallerRuns)
//	blitz_workers_active                 gauge      workers serving now, those added for blocked ones included (Stats.Active)
//	blitz_blocked_workers_seen_total     counter    blocked workers seen while work waited, per monitor tick (Stats.BlockedSeen)
//	blitz_workers_added_total            counter    workers added for blocked ones (Stats.WorkersAdded)
//	blitz_workers_retired_total          counter    added workers retired once idle (Stats.WorkersRetired)
//	blitz_task_queue_wait_seconds        histogram  submission to start (Stats.QueueWait)
//	blitz_task_run_seconds               histogram  start to end (Stats.RunTime)
//
// # Histograms
//
// The pool's histograms have fixed bucket bounds and per-bucket counts; a
// Prometheus histogram wants cumulative counts ("le", less than or equal)
// in seconds. Collect converts them with prometheus.MustNewConstHistogram:
// the count of bucket "le=b" is the sum of the pool's buckets up to and
// including b, and the overflow bucket only shows in the total count
// (Prometheus's implicit "le=+Inf").
//
// The pool times one submitted task in every N (blitz.WithLatencySampling,
// N = 16 by default), so a histogram's count is the number of timed tasks,
// not of completed ones: rates and quantiles from it are right, totals are
// blitz_tasks_completed_total's. Build the pool with
// blitz.WithLatencySampling(1) to time every task.
//
// # Subs
//
// A SubCollector exports a Sub's SubStats. Its series carry the constant
// label sub="NAME" and are named apart from the pool's, since the parent's
// Stats already count the Sub's tasks that entered its queue:
//
//	reg.MustRegister(blitzprom.NewCollector(pool, "images"), blitzprom.NewSubCollector(thumbs, "thumbs"))
//
//	blitz_sub_limit                      gauge      tasks under way at once, at most (SubStats.Limit)
//	blitz_sub_capacity                   gauge      tasks waiting for a slot, at most (SubStats.Capacity)
//	blitz_sub_tasks_queued               gauge      accepted tasks not started yet (SubStats.Queued)
//	blitz_sub_tasks_running              gauge      tasks running now (SubStats.Running)
//	blitz_sub_tasks_submitted_total      counter    tasks accepted (SubStats.Submitted)
//	blitz_sub_tasks_completed_total      counter    tasks finished, panicked and withdrawn ones included (SubStats.Completed)
//	blitz_sub_task_panics_total          counter    tasks that panicked (SubStats.Panics)
//	blitz_sub_tasks_rejected_total       counter    submissions refused with ErrQueueFull (SubStats.Rejected)
//	blitz_sub_tasks_abandoned_total      counter    submissions that gave up waiting for room (SubStats.Abandoned)
//	blitz_sub_inline_calls_total         counter    calls that ran without a slot of their own (SubStats.Inline)
//
// Subs of different pools may share a name: register each pool's
// SubCollectors through prometheus.WrapRegistererWith with a label that
// names the pool (the pool's Collector has its pool label already):
//
//	sub := blitzprom.NewSubCollector(thumbs, "thumbs")
//	prometheus.WrapRegistererWith(prometheus.Labels{"pool": "images"}, reg).MustRegister(sub)
package blitzprom
