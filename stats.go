package blitz

import (
	"sync/atomic"

	"github.com/blitz-go/blitz/atomics"
	"github.com/blitz-go/blitz/sleep"
)

// Stats is a snapshot of a pool's counters, summed over its workers when
// Pool.Stats is called. Counters only grow; two snapshots subtract.
type Stats struct {
	// Workers is the number of workers.
	Workers int
	// Executed counts jobs a worker found and ran: popped from its deque
	// outside the join fast path, stolen, or taken from the injector. A
	// join half that its owner pops back and runs inline is not counted
	// (that path is kept free of shared writes).
	Executed uint64
	// Steals counts successful steals.
	Steals uint64
	// StealRetries counts sweeps over the victims that met contention
	// (a Steal that answered Retry) and found nothing.
	StealRetries uint64
	// Injected counts jobs accepted from outside the workers (Go, Run, Do).
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
	// Placement says, per worker, which CPU the placement chose and
	// whether the worker is pinned to it (or why not). Nil for a pool
	// without placement (WithPlacement, WithCPUs). Set once when each
	// worker starts.
	Placement []WorkerPlacement
}

// workerStats are one worker's counters. All but wakes are written by the
// worker goroutine alone, with a release store of the incremented value (no
// read-modify-write: cheap enough to leave on), and read by Pool.Stats with
// acquire loads. wakes is incremented by whichever goroutine unparks the
// worker, so it is an atomic add (on the wake path, which costs a syscall
// anyway).
type workerStats struct {
	executed, steals, stealRetries, joinsStolen, sleeps, joinSleeps uint64
	wakes                                                           atomic.Uint64
}

// bump increments an owner-written counter.
func (s *workerStats) bump(p *uint64) { atomics.StoreRelease64(p, *p+1) }

// Stats returns the pool's counters. It is safe to call at any time from any
// goroutine, including after Close; the snapshot is not atomic across
// counters.
func (p *Pool) Stats() Stats {
	st := Stats{Workers: len(p.workers), Respawns: p.respawns.Load(), Injected: p.inj.accepted(), Placement: p.placementStats()}
	for _, w := range p.workers {
		s := &w.stats
		st.Executed += atomics.LoadAcquire64(&s.executed)
		st.Steals += atomics.LoadAcquire64(&s.steals)
		st.StealRetries += atomics.LoadAcquire64(&s.stealRetries)
		st.JoinsStolen += atomics.LoadAcquire64(&s.joinsStolen)
		st.Sleeps += atomics.LoadAcquire64(&s.sleeps)
		st.JoinSleeps += atomics.LoadAcquire64(&s.joinSleeps)
		st.Wakes += s.wakes.Load()
	}
	return st
}

// countingParker wraps a worker's parker to count sleeps and wakes. Park is
// called only by the worker's own goroutine (from sleep.NoWorkFound), so it
// may read the worker's owner-only waitKind.
type countingParker struct {
	sleep.Parker
	w *Worker
}

func (c *countingParker) Park() {
	s := &c.w.stats
	s.bump(&s.sleeps)
	if c.w.waitKind == waitJoin {
		s.bump(&s.joinSleeps)
	}
	c.Parker.Park()
}

func (c *countingParker) Unpark() {
	c.w.stats.wakes.Add(1)
	c.Parker.Unpark()
}
