package errgroup_test

import (
	"context"
	"errors"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz/errgroup"
	"github.com/blitz-go/blitz/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	xerrgroup "golang.org/x/sync/errgroup"
)

// The tests in this file and in blocking_test.go are written from
// golang.org/x/sync/errgroup's documentation, once, against group, and run
// against both this package and errgroup itself (eachImpl): what they
// check is errgroup's behaviour, which this package must have too.

// group is the API the two packages share.
type group interface {
	Go(f func() error)
	TryGo(f func() error) bool
	SetLimit(n int)
	Wait() error
}

// impl is one implementation of the API: a zero Group and WithContext.
type impl struct {
	name        string
	zero        func() group
	withContext func(ctx context.Context) (group, context.Context)
}

var impls = []impl{
	{
		name: "blitz",
		zero: func() group { return new(errgroup.Group) },
		withContext: func(ctx context.Context) (group, context.Context) {
			return errgroup.WithContext(ctx)
		},
	},
	{
		name: "x-sync",
		zero: func() group { return new(xerrgroup.Group) },
		withContext: func(ctx context.Context) (group, context.Context) {
			return xerrgroup.WithContext(ctx)
		},
	},
}

// eachImpl runs f as a subtest for each implementation.
func eachImpl(t *testing.T, f func(t *testing.T, im impl)) {
	for _, im := range impls {
		t.Run("impl="+im.name, func(t *testing.T) { f(t, im) })
	}
}

// each returns a zero Group and a WithContext one (its context in ctxs),
// for tests that hold for both.
func (im impl) each() (gs []group, ctxs []context.Context) {
	g, ctx := im.withContext(context.Background())
	return []group{im.zero(), g}, []context.Context{nil, ctx}
}

func within(t testing.TB, what string, f func()) { t.Helper(); testkit.Within(t, what, f) }

// gauge counts the functions running and keeps the most seen at once.
type gauge struct{ now, peak atomic.Int64 }

func (g *gauge) enter() {
	n := g.now.Add(1)
	for p := g.peak.Load(); n > p && !g.peak.CompareAndSwap(p, n); p = g.peak.Load() {
	}
}

func (g *gauge) leave() { g.now.Add(-1) }

// TestAPI: the package has errgroup's API: the same functions and methods,
// with the same signatures.
func TestAPI(t *testing.T) {
	var _ group = (*errgroup.Group)(nil)
	sig := func(f reflect.Type, skip int) (in, out []string) {
		for i := skip; i < f.NumIn(); i++ {
			in = append(in, f.In(i).String())
		}
		for i := range f.NumOut() {
			out = append(out, f.Out(i).String())
		}
		return in, out
	}
	ours, theirs := reflect.TypeOf(new(errgroup.Group)), reflect.TypeOf(new(xerrgroup.Group))
	require.Equal(t, theirs.NumMethod(), ours.NumMethod(), "methods of *Group")
	for i := range theirs.NumMethod() {
		m := theirs.Method(i)
		o, ok := ours.MethodByName(m.Name)
		require.True(t, ok, "method %s", m.Name)
		wantIn, wantOut := sig(m.Type, 1)
		in, out := sig(o.Type, 1)
		assert.Equal(t, wantIn, in, "parameters of %s", m.Name)
		assert.Equal(t, wantOut, out, "results of %s", m.Name)
	}
	assert.Equal(t, reflect.TypeOf(xerrgroup.WithContext).NumOut(), reflect.TypeOf(errgroup.WithContext).NumOut())
	in, out := sig(reflect.TypeOf(errgroup.WithContext), 0)
	assert.Equal(t, []string{"context.Context"}, in)
	assert.Equal(t, []string{"*errgroup.Group", "context.Context"}, out)
}

// TestZeroGroup: a zero Group is valid; Wait returns the first non-nil
// error of the functions given to Go, also when the group is given more
// after a Wait (errgroup's own TestZeroGroup).
func TestZeroGroup(t *testing.T) {
	eachImpl(t, func(t *testing.T, im impl) {
		err1, err2 := errors.New("errgroup_test: 1"), errors.New("errgroup_test: 2")
		for _, errs := range [][]error{{}, {nil}, {err1}, {err1, nil}, {nil, err1, nil, err2}} {
			g := im.zero()
			var first error
			for i, err := range errs {
				g.Go(func() error { return err })
				if first == nil {
					first = err
				}
				within(t, "Wait", func() {
					assert.Equal(t, first, g.Wait(), "Wait after Go for %v", errs[:i+1])
				})
			}
			within(t, "Wait", func() { assert.Equal(t, first, g.Wait(), "Wait again for %v", errs) })
		}
	})
}

// TestWithContextCancelsOnWait: the context is cancelled the first time
// Wait returns, with the first error as its cause (context.Canceled for
// none), and Wait returns that error.
func TestWithContextCancelsOnWait(t *testing.T) {
	eachImpl(t, func(t *testing.T, im impl) {
		errDoom := errors.New("group_test: doomed")
		for _, tc := range []struct {
			errs []error
			want error
		}{
			{want: nil},
			{errs: []error{nil}, want: nil},
			{errs: []error{errDoom}, want: errDoom},
			{errs: []error{errDoom, nil}, want: errDoom},
		} {
			for _, try := range []bool{false, true} {
				g, ctx := im.withContext(context.Background())
				for _, err := range tc.errs {
					if try {
						assert.True(t, g.TryGo(func() error { return err }))
					} else {
						g.Go(func() error { return err })
					}
				}
				within(t, "Wait", func() { assert.Equal(t, tc.want, g.Wait(), "errors %v", tc.errs) })
				require.Error(t, ctx.Err(), "Wait returned and the context is not cancelled")
				cause := tc.want
				if cause == nil {
					cause = context.Canceled
				}
				assert.Equal(t, cause, context.Cause(ctx), "errors %v", tc.errs)
			}
		}
	})
}

// TestWithContextCancelsOnFirstError: the first function that returns an
// error cancels the context, with the error as its cause, before Wait is
// called; a later error changes neither the cause nor what Wait returns.
func TestWithContextCancelsOnFirstError(t *testing.T) {
	eachImpl(t, func(t *testing.T, im impl) {
		errFirst, errLater := errors.New("first"), errors.New("later")
		g, ctx := im.withContext(context.Background())
		g.Go(func() error { return nil })
		g.Go(func() error { return errFirst })
		within(t, "the context's cancellation", func() { <-ctx.Done() })
		assert.Equal(t, errFirst, context.Cause(ctx))
		g.Go(func() error { return errLater })
		within(t, "Wait", func() { assert.Equal(t, errFirst, g.Wait()) })
		assert.Equal(t, errFirst, context.Cause(ctx))
	})
}

// TestSetLimitBoundsConcurrency: with SetLimit(n), no more than n
// functions of the group run at once, however many goroutines call Go, and
// every function runs.
func TestSetLimitBoundsConcurrency(t *testing.T) {
	eachImpl(t, func(t *testing.T, im impl) {
		gs, _ := im.each()
		for _, g := range gs {
			const limit, callers, each = 3, 4, 100
			g.SetLimit(limit)
			var gauge gauge
			var ran atomic.Int64
			within(t, "Go and Wait", func() {
				var wg sync.WaitGroup
				for range callers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for range each {
							g.Go(func() error {
								gauge.enter()
								defer gauge.leave()
								ran.Add(1)
								runtime.Gosched()
								return nil
							})
						}
					}()
				}
				wg.Wait()
				assert.NoError(t, g.Wait())
			})
			assert.Equal(t, int64(callers*each), ran.Load())
			assert.LessOrEqual(t, gauge.peak.Load(), int64(limit), "functions running at once")
			assert.Positive(t, gauge.peak.Load())
		}
	})
}

// TestTryGo: TryGo starts the function only while the group is below its
// limit and reports whether it did: it refuses while every slot is taken,
// succeeds again once a function returned and after Wait, and with a limit
// of 0 always refuses; without a limit it always starts the function.
func TestTryGo(t *testing.T) {
	eachImpl(t, func(t *testing.T, im impl) {
		gs, _ := im.each()
		for _, g := range gs {
			var refusedRan, ran atomic.Int64
			refused := func() error { refusedRan.Add(1); return nil }
			count := func() error { ran.Add(1); return nil }
			release := []chan struct{}{make(chan struct{}), make(chan struct{})}
			g.SetLimit(2)
			for _, r := range release {
				require.True(t, g.TryGo(func() error { <-r; return count() }))
			}
			assert.False(t, g.TryGo(refused), "TryGo with every slot taken")
			close(release[0])
			within(t, "a slot freed", func() {
				// The first function returns, and its slot frees
				// soon after: TryGo starts the next one then.
				for !g.TryGo(count) {
					runtime.Gosched()
				}
			})
			close(release[1])
			within(t, "Wait", func() { assert.NoError(t, g.Wait()) })
			assert.True(t, g.TryGo(count), "TryGo after Wait")
			within(t, "Wait", func() { assert.NoError(t, g.Wait()) })

			g.SetLimit(0)
			for range 100 {
				assert.False(t, g.TryGo(refused), "TryGo with a limit of 0")
			}
			g.SetLimit(-1)
			for range 100 {
				assert.True(t, g.TryGo(count), "TryGo without a limit")
			}
			within(t, "Wait", func() { assert.NoError(t, g.Wait()) })
			assert.Zero(t, refusedRan.Load(), "a function TryGo refused ran")
			assert.Equal(t, int64(104), ran.Load())
		}
	})
}

// TestSetLimitWhileActivePanics: setting a limit while functions counted
// against the current one are still running panics, with errgroup's
// message; removing the limit does not, and neither does setting one once
// Wait returned.
func TestSetLimitWhileActivePanics(t *testing.T) {
	eachImpl(t, func(t *testing.T, im impl) {
		gs, _ := im.each()
		for _, g := range gs {
			release := make(chan struct{})
			g.SetLimit(2)
			g.Go(func() error { <-release; return nil })
			assert.PanicsWithError(t, "errgroup: modify limit while 1 goroutines in the group are still active", func() { g.SetLimit(3) })
			assert.PanicsWithError(t, "errgroup: modify limit while 1 goroutines in the group are still active", func() { g.SetLimit(0) })
			assert.NotPanics(t, func() { g.SetLimit(-1) })
			close(release)
			within(t, "Wait", func() { assert.NoError(t, g.Wait()) })
			assert.NotPanics(t, func() { g.SetLimit(1) })
			g.Go(func() error { return nil })
			within(t, "Wait", func() { assert.NoError(t, g.Wait()) })
			assert.NotPanics(t, func() { g.SetLimit(4) })
		}
	})
}

// TestGoBlocksAtLimit: Go called while the group is at its limit returns
// only once a slot is free, so a function given to a group with a limit of
// 1 starts only after the one before it returned.
func TestGoBlocksAtLimit(t *testing.T) {
	eachImpl(t, func(t *testing.T, im impl) {
		gs, _ := im.each()
		for _, g := range gs {
			g.SetLimit(1)
			release, returned := make(chan struct{}), make(chan struct{})
			var firstDone, secondSawFirstDone atomic.Bool
			g.Go(func() error {
				<-release
				firstDone.Store(true)
				return nil
			})
			go func() {
				g.Go(func() error { secondSawFirstDone.Store(firstDone.Load()); return nil })
				close(returned)
			}()
			// Give a Go that does not block the chance to return.
			for range 100 {
				runtime.Gosched()
			}
			select {
			case <-returned:
				t.Error("Go returned while the only slot was taken")
			default:
			}
			close(release)
			within(t, "Go's return", func() { <-returned })
			assert.True(t, firstDone.Load(), "Go returned before the slot's holder did")
			within(t, "Wait", func() { assert.NoError(t, g.Wait()) })
			assert.True(t, secondSawFirstDone.Load(), "the second function started before the first returned")
		}
	})
}

// TestReuseAfterWait: a group may be given more functions after Wait
// returned; the next Wait waits for them, and returns the first error the
// group ever had. A WithContext group's context stays cancelled.
func TestReuseAfterWait(t *testing.T) {
	eachImpl(t, func(t *testing.T, im impl) {
		gs, ctxs := im.each()
		for i, g := range gs {
			errFirst, errLater := errors.New("first"), errors.New("later")
			var ran atomic.Int64
			for batch, err := range []error{nil, errFirst, nil, errLater} {
				for range 10 {
					g.Go(func() error { ran.Add(1); return nil })
				}
				g.Go(func() error { ran.Add(1); return err })
				want := errFirst
				if batch == 0 {
					want = nil
				}
				within(t, "Wait", func() { assert.Equal(t, want, g.Wait(), "batch %d", batch) })
				assert.Equal(t, int64(11*(batch+1)), ran.Load(), "functions run by batch %d", batch)
				if ctx := ctxs[i]; ctx != nil {
					assert.Equal(t, context.Canceled, context.Cause(ctx), "cancelled by the first Wait")
				}
			}
		}
	})
}
