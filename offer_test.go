package blitz

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz/atomics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// atLazyDepth runs f on w at a join depth of at least eagerDepth, where forks
// are lazy: inside the first halves of nested joins whose second halves do
// nothing.
func atLazyDepth(w *Worker, f func(w *Worker)) {
	if w.depth >= eagerDepth {
		f(w)
		return
	}
	w.Join(func(w *Worker) { atLazyDepth(w, f) }, func(*Worker) {})
}

func nopW(*Worker) {}

// lazyFrames counts the lazy frames of w below its depth. Owner only.
func lazyFrames(w *Worker) int {
	n := 0
	for d := uint32(0); d < w.depth; d++ {
		if f := w.frames.peek(d); f != nil && f.lazy {
			n++
		}
	}
	return n
}

// requireNoLazyFrames checks, after Close, that no frame of any worker was
// left lazy: a join that returned or unwound always cleared its frame's
// mark, or offerPending could later push a dead frame.
func requireNoLazyFrames(t testing.TB, p *Pool) {
	t.Helper()
	for _, w := range p.workerList() {
		for k := range maxChunks {
			c := w.frames.chunks[k].Load()
			if c == nil {
				continue
			}
			for i := range *c {
				require.False(t, (*c)[i].lazy, "worker %d: frame %d of chunk %d left lazy", w.index, i, k)
			}
		}
	}
}

// TestForkBelowEagerDepthIsLazy pins the two kinds of fork: above eagerDepth
// the half goes on the deque at once; from eagerDepth on it stays in its
// frame, and a pool of one worker (nobody asks) runs it inline without ever
// pushing it.
func TestForkBelowEagerDepthIsLazy(t *testing.T) {
	withPool(t, []Option{WithWorkers(1)}, func(p *Pool) {
		var shallow, deep [2]int
		doW(t, p, func(w *Worker) int {
			w.Join(func(w *Worker) { shallow = [2]int{w.deque.Len(), lazyFrames(w)} }, nopW)
			atLazyDepth(w, func(w *Worker) {
				w.Join(func(w *Worker) { deep = [2]int{w.deque.Len(), lazyFrames(w)} }, nopW)
			})
			return 0
		})
		assert.Equal(t, [2]int{1, 0}, shallow, "fork at depth 0: pushed, not lazy")
		// atLazyDepth's own forks at depths < eagerDepth are in the deque
		// (their first halves run); the one at eagerDepth is lazy.
		assert.Equal(t, [2]int{eagerDepth, 1}, deep, "fork at eagerDepth: lazy, not pushed")
		assert.Zero(t, p.workerList()[0].stats.offered, "offered without a request")
	})
}

// TestLazyHalfOfferedOnRequest drives the request path: a half forked lazily
// is taken by another worker only after that worker asked for work and the
// owner forked again. The first half forks in a loop until the second half
// has run elsewhere; it ends only if the request was seen and the half
// offered.
func TestLazyHalfOfferedOnRequest(t *testing.T) {
	for _, workers := range []int{2, 4} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			withPool(t, []Option{WithWorkers(workers)}, func(p *Pool) {
				var owner, ranOn int
				doW(t, p, func(w *Worker) int {
					atLazyDepth(w, func(w *Worker) {
						owner = w.Index()
						var where atomic.Int64
						where.Store(-1)
						w.Join(func(w *Worker) {
							for where.Load() < 0 {
								w.Join(nopW, nopW) // a fork: where a request is seen
								runtime.Gosched()
							}
						}, func(w *Worker) { where.Store(int64(w.Index())) })
						ranOn = int(where.Load())
					})
					return 0
				})
				assert.NotEqual(t, owner, ranOn, "the lazy half ran on its owner")
				assert.NotZero(t, p.workerList()[owner].stats.offered, "nothing offered on request")
				assert.NotZero(t, p.Stats().JoinsStolen, "no join counted stolen")
			})
		})
	}
}

// TestLazyFramesOfferedBeforeSpawn checks the ordering invariant of the
// deque (offer.go): a scope's Spawn under lazy frames first pushes them,
// oldest first, so that the spawned task is the newest element.
func TestLazyFramesOfferedBeforeSpawn(t *testing.T) {
	withPool(t, []Option{WithWorkers(1)}, func(p *Pool) {
		var before, after [2]int
		var refs []jobRef
		doW(t, p, func(w *Worker) int {
			atLazyDepth(w, func(w *Worker) {
				w.Join(func(w *Worker) {
					w.Join(func(w *Worker) {
						w.Scope(func(s *Scope) {
							before = [2]int{w.deque.Len(), lazyFrames(w)}
							s.Spawn(func(*Worker, *Scope) {})
							after = [2]int{w.deque.Len(), lazyFrames(w)}
							for w.deque.Len() > 0 {
								r, _ := w.deque.Steal() // inspect from the top, oldest first
								refs = append(refs, r)
								w.push(r) // and keep it: move it back to the bottom
								if len(refs) == after[0] {
									break
								}
							}
						})
					}, nopW)
				}, nopW)
			})
			return 0
		})
		// Below the lazy frames: atLazyDepth's eager forks, one per depth
		// under eagerDepth, whose first halves are still running.
		assert.Equal(t, [2]int{eagerDepth, 2}, before, "two lazy frames above the eager ones before the spawn")
		assert.Equal(t, [2]int{eagerDepth + 3, 0}, after, "both frames pushed, then the task")
		require.Len(t, refs, eagerDepth+3)
		for i, r := range refs[:len(refs)-1] {
			assert.Equal(t, uint64(kindFrame), r.kind(), "ref %d", i)
			assert.Equal(t, uint32(i), r.index(), "ref %d: frames in depth order, oldest at the top", i)
		}
		assert.Equal(t, uint64(kindSpawn), refs[len(refs)-1].kind(), "the task is the newest")
	})
}

// lazyMix is fib(n) with joins, where every leaf at n == 4 opens a scope
// with two spawned fib(3) tasks, and (when q is not nil) every leaf at
// n == 5 calls into q: the Spawn and the loan happen under lazy frames,
// where they must offer them first. It returns fib(n) plus, per n == 4
// leaf, the two tasks' fib(3).
func lazyMix(w *Worker, n int, q *Pool) int {
	switch {
	case n < 2:
		return n
	case n == 4:
		var spawned atomic.Int64
		w.Scope(func(s *Scope) {
			for range 2 {
				s.Spawn(func(w *Worker, _ *Scope) { spawned.Add(int64(fibArgs(w, 3))) })
			}
		})
		return fibArgs(w, 4) + int(spawned.Load())
	case n == 5 && q != nil:
		return Do(q, func(w *Worker) int { return fibArgs(w, 5) })
	}
	a, b := JoinArgs(w, lazyMixArgs, lazyMixJob{n - 1, q}, lazyMixArgs, lazyMixJob{n - 2, q})
	return a + b
}

type lazyMixJob struct {
	n int
	q *Pool
}

func lazyMixArgs(w *Worker, j lazyMixJob) int { return lazyMix(w, j.n, j.q) }

// lazyMixWant is lazyMix's result computed sequentially, with (withQ) or
// without a pool to call into.
func lazyMixWant(n int, withQ bool) int {
	switch {
	case n < 2:
		return n
	case n == 4:
		return seqFib(4) + 2*seqFib(3)
	case n == 5 && withQ:
		return seqFib(5)
	}
	return lazyMixWant(n-1, withQ) + lazyMixWant(n-2, withQ)
}

// TestLazyOfferStorm runs many deep trees at once (forks below eagerDepth
// are lazy) with scopes and calls into another pool at their leaves, on
// every backend: every result must be exact, the request path must have
// run (some lazy half offered on request and stolen), and no frame may be
// left lazy (withPool checks after Close).
func TestLazyOfferStorm(t *testing.T) {
	callers, iters, n := 4, 20, 18
	if testing.Short() {
		callers, iters, n = 3, 5, 16
	}
	want := [2]int{lazyMixWant(n, false), lazyMixWant(n, true)}
	for _, k := range testParkings() {
		t.Run(fmt.Sprintf("parking=%v", k), func(t *testing.T) {
			withPool(t, []Option{WithWorkers(4), WithParking(k)}, func(p *Pool) {
				q, err := New(WithWorkers(2), WithParking(k))
				require.NoError(t, err)
				defer func() { // before withPool's leak check
					require.NoError(t, q.Close())
					requireNoLazyFrames(t, q)
				}()
				together(t, "storm callers", callers, func(c int) {
					for i := range iters {
						withQ := (c+i)%2 == 0
						var qq *Pool
						if withQ {
							qq = q
						}
						got := Do(p, func(w *Worker) int { return lazyMix(w, n, qq) })
						assert.Equal(t, want[boolIndex(withQ)], got, "caller %d iteration %d", c, i)
					}
				})
				var offered uint64
				for _, w := range p.workerList() {
					offered += atomics.LoadAcquire64(&w.stats.offered)
				}
				assert.NotZero(t, offered, "no lazy half was offered on request")
				assert.NotZero(t, p.Stats().JoinsStolen, "no join was stolen")
			})
		})
	}
}

// TestLazyOffersReachEveryWorker checks that lazy offering keeps the whole
// pool busy, not only the worker that asked first: a tree forked where every
// join is lazy, run again and again until each of the 8 workers has run one
// of its leaves, ends only if requests and the wakes that follow offers
// (sleep.NewInternalJobs, and WorkFound waking more) reach every worker.
func TestLazyOffersReachEveryWorker(t *testing.T) {
	const workers = 8
	withPool(t, []Option{WithWorkers(workers)}, func(p *Pool) {
		var ran [workers]atomic.Bool
		all := func() bool {
			for i := range ran {
				if !ran[i].Load() {
					return false
				}
			}
			return true
		}
		var leaf func(w *Worker, n int)
		leaf = func(w *Worker, n int) {
			if n == 0 {
				ran[w.Index()].Store(true)
				runtime.Gosched() // let sleepers that were woken run, whatever GOMAXPROCS
				return
			}
			w.Join(func(w *Worker) { leaf(w, n-1) }, func(w *Worker) { leaf(w, n-1) })
		}
		rounds := 0
		doW(t, p, func(w *Worker) int {
			atLazyDepth(w, func(w *Worker) {
				for !all() {
					leaf(w, 8)
					rounds++
				}
			})
			return 0
		})
		t.Logf("every worker ran a leaf after %d trees", rounds)
		assert.NotZero(t, p.Stats().JoinsStolen)
	})
}

// boolIndex is 1 for true and 0 for false.
func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}
