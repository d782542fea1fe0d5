package blitz

import (
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

// spawnTree spawns a tree of tasks of depth d, each spawning two children from
// inside the task (nested spawning), and counts the leaves.
func spawnTree(s *Scope, d int, leaves *atomic.Int64) {
	if d == 0 {
		leaves.Add(1)
		return
	}
	for i := 0; i < 2; i++ {
		s.Spawn(func(w *Worker, s *Scope) { spawnTree(s, d-1, leaves) })
	}
}

func TestScopeResults(t *testing.T) {
	eachConfig(t, func(t *testing.T, p *Pool) {
		var leaves atomic.Int64
		doW(t, p, func(w *Worker) int {
			w.Scope(func(s *Scope) { spawnTree(s, 10, &leaves) })
			// Every task finished when Scope returned.
			assert.EqualValues(t, 1<<10, leaves.Load(), "leaves when Scope returned")
			return 0
		})
		// Many flat spawns, each writing its own slot; joins inside tasks.
		const n = 1000
		out := make([]int, n)
		doW(t, p, func(w *Worker) int {
			w.Scope(func(s *Scope) {
				for i := 0; i < n; i++ {
					s.Spawn(func(w *Worker, _ *Scope) { out[i] = fibArgs(w, i%12) })
				}
			})
			return 0
		})
		for i, v := range out {
			if v != seqFib(i%12) {
				t.Fatalf("out[%d] = %d, want %d", i, v, seqFib(i%12))
			}
		}
		// Nested scopes, and an empty one.
		var inner atomic.Int64
		doW(t, p, func(w *Worker) int {
			w.Scope(func(*Scope) {})
			w.Scope(func(s *Scope) {
				for i := 0; i < 8; i++ {
					s.Spawn(func(w *Worker, _ *Scope) {
						w.Scope(func(s *Scope) {
							for j := 0; j < 8; j++ {
								s.Spawn(func(*Worker, *Scope) { inner.Add(1) })
							}
						})
					})
				}
			})
			return 0
		})
		if inner.Load() != 64 {
			t.Errorf("nested scopes ran %d tasks, want 64", inner.Load())
		}
	})
}

func TestScopePanics(t *testing.T) {
	errBody, errTask := errors.New("body"), errors.New("task")
	for _, workers := range testWorkerCounts {
		withPool(t, []Option{WithWorkers(workers)}, func(p *Pool) {
			for _, bodyPanics := range []bool{false, true} {
				var ran atomic.Int64
				var v any
				within(t, "scope", func() {
					v = catchPanic(func() {
						Do(p, func(w *Worker) int {
							w.Scope(func(s *Scope) {
								for i := 0; i < 20; i++ {
									s.Spawn(func(*Worker, *Scope) {
										ran.Add(1)
										if i == 7 {
											panic(errTask)
										}
									})
								}
								if bodyPanics {
									panic(errBody)
								}
							})
							return 0
						})
					})
				})
				pe, ok := v.(*PanicError)
				if !ok {
					t.Fatalf("workers=%d body=%v: recovered %T %v, want *PanicError", workers, bodyPanics, v, v)
				}
				if !errors.Is(pe, errTask) && !errors.Is(pe, errBody) {
					t.Errorf("workers=%d: panic %v", workers, pe.Value)
				}
				if !bodyPanics && !strings.Contains(string(pe.Stack), "TestScopePanics") {
					t.Errorf("workers=%d: stack lacks the task:\n%s", workers, pe.Stack)
				}
				if ran.Load() != 20 {
					t.Errorf("workers=%d body=%v: %d tasks ran, want all 20", workers, bodyPanics, ran.Load())
				}
			}
			assert.EqualValues(t, seqFib(12), doW(t, p, func(w *Worker) int { return fibArgs(w, 12) }), "fib after scope panics")
		})
	}
}

func TestScopeGoexit(t *testing.T) {
	for _, workers := range testWorkerCounts {
		withPool(t, []Option{WithWorkers(workers)}, func(p *Pool) {
			for _, inBody := range []bool{false, true} {
				var ran atomic.Int64
				exited := exitsGoroutine(t, func() {
					Do(p, func(w *Worker) int {
						w.Scope(func(s *Scope) {
							for i := 0; i < 10; i++ {
								s.Spawn(func(*Worker, *Scope) {
									ran.Add(1)
									if !inBody && i == 3 {
										runtime.Goexit()
									}
								})
							}
							if inBody {
								runtime.Goexit()
							}
						})
						return 0
					})
				})
				if !exited {
					t.Errorf("workers=%d inBody=%v: caller did not Goexit", workers, inBody)
				}
				if ran.Load() != 10 {
					t.Errorf("workers=%d inBody=%v: %d tasks ran, want 10", workers, inBody, ran.Load())
				}
			}
			assert.EqualValues(t, seqFib(12), doW(t, p, func(w *Worker) int { return fibArgs(w, 12) }), "fib after scope Goexit")
		})
	}
}

func TestScopeMisuse(t *testing.T) {
	withPool(t, []Option{WithWorkers(2)}, func(p *Pool) {
		requireTaskPanics(t, p, "blitz: Worker.Scope: nil function", func(w *Worker) { w.Scope(nil) })
		requireTaskPanics(t, p, "blitz: Scope.Spawn: nil function", func(w *Worker) {
			w.Scope(func(s *Scope) { s.Spawn(nil) })
		})
		var leaked *Scope
		doW(t, p, func(w *Worker) int { w.Scope(func(s *Scope) { leaked = s }); return 0 })
		requireTaskPanics(t, p, "blitz: Scope.Spawn: the scope has finished", func(*Worker) {
			leaked.Spawn(func(*Worker, *Scope) {})
		})
	})
}

// TestSpawnAllocs checks that a spawn costs no allocation of its own: a
// scope of 1000 spawns of a function that captures nothing allocates only
// the scope's state and the *Scope values handed out (one per worker that
// ran a function of the scope), not one object per spawn.
func TestSpawnAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for _, workers := range []int{1, 2} {
		withPool(t, []Option{WithWorkers(workers)}, func(p *Pool) {
			spawn := func(w *Worker) {
				w.Scope(func(s *Scope) {
					for range 1000 {
						s.Spawn(func(*Worker, *Scope) {})
					}
				})
			}
			allocs := doW(t, p, func(w *Worker) float64 {
				spawn(w) // warm up: the deque and the slots grow
				return testing.AllocsPerRun(20, func() { spawn(w) })
			})
			assert.LessOrEqual(t, allocs, float64(1+workers), "workers=%d: allocations per scope of 1000 spawns", workers)
		})
	}
}
