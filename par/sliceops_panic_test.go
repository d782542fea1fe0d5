package par

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sliceOpsCalls are ZipWith, Unzip, Windows, MapWindows, FlatMap,
// FilterMap, PartitionMap and Fold, each calling cb once per element (for
// Fold, per fold step) on s.
func sliceOpsCalls(s []int, cb func(x int)) map[string]func(r blitz.Runner) {
	return map[string]func(r blitz.Runner){
		"ZipWith": func(r blitz.Runner) { ZipWith(r, s, s, func(x, _ int) int { cb(x); return x }) },
		"Unzip":   func(r blitz.Runner) { Unzip(r, s, func(x int) (int, int) { cb(x); return x, x }) },
		"Windows": func(r blitz.Runner) { Windows(r, s, 1, func(_ int, w []int) { cb(w[0]) }) },
		"MapWindows": func(r blitz.Runner) {
			MapWindows(r, s, 1, func(w []int) int { cb(w[0]); return 0 })
		},
		"FlatMap":   func(r blitz.Runner) { FlatMap(r, s, func(x int) []int { cb(x); return []int{x} }) },
		"FilterMap": func(r blitz.Runner) { FilterMap(r, s, func(x int) (int, bool) { cb(x); return x, true }) },
		"PartitionMap": func(r blitz.Runner) {
			PartitionMap(r, s, func(x int) (int, int, bool) { cb(x); return x, x, x%2 == 0 })
		},
		"Fold": func(r blitz.Runner) {
			Fold(r, s, func() int { return 0 }, func(a, x int) int { cb(x); return a + x }, func(a, b int) int { return a + b })
		},
	}
}

func TestSliceOpsPanicsPropagate(t *testing.T) {
	eachLayerConfig(t, func(t *testing.T, lr layerRunner) {
		for _, n := range []int{1, 100, 50_000} {
			at := n / 3
			s := make([]int, n)
			for i := range s {
				s[i] = i
			}
			want := fmt.Sprint("boom at ", at)
			for name, call := range sliceOpsCalls(s, func(x int) {
				if x == at {
					panic(fmt.Sprint("boom at ", x))
				}
			}) {
				v := layerPanic(t, lr, call)
				t.Run(name, func(t *testing.T) { requirePanicError(t, v, want) })
			}
		}
	})
}

// TestSliceOpsPanicStorm checks the panic rule under load: while four
// goroutines call each function at once on one pool, with a callback that
// panics at every 97th element (so several pieces of a call panic), every
// call panics with a *PanicError only once no callback of it runs any more.
func TestSliceOpsPanicStorm(t *testing.T) {
	n := 1 << 15
	if testing.Short() {
		n = 1 << 12
	}
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	eachConfig(t, func(t *testing.T, p *blitz.Pool) {
		var calls, panics atomic.Int64
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var running, raised atomic.Int64
				cb := func(x int) {
					running.Add(1)
					defer running.Add(-1)
					if x%97 == 0 {
						raised.Add(1)
						panic(fmt.Sprint("boom at ", x))
					}
				}
				for name, call := range sliceOpsCalls(s, cb) {
					raised.Store(0)
					var r blitz.Runner = p
					if g%2 == 1 {
						r = MinLen(p, 300)
					}
					v := catchPanic(func() { call(r) })
					// Every callback of the call has returned: none runs
					// on after the panic reached the caller.
					assert.Zerof(t, running.Load(), "%s: callbacks still running after the panic", name)
					pe, ok := v.(*blitz.PanicError)
					if assert.Truef(t, ok, "%s: panic %v (%T), want a *PanicError", name, v, v) {
						assert.Contains(t, pe.Value, "boom at ", name)
					}
					calls.Add(1)
					panics.Add(raised.Load())
				}
			}()
		}
		within(t, "storm", wg.Wait)
		// Some call had several panicking pieces: the path under test ran.
		require.Greater(t, panics.Load(), calls.Load(), "no call had two pieces panic")
	})
}
