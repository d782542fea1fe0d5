package blitz

import (
	"context"
	"errors"
	"slices"
	"sync"
)

// Results in the order of Go.
//
// A ResultGroup is a face on a Group (group.go), not a second engine: its
// Go wraps fn in a group task that stores fn's result, and the Group does
// the rest. The order comes from the Group: Go numbers each task
// (groupTask.seq) under the group's mutex, where it counts the task
// pending, and Wait returns the number given when it saw nothing pending
// (Group.wait), so every task numbered below it has finished and stored its
// outcome. Wait hands out the results numbered from base, where the
// previous Wait stopped, to that number, and keeps those above it: a Go
// racing with a Wait takes a higher number and lands in the next batch
// whole, and no task writes into a slice Wait has returned. A task the
// pool refuses never runs: the Group tells its refusal to the task's sink
// (the ResultGroup), which stores it as the task's error.

// A ResultGroup is a Group whose tasks return a result: Wait returns the
// results in the order of Go, whichever order the tasks finished in, with
// the group's error (conc's ResultPool, on the pool). Everything else is
// the Group's, which it is built on: where tasks run and where Wait waits,
// SetLimit, the context that the first error cancels, reuse after Wait, and
// the rules for panics and Goexits (Wait re-panics the first panic as a
// *PanicError; Submit is the form that returns a panic as an error). The
// zero ResultGroup runs its tasks on Default() and has no context, as the
// zero Group does. A ResultGroup must not be copied after first use.
//
// Wait returns one result per task, in the order of Go: result i is the T
// that the i-th task returned, whether it also returned an error or not
// (the caller pairs it with its error if it needs to), or the zero T for a
// task that returned none: the pool refused it (it was closing), or it
// panicked or exited (see Batches). By
// default the error is the Group's: the first error a task returned, for
// the group's life. After JoinErrors it is every error of the batch,
// joined with errors.Join in the order of Go (nil if none).
//
// Batches. Each Wait returns the results of the tasks given to Go since
// the previous Wait returned (all of them, for the first), which it waited
// for; a Go after that starts the next batch, as it does in a Group. If
// Wait panics or exits (a task panicked or called runtime.Goexit), the
// batch's results stay, and the next Wait returns them with its own.
type ResultGroup[T any] struct {
	g Group

	mu sync.Mutex
	// base is the number (groupTask.seq) of the first task of the batch
	// that Wait returns next; res and errs hold the outcomes from base on,
	// by seq-base, growing as outcomes arrive (errs only when an error
	// does). Every element between len and cap is the zero value. Under
	// mu, like join.
	base uint64
	res  []T
	errs []error
	join bool
}

// NewResultGroup returns a ResultGroup that runs its tasks on r, as
// NewGroup's Group does, and the group's context, derived from ctx and
// cancelled, as NewGroup's is, when a task returns an error or panics, or
// when Wait returns. On a Sub, the tasks take the Sub's slots, but for
// those that a Wait called from a task of the parent pool runs itself (see
// Group). A nil r or ctx panics.
func NewResultGroup[T any](ctx context.Context, r Runner) (*ResultGroup[T], context.Context) {
	if ctx == nil {
		panic("blitz: NewResultGroup: nil context")
	}
	d := destOf(r, "NewResultGroup")
	g := new(ResultGroup[T])
	return g, g.g.init(ctx, d.p, d.s)
}

// Go starts fn(w) in the group, as Group.Go does, and keeps its result in
// the place of this call among the group's Go calls. A nil fn panics.
func (r *ResultGroup[T]) Go(fn func(w *Worker) (T, error)) {
	if fn == nil {
		panic("blitz: ResultGroup.Go: nil function")
	}
	t := &groupTask{g: &r.g, parent: currentWorker().runningGroupTask(), sink: r, labels: currentLabels()}
	t.fn = func(w *Worker) error {
		v, err := fn(w)
		r.store(t.seq, v, err)
		return err
	}
	r.g.goTask(t)
}

// SetLimit limits the group to n tasks under way at once, as
// Group.SetLimit does.
func (r *ResultGroup[T]) SetLimit(n int) { r.g.SetLimit(n) }

// JoinErrors makes the Waits that follow return every error of their
// batch, joined with errors.Join in the order of Go, instead of the first
// error. The context is still cancelled at the first error.
func (r *ResultGroup[T]) JoinErrors() {
	r.mu.Lock()
	r.join = true
	r.mu.Unlock()
}

// Wait waits for the tasks as Group.Wait does and returns the results of
// the batch, in the order of Go, with the group's error (see ResultGroup).
// The results are the caller's: the group keeps no reference to them.
func (r *ResultGroup[T]) Wait() ([]T, error) {
	n, err := r.g.wait("ResultGroup.Wait")
	r.mu.Lock()
	defer r.mu.Unlock()
	// Every task numbered below n has finished; those below base were
	// returned already, by a Wait that returned since this one saw n.
	k := 0
	if n > r.base {
		k = int(n - r.base)
	}
	if len(r.res) < k {
		r.res = slices.Grow(r.res, k-len(r.res))[:k]
	}
	res := r.res[:k:k]
	r.res = slices.Clone(r.res[k:]) // the next batch's, if any finished already
	if r.join {
		err = nil
		if len(r.errs) > 0 {
			err = errors.Join(r.errs[:min(k, len(r.errs))]...)
		}
	}
	if len(r.errs) > k {
		r.errs = slices.Clone(r.errs[k:])
	} else {
		r.errs = nil
	}
	r.base = max(r.base, n)
	if k == 0 {
		res = nil
	}
	return res, err
}

// store records the outcome of the task numbered seq.
func (r *ResultGroup[T]) store(seq uint64, v T, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := int(seq - r.base)
	if i >= len(r.res) {
		r.res = slices.Grow(r.res, i+1-len(r.res))[:i+1]
	}
	r.res[i] = v
	if err != nil {
		if i >= len(r.errs) {
			r.errs = slices.Grow(r.errs, i+1-len(r.errs))[:i+1]
		}
		r.errs[i] = err
	}
}

// refused records the pool's refusal of the task numbered seq as its error
// (refusalSink).
func (r *ResultGroup[T]) refused(seq uint64, err error) {
	var zero T
	r.store(seq, zero, err)
}
