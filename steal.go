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

// maxSweep bounds how many victims one pass tries in one tier. A tier of at
// most maxSweep victims is swept whole, as rayon does; a larger one is
// sampled: maxSweep consecutive victims from a random start, a different
// window on every pass and every call. So an idle round costs a bounded
// number of probes whatever the pool's size, instead of one per worker
// (with n idle workers each sweeping n-1 deques per round, a pool of
// thousands spent its start-up in its own steal loops).
//
// Sampling is safe for progress: a job is never left behind by it. A job
// sits in the deque or the run queue of a worker that is awake or asleep
// in a join that will end (it empties both before it sleeps idle), which
// runs it itself if no thief comes, and a push onto a deque that already
// held work, or of a batch into a run queue, wakes a sleeper
// (sleep.NewInternalJobs). What sampling costs is only that an idle worker
// of a very large pool may go to sleep without having looked at every
// deque.
const maxSweep = 64

// steal takes the oldest job of another worker. Victims are tried tier by
// tier (WithStealTiers, the placement's tiers, or by default one flat tier
// of all other workers), starting at a random victim within each tier so
// that thieves spread out, at most maxSweep victims per tier and pass.
//
// The default flat tier is kept as arithmetic instead of a list per worker
// (n lists of n-1 victims would make a pool's memory quadratic in its
// size): its k-th victim, for k in [0, n-1), is flatVictim(w.index, n, k).
func (w *Worker) steal() (jobRef, bool) {
	workers := w.pool.workerList()
	flat := w.pool.flatSteal
	tiers := w.tiers
	if flat {
		tiers = flatTierPlaceholder
	}
	for pass := 0; pass < maxStealPasses; pass++ {
		retry := false
		for _, tier := range tiers {
			n := len(tier)
			if flat {
				n = len(workers) - 1
			}
			if n == 0 {
				continue
			}
			k := 0
			if n > 1 {
				k = int(w.nextRand() % uint64(n))
			}
			for tries := min(n, maxSweep); tries > 0; tries-- {
				var victim int
				if flat {
					victim = flatVictim(w.index, len(workers), k)
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
// alone. Victims are swept from a random start, at most maxSweep of them,
// in one pass: a queue that another thief is copying from is skipped, as
// its owner is awake and runs what it holds.
func (w *Worker) stealRunq(park bool) (work, bool) {
	workers := w.pool.workerList()
	n := len(workers) - 1
	if n == 0 {
		return work{}, false
	}
	most := 1
	if park {
		most = w.runq.room() + 1
	}
	k := 0
	if n > 1 {
		k = int(w.nextRand() % uint64(n))
	}
	for tries := min(n, maxSweep); tries > 0; tries-- {
		v := workers[flatVictim(w.index, len(workers), k)]
		if v.runq.len() > 0 {
			if t, ok := v.runq.stealHalf(&w.runq, most); ok {
				w.stats.bump(&w.stats.steals)
				return t.work(), true
			}
		}
		if k++; k == n {
			k = 0
		}
	}
	return work{}, false
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
