package blitz

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// irregular is an unbalanced fork-join tree: the shape depends on n, so thieves
// find work at every depth and joins are stolen both ways.
func irregular(w *Worker, n int) int {
	if n < 2 {
		return 1
	}
	a, b := JoinArgs(w, irregular, n-1, irregular, n/3)
	return a + b
}

func irregularSeq(n int) int {
	if n < 2 {
		return 1
	}
	return irregularSeq(n-1) + irregularSeq(n/3)
}

// TestStressMixed runs joins, scopes, loops and fire-and-forget tasks from
// several outside goroutines at once on every backend, checks every result,
// and checks that the rare paths ran: joins whose second half was stolen,
// and workers that slept.
func TestStressMixed(t *testing.T) {
	callers, iters, n := 4, 30, 150
	if testing.Short() {
		callers, iters, n = 2, 5, 100
	}
	want := irregularSeq(n)
	for _, k := range testParkings() {
		withPool(t, []Option{WithWorkers(4), WithParking(k)}, func(p *Pool) {
			var bad atomic.Int64
			var fired sync.WaitGroup
			var pairMu sync.Mutex
			together(t, "stress callers", callers, func(c int) {
				for i := 0; i < iters; i++ {
					switch (c + i) % 5 {
					case 0:
						if got := Do(p, func(w *Worker) int { return irregular(w, n) }); got != want {
							t.Errorf("irregular(%d) = %d, want %d", n, got, want)
							bad.Add(1)
						}
					case 1:
						var sum atomic.Int64
						p.Run(func(w *Worker) {
							w.Scope(func(s *Scope) {
								for j := 0; j < 50; j++ {
									s.Spawn(func(w *Worker, _ *Scope) { sum.Add(int64(irregular(w, 60))) })
								}
							})
						})
						if sum.Load() != int64(50*irregularSeq(60)) {
							t.Errorf("scope sum = %d, want %d", sum.Load(), 50*irregularSeq(60))
							bad.Add(1)
						}
					case 2:
						got := Do(p, func(w *Worker) int {
							return mapReduceRange(w, 0, 1<<14, 0, 0, func(_ *Worker, lo, hi int) int { return hi - lo },
								func(a, b int) int { return a + b })
						})
						if got != 1<<14 {
							t.Errorf("MapReduce = %d", got)
							bad.Add(1)
						}
					case 4:
						// A join whose second half is certainly
						// stolen (the first waits for it to start),
						// even at GOMAXPROCS=1, where natural steals
						// can be rare. The first half blocks its
						// worker, so one such join at a time: four
						// at once could block all four workers.
						pairMu.Lock()
						got := Do(p, func(w *Worker) int {
							var x, y int
							stolenPair(w, func(w *Worker) { x = irregular(w, 60) }, func(w *Worker) { y = irregular(w, 60) })
							return x + y
						})
						pairMu.Unlock()
						if got != 2*irregularSeq(60) {
							t.Errorf("stolen pair = %d, want %d", got, 2*irregularSeq(60))
							bad.Add(1)
						}
					case 3:
						fired.Add(1)
						if err := p.Go(func(w *Worker) { defer fired.Done(); irregular(w, 60) }); err != nil {
							bad.Add(1)
							fired.Done()
						}
					}
					runtime.Gosched()
				}
			})
			within(t, "fired tasks", fired.Wait)
			if bad.Load() != 0 {
				t.Errorf("parking=%v: %d wrong results", k, bad.Load())
			}
			st := p.Stats()
			t.Logf("parking=%v: %+v", k, st)
			if st.JoinsStolen == 0 || st.Steals == 0 {
				if testing.Short() {
					t.Logf("parking=%v: no stolen join in -short mode", k)
				} else {
					t.Errorf("parking=%v: no join was stolen: the rare path did not run", k)
				}
			}
		})
	}
}

// TestNestedPools creates and closes pools inside tasks of another pool.
func TestNestedPools(t *testing.T) {
	withPool(t, []Option{WithWorkers(2)}, func(outer *Pool) {
		got := doW(t, outer, func(w *Worker) int {
			a, b := Join(w, func(w *Worker) int {
				inner, err := New(WithWorkers(2), WithName("inner"))
				if err != nil {
					t.Error(err)
					return 0
				}
				defer inner.Close()
				return Do(inner, func(w *Worker) int { return fibArgs(w, 15) })
			}, func(w *Worker) int { return fibArgs(w, 15) })
			return a + b
		})
		if got != 2*seqFib(15) {
			t.Errorf("nested pools = %d", got)
		}
	})
}
