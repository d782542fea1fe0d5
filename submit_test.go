package blitz

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSubmitNilFunction checks that every entry point panics naming itself
// on a nil function, before it queues anything.
func TestSubmitNilFunction(t *testing.T) {
	withPool(t, []Option{WithWorkers(2)}, func(p *Pool) {
		ctx := context.Background()
		for _, c := range []struct {
			name string
			f    func()
		}{
			{"Pool.Go", func() { p.Go(nil) }},
			{"Pool.TryGo", func() { p.TryGo(nil) }},
			{"Pool.GoContext", func() { p.GoContext(ctx, nil) }},
			{"Pool.Run", func() { p.Run(nil) }},
			{"Do", func() { Do[int](p, nil) }},
			{"Pool.RunFrom", func() { p.RunFrom(nil, nil) }},
			{"DoFrom", func() { DoFrom[int](nil, p, nil) }},
			{"DoContext", func() { DoContext[int](ctx, p, nil) }},
			{"TryDo", func() { TryDo[int](ctx, p, nil) }},
		} {
			requirePanicMessage(t, "blitz: "+c.name+": nil function", c.f)
		}
		assert.Zero(t, queued(p), "queue depth after nil-function calls")
	})
}

// TestSubmitClosedPanics checks that the waiting entry points, and the
// data-parallel functions that enter a pool, panic on a closed pool with an
// error that names the function the caller called and wraps ErrClosed.
func TestSubmitClosedPanics(t *testing.T) {
	p, err := New(WithWorkers(2))
	require.NoError(t, err)
	require.NoError(t, p.Close())
	other, err := New(WithWorkers(1))
	require.NoError(t, err)
	defer func() { require.NoError(t, other.Close()) }()
	big := make([]int, 1<<16)
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"Pool.Run", func() { p.Run(func(*Worker) {}) }},
		{"Do", func() { Do(p, func(*Worker) int { return 0 }) }},
		{"Pool.RunFrom", func() { p.RunFrom(nil, func(*Worker) {}) }},
		{"DoFrom", func() { DoFrom(nil, p, func(*Worker) int { return 0 }) }},
		{"ForEach", func() { ForEach(p, big, func(int) {}) }},
		{"Sum", func() { Sum(p, big) }},
		{"Sort", func() { Sort(p, big) }},
		{"SortFunc", func() { SortFunc(p, big, func(a, b int) int { return a - b }) }},
		{"SortStableFunc", func() { SortStableFunc(p, big, func(a, b int) int { return a - b }) }},
	} {
		v := catchPanic(c.f)
		err, ok := v.(error)
		require.True(t, ok, "%s on a closed pool: panic %v (%T), want an error", c.name, v, v)
		assert.ErrorIs(t, err, ErrClosed, c.name)
		assert.True(t, strings.HasPrefix(err.Error(), "blitz: "+c.name+": "), "%s: %q does not name it", c.name, err)
	}
	// From a worker of another pool.
	v := catchPanic(func() {
		other.Run(func(w *Worker) { DoFrom(w, p, func(*Worker) int { return 0 }) })
	})
	var pe *PanicError
	require.True(t, errors.As(v.(error), &pe), "DoFrom from another pool: %v", v)
	err, ok := pe.Value.(error)
	require.True(t, ok, "DoFrom from another pool: panic value %v", pe.Value)
	assert.ErrorIs(t, err, ErrClosed)
	assert.True(t, strings.HasPrefix(err.Error(), "blitz: DoFrom: "), "%q does not name DoFrom", err)
}

// TestSubmitWaitForRoomNamesCaller checks that a submission whose context
// ends while it waits for room reports the entry point the caller called.
func TestSubmitWaitForRoomNamesCaller(t *testing.T) {
	withPool(t, []Option{WithWorkers(1), WithCapacity(1)}, func(p *Pool) {
		release := make(chan struct{})
		started := make(chan struct{})
		require.NoError(t, p.Go(func(*Worker) { close(started); <-release }))
		<-started
		require.NoError(t, p.Go(func(*Worker) {})) // the queue is full now
		for _, name := range []string{"Pool.GoContext", "DoContext"} {
			ctx, cancel := context.WithCancel(context.Background())
			wctx := watch(ctx)
			errc := make(chan error, 1)
			go func() {
				if name == "DoContext" {
					_, err := DoContext(wctx, p, func(*Worker) int { return 0 })
					errc <- err
					return
				}
				errc <- p.GoContext(wctx, func(*Worker) {})
			}()
			wctx.waitWatched(t, name+" waiting for room")
			cancel()
			err := <-errc
			assert.ErrorIs(t, err, context.Canceled, name)
			assert.Equal(t, "blitz: "+name+": waiting for room in the queue: context canceled", err.Error())
		}
		close(release)
	})
}
