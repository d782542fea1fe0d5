package blitz

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type ctxKey struct{}

// ctxID is the value a test context carries, 0 for none.
func ctxID(w *Worker) int {
	v, _ := w.Context().Value(ctxKey{}).(int)
	return v
}

func withID(id int) context.Context { return context.WithValue(context.Background(), ctxKey{}, id) }

// ctxTree forks a join tree of the given depth with a scope of spawns at
// each leaf, and counts the places where the context's id differs from
// want, and those that ran on another worker than root.
func ctxTree(w *Worker, depth, want, root int, wrong, away *atomic.Int64) {
	check := func(w *Worker) {
		if ctxID(w) != want {
			wrong.Add(1)
		}
		if w.index != root {
			away.Add(1)
		}
	}
	check(w)
	if depth == 0 {
		w.Scope(func(s *Scope) {
			for range 3 {
				s.Spawn(func(w *Worker, s *Scope) {
					check(w)
					s.Spawn(func(w *Worker, _ *Scope) { check(w) })
				})
			}
		})
		return
	}
	w.Join(func(w *Worker) { ctxTree(w, depth-1, want, root, wrong, away) },
		func(w *Worker) { ctxTree(w, depth-1, want, root, wrong, away) })
}

// TestContextOfTasks checks Worker.Context: a task submitted with a context
// sees it, and so does everything it forks; a task submitted without one,
// and the next task on the same worker, see Background.
func TestContextOfTasks(t *testing.T) {
	eachConfig(t, func(t *testing.T, p *Pool) {
		var wrong, away atomic.Int64
		got, err := DoContext(withID(7), p, func(w *Worker) int {
			ctxTree(w, 6, 7, w.index, &wrong, &away)
			return ctxID(w)
		})
		require.NoError(t, err)
		assert.Equal(t, 7, got)
		assert.Zero(t, wrong.Load(), "forked work that saw another context")

		got, err = TryDo(withID(8), p, func(w *Worker) int { return ctxID(w) })
		require.NoError(t, err)
		assert.Equal(t, 8, got)

		seen := make(chan int, 1)
		require.NoError(t, p.GoContext(withID(9), func(w *Worker) { seen <- ctxID(w) }))
		assert.Equal(t, 9, <-seen)

		assert.Zero(t, doW(t, p, func(w *Worker) int {
			ctxTree(w, 4, 0, w.index, &wrong, &away)
			return ctxID(w)
		}), "Do's task")
		assert.Zero(t, wrong.Load(), "work forked from Do that saw a context")
		assert.Equal(t, context.Background(), doW(t, p, func(w *Worker) context.Context { return w.Context() }))
	})
}

// TestContextOfStolenHalf forces the second half of a join onto another
// worker (the first half waits until it started) and checks that it, and
// what it forks there, see the task's context.
func TestContextOfStolenHalf(t *testing.T) {
	for _, k := range testParkings() {
		for _, n := range []int{2, 8} {
			t.Run(fmt.Sprintf("parking=%v/workers=%d", k, n), func(t *testing.T) {
				withPool(t, []Option{WithParking(k), WithWorkers(n)}, func(p *Pool) {
					for id := 1; id <= 20; id++ {
						var wrong, away atomic.Int64
						_, err := DoContext(withID(id), p, func(w *Worker) int {
							root := w.index
							started := make(chan struct{})
							w.Join(func(*Worker) { <-started }, func(w *Worker) {
								close(started)
								ctxTree(w, 3, id, root, &wrong, &away)
							})
							return 0
						})
						require.NoError(t, err)
						require.Zero(t, wrong.Load(), "id %d", id)
						require.NotZero(t, away.Load(), "the stolen half ran on the joiner's worker")
					}
				})
			})
		}
	}
}

// TestContextStorm runs many tasks at once, each with its own context (or
// none), each forking a join tree with scopes, some panicking or calling
// runtime.Goexit after forking: every piece of work sees its own task's
// context, whichever worker runs it and whatever ran there before.
func TestContextStorm(t *testing.T) {
	callers, rounds := 16, 20
	if testing.Short() {
		callers, rounds = 8, 5
	}
	eachConfig(t, func(t *testing.T, p *Pool) {
		var wrong, away, stolen atomic.Int64
		together(t, "callers", callers, func(c int) {
			for r := range rounds {
				id := c*1000 + r + 1
				switch r % 4 {
				case 0: // no context
					Do(p, func(w *Worker) int {
						ctxTree(w, 5, 0, w.index, &wrong, &away)
						return 0
					})
				case 1: // a context
					_, err := DoContext(withID(id), p, func(w *Worker) int {
						ctxTree(w, 5, id, w.index, &wrong, &away)
						return 0
					})
					if err != nil {
						wrong.Add(1)
					}
				case 2: // a context, then a panic
					_, err := DoContext(withID(id), p, func(w *Worker) int {
						ctxTree(w, 4, id, w.index, &wrong, &away)
						panic("storm")
					})
					if !errors.Is(err, ErrPanic) {
						wrong.Add(1)
					}
				case 3: // a context, then Goexit
					_, err := DoContext(withID(id), p, func(w *Worker) int {
						ctxTree(w, 4, id, w.index, &wrong, &away)
						runtime.Goexit()
						return 0
					})
					if !errors.Is(err, ErrGoexit) {
						wrong.Add(1)
					}
				}
			}
		})
		stolen.Store(int64(p.Stats().Steals))
		assert.Zero(t, wrong.Load(), "work that saw another task's context")
		t.Logf("%d pieces ran away from their task's worker, %d steals", away.Load(), stolen.Load())
	})
}

// TestContextAcrossLend checks the contexts on a worker lent out while its
// task waits on a call into another pool (Run): the join half the task
// left in its deque sees the task's context when the lent worker runs it,
// another task run meanwhile sees its own, and the task sees its own again
// after the call.
func TestContextAcrossLend(t *testing.T) {
	withPool(t, []Option{WithWorkers(1)}, func(p *Pool) {
		q, err := New(WithWorkers(1))
		require.NoError(t, err)
		defer q.Close()
		{
			other := make(chan int, 1)
			release := make(chan struct{})
			got, err := DoContext(withID(1), p, func(w *Worker) [3]int {
				var half int
				w.Join(func(w *Worker) {
					q.Run(func(*Worker) {
						// p's worker is lent out now: give it a task of
						// its own, and let it pop the join's half.
						go func() {
							v, _ := DoContext(withID(2), p, func(w *Worker) int { return ctxID(w) })
							none := Do(p, func(w *Worker) int { return ctxID(w) })
							seen := make(chan int, 1)
							p.Go(func(w *Worker) { seen <- ctxID(w) })
							other <- v*100 + none*10 + <-seen
							close(release)
						}()
						<-release
					})
				}, func(w *Worker) { half = ctxID(w) })
				return [3]int{ctxID(w), half, <-other}
			})
			require.NoError(t, err)
			assert.Equal(t, [3]int{1, 1, 200}, got, "task after the call, its join half, tasks run on the lent worker (DoContext, Do, Go: 2, 0, 0)")
		}
	})
}
