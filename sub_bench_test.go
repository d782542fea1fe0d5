package blitz

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// BenchmarkSubGo is the cost of a Sub on the submission path: 10,000 Go
// tasks from one goroutine, waited for with a WaitGroup, straight into the
// pool (via=pool) and through a Sub whose limit is the worker count
// (via=sub), which queues most of them and runs them back to back on the
// workers that finish the ones before.
func BenchmarkSubGo(b *testing.B) {
	const tasks = 10000
	for _, workers := range []int{1, 2} {
		for _, via := range []string{"pool", "sub"} {
			b.Run(fmt.Sprintf("workers=%d/via=%s", workers, via), func(b *testing.B) {
				p, err := New(WithWorkers(workers))
				if err != nil {
					b.Fatal(err)
				}
				defer p.Close()
				s, err := p.Sub(workers, tasks)
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				var wg sync.WaitGroup
				task := func(*Worker) { wg.Done() }
				b.ReportAllocs()
				for b.Loop() {
					wg.Add(tasks)
					for range tasks {
						if via == "pool" {
							_ = p.Go(task)
						} else {
							_ = s.Go(task)
						}
					}
					wg.Wait()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/tasks, "ns/task")
			})
		}
	}
}

// BenchmarkSubTryDo is the round trip of TryDo given a Sub against TryDo
// given the pool, from one goroutine at a time (an idle server's request).
func BenchmarkSubTryDo(b *testing.B) {
	for _, via := range []string{"pool", "sub"} {
		b.Run("via="+via, func(b *testing.B) {
			p, err := New(WithWorkers(2), WithCapacity(64))
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			s, err := p.Sub(1, 64)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			fn := func(*Worker) int { return 1 }
			b.ReportAllocs()
			for b.Loop() {
				if via == "pool" {
					_, _ = TryDo(ctx, p, fn)
				} else {
					_, _ = TryDo(ctx, s, fn)
				}
			}
		})
	}
}
