package blitz

import (
	"context"
	"errors"
	"os"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The default pool is never closed, so its workers would be reported as
// leaks by the goleak checks of the tests that run after it in the same
// process. Its tests therefore run in a child process (this test binary,
// re-run with defaultChildEnv naming the scenario); the examples that use
// Default run after every test of the package, as the testing package
// runs examples last.
const defaultChildEnv = "BLITZ_TEST_DEFAULT_SCENARIO"

func TestDefault(t *testing.T) {
	if sc := os.Getenv(defaultChildEnv); sc != "" {
		switch sc {
		case "set":
			defaultSetFirst(t)
		case "lazy":
			defaultLazy(t)
		case "selfcall":
			defaultSelfCall(t)
		case "close":
			defaultRefusesClose(t)
		default:
			t.Fatalf("unknown scenario %q", sc)
		}
		return
	}
	for _, sc := range []string{"set", "lazy", "selfcall", "close"} {
		t.Run("scenario="+sc, func(t *testing.T) {
			// The child runs the scenario and passes (runChild checks).
			runChild(t, "TestDefault", defaultChildEnv+"="+sc)
		})
	}
}

// defaultSetFirst: SetDefaultOptions before any use decides the options; a
// failed call leaves the pool uncreated; later calls fail.
func defaultSetFirst(t *testing.T) {
	err := SetDefaultOptions(WithWorkers(0))
	require.Error(t, err)
	require.NotErrorIs(t, err, ErrDefaultStarted)
	require.Nil(t, defaultPool.Load(), "a failed SetDefaultOptions created the pool")

	require.NoError(t, SetDefaultOptions(WithWorkers(3)))
	p := Default()
	assert.Equal(t, 3, p.Workers())
	assert.Equal(t, defaultName, p.Name())
	assert.Equal(t, ParkingPortable, p.Parking())
	require.ErrorIs(t, SetDefaultOptions(WithWorkers(2)), ErrDefaultStarted)
	assert.Equal(t, 3, Default().Workers(), "a refused SetDefaultOptions changed the pool")
	assert.Equal(t, 6, treeSum(Default(), []int{1, 2, 3}))
}

// defaultLazy: the first Default creates the pool with GOMAXPROCS workers,
// once, however many goroutines race to it.
func defaultLazy(t *testing.T) {
	const n = 8
	got := make([]*Pool, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = Default()
		}()
	}
	wg.Wait()
	for _, p := range got {
		require.Same(t, got[0], p)
	}
	assert.Equal(t, runtime.GOMAXPROCS(0), got[0].Workers())
	assert.Equal(t, ParkingPortable, got[0].Parking())
	err := SetDefaultOptions()
	require.True(t, errors.Is(err, ErrDefaultStarted), "SetDefaultOptions after Default = %v", err)
	require.NoError(t, got[0].Go(func(*Worker) {}))
}

// defaultRefusesClose: Close and Shutdown on the default pool return
// ErrDefaultPool and leave it open, so that the layer calls that share it
// go on working.
func defaultRefusesClose(t *testing.T) {
	p := Default()
	require.ErrorIs(t, p.Close(), ErrDefaultPool)
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	require.ErrorIs(t, p.Shutdown(ctx), ErrDefaultPool)
	require.ErrorIs(t, p.Shutdown(cancelled()), ErrDefaultPool)
	var nilCtx context.Context
	require.PanicsWithValue(t, "blitz: Pool.Shutdown: nil context", func() { p.Shutdown(nilCtx) })
	assert.Equal(t, 6, treeSum(Default(), []int{1, 2, 3}))
	assert.Equal(t, 10_000, treeSum(Default(), slices.Repeat([]int{1}, 10_000)))
	ran := make(chan struct{})
	require.NoError(t, Default().Go(func(*Worker) { close(ran) }))
	<-ran
	assert.Equal(t, 7, Do(Default(), func(*Worker) int { return 7 }))
	require.ErrorIs(t, Default().Close(), ErrDefaultPool, "a second Close")
}
