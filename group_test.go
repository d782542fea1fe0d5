package blitz

import (
	"context"
	"errors"
	"os"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// zeroGroupChildEnv makes TestGroupZeroValue run its body: the zero Group
// runs on Default(), which is never closed, so the test runs in a child
// process, as the default pool's tests do (see TestDefault).
const zeroGroupChildEnv = "BLITZ_TEST_ZERO_GROUP"

// TestGroupZeroValue: the zero Group, as errgroup's, is ready to use. It
// runs its tasks on Default(), from a plain goroutine, from a task of
// Default() (whose Wait runs the queued tasks on its worker) and from a
// task of another pool; Wait returns the first error; SetLimit bounds it; a
// zero Group's task may wait for a zero Group of its own; a reused zero
// Group reports panics as TestGroupReusePanic says.
func TestGroupZeroValue(t *testing.T) {
	if os.Getenv(zeroGroupChildEnv) == "" {
		runChild(t, "TestGroupZeroValue", zeroGroupChildEnv+"=1")
		return
	}
	var empty Group
	within(t, "Wait with no task", func() { require.NoError(t, empty.Wait()) })

	errFirst := errors.New("first")
	var g Group
	const n = 64
	var onDefault atomic.Int64
	for i := range n {
		g.Go(func(w *Worker) error {
			if w.Pool() == Default() {
				onDefault.Add(1)
			}
			if i == n/2 {
				return errFirst
			}
			return nil
		})
	}
	within(t, "Wait", func() { require.ErrorIs(t, g.Wait(), errFirst) })
	assert.Equal(t, int64(n), onDefault.Load(), "tasks run on Default()")

	p, err := New(WithWorkers(2))
	require.NoError(t, err)
	defer func() { require.NoError(t, p.Close()) }()
	for _, caller := range []*Pool{Default(), p} {
		var gauge peakGauge
		var ran atomic.Int64
		err := doW(t, caller, func(*Worker) error {
			var g Group
			g.SetLimit(2)
			for range 16 {
				g.Go(func(*Worker) error {
					defer gauge.leave()
					gauge.enter()
					var inner Group
					inner.Go(func(*Worker) error { ran.Add(1); return nil })
					return inner.Wait()
				})
			}
			return g.Wait()
		})
		require.NoError(t, err, "called from a task of %s", caller.Name())
		assert.Equal(t, int64(16), ran.Load())
		assert.LessOrEqual(t, gauge.peak.Load(), int64(2), "tasks under way at once, limit 2")
	}

	var got []any
	within(t, "a reused zero Group", func() { got = reusePanicScenario(new(Group)) })
	assert.Equal(t, reusePanicWant, got, "a reused zero Group")
}

// TestGroupReuseError: a Group reused after Wait keeps errgroup's rules:
// each batch runs, every later Wait returns the first error, and the
// context, cancelled by the first Wait, stays cancelled with its cause.
func TestGroupReuseError(t *testing.T) {
	eachConfig(t, func(t *testing.T, p *Pool) {
		errFirst, errLater := errors.New("first"), errors.New("later")
		g, ctx := NewGroup(context.Background(), p)
		var ran atomic.Int64
		task := func(err error) func(*Worker) error {
			return func(*Worker) error { ran.Add(1); return err }
		}
		g.Go(task(nil))
		within(t, "Wait 1", func() { require.NoError(t, g.Wait()) })
		require.ErrorIs(t, ctx.Err(), context.Canceled, "the first Wait cancels the context")
		g.Go(task(errFirst))
		within(t, "Wait 2", func() { require.ErrorIs(t, g.Wait(), errFirst) })
		require.NoError(t, g.TryGo(task(errLater)))
		within(t, "Wait 3", func() { require.ErrorIs(t, g.Wait(), errFirst, "the first error, for good") })
		within(t, "Wait 4, no new task", func() { require.ErrorIs(t, g.Wait(), errFirst) })
		assert.Equal(t, int64(3), ran.Load())
		assert.ErrorIs(t, context.Cause(ctx), context.Canceled, "the cause the first Wait gave")
	})
}

// panicValueOf returns the Value of the *PanicError f panics with, or a
// string saying what else it did.
func panicValueOf(f func()) any {
	switch v := catchPanic(f).(type) {
	case nil:
		return "no panic"
	case *PanicError:
		return v.Value
	default:
		return v
	}
}

// TestGroupReusePanic: a panic belongs to its batch. Every Wait reports it
// until a Go or TryGo starts a new batch, whose Wait reports only the
// panics of its own tasks; so a panic recovered from one Wait is not raised
// again for a reused group. Checked with Wait from the test goroutine and
// from a task of the pool (which runs the queued tasks itself).
func TestGroupReusePanic(t *testing.T) {
	eachConfig(t, func(t *testing.T, p *Pool) {
		var got []any
		within(t, "outside the pool", func() {
			g, _ := NewGroup(context.Background(), p)
			got = reusePanicScenario(g)
		})
		assert.Equal(t, reusePanicWant, got, "a Group on the pool")
		got = doW(t, p, func(w *Worker) []any {
			g, _ := NewGroup(context.Background(), w)
			return reusePanicScenario(g)
		})
		assert.Equal(t, reusePanicWant, got, "a Group waited for by a task")
	})
}

// reusePanicScenario gives g a batch with a panic, one without, and one
// with another panic, and returns what each Wait panicked with
// (panicValueOf): reusePanicWant.
func reusePanicScenario(g *Group) []any {
	var got []any
	wait := func() { got = append(got, panicValueOf(func() { _ = g.Wait() })) }
	g.Go(func(*Worker) error { panic("first") })
	g.Go(func(*Worker) error { return nil })
	wait()
	wait() // the same batch: reported again
	g.Go(func(*Worker) error { return nil })
	wait() // a new batch without a panic
	_ = g.TryGo(func(*Worker) error { panic("second") })
	wait()
	return got
}

var reusePanicWant = []any{"first", "first", "no panic", "second"}

// TestGroupReuseGoexit: a Goexit, as a panic, belongs to its batch: Wait
// calls runtime.Goexit for it until a new batch starts.
func TestGroupReuseGoexit(t *testing.T) {
	eachConfig(t, func(t *testing.T, p *Pool) {
		g, _ := NewGroup(context.Background(), p)
		g.Go(func(*Worker) error { runtime.Goexit(); return nil })
		assert.True(t, exitsGoroutine(t, func() { _ = g.Wait() }), "Wait after a task's Goexit")
		assert.True(t, exitsGoroutine(t, func() { _ = g.Wait() }), "Wait again, same batch")
		g.Go(func(*Worker) error { return nil })
		assert.False(t, exitsGoroutine(t, func() { assert.NoError(t, g.Wait()) }), "Wait of a new batch")
	})
}

// TestGroupReuseInlineGoexit: a Wait whose goroutine a Goexit of a task it
// runs itself ends reports that Goexit, and leaves the panic of the same
// batch to the next Wait, which reports it until a new batch starts. On a
// pool of one worker, the Wait of the task that made the group runs both
// tasks itself.
func TestGroupReuseInlineGoexit(t *testing.T) {
	withPool(t, []Option{WithWorkers(1)}, func(p *Pool) {
		var g *Group
		exited := exitsGoroutine(t, func() {
			Do(p, func(w *Worker) int {
				g, _ = NewGroup(context.Background(), w)
				g.Go(func(*Worker) error { panic("left") })
				g.Go(func(*Worker) error { runtime.Goexit(); return nil })
				_ = g.Wait()
				return 0
			})
		})
		require.True(t, exited, "the Do caller exits with the Goexit of the task Wait ran")
		assert.Equal(t, "left", panicValueOf(func() { _ = g.Wait() }), "the panic, for the next Wait")
		assert.Equal(t, "left", panicValueOf(func() { _ = g.Wait() }), "the same batch")
		g.Go(func(*Worker) error { return nil })
		assert.Equal(t, "no panic", panicValueOf(func() { assert.NoError(t, g.Wait()) }), "a new batch")
	})
}
