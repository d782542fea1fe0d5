package blitz

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/blitz-go/blitz/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lockingVariants are the pool configurations whose workers lock OS threads
// on this system.
func lockingVariants() map[string][]Option {
	vs := map[string][]Option{}
	if runtime.GOOS == "linux" {
		vs["parking=futex"] = []Option{WithParking(ParkingFutex)}
	}
	if topology.PinSupported {
		vs["parking=portable/placement=compact"] = []Option{WithParking(ParkingPortable), WithPlacement(topology.PolicyCompact)}
	}
	return vs
}

// TestThreadLimit checks that New refuses more workers locked to OS threads
// than half the runtime's thread limit, with an error wrapping
// ErrThreadLimit that names the limit, before it starts anything (no
// goroutine, no reservation left behind).
func TestThreadLimit(t *testing.T) {
	vs := lockingVariants()
	if len(vs) == 0 {
		t.Skip("no backend locks OS threads on this system")
	}
	defer verifyNone(t)
	limit := threadLimit() / 2
	for name, opts := range vs {
		p, err := New(append([]Option{WithWorkers(limit + 1)}, opts...)...)
		if p != nil {
			p.Close() // accepted by mistake: close it before failing
		}
		require.ErrorIs(t, err, ErrThreadLimit, name)
		require.Nil(t, p, name)
		assert.Contains(t, err.Error(), "debug.SetMaxThreads", name)
		assert.Contains(t, err.Error(), strconv.Itoa(limit+1)+" workers", name)
		assert.True(t, strings.HasPrefix(err.Error(), "blitz: New: "), "%s: %v", name, err)
	}
	assert.Zero(t, reservedThreads(), "threads reserved after refusals")
}

// TestResizeThreadLimit checks that Resize refuses to grow a pool whose
// workers lock OS threads past the budget with an error that names Resize
// and wraps ErrThreadLimit, and changes nothing: the size, the reservation
// and the workers stay as they were.
func TestResizeThreadLimit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("futex parking is Linux only")
	}
	t.Cleanup(func() { verifyNone(t) }) // after the pool's Close
	limit := threadLimit() / 2
	before := reservedThreads()
	p := newPoolT(t, WithParking(ParkingFutex), WithWorkers(2))
	err := p.Resize(limit + 1)
	require.ErrorIs(t, err, ErrThreadLimit)
	assert.True(t, strings.HasPrefix(err.Error(), "blitz: Pool.Resize: "), "%v", err)
	assert.Contains(t, err.Error(), strconv.Itoa(limit-1)+" workers locked to OS threads (futex parking) and 2 already held")
	assert.Equal(t, 2, p.Workers())
	assert.Len(t, p.workerList(), 2, "workers made by a refused Resize")
	assert.Equal(t, before+2, reservedThreads())
	assert.Equal(t, 2, Do(p, func(w *Worker) int { return len(Broadcast(w, func(*Worker) int { return 0 })) }))
}

// TestThreadLimitPortable checks that portable parking without a placement
// is not limited by the thread budget: its workers are plain goroutines.
func TestThreadLimitPortable(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("starts thousands of goroutines")
	}
	limit := threadLimit() / 2
	withPool(t, []Option{WithWorkers(limit + 1), WithParking(ParkingPortable)}, func(p *Pool) {
		assert.Equal(t, limit+1, p.Workers())
		assert.Zero(t, reservedThreads(), "threads reserved by a portable pool")
	})
}

// TestThreadLimitAcrossPools checks that the budget counts the locked
// workers of every open pool: with the runtime's limit lowered (to a value
// far above the threads in use, so that nothing can reach it), a pool that
// takes most of the budget makes New refuse a second one until it is
// closed.
func TestThreadLimitAcrossPools(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("futex parking is Linux only")
	}
	defer verifyNone(t)
	inUse := threadsInUse(t)
	// Half of it is the budget: inUse*2+200 locked workers. With all of
	// them running the process holds about 3*inUse+200 threads, well
	// under the lowered limit.
	lowered := 4*inUse + 400
	prev := debug.SetMaxThreads(lowered)
	defer debug.SetMaxThreads(prev)
	budget := lowered / 2
	futex := WithParking(ParkingFutex)

	a, err := New(WithWorkers(budget-8), futex)
	require.NoError(t, err)
	assert.Equal(t, budget-8, reservedThreads())
	_, err = New(WithWorkers(16), futex)
	require.ErrorIs(t, err, ErrThreadLimit)
	assert.Contains(t, err.Error(), "and "+strconv.Itoa(budget-8)+" already held by open pools")
	b, err := New(WithWorkers(8), futex) // exactly the rest
	require.NoError(t, err)
	assert.Equal(t, budget, reservedThreads())
	c, err := New(WithWorkers(16), WithParking(ParkingPortable)) // locks nothing
	require.NoError(t, err)

	for _, p := range []*Pool{c, b, a} {
		var closeErr error
		within(t, "Close", func() { closeErr = p.Close() })
		require.NoError(t, closeErr)
	}
	assert.Zero(t, reservedThreads(), "threads reserved after Close")
	d, err := New(WithWorkers(16), futex)
	require.NoError(t, err, "New after the budget was released")
	within(t, "Close", func() { err = d.Close() })
	require.NoError(t, err)
}

// threadLimit reads the runtime's thread limit as New does, under the
// budget's lock (runtimeMaxThreads sets the limit for a moment).
func threadLimit() int {
	threadBudget.mu.Lock()
	defer threadBudget.mu.Unlock()
	return runtimeMaxThreads()
}

// reservedThreads is the budget the open pools hold.
func reservedThreads() int {
	threadBudget.mu.Lock()
	defer threadBudget.mu.Unlock()
	return threadBudget.locked
}

// threadsInUse reads the process's thread count from /proc/self/status.
func threadsInUse(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			require.NoError(t, err)
			return n
		}
	}
	t.Fatal("no Threads line in /proc/self/status")
	return 0
}
