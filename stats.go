package blitz

import (
	"sync/atomic"

	"github.com/blitz-go/blitz/atomics"
	"github.com/blitz-go/blitz/sleep"
)

// Observability.
//
// Stats is one snapshot: scheduler counters (jobs executed, steals, sleeps,
// wakes), queue depth, running, completed, rejected and panicked tasks, and
// histograms of queue wait and run time over a sample of submitted tasks
// (WithLatencySampling; reading the clock costs ~25 ns). Every counter is
// written by one worker alone and summed on demand; Pool.Expvar publishes it.

// Stats is a snapshot of a pool's counters, summed over its workers when
// Pool.Stats is called. Counters (the uint64 fields and the histograms) only
// grow, so two snapshots subtract (Histogram.Sub); Queued and Running are
// gauges, the state at the moment of the snapshot.
//
// The field names are stable: exporters (expvar through Pool.Expvar, and the
// Prometheus mapping in examples/) key on them.
type Stats struct {
	// Workers is the number of active workers (Pool.Workers); the
	// counters below include what retired workers did.
	Workers int
	// Executed counts jobs a worker found and ran: popped from its deque
	// or its run queue outside the join fast path, stolen, or taken from
	// the injector. A join half that its owner pops back and runs inline is
	// not counted (that path is kept free of shared writes).
	Executed uint64
	// Steals counts successful steals: one job from a deque, or the
	// older half of another worker's run queue of submitted tasks (one
	// steal, however many tasks it moved).
	Steals uint64
	// StealRetries counts sweeps over the victims that met contention
	// (a Steal that answered Retry) and found nothing.
	StealRetries uint64
	// Injected counts tasks accepted from outside the workers (Go, TryGo,
	// GoContext, Run, Do, DoContext, TryDo), but for the calls that ran on
	// their callers (CallerRuns).
	Injected uint64
	// JoinsStolen counts joins whose second half was stolen, so that the
	// joiner had to wait for a thief.
	JoinsStolen uint64
	// Sleeps counts the times a worker parked (blocked in the parking
	// backend); JoinSleeps is the part of them where the worker was
	// waiting for the stolen half of a join (the rare path of Join).
	Sleeps, JoinSleeps uint64
	// Wakes counts unparks of a worker (each wakes a sleeper or leaves a
	// token for the next Park).
	Wakes uint64
	// Respawns counts worker goroutines replaced after a task called
	// runtime.Goexit.
	Respawns uint64
	// Active is the number of workers serving now: Workers, plus the
	// workers the pool added while its workers were blocked (see
	// "Blocking" in the package documentation), less those retiring.
	Active int
	// BlockedSeen counts blocked workers the monitor saw while work
	// waited, summed over its ticks: a worker blocked for three ticks
	// counts three times.
	BlockedSeen uint64
	// WorkersAdded counts the workers the pool added for blocked ones (by
	// the monitor, or at once by Block), and for tasks queued behind them
	// once it grew (the monitor); WorkersRetired those of them it
	// retired when they idled. Active - Workers = WorkersAdded -
	// WorkersRetired while no Resize intervenes.
	WorkersAdded, WorkersRetired uint64
	// Placement says, per worker, which CPU the placement chose and
	// whether the worker is pinned to it (or why not). Nil for a pool
	// without placement (WithPlacement, WithCPUs). Set once when each
	// worker starts.
	Placement []WorkerPlacement

	// The server counters: tasks submitted from outside the workers (Go,
	// TryGo, GoContext, Run, Do, DoContext, TryDo).

	// Queued is the number of accepted tasks that no worker has taken
	// yet: the length of the injection queue.
	Queued int
	// Running is the number of accepted tasks that a worker has taken and
	// not finished. Injected = Queued + Running + Completed in every
	// snapshot; neither gauge is ever negative.
	Running int
	// Completed counts the accepted tasks that finished, whether they
	// returned, panicked or called runtime.Goexit. A DoContext task
	// withdrawn while queued (its context ended) stays in Queued until a
	// worker takes it, and then counts here without having run.
	Completed uint64
	// Rejected counts submissions refused with ErrQueueFull (TryGo, TryDo
	// on a full queue). Submissions refused because the pool is closed are
	// not counted.
	Rejected uint64
	// Abandoned counts submissions that waited for room in a full queue
	// (GoContext, DoContext) and gave up when their context ended; their
	// tasks never ran. A context that had ended before the call is not
	// counted: that submission never waited.
	Abandoned uint64
	// Panics counts the accepted tasks that panicked, whether the panic
	// went to the panic handler (Go) or back to the caller (Do, DoContext,
	// TryDo, Run).
	Panics uint64
	// HandlerPanics counts the panics of the panic handler itself
	// (WithPanicHandler), each recovered and logged; the pool went on.
	// Every one is also counted in Panics, as the task whose panic the
	// handler was given.
	HandlerPanics uint64
	// CallerRuns counts the Run and Do calls (and data-parallel calls)
	// from outside the pool that ran fn on the calling goroutine as a
	// sleeping worker (WithCallerRuns). They are not in Injected nor in
	// the counters and histograms of submitted tasks above: they never
	// queued.
	CallerRuns uint64
	// QueueWait is the distribution of the time the sampled tasks waited
	// between acceptance and start; RunTime of the time they ran. One task
	// in WithLatencySampling's interval is sampled, so the histograms'
	// Count is about Completed divided by that interval (exactly Completed
	// with WithLatencySampling(1)).
	QueueWait, RunTime Histogram
}

// bump increments an owner-written counter.
func (s *workerStats) bump(p *uint64) { atomics.StoreRelease64(p, *p+1) }

// add adds n to an owner-written counter.
func (s *workerStats) add(p *uint64, n uint64) { atomics.StoreRelease64(p, *p+n) }

// Stats returns the pool's counters. It is safe to call at any time from any
// goroutine, including after Close; the snapshot is not atomic across
// counters, but a task counted in Completed has its latency samples and its
// panic in the same snapshot.
func (p *Pool) Stats() Stats {
	if p == nil {
		panic("blitz: Pool.Stats: nil *Pool")
	}
	st := Stats{
		Workers: int(p.size.Load()), Active: int(p.active.Load()),
		BlockedSeen: p.monitor.blockedSeen.Load(), WorkersAdded: p.monitor.added.Load(), WorkersRetired: p.monitor.retired.Load(),
		Respawns: p.respawns.Load(), Placement: p.placementStats(),
	}
	// The queue counters first: the worker records a task's metrics before
	// rootDone's release store of its finished count, so the metrics
	// loaded after the acquire loads of those counts include every task
	// they count.
	p.queueStats(&st)
	for _, w := range p.workerList() {
		s := &w.stats
		st.Executed += atomics.LoadAcquire64(&s.executed)
		st.Steals += atomics.LoadAcquire64(&s.steals)
		st.StealRetries += atomics.LoadAcquire64(&s.stealRetries)
		st.JoinsStolen += atomics.LoadAcquire64(&s.joinsStolen)
		st.Sleeps += s.sleeps.Load()
		st.JoinSleeps += s.joinSleeps.Load()
		st.CallerRuns += atomics.LoadAcquire64(&s.callerRuns)
		st.Wakes += s.wakes.Load()
		w.metrics.addTo(&st)
	}
	return st
}

// queueStats fills the queue counters of st from three monotonic
// positions, read in this order: the tasks finished (completed, summed over
// the workers), the injector's head (tasks taken by a worker) and its tail
// (tasks accepted). A task is accepted before it is taken and taken before it
// finishes, and each number only grows, so a later read is never below an
// earlier one: head >= completed and tail >= head hold across the three
// reads, Running and Queued are never negative, and Injected = Queued +
// Running + Completed exactly. A reader delayed between two reads can
// overstate Running (tasks taken after completed was read) or Queued, never
// understate them.
func (p *Pool) queueStats(st *Stats) {
	done := p.completed()
	taken := p.inj.taken()
	accepted := p.inj.accepted()
	st.Completed, st.Injected = done, accepted
	// The guards are belt and braces: by the order above neither
	// difference can be negative.
	if taken > done {
		st.Running = int(taken - done)
	}
	if accepted > taken {
		st.Queued = int(accepted - taken)
	}
	st.Rejected = p.rejected.Load()
	st.Abandoned = p.abandoned.Load()
	// After the finished counts: a task counted there has its handler's
	// panic counted (callHandler adds before rootDone's release store).
	st.HandlerPanics = p.handlerPanics.Load()
}

// countingParker wraps a worker's parkers to count sleeps and wakes. Park
// writes and reads nothing owner-only: while a caller that borrowed the
// worker runs as it (route.go), the worker's own goroutine may return from
// Park early and park again, and then counts with the kind of the
// borrower's wait.
type countingParker struct {
	sleep.Parker
	w *Worker
}

func (c *countingParker) Park() {
	s := &c.w.stats
	s.sleeps.Add(1)
	if waitKind(atomic.LoadUint32((*uint32)(&c.w.waitKind))) == waitJoin {
		s.joinSleeps.Add(1)
	}
	c.Parker.Park()
	c.w.pool.woke() // a slow path: follow.go, blocking.go
}

func (c *countingParker) Unpark() {
	c.w.stats.wakes.Add(1)
	c.Parker.Unpark()
}
