package blitz

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tests of the route into a pool (route.go): every Runner (a *Pool, a *Sub,
// a *Worker) takes the same calls, a *Sub's calls count against its
// bounds, and the closed-pool rule is one for all of them.

// TestRouteSubIsARunner runs every call that takes a Runner on a Sub, from
// outside the pool and from a task of it: from outside, each of their tasks
// is one submission of the Sub (SubStats.Submitted), under its limit; from
// a task of the parent, the waiting calls run on the task's own worker
// (SubStats.Inline) and the rest are still the Sub's tasks.
func TestRouteSubIsARunner(t *testing.T) {
	eachConfig(t, func(t *testing.T, p *Pool) {
		s, err := p.Sub(1, 64)
		require.NoError(t, err)
		ctx := context.Background()
		seven := func(*Worker) int { return 7 }
		calls := func() {
			assert.Equal(t, 7, Do(s, seven))
			v, err := DoContext(ctx, s, seven)
			assert.NoError(t, err)
			assert.Equal(t, 7, v)
			v, err = TryDo(ctx, s, seven)
			assert.NoError(t, err)
			assert.Equal(t, 7, v)
			ran := false
			s.Run(func(*Worker) { ran = true })
			assert.True(t, ran, "Sub.Run")
		}
		handles := func() {
			v, err := Submit(s, func(*Worker) (int, error) { return 7, nil }).Wait()
			assert.NoError(t, err)
			assert.Equal(t, 7, v)
			g, _ := NewGroup(ctx, s)
			g.Go(func(*Worker) error { return nil })
			assert.NoError(t, g.Wait())
			rg, _ := NewResultGroup[int](ctx, s)
			rg.Go(func(*Worker) (int, error) { return 7, nil })
			res, err := rg.Wait()
			assert.NoError(t, err)
			assert.Equal(t, []int{7}, res)
		}
		within(t, "calls on a Sub from outside", func() {
			calls()
			handles()
		})
		// A Group's or a ResultGroup's Wait returns when its task has
		// finished, which the Sub counts completed just after.
		eventually(t, "the Sub's tasks counted completed", func() bool { return s.Stats().Completed == 7 })
		st := s.Stats()
		assert.Equal(t, uint64(7), st.Submitted, "from outside: one task of the Sub per call")
		assert.Equal(t, uint64(7), st.Completed)
		assert.Zero(t, st.Inline)

		within(t, "calls on a Sub from a task of the parent", func() {
			p.Run(func(*Worker) { calls() })
		})
		st = s.Stats()
		assert.Equal(t, uint64(7), st.Submitted, "from a task: no slot taken")
		assert.Equal(t, uint64(4), st.Inline, "Do, DoContext, TryDo and Run from a task of the parent")
		require.NoError(t, s.Close())
	})
}

// TestRouteWorkerRunner: a *Worker given where a Runner goes runs the
// waiting calls right there, on the task's own worker, and sends Submit's
// and a group's tasks to its pool.
func TestRouteWorkerRunner(t *testing.T) {
	eachConfig(t, func(t *testing.T, p *Pool) {
		ctx := context.Background()
		within(t, "calls given the task's *Worker", func() {
			p.Run(func(w *Worker) {
				self := func(x *Worker) *Worker { return x }
				assert.Same(t, w, Do(w, self), "Do(w) runs on w")
				got, err := DoContext(ctx, w, self)
				assert.NoError(t, err)
				assert.Same(t, w, got, "DoContext(w) runs on w")
				got, err = TryDo(ctx, w, self)
				assert.NoError(t, err)
				assert.Same(t, w, got, "TryDo(w) runs on w")
				pool, err := Submit(w, func(x *Worker) (*Pool, error) { return x.Pool(), nil }).Wait()
				assert.NoError(t, err)
				assert.Same(t, p, pool, "Submit(w) runs on w's pool")
				g, _ := NewGroup(ctx, w)
				g.Go(func(x *Worker) error {
					if x.Pool() != p {
						return errors.New("a group on w ran elsewhere")
					}
					return nil
				})
				assert.NoError(t, g.Wait())
			})
		})
	})
}

// TestSubGoContext: Sub.GoContext refuses a context already ended, waits
// for room in the Sub's full queue until its context ends (the task never
// runs, SubStats.Abandoned counts it), and a task it submits sees its
// context as w.Context().
func TestSubGoContext(t *testing.T) {
	eachConfig(t, func(t *testing.T, p *Pool) {
		s, err := p.Sub(1, 0)
		require.NoError(t, err)
		ran := make(chan struct{}, 4)
		err = s.GoContext(cancelled(), func(*Worker) { ran <- struct{}{} })
		assert.ErrorIs(t, err, context.Canceled)
		assert.Contains(t, err.Error(), "blitz: Sub.GoContext: ")

		// Hold the one slot; the queue has no room.
		hold, release := make(chan struct{}), make(chan struct{})
		require.NoError(t, s.Go(func(*Worker) { close(hold); <-release }))
		waitOrDump(t, hold, "the slot's task starting")
		assert.ErrorIs(t, s.TryGo(func(*Worker) { ran <- struct{}{} }), ErrQueueFull)
		cctx, cancel := context.WithCancel(context.Background())
		ctx := watch(cctx)
		errc := make(chan error, 1)
		go func() { errc <- s.GoContext(ctx, func(*Worker) { ran <- struct{}{} }) }()
		ctx.waitWatched(t, "GoContext waiting for room")
		cancel()
		err = <-errc
		assert.ErrorIs(t, err, context.Canceled)
		close(release)

		type key struct{}
		vctx := context.WithValue(context.Background(), key{}, "v")
		seen := make(chan any, 1)
		require.NoError(t, s.GoContext(vctx, func(w *Worker) { seen <- w.Context().Value(key{}) }))
		var v any
		within(t, "the GoContext task", func() { v = <-seen })
		assert.Equal(t, "v", v)
		require.NoError(t, s.Close())
		assert.Empty(t, ran, "a refused or abandoned task ran")
		assert.Equal(t, uint64(1), s.Stats().Abandoned)
		assert.Equal(t, uint64(1), s.Stats().Rejected)
	})
}

// TestSubClosed: Closed reports the Sub's own Close and the parent's.
func TestSubClosed(t *testing.T) {
	p, err := New(WithWorkers(1))
	require.NoError(t, err)
	a, err := p.Sub(1, 1)
	require.NoError(t, err)
	b, err := p.Sub(1, 1)
	require.NoError(t, err)
	assert.False(t, a.Closed())
	require.NoError(t, a.Close())
	assert.True(t, a.Closed())
	assert.False(t, b.Closed())
	require.NoError(t, p.Close())
	assert.True(t, b.Closed(), "the parent's Close closes its Subs")
	requirePanicMessage(t, "blitz: Sub.Closed: nil *Sub", func() { (*Sub)(nil).Closed() })
}

// TestRouteClosedRule: a closed Sub, as a closed pool, refuses every call:
// those that return an error return ErrClosed, and Do and Run, which have
// none to return, panic with an error that wraps it and names the call.
func TestRouteClosedRule(t *testing.T) {
	p, err := New(WithWorkers(1))
	require.NoError(t, err)
	defer func() { require.NoError(t, p.Close()) }()
	s, err := p.Sub(1, 1)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	q, err := New(WithWorkers(1))
	require.NoError(t, err)
	require.NoError(t, q.Close())
	ctx := context.Background()
	noop := func(*Worker) {}
	zero := func(*Worker) int { return 0 }
	for _, r := range []Runner{s, q} {
		var errs []error
		switch r := r.(type) {
		case *Sub:
			errs = append(errs, r.Go(noop), r.TryGo(noop), r.GoContext(ctx, noop))
		case *Pool:
			errs = append(errs, r.Go(noop), r.TryGo(noop), r.GoContext(ctx, noop))
		}
		_, err := DoContext(ctx, r, zero)
		errs = append(errs, err)
		_, err = TryDo(ctx, r, zero)
		errs = append(errs, err)
		_, err = Submit(r, func(*Worker) (int, error) { return 0, nil }).Wait()
		errs = append(errs, err)
		g, _ := NewGroup(ctx, r)
		g.Go(func(*Worker) error { return nil })
		errs = append(errs, g.Wait())
		for i, err := range errs {
			assert.ErrorIs(t, err, ErrClosed, "%T: call %d", r, i)
		}
		run := map[string]func(){"Do": func() { Do(r, zero) }}
		switch r := r.(type) {
		case *Sub:
			run["Sub.Run"] = func() { r.Run(noop) }
		case *Pool:
			run["Pool.Run"] = func() { r.Run(noop) }
		}
		for name, f := range run {
			v := catchPanic(f)
			err, ok := v.(error)
			require.True(t, ok, "%s on a closed %T: panic %v", name, r, v)
			assert.ErrorIs(t, err, ErrClosed, name)
			assert.Contains(t, err.Error(), "blitz: "+name+": ", name)
		}
	}
}
