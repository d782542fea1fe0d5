package par

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/blitz-go/blitz"
)

// The overhead of the error forms beside their plain counterparts, and the
// ordered stream beside a sequential loop over the same sequence, on a pool
// of 2 workers (portable parking, Default's):
//
//	go test -run '^$' -bench 'ErrLoops|MapSeq' -count 10 ./par | tee raw.txt
//	benchstat -col /impl raw.txt

const benchErrN = 1 << 20

func benchPool(b *testing.B, workers int) *blitz.Pool {
	p, err := blitz.New(blitz.WithWorkers(workers))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	return p
}

// sink keeps the benchmarks' results alive.
var sink int

func BenchmarkErrLoops(b *testing.B) {
	p := benchPool(b, 2)
	s := make([]int, benchErrN)
	for i := range s {
		s[i] = i
	}
	ctx := context.Background()
	f := func(x int) int { return x*7 + 1 }
	b.Run("op=for-each/impl=ForEach", func(b *testing.B) {
		for b.Loop() {
			ForEach(p, s, func(x int) { _ = f(x) })
		}
	})
	b.Run("op=for-each/impl=ForEachErr", func(b *testing.B) {
		for b.Loop() {
			if err := ForEachErr(ctx, p, s, func(_ context.Context, x int) error { _ = f(x); return nil }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("op=map/impl=Map", func(b *testing.B) {
		for b.Loop() {
			sink += len(Map(p, s, f))
		}
	})
	b.Run("op=map/impl=MapErr", func(b *testing.B) {
		for b.Loop() {
			out, err := MapErr(ctx, p, s, func(_ context.Context, x int) (int, error) { return f(x), nil })
			if err != nil {
				b.Fatal(err)
			}
			sink += len(out)
		}
	})
	b.Run("op=map-reduce/impl=MapReduce", func(b *testing.B) {
		for b.Loop() {
			sink += MapReduce(p, 0, len(s), 0, 0, func(_ *blitz.Worker, lo, hi int) int { return hi - lo }, func(a, b int) int { return a + b })
		}
	})
	b.Run("op=map-reduce/impl=MapReduceErr", func(b *testing.B) {
		for b.Loop() {
			v, err := MapReduceErr(ctx, p, 0, len(s), 0, 0, func(_ context.Context, _ *blitz.Worker, lo, hi int) (int, error) { return hi - lo, nil },
				func(a, b int) int { return a + b })
			if err != nil {
				b.Fatal(err)
			}
			sink += v
		}
	})
}

// spin is work of about cost iterations of a multiply-add chain.
func spin(x, cost int) int {
	u := uint64(x)
	for range cost {
		u = u*6364136223846793005 + 1442695040888963407
	}
	return int(u)
}

// BenchmarkMapSeq maps a sequence of 100,000 ints, in order, with a
// callback of cost multiply-adds: impl=seq is the plain loop over the
// sequence, impl=MapSeq the stream with a window of 8 per worker.
func BenchmarkMapSeq(b *testing.B) {
	const n = 100_000
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	for _, workers := range []int{1, 2} {
		p := benchPool(b, workers)
		for _, cost := range []int{10, 1000} {
			f := func(x int) int { return spin(x, cost) }
			b.Run(fmt.Sprintf("cost=%d/workers=%d/impl=seq", cost, workers), func(b *testing.B) {
				for b.Loop() {
					for x := range slices.Values(s) {
						sink += f(x)
					}
				}
			})
			b.Run(fmt.Sprintf("cost=%d/workers=%d/impl=MapSeq", cost, workers), func(b *testing.B) {
				for b.Loop() {
					for v := range MapSeq(p, slices.Values(s), 8*workers, f) {
						sink += v
					}
				}
			})
		}
	}
}
