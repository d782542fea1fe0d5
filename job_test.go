package blitz

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/blitz-go/blitz/atomics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJobRefLayout(t *testing.T) {
	r := frameRef(0xBEEF, 0xDEADBEEF)
	assert.Equal(t, uint64(0x0000BEEF_DEADBEEF), uint64(r), "frameRef")
	assert.Equal(t, uint64(kindFrame), r.kind())
	assert.Equal(t, 0xBEEF, r.worker())
	assert.Equal(t, uint32(0xDEADBEEF), r.index())

	s := spawnRef(0xBEEF, 0xFFFFFFFF)
	assert.Equal(t, uint64(1<<62|0xBEEF<<32|0xFFFFFFFF), uint64(s), "spawnRef")
	assert.Equal(t, uint64(kindSpawn), s.kind())
	assert.Equal(t, 0xBEEF, s.worker())
	assert.Equal(t, uint32(0xFFFFFFFF), s.index())

	assert.Equal(t, uint64(kindTask), taskRef.kind())
	assert.Equal(t, uint64(2<<62), uint64(taskRef), "taskRef")

	assert.NotEqual(t, frameRef(1, 0), spawnRef(1, 0), "frame and spawn refs collide")
	assert.NotEqual(t, frameRef(0, 5), spawnRef(0, 5), "frame and spawn refs collide")
	assert.NotEqual(t, frameRef(0, 0), taskRef, "frame and task refs collide")
	assert.NotEqual(t, spawnRef(0, 0), taskRef, "spawn and task refs collide")
}

// jobFields returns the bytes [lo, hi) of a join job's fields within the job,
// padding (blank fields) left out: what the owner stores at every fork (the
// function, the argument) and the result a thief stores.
func jobFields(t reflect.Type) (lo, hi uintptr) {
	lo = ^uintptr(0)
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if sf.Name == "_" {
			continue
		}
		lo = min(lo, sf.Offset)
		hi = max(hi, sf.Offset+sf.Type.Size())
	}
	return lo, hi
}

// jobLines calls f with every CacheLineSize-aligned block of memory that
// holds a field of the job in a frame of one of p's workers (jobFields),
// with the worker and the frame's depth. Call it only while p runs nothing.
func jobLines(p *Pool, f func(w *Worker, d uint32, line uintptr)) {
	for _, w := range p.workerList() {
		for d := uint32(0); ; d++ {
			if k, _ := chunkOf(d); k > 0 && w.frames.chunks[k].Load() == nil {
				break
			}
			fr := w.frames.peek(d)
			if fr == nil || fr.job == nil {
				continue
			}
			v := reflect.ValueOf(fr.job).Elem()
			lo, hi := jobFields(v.Type())
			base := v.UnsafeAddr()
			for l := (base + lo) / atomics.CacheLineSize; l <= (base+hi-1)/atomics.CacheLineSize; l++ {
				f(w, d, l)
			}
		}
	}
}

// sharedJobLines counts the cache lines that hold join-job fields of more
// than one worker of p: lines that two workers write at their forks. where
// says, for each, which worker has jobs there at which depths.
func sharedJobLines(p *Pool) (n int, where []string) {
	owners := map[uintptr]map[int][]uint32{}
	jobLines(p, func(w *Worker, d uint32, l uintptr) {
		if owners[l] == nil {
			owners[l] = map[int][]uint32{}
		}
		owners[l][w.index] = append(owners[l][w.index], d)
	})
	for _, o := range owners {
		if len(o) > 1 {
			n++
			where = append(where, fmt.Sprint(o))
		}
	}
	return n, where
}

// jobWorkers counts the workers of p that hold at least one join job.
func jobWorkers(p *Pool) int {
	seen := map[int]bool{}
	jobLines(p, func(w *Worker, _ uint32, _ uintptr) { seen[w.index] = true })
	return len(seen)
}

// TestJoinJobLayout pins the padding of the join jobs (job.go): the fields
// lie at least CacheLineSize bytes from either end of the object, so that
// no other object's bytes share a cache line with them.
func TestJoinJobLayout(t *testing.T) {
	for _, job := range []any{
		argFrame[int, int]{},
		argFrame[func(*Worker), struct{}]{}, // Worker.Join
		argFrame[[5]string, [3]int]{},
		argFrame[struct{}, struct{}]{},
		fnFrame[int]{},
		fnFrame[struct{}]{},
	} {
		typ := reflect.TypeOf(job)
		lo, hi := jobFields(typ)
		assert.GreaterOrEqual(t, lo, uintptr(atomics.CacheLineSize), "%v: padding before the fields", typ)
		assert.GreaterOrEqual(t, typ.Size()-hi, uintptr(atomics.CacheLineSize), "%v: padding after the fields", typ)
	}
}

// TestJoinJobsUnsharedAfterWarmUp runs fib(30) on a new 2-worker pool and
// on pools that ran the warm-up of a long-lived pool first (warmFib), and
// checks that in none of them a cache line holds the join jobs of both
// workers. Without the jobs' padding (job.go) the allocator put such lines
// at the depths where most joins are in most long-lived pools (and in some
// new ones), which then ran fib(30) as slowly as one worker. It checks
// several warm pools, since where the allocator puts a job depends on the
// run.
func TestJoinJobsUnsharedAfterWarmUp(t *testing.T) {
	k, pools := 4000, 4
	if testing.Short() {
		k, pools = 100, 3
	}
	for i := range pools + 1 {
		warm := i > 0
		// Capped at its size: on a loaded machine the monitor may take
		// a long fork-join's stuck workers for blocked ones and add a
		// third, which would hold join jobs too.
		withPool(t, []Option{WithWorkers(2), WithMaxWorkers(2)}, func(p *Pool) {
			if warm {
				warmFib(p, k)
			}
			Do(p, func(w *Worker) int { return fibArgs(w, 30) })
			if warm {
				// The thief made jobs too, or no line could be
				// shared. (A new pool's fib(30) may run on one.)
				require.Equal(t, 2, jobWorkers(p), "pool %d: workers holding join jobs", i)
			}
			n, where := sharedJobLines(p)
			require.Zero(t, n, "pool %d (warm=%v): cache lines holding join jobs of both workers: %v", i, warm, where)
		})
	}
}
