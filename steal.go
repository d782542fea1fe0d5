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

// steal takes the oldest job of another worker. Victims are tried tier by
// tier (WithStealTiers; by default one tier of all other workers), starting
// at a random victim within each tier so that thieves spread out.
func (w *Worker) steal() (jobRef, bool) {
	if len(w.tiers) == 0 {
		return 0, false
	}
	workers := w.pool.workers
	for pass := 0; pass < maxStealPasses; pass++ {
		retry := false
		for _, tier := range w.tiers {
			n := len(tier)
			if n == 0 {
				continue
			}
			start := int(w.nextRand() % uint64(n))
			for i := 0; i < n; i++ {
				v := start + i
				if v >= n {
					v -= n
				}
				r, st := workers[tier[v]].deque.Steal()
				switch st {
				case deque.Success:
					w.stats.bump(&w.stats.steals)
					return r, true
				case deque.Retry:
					retry = true
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
