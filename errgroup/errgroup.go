package errgroup

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/blitz-go/blitz"
)

// A Group is a collection of tasks working on subtasks that are part of the
// same overall task, run on blitz.Default(). A Group should not be reused
// for different tasks; it may be given more functions after Wait returned,
// which the next Wait waits for.
//
// A zero Group is valid, has no limit on the number of active tasks, and
// does not cancel on error.
//
// It is a blitz.Group under golang.org/x/sync/errgroup's API: the package
// documentation says what differs.
type Group struct {
	zero blitz.Group  // the group of a zero Group
	made *blitz.Group // WithContext's group, used instead of zero; nil for none

	// active counts the functions given to Go or TryGo since the last
	// SetLimit with n >= 0 and not returned, as errgroup's semaphore holds
	// a token for each: SetLimit panics while it is not 0. nil without a
	// limit (the zero Group's). Written by SetLimit, which errgroup
	// forbids calling concurrently with Go; each function's wrapper keeps
	// the counter it was counted in.
	active *atomic.Int64
}

// group is the blitz.Group that runs g's tasks.
func (g *Group) group() *blitz.Group {
	if g.made != nil {
		return g.made
	}
	return &g.zero
}

// WithContext returns a new Group and an associated Context derived from ctx.
//
// The derived Context is canceled the first time a function passed to Go
// returns a non-nil error or the first time Wait returns, whichever occurs
// first.
func WithContext(ctx context.Context) (*Group, context.Context) {
	g, ctx := blitz.NewGroup(ctx, blitz.Default())
	return &Group{made: g}, ctx
}

// Wait blocks until all function calls from the Go method have returned, then
// returns the first non-nil error (if any) from them.
//
// If one of them panicked, Wait panics with a *blitz.PanicError carrying the
// first panic's value and stack instead; if one called runtime.Goexit (and
// none panicked), Wait calls runtime.Goexit.
func (g *Group) Wait() error {
	return g.group().Wait()
}

// Go calls the given function in a new task on blitz.Default().
//
// Go may be called at any time, from any goroutine; after Wait returned, it
// starts a new batch, which the next Wait waits for.
// It blocks until the new task can be added without the number of active
// tasks in the group exceeding the configured limit; called from a task of
// blitz.Default() (a function of the group included), it queues the task
// instead and returns, since the task that must finish to free a slot may
// be the caller itself.
//
// The first task in the group that returns a non-nil error will cancel the
// associated Context, if any. The error will be returned by Wait.
func (g *Group) Go(f func() error) {
	if f == nil {
		panic("errgroup: Group.Go: nil function")
	}
	g.group().Go(g.task(f))
}

// TryGo calls the given function in a new task on blitz.Default() only if
// the number of active tasks in the group is currently below the configured
// limit.
//
// The return value reports whether the task was started.
func (g *Group) TryGo(f func() error) bool {
	if f == nil {
		panic("errgroup: Group.TryGo: nil function")
	}
	active := g.active
	if g.group().TryGo(g.task(f)) != nil {
		if active != nil {
			active.Add(-1)
		}
		return false
	}
	return true
}

// task wraps f as a blitz task, counted in g.active from now until it
// returns.
func (g *Group) task(f func() error) func(*blitz.Worker) error {
	active := g.active
	if active == nil {
		return func(*blitz.Worker) error { return f() }
	}
	active.Add(1)
	return func(*blitz.Worker) error {
		defer active.Add(-1)
		return f()
	}
}

// SetLimit limits the number of active tasks in this group to at most n.
// A negative value indicates no limit.
// A limit of zero will prevent any new tasks from being added.
//
// Any subsequent call to the Go method will block until it can add an active
// task without exceeding the configured limit.
//
// The limit must not be modified while any tasks in the group are active:
// SetLimit(n) with n >= 0 panics then, as errgroup's does.
func (g *Group) SetLimit(n int) {
	if n < 0 {
		g.active = nil
		g.group().SetLimit(-1)
		return
	}
	if g.active != nil {
		if active := g.active.Load(); active != 0 {
			panic(fmt.Errorf("errgroup: modify limit while %v goroutines in the group are still active", active))
		}
	}
	g.active = new(atomic.Int64)
	g.group().SetLimit(n)
}
