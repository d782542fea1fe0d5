package blitz_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz"
)

// scopeBenchSpawns is the number of tasks one operation of
// BenchmarkScopeSpawn spawns: exactly in shape=flat, less two in
// shape=nested.
const scopeBenchSpawns = 1 << 20

// BenchmarkScopeSpawn measures the cost of Scope.Spawn itself: tasks that do
// (almost) nothing, so that the time is the spawn, the deque traffic and the
// task's completion.
//
//   - shape=flat: the scope's body spawns 2^20 empty tasks in a loop; the
//     owner and thieves run them while it spawns and then in the scope's
//     wait.
//   - shape=nested: a binary tree of spawns, each task spawning two more
//     into the same scope, 2^20-2 tasks in all, so that thieves spawn too
//     and tasks are often run by a worker other than their spawner.
//
// ns/spawn is ns/op over the tasks spawned. It uses the public API only, so
// the same file measures any two versions of the pool.
func BenchmarkScopeSpawn(b *testing.B) {
	for _, n := range []int{1, 2} {
		p, err := blitz.New(blitz.WithWorkers(n))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("shape=flat/workers=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p.Run(func(w *blitz.Worker) {
					w.Scope(func(s *blitz.Scope) {
						for range scopeBenchSpawns {
							s.Spawn(func(*blitz.Worker, *blitz.Scope) {})
						}
					})
				})
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/scopeBenchSpawns, "ns/spawn")
		})
		b.Run(fmt.Sprintf("shape=nested/workers=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var leaves atomic.Int64
			for b.Loop() {
				leaves.Store(0)
				p.Run(func(w *blitz.Worker) {
					w.Scope(func(s *blitz.Scope) { spawnBenchTree(s, 18, &leaves) })
				})
			}
			if got := leaves.Load(); got != 1<<19 {
				b.Fatalf("leaves = %d, want %d", got, 1<<19)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(scopeBenchSpawns-2), "ns/spawn")
		})
		p.Close()
	}
}

// spawnBenchTree spawns two tasks into s, each of which spawns a tree of
// depth d-1 the same way; the 2^(d+1) tasks of the bottom level count
// themselves in leaves. It spawns 2^(d+2)-2 tasks in all.
func spawnBenchTree(s *blitz.Scope, d int, leaves *atomic.Int64) {
	for range 2 {
		if d == 0 {
			s.Spawn(func(*blitz.Worker, *blitz.Scope) { leaves.Add(1) })
		} else {
			s.Spawn(func(_ *blitz.Worker, s *blitz.Scope) { spawnBenchTree(s, d-1, leaves) })
		}
	}
}
