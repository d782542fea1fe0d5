package blitz

import (
	"fmt"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
)

func TestForCoversEachIndexOnce(t *testing.T) {
	eachConfig(t, func(t *testing.T, p *Pool) {
		for _, c := range []struct{ lo, hi, grain int }{
			{0, 10000, 0}, {0, 10000, 1}, {0, 10000, 64}, {-50, 77, 0}, {5, 6, 0},
			{0, 1000, 100000}, {3, 3, 0}, {10, 0, 0}, {0, 1000, -5},
		} {
			n := max(c.hi-c.lo, 0)
			hits := make([]atomic.Int32, n)
			var calls atomic.Int64
			doW(t, p, func(w *Worker) int {
				For(w, c.lo, c.hi, c.grain, func(w *Worker, lo, hi int) {
					calls.Add(1)
					if lo >= hi || lo < c.lo || hi > c.hi {
						t.Errorf("For(%d,%d,%d): bad piece [%d,%d)", c.lo, c.hi, c.grain, lo, hi)
						return
					}
					if c.grain > 0 && hi-lo > c.grain {
						t.Errorf("For(%d,%d,%d): piece [%d,%d) exceeds the grain", c.lo, c.hi, c.grain, lo, hi)
					}
					for i := lo; i < hi; i++ {
						hits[i-c.lo].Add(1)
					}
				})
				return 0
			})
			for i := range hits {
				if h := hits[i].Load(); h != 1 {
					t.Fatalf("For(%d,%d,%d): index %d visited %d times", c.lo, c.hi, c.grain, i+c.lo, h)
				}
			}
			if n == 0 && calls.Load() != 0 {
				t.Errorf("For on an empty range called the body %d times", calls.Load())
			}
		}
	})
}

func TestMapReduce(t *testing.T) {
	eachConfig(t, func(t *testing.T, p *Pool) {
		for _, grain := range []int{0, 1, 7, 1 << 20} {
			sum := doW(t, p, func(w *Worker) int {
				return MapReduce(w, 0, 100000, grain, 0, func(_ *Worker, lo, hi int) int {
					s := 0
					for i := lo; i < hi; i++ {
						s += i
					}
					return s
				}, func(a, b int) int { return a + b })
			})
			wantSum := 0 // summed like the pool does, so it wraps alike on 32-bit
			for i := 0; i < 100000; i++ {
				wantSum += i
			}
			if sum != wantSum {
				t.Errorf("grain=%d: sum = %d, want %d", grain, sum, wantSum)
			}
			// A non-commutative reduce sees the pieces in index order.
			s := doW(t, p, func(w *Worker) string {
				return MapReduce(w, 0, 300, grain, "", func(_ *Worker, lo, hi int) string {
					out := ""
					for i := lo; i < hi; i++ {
						out += strconv.Itoa(i) + ","
					}
					return out
				}, func(a, b string) string { return a + b })
			})
			want := ""
			for i := 0; i < 300; i++ {
				want += strconv.Itoa(i) + ","
			}
			if s != want {
				t.Errorf("grain=%d: ordered reduce out of order", grain)
			}
		}
		if got := doW(t, p, func(w *Worker) string {
			return MapReduce(w, 5, 5, 0, "identity", func(*Worker, int, int) string { return "x" }, func(a, b string) string { return a + b })
		}); got != "identity" {
			t.Errorf("empty MapReduce = %q, want the identity", got)
		}
	})
}

func TestParallelPanics(t *testing.T) {
	withPool(t, []Option{WithWorkers(4)}, func(p *Pool) {
		for _, grain := range []int{0, 1} {
			v := catchPanic(func() {
				Do(p, func(w *Worker) int {
					For(w, 0, 1000, grain, func(_ *Worker, lo, hi int) {
						if lo <= 500 && 500 < hi {
							panic(fmt.Sprint("at ", 500))
						}
					})
					return 0
				})
			})
			if pe, ok := v.(*PanicError); !ok || pe.Value != "at 500" {
				t.Errorf("grain=%d: For panic = %v", grain, v)
			}
		}
		var visited atomic.Int64
		if !exitsGoroutine(t, func() {
			Do(p, func(w *Worker) int {
				For(w, 0, 1000, 10, func(_ *Worker, lo, hi int) {
					visited.Add(int64(hi - lo))
					if lo == 500 {
						runtime.Goexit()
					}
				})
				return 0
			})
		}) {
			t.Error("Goexit in a For body did not end the caller")
		}
		if visited.Load() != 1000 {
			t.Errorf("For with a Goexit visited %d indexes, want all 1000", visited.Load())
		}
		if v := catchPanic(func() { Do(p, func(w *Worker) int { For(w, 0, 1, 0, nil); return 0 }) }); v == nil {
			t.Error("For with a nil body did not panic")
		}
		if v := catchPanic(func() {
			Do(p, func(w *Worker) int { return MapReduce[int](w, 0, 1, 0, 0, nil, nil) })
		}); v == nil {
			t.Error("MapReduce with nil functions did not panic")
		}
	})
}
