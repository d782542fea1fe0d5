package errgroup_test

import (
	"context"
	"errors"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/errgroup"
	"github.com/blitz-go/blitz/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests in this file check what the package documents beyond
// golang.org/x/sync/errgroup's behaviour: it runs on blitz.Default(), and
// keeps blitz's rules where the two differ. They run on this package only.

// faceGroups returns a zero Group and a WithContext one (its context in
// ctxs; nil for the zero Group).
func faceGroups() (gs []*errgroup.Group, ctxs []context.Context) {
	g, ctx := errgroup.WithContext(context.Background())
	return []*errgroup.Group{new(errgroup.Group), g}, []context.Context{nil, ctx}
}

// TestRunsOnDefault: the functions given to Go and TryGo run on workers of
// blitz.Default().
func TestRunsOnDefault(t *testing.T) {
	gs, _ := faceGroups()
	for _, g := range gs {
		var onDefault atomic.Int64
		f := func() error {
			if blitz.Default().Current() != nil {
				onDefault.Add(1)
			}
			return nil
		}
		for range 10 {
			g.Go(f)
			require.True(t, g.TryGo(f))
		}
		within(t, "Wait", func() { assert.NoError(t, g.Wait()) })
		assert.Equal(t, int64(20), onDefault.Load())
	}
}

// TestPanicReachesWait: a panic in a function cancels the context with
// the panic as its cause, and Wait raises it as a *blitz.PanicError once
// every function returned, in each Wait until a new batch starts.
func TestPanicReachesWait(t *testing.T) {
	gs, ctxs := faceGroups()
	for i, g := range gs {
		var others atomic.Int64
		for range 10 {
			g.Go(func() error { others.Add(1); return nil })
		}
		g.Go(func() error { panic("boom") })
		for range 2 {
			v := testkit.CatchPanic(func() { _ = g.Wait() })
			pe, ok := v.(*blitz.PanicError)
			require.True(t, ok, "Wait panicked with %v (%T), want a *blitz.PanicError", v, v)
			assert.Equal(t, "boom", pe.Value)
			assert.Contains(t, string(pe.Stack), "TestPanicReachesWait", "the stack where it panicked")
			assert.Equal(t, int64(10), others.Load(), "Wait raised the panic before every function returned")
		}
		if ctx := ctxs[i]; ctx != nil {
			assert.ErrorIs(t, context.Cause(ctx), blitz.ErrPanic)
		}
		g.Go(func() error { return nil })
		within(t, "Wait of a new batch", func() { assert.NoError(t, g.Wait()) })
	}
}

// TestGoexitReachesWait: a function that calls runtime.Goexit ends, and
// Wait calls runtime.Goexit, until a new batch starts.
func TestGoexitReachesWait(t *testing.T) {
	gs, _ := faceGroups()
	for _, g := range gs {
		g.Go(func() error { runtime.Goexit(); return nil })
		assert.True(t, testkit.ExitsGoroutine(t, func() { _ = g.Wait() }), "Wait after a Goexit")
		g.Go(func() error { return nil })
		assert.False(t, testkit.ExitsGoroutine(t, func() { assert.NoError(t, g.Wait()) }), "Wait of a new batch")
	}
}

// TestGoFromFunctionAtLimit: Go called by a function of the group while it
// is at its limit queues the new function and returns, where errgroup's
// would wait for a slot that its caller holds; the limit still holds.
func TestGoFromFunctionAtLimit(t *testing.T) {
	gs, _ := faceGroups()
	for _, g := range gs {
		g.SetLimit(1)
		var gauge gauge
		var ran atomic.Int64
		var add func(depth int) func() error
		add = func(depth int) func() error {
			return func() error {
				gauge.enter()
				defer gauge.leave()
				ran.Add(1)
				if depth < 3 {
					g.Go(add(depth + 1))
					g.Go(add(depth + 1))
				}
				return nil
			}
		}
		g.Go(add(0))
		within(t, "Wait", func() { assert.NoError(t, g.Wait()) })
		assert.Equal(t, int64(15), ran.Load())
		assert.Equal(t, int64(1), gauge.peak.Load(), "functions running at once, limit 1")
	}
}

// TestWaitFromOwnFunction: a function of the group that waits for it
// panics instead of waiting for itself; the panic reaches Wait.
func TestWaitFromOwnFunction(t *testing.T) {
	gs, _ := faceGroups()
	for _, g := range gs {
		g.Go(func() error { return g.Wait() })
		v := testkit.CatchPanic(func() { _ = g.Wait() })
		pe, ok := v.(*blitz.PanicError)
		require.True(t, ok, "Wait panicked with %v (%T), want a *blitz.PanicError", v, v)
		assert.Equal(t, "blitz: Group.Wait: called from a task of the same group, which would wait for itself", pe.Value)
	}
}

// TestNilFunction: Go and TryGo refuse a nil function at once.
func TestNilFunction(t *testing.T) {
	var g errgroup.Group
	assert.PanicsWithValue(t, "errgroup: Group.Go: nil function", func() { g.Go(nil) })
	assert.PanicsWithValue(t, "errgroup: Group.TryGo: nil function", func() { g.TryGo(nil) })
	assert.NoError(t, g.Wait())
}

// TestErrorsUnwrapped: Wait returns the function's error itself, as
// errgroup does, so errors.Is and == both hold.
func TestErrorsUnwrapped(t *testing.T) {
	errDoom := errors.New("doom")
	var g errgroup.Group
	g.Go(func() error { return errDoom })
	err := g.Wait()
	assert.Equal(t, errDoom, err)
}

// TestImportGraph: the package links blitz only: golang.org/x/sync, which
// its tests compare it with, is not a dependency of a program that uses it.
func TestImportGraph(t *testing.T) {
	testkit.SkipIfEmulated(t)
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the import graph with")
	}
	out, err := exec.Command(gotool, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	require.NoError(t, err, "go list -deps")
	deps := strings.Fields(string(out))
	assert.Contains(t, deps, "github.com/blitz-go/blitz")
	for _, d := range deps {
		assert.False(t, strings.HasPrefix(d, "golang.org/x/sync"), "the package links %s", d)
	}
}
