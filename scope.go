package blitz

import (
	"runtime"
	"sync/atomic"

	"github.com/blitz-go/blitz/sleep"
)

// A Scope lets a function spawn any number of tasks that may run in parallel
// and are all finished when Worker.Scope returns. Spawned tasks may spawn
// more into the same scope.
//
// Each function the scope calls receives its own *Scope, bound to the worker
// running it; like a *Worker it must be used only by that function, on its
// goroutine, while the function runs.
type Scope struct {
	st *scopeState
	w  *Worker
}

// scopeState is shared by a scope's body and its tasks.
type scopeState struct {
	// pending counts the body plus spawned tasks not yet finished.
	// Incremented by Spawn (by a live task or the body, so it is >= 1
	// then), decremented by each finisher; whoever brings it to 0 sets
	// latch. It never rises from 0.
	pending atomic.Int64
	// latch is Set once pending reached 0; the owner waits on it.
	latch sleep.CoreLatch
	owner *Worker
	// panicked holds the first panic (CAS from nil); goexit records that
	// a task called runtime.Goexit.
	panicked atomic.Pointer[PanicError]
	goexit   atomic.Bool
}

// scope phases, for the deferred cleanup.
const (
	scopeBody = iota
	scopeWaiting
	scopeDone
)

// Scope calls fn with a new Scope and returns when fn and every task spawned
// in the scope have finished; meanwhile the worker runs spawned tasks and
// other work. If fn or a task panics, the other tasks still run, and Scope
// then panics with the first panic as a *PanicError; if one called
// runtime.Goexit (and none panicked), the caller's goroutine exits after all
// finished. A nil fn panics.
func (w *Worker) Scope(fn func(s *Scope)) {
	if fn == nil {
		panic("blitz: Scope with a nil function")
	}
	st := &scopeState{owner: w}
	st.pending.Store(1)
	phase := scopeBody
	defer func() {
		switch phase {
		case scopeBody:
			st.record(recover())
			st.taskDone()
			fallthrough
		case scopeWaiting:
			w.waitUntil(&st.latch, waitScope)
			if pe := st.panicked.Load(); pe != nil {
				panic(pe)
			}
		}
	}()
	fn(&Scope{st: st, w: w})
	phase = scopeWaiting
	st.taskDone()
	w.waitUntil(&st.latch, waitScope)
	phase = scopeDone
	if pe := st.panicked.Load(); pe != nil {
		panic(pe)
	}
	if st.goexit.Load() {
		runtime.Goexit()
	}
}

// Spawn queues fn to run in the scope, on this worker or a thief. fn receives
// the worker running it and a Scope to spawn more. Spawning into a scope whose
// Scope call has returned, or a nil fn, panics.
func (s *Scope) Spawn(fn func(w *Worker, s *Scope)) {
	if fn == nil {
		panic("blitz: Spawn with a nil function")
	}
	st := s.st
	if st.pending.Add(1) == 1 {
		panic("blitz: Spawn on a finished scope")
	}
	w := s.w
	sp := &w.pool.spawns
	i := sp.alloc()
	sp.slot(i).job = &spawnJob{st: st, fn: fn}
	w.push(spawnRef(i))
}

// record notes a recovered panic (v != nil) or a Goexit (v == nil).
func (st *scopeState) record(v any) {
	if v != nil {
		st.panicked.CompareAndSwap(nil, newPanicError(v))
	} else {
		st.goexit.Store(true)
	}
}

// taskDone is called once by the body and once by each task.
func (st *scopeState) taskDone() {
	if st.pending.Add(-1) == 0 {
		o := st.owner
		if st.latch.Set() {
			o.pool.sleep.NotifyWorkerLatchIsSet(o.index)
		}
	}
}

// spawnJob is a task of a scope, parked in a spawn slot while queued.
type spawnJob struct {
	st *scopeState
	fn func(*Worker, *Scope)
}

func (j *spawnJob) run(w *Worker) {
	st := j.st
	ok := false
	defer func() {
		if !ok {
			st.record(recover())
		}
		st.taskDone()
	}()
	j.fn(w, &Scope{st: st, w: w})
	ok = true
}
