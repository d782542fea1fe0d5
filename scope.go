package blitz

import (
	"runtime"
)

// scope phases, for the deferred cleanup.
const (
	scopeBody = iota
	scopeWaiting
	scopeDone
)

// Scope calls fn with a new Scope and returns when fn and every task spawned
// in the scope have finished; meanwhile the worker runs the scope's tasks
// (and only those). If fn or a task panics, the other tasks
// still run, and Scope then panics with the first panic as a *PanicError; if
// one called runtime.Goexit (and none panicked), the caller's goroutine
// exits after all finished. A nil fn panics.
func (w *Worker) Scope(fn func(s *Scope)) {
	if w == nil {
		panic("blitz: Worker.Scope: nil *Worker")
	}
	if fn == nil {
		panic("blitz: Worker.Scope: nil function")
	}
	w.checkLive("Worker.Scope")
	st := &scopeState{owner: w, origin: w.origin, group: w.groupTask}
	st.pending.Store(1)
	phase := scopeBody
	defer func() {
		switch phase {
		case scopeBody:
			st.record(unwinding(recover()))
			st.taskDone()
			fallthrough
		case scopeWaiting:
			// A task run while waiting called Goexit (tasks recover their
			// own panics), or the body ended early: wait for the rest.
			w.settleScope(st)
			if pe := st.panicked.Load(); pe != nil {
				panic(pe)
			}
		}
	}()
	fn(w.scopeFor(st))
	phase = scopeWaiting
	st.taskDone()
	w.waitScope(st)
	phase = scopeDone
	if pe := st.panicked.Load(); pe != nil {
		panic(pe)
	}
	if st.goexit.Load() {
		runtime.Goexit()
	}
}

// settleScope waits for every task of st while the owner's goroutine
// unwinds, running them as waitScope does. If a task it runs calls Goexit,
// its deferred call waits again (once per Goexit), so the unwinding goes
// past the scope only after all its tasks finished.
func (w *Worker) settleScope(st *scopeState) {
	defer func() {
		if !st.latch.Probe() {
			w.settleScope(st)
		}
	}()
	w.waitScope(st)
}

// Spawn queues fn to run in the scope, on this worker or a thief. fn receives
// the worker running it and a Scope to spawn more. A spawn allocates nothing
// itself (fn does, if it is a closure that captures variables). Spawning into
// a scope whose Scope call has returned, or a nil fn, panics.
func (s *Scope) Spawn(fn func(w *Worker, s *Scope)) {
	if fn == nil {
		panic("blitz: Scope.Spawn: nil function")
	}
	st := s.st
	if st.pending.Add(1) == 1 {
		panic("blitz: Scope.Spawn: the scope has finished")
	}
	w := s.w
	i := w.spawns.alloc()
	w.spawns.slot(i).val = spawnJob{st, fn}
	w.offerBeforePush()
	w.push(spawnRef(w.index, i))
}

// scopeFor returns the *Scope that a function of st running on w receives:
// the body (Worker.Scope) or a task (Worker.runSpawn). A Scope never changes
// after it is made, so the functions of one scope that run on one worker may
// share it: w keeps the last one it made and makes another only for another
// scope. The kept one keeps its scope's state reachable until w enters
// another scope: one per worker.
func (w *Worker) scopeFor(st *scopeState) *Scope {
	if s := w.lastScope; s != nil && s.st == st {
		return s
	}
	s := &Scope{st: st, w: w}
	w.lastScope = s
	return s
}

// record notes a panic (pe != nil) or a Goexit (pe == nil), as classified
// by unwinding.
func (st *scopeState) record(pe *PanicError) {
	if pe != nil {
		st.panicked.CompareAndSwap(nil, pe)
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
