package par

import (
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/blitz-go/blitz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSubRunner: given a *blitz.Sub, a function of the package runs as one
// task of the Sub (SubStats.Submitted counts one per call, whatever it
// forks), within the Sub's limit: with a limit of one, calls from several
// goroutines run one at a time, and their results are those of the pool.
// MapSeq submits each item's task to the Sub. A closed Sub is refused at
// every input size, as a closed pool is.
func TestSubRunner(t *testing.T) {
	p, err := blitz.New(blitz.WithWorkers(4))
	require.NoError(t, err)
	defer func() { require.NoError(t, p.Close()) }()
	s, err := p.Sub(1, 64)
	require.NoError(t, err)

	xs := make([]int, 1<<14)
	for i := range xs {
		xs[i] = i
	}
	want := Sum(p, xs)
	const callers = 4
	var (
		mu       sync.Mutex
		in, most int
		wg       sync.WaitGroup
	)
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := MapReduce(s, 0, len(xs), 256, 0, func(w *blitz.Worker, lo, hi int) int {
				return Sum(w, xs[lo:hi])
			}, func(a, b int) int { return a + b })
			assert.Equal(t, want, got)
			// A call runs inside the Sub's one slot: no other call of
			// the Sub is under way meanwhile.
			For(s, 0, 1, 1, func(*blitz.Worker, int, int) {
				mu.Lock()
				in++
				most = max(most, in)
				mu.Unlock()
				for range 100 {
					runtime.Gosched() // let the other callers try
				}
				mu.Lock()
				in--
				mu.Unlock()
			})
		}()
	}
	wg.Wait()
	assert.Equal(t, 1, most, "calls under way at once in a Sub of limit 1")
	st := s.Stats()
	assert.Equal(t, uint64(2*callers), st.Submitted, "one task of the Sub per call")
	assert.Zero(t, st.Running)

	var got []int
	for v := range MapSeq(s, slices.Values([]int{1, 2, 3}), 2, func(x int) int { return 10 * x }) {
		got = append(got, v)
	}
	assert.Equal(t, []int{10, 20, 30}, got)
	assert.Greater(t, s.Stats().Submitted, uint64(2*callers), "MapSeq's items went to the Sub")

	require.NoError(t, s.Close())
	for _, n := range []int{0, 1, len(xs)} {
		v := catchPanic(func() { Sum(s, xs[:n]) })
		err, ok := v.(error)
		require.True(t, ok, "Sum of %d on a closed Sub: %v", n, v)
		assert.ErrorIs(t, err, blitz.ErrClosed)
	}
}
