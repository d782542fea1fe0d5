package blitz

import (
	"github.com/blitz-go/blitz/atomics"
	"github.com/blitz-go/blitz/deque"
)

// maxStealPasses bounds how many sweeps over the victims one steal attempt
// makes when some victim answered Retry (another thief or the owner won a
// race on that deque: it had work a moment ago). Without a bound a thief
// could retry forever against a busy deque; with it, the thief returns to
// its caller, which checks its latch and the injector and comes back.
const maxStealPasses = 4

// The sweep bounds how many victims one pass tries in one tier
// (Pool.sweep). A tier of at most that many victims is swept whole, as
// rayon does; a larger one is sampled: that many consecutive victims from a
// random start, a different window on every pass and every call. So an idle
// round costs a bounded number of probes whatever the pool's size, instead
// of one per worker (with n idle workers each sweeping n-1 deques per round,
// a pool of thousands spent its start-up in its own steal loops).
//
// The bound follows the CPUs (sweepFor): twice GOMAXPROCS, at least
// minSweep and at most maxSweep. Only GOMAXPROCS workers run at once, and
// the jobs worth stealing are pushed by running workers, so a pool that grew
// far past GOMAXPROCS (blocked workers replaced, blocking.go) holds mostly
// workers blocked in a task, whose deques and run queues are empty: probing
// them is a cache miss each for nothing.
//
// Sampling is safe for progress: a job is never left behind by it. A job
// sits in the deque or the run queue of a worker that is awake or asleep
// in a join that will end (it empties both before it sleeps idle), which
// runs it itself if no thief comes, and a push onto a deque that already
// held work, or of a batch into a run queue, wakes a sleeper
// (sleep.NewInternalJobs). A worker blocked in a task, a call or Block
// does not run what it holds until it returns, which may wait for that very
// work: while such workers hold work the monitor names one at each tick, in
// turn, for the thieves (Pool.stuck, tried before the sample) and wakes a
// sleeper to take it (blocking.go). What sampling costs is only
// that an idle worker of a very large pool may go to sleep without having
// looked at every deque.
const (
	minSweep = 16
	maxSweep = 64
)

// sweepFor is the sweep for GOMAXPROCS procs.
func sweepFor(procs int) int32 {
	return int32(min(max(2*procs, minSweep), maxSweep))
}

// setProcs records GOMAXPROCS and the sweep that follows from it, where
// they changed.
func (p *Pool) setProcs(procs int) {
	if n := int32(procs); p.procs.Load() != n {
		p.procs.Store(n)
		p.sweep.Store(sweepFor(procs))
	}
}

// steal takes the oldest job of another worker. Victims are tried tier by
// tier (WithStealTiers, the placement's tiers, or by default one flat tier
// of all other workers), starting at a random victim within each tier so
// that thieves spread out, at most the pool's sweep of victims per tier and
// pass.
//
// The default flat tier is kept as arithmetic instead of a list per worker
// (n lists of n-1 victims would make a pool's memory quadratic in its
// size): its k-th victim, for k in [0, n-1), is flatVictim(w.index, n, k).
func (w *Worker) steal() (jobRef, bool) {
	workers := w.pool.workerList()
	nflat := w.victims(workers)
	sweep := int(w.pool.sweep.Load())
	flat := w.pool.flatSteal
	tiers := w.tiers
	if flat {
		tiers = flatTierPlaceholder
	}
	if v := w.stuckVictim(workers); v != nil {
		if r, st := v.takeOldest(); st == deque.Success {
			w.stats.bump(&w.stats.steals)
			return r, true
		}
	}
	for pass := 0; pass < maxStealPasses; pass++ {
		retry := false
		for _, tier := range tiers {
			n := len(tier)
			if flat {
				n = nflat - 1
			}
			if n == 0 {
				continue
			}
			k := 0
			if n > 1 {
				k = int(w.nextRand() % uint64(n))
			}
			for tries := min(n, sweep); tries > 0; tries-- {
				var victim int
				if flat {
					victim = flatVictim(w.index, nflat, k)
				} else {
					victim = tier[k]
				}
				// A tier shared by the workers of one CPU
				// (placement.go: sharedTiers) holds the thief too.
				if victim != w.index {
					r, st := workers[victim].takeOldest()
					switch st {
					case deque.Success:
						w.stats.bump(&w.stats.steals)
						return r, true
					case deque.Retry:
						retry = true
					default:
						workers[victim].ask()
					}
				}
				if k++; k == n {
					k = 0
				}
			}
		}
		if !retry {
			return 0, false
		}
		w.stats.bump(&w.stats.stealRetries)
		atomics.SpinHint()
	}
	return 0, false
}

// stealRunq takes submitted tasks parked in another worker's run queue
// (runq.go): the oldest to run now and, where park is true (batchable), the
// rest of the older half into w's own run queue; otherwise the oldest
// alone. Victims are swept from a random start, at most the pool's sweep,
// in one pass: a queue that another thief is copying from is skipped, as
// its owner is awake and runs what it holds.
func (w *Worker) stealRunq(park bool) (work, bool) {
	workers := w.pool.workerList()
	nflat := w.victims(workers)
	n := nflat - 1
	if n == 0 {
		return work{}, false
	}
	most := 1
	if park {
		most = w.runq.room() + 1
	}
	if v := w.stuckVictim(workers); v != nil && v.runq.len() > 0 {
		if t, ok := v.runq.stealHalf(&w.runq, most); ok {
			w.stats.bump(&w.stats.steals)
			wk := t.work()
			wk.stolen = true
			return wk, true
		}
	}
	k := 0
	if n > 1 {
		k = int(w.nextRand() % uint64(n))
	}
	for tries := min(n, int(w.pool.sweep.Load())); tries > 0; tries-- {
		v := workers[flatVictim(w.index, nflat, k)]
		if v.runq.len() > 0 {
			if t, ok := v.runq.stealHalf(&w.runq, most); ok {
				w.stats.bump(&w.stats.steals)
				wk := t.work()
				wk.stolen = true
				return wk, true
			}
		}
		if k++; k == n {
			k = 0
		}
	}
	return work{}, false
}

// victims is how many workers, from index 0, the flat tier spans for w:
// the active ones (Resize and the monitor retire the top workers, which
// then sleep dormant with empty deques), or every worker in workers if w
// is not among the active ones (a worker retiring once its task returns).
// A pool that grew to thousands for blocked workers and shrank back keeps
// them in its list: sampling the list, its thieves found the other active
// workers by chance only.
func (w *Worker) victims(workers []*Worker) int {
	if a := int(w.pool.active.Load()); a > w.index && a < len(workers) {
		return a
	}
	return len(workers)
}

// stuckVictim returns the worker the monitor named stuck with work behind
// it (Pool.stuck), if it is another one among workers, in a pool whose
// workers steal from every other (the default flat tier: tiers of a
// placement or WithStealTiers say whom a worker may steal from).
func (w *Worker) stuckVictim(workers []*Worker) *Worker {
	if !w.pool.flatSteal {
		return nil
	}
	h := int(w.pool.stuck.Load()) - 1
	if h < 0 || h == w.index || h >= len(workers) {
		return nil
	}
	return workers[h]
}

// flatTierPlaceholder stands for the default flat tier in steal's loop over tiers:
// one tier, whose victims flatVictim computes.
var flatTierPlaceholder = [][]int{nil}

// takeOldest takes the oldest job of v's deque for a thief, unless v is alone
// (resize.go: the one-worker shortcuts). An empty deque is reported Empty
// without a look at stealable: a victim that was found empty is not
// stolen from, and the common idle probe costs what it did. Only a
// non-empty deque costs the extra load before the claiming Steal.
func (v *Worker) takeOldest() (jobRef, deque.Status) {
	if v.deque.IsEmpty() {
		return 0, deque.Empty
	}
	if !v.stealable.Load() {
		return 0, deque.Empty
	}
	return v.deque.Steal()
}

// flatVictim is the k-th victim of worker self in a pool of n workers with
// the flat default tier: the workers after self, wrapping around, so that k
// in [0, n-1) names every worker but self exactly once.
func flatVictim(self, n, k int) int {
	v := self + 1 + k // < 2n-1
	if v >= n {
		v -= n
	}
	return v
}
